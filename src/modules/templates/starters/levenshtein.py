from oodle_eval.v1 import metrics


def evaluate(ctx):
    # levenshtein_ratio (0 to 1). With no reference, the dataset item's expected output is used.
    return EvaluationResult(scores=metrics.levenshtein_ratio(ctx, **ctx.params))
