"""``opik.exceptions`` stand-in."""


class OpikException(Exception):
    """Base class of Opik errors."""


class MetricComputationError(OpikException):
    """A metric could not compute its score (as in Opik)."""
