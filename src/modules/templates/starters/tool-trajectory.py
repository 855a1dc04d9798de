from oodle_eval.v1 import metrics


def evaluate(ctx):
    # trajectory_match (BOOLEAN): the agent called the expected tools (by mode: strict,
    # unordered, subset or superset).
    return EvaluationResult(scores=metrics.tool_trajectory(ctx, **ctx.params))
