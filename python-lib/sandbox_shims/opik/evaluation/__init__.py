"""``opik.evaluation`` stand-in: only the ``metrics`` subpackage is provided."""
