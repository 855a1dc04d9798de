"""What a score's value may be, and the plain value each kind converts to (docs/scores.md § Values).

The service stores a value as JSON: a boolean, a number (a 64-bit float, IEEE 754 binary64, as
JavaScript and Postgres ``double precision`` hold it), a string or null. ``plain_value`` turns
what an evaluator returns into one of ``bool``, ``int``, ``float``, ``str`` or ``None``, or
raises ``ValueProblem`` saying why it cannot:

* ``bool`` and ``numpy.bool_`` -> ``bool``.
* Integers (``numbers.Integral``: ``int``, ``numpy.int64``, ``numpy.uint8``...) -> ``int``, when the
  64-bit float holds the integer exactly: every integer up to 2**53 in magnitude, and beyond it
  only those the float holds (2**60 yes, 2**53 + 1 no). Another is refused rather than rounded:
  an integer is a count, and a count that changes on the way is wrong.
* Other real numbers (``numbers.Real``: ``float``, ``numpy.float32``, ``numpy.longdouble``,
  ``fractions.Fraction``...; and ``decimal.Decimal``) -> ``float(value)``: the nearest 64-bit float,
  the same rounding that the literal ``0.1`` gets, so "exactly" for them means correctly rounded.
  NaN and infinities (``Decimal('NaN')``, ``Decimal('sNaN')``, ``Decimal('Infinity')`` too) and
  values beyond the float's range (``Decimal('1e400')``, ``Fraction(10**400)``) are refused.
* ``str`` and ``None`` as they are; a subclass of ``str`` (``numpy.str_``) -> its text as a ``str``.
* Refused: complex numbers (``complex``, ``numpy.complex128``: no order, so no score; give
  ``z.real`` or ``abs(z)``), ``numpy.ndarray`` of any shape (a score holds one number; a 0-d array
  gives it with ``.item()``), ``numpy.datetime64`` / ``numpy.timedelta64`` (a time, not a number),
  and any other type.

numpy and decimal are looked up in ``sys.modules`` and never imported here: a value of theirs can
exist only once user code has imported them.
"""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any

ScoreValue = bool | int | float | str | None
EXACT_INTEGER_LIMIT = 2**53
"""Every integer of at most this magnitude is exactly a 64-bit float (the 53-bit significand)."""

_PLAIN = (bool, int, float, str, type(None))


class ValueProblem(ValueError):
    """A value that is no score value; the message says why, in words that follow "value"."""


def type_name(value: Any) -> str:
    """The value's type as a user would import it: ``int``, ``numpy.int64``, ``decimal.Decimal``."""
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _numpy() -> Any:
    return sys.modules.get("numpy")


def _is_numpy_bool(value: Any) -> bool:
    np = _numpy()
    return np is not None and isinstance(value, np.bool_)


def _is_decimal(value: Any) -> bool:
    decimal = sys.modules.get("decimal")
    return decimal is not None and isinstance(value, decimal.Decimal)


def infer_data_type(value: Any) -> str | None:
    """The data type a value implies: a boolean -> BOOLEAN, any number -> NUMERIC, a string ->
    CATEGORICAL; None (no value, or a type that is no score value) -> None."""
    if isinstance(value, bool) or _is_numpy_bool(value):
        return "BOOLEAN"
    if isinstance(value, str):
        return "CATEGORICAL"
    if isinstance(value, numbers.Number) or _is_decimal(value):
        return "NUMERIC"
    return None


def _integer(value: Any) -> int:
    number = int(value)
    if -EXACT_INTEGER_LIMIT <= number <= EXACT_INTEGER_LIMIT:
        return number
    try:
        exact = float(number) == number
    except OverflowError:
        raise ValueProblem(
            f"{type_name(value)} of {number.bit_length()} bits is beyond the range of a 64-bit float (about ±1.8e308)"
        ) from None
    if not exact:
        raise ValueProblem(
            f"{type_name(value)} {number} has no exact 64-bit float (integers are exact up to 2**53 = {EXACT_INTEGER_LIMIT}): "
            f"pass float(value) to store the nearest one, {float(number)!r}"
        )
    return number


def _beyond(value: Any) -> ValueProblem:
    return ValueProblem(f"{type_name(value)} is beyond the range of a 64-bit float (about ±1.8e308)")


def _real(value: Any) -> float:
    """``float(value)``, refusing NaN, infinities and values beyond the float's range."""
    if _is_decimal(value) and not value.is_finite():  # (float() raises on a signaling NaN)
        raise ValueProblem(f"must be finite, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        raise _beyond(value) from None
    if math.isfinite(number):
        return number
    np = _numpy()
    if _is_decimal(value) or np is not None and isinstance(value, np.generic) and bool(np.isfinite(value)):
        raise _beyond(value)  # finite in its own type (Decimal('1e400'), a long double), infinite as a float
    raise ValueProblem(f"must be finite, got {value!r}")


def plain_value(value: Any) -> ScoreValue:
    """The plain ``bool`` / ``int`` / ``float`` / ``str`` / ``None`` that ``value`` converts to
    (rules in the module docstring).

    Raises:
        ValueProblem: the value is of no score type or does not convert; the message names the type.
    """
    cls = type(value)
    if cls in _PLAIN:
        if cls is int and not -EXACT_INTEGER_LIMIT <= value <= EXACT_INTEGER_LIMIT:
            return _integer(value)
        if cls is float and not math.isfinite(value):
            raise ValueProblem(f"must be finite, got {value}")
        return value
    if isinstance(value, str):  # a subclass (numpy.str_): its text as a plain str
        return str.__str__(value)
    np = _numpy()
    if np is not None:
        if isinstance(value, np.bool_):
            return bool(value)
        if isinstance(value, np.ndarray):
            hint = "take it with .item()" if value.ndim == 0 else "reduce it (float(a.mean())) or write one score per element"
            raise ValueProblem(f"must be one number, got a numpy.ndarray of shape {value.shape}: {hint}")
        if isinstance(value, (np.datetime64, np.timedelta64)):
            raise ValueProblem(f"must be a number, got {type_name(value)} (a time): convert it, e.g. to seconds")
    if _is_decimal(value):
        return _real(value)
    if isinstance(value, numbers.Integral):
        return _integer(value)
    if isinstance(value, numbers.Real):
        return _real(value)
    if isinstance(value, numbers.Complex):
        raise ValueProblem(f"must be a real number, got {type_name(value)}: give its real part (z.real) or its magnitude (abs(z))")
    raise ValueProblem(f"must be a bool, a number, a string or None, got {type_name(value)}")
