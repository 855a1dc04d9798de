from oodle_eval.v1 import metrics


def evaluate(ctx):
    # exact_match (BOOLEAN). With no reference, the dataset item's expected output is used.
    return EvaluationResult(scores=metrics.exact_match(ctx, **ctx.params))
