# code evaluator
from shared.acme_policy import policy_check
from oodle_eval.v1 import metrics


def evaluate(ctx):
    return EvaluationResult(scores=policy_check(ctx) + metrics.pii_leak(ctx))
