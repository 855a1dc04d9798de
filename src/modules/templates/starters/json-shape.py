from oodle_eval.v1 import metrics


def evaluate(ctx):
    # is_json (BOOLEAN), and has_required_keys (BOOLEAN) when required_keys is set.
    return EvaluationResult(scores=metrics.json_validity(ctx, **ctx.params))
