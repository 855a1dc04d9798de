from oodle_eval.v1 import metrics


def evaluate(ctx):
    # readability_ok (BOOLEAN), reading_ease (0 to 100) and grade_level (lower is better).
    return EvaluationResult(scores=metrics.readability(ctx, **ctx.params))
