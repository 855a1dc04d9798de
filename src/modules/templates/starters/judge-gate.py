from oodle_eval.v1 import metrics


def evaluate(ctx):
    # needs_judge (BOOLEAN): True when the cheap checks cannot decide. Gate an LLM judge on it
    # (dependencies: [{evaluator: "<this one>", gate: {score: "needs_judge"}}]) so the judge runs
    # only on the replies left unsure: not a refusal, and none of the phrases that settle it.
    refused = metrics.refusal(ctx)[0].value
    settled = metrics.keyword_check(ctx, required=ctx.params["required"], mode="any")[0].value
    sure = bool(refused) or (bool(ctx.params["required"]) and bool(settled))
    return EvaluationResult(scores=[Score(name="needs_judge", value=not sure, comment="decided by the cheap checks" if sure else "left to the judge")])
