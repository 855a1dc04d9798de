# shared library "acme_policy"
from oodle_eval.v1 import metrics

BANNED = ["guarantee", "risk-free", "cannot lose"]


def policy_check(ctx):
    return metrics.keyword_check(ctx, forbidden=BANNED, name="policy_ok")
