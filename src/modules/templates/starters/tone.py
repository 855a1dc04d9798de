from oodle_eval.v1 import metrics


def evaluate(ctx):
    # tone_ok (BOOLEAN): sentiment, shouting and exclamation marks within the thresholds.
    return EvaluationResult(scores=metrics.tone(ctx, **ctx.params))
