from oodle_eval.v1 import metrics


def evaluate(ctx):
    # refused (BOOLEAN, lower is better): the reply declines to answer.
    return EvaluationResult(scores=metrics.refusal(ctx, **ctx.params))
