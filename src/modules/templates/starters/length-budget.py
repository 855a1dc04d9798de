from oodle_eval.v1 import metrics


def evaluate(ctx):
    # within_length (BOOLEAN) and word_count (lower is better).
    return EvaluationResult(scores=metrics.length_budget(ctx, **ctx.params))
