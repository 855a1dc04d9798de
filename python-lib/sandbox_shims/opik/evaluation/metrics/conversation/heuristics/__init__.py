"""``opik.evaluation.metrics.conversation.heuristics`` stand-in: the model-free conversation metrics."""
