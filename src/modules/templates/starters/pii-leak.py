from oodle_eval.v1 import metrics


def evaluate(ctx):
    # pii_free (BOOLEAN): no e-mail address, credit card, US SSN, IP address, IBAN or phone
    # number in the reply. entities limits the check to some of these types.
    return EvaluationResult(scores=metrics.pii_leak(ctx, **ctx.params))
