from oodle_eval.v1 import combine, metrics


def evaluate(ctx):
    # grounded / grounding, numbers_supported and citations_ok, plus rag_ok when all pass.
    p = ctx.params
    grounded = metrics.grounding(ctx, threshold=p["threshold"], context_key=p["context_key"])
    numbers = metrics.unsupported_numbers(ctx, context_key=p["context_key"])
    citations = metrics.citation_check(
        ctx,
        require_every_sentence=p["require_every_sentence"],
        context_key=p["context_key"],
    )

    checks = grounded + numbers + citations
    primary = [
        grounded["grounded"],
        numbers["numbers_supported"],
        citations["citations_ok"],
    ]
    return EvaluationResult(scores=checks + [combine.all_pass(primary, name="rag_ok")])
