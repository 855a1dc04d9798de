from oodle_eval.v1 import metrics


def evaluate(ctx):
    # keywords_ok (BOOLEAN): the required terms are present (all or any, by mode)
    # and no forbidden term is.
    return EvaluationResult(scores=metrics.keyword_check(ctx, **ctx.params))
