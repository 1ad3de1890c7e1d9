"""Input checks shared by every calculator; each raises :class:`~calculators.errors.InputError`.

>>> positive_int("batch", 4, maximum=1024)
4
>>> positive_int("batch", 0, maximum=1024)
Traceback (most recent call last):
...
calculators.errors.InputError: batch: got 0; expected an integer from 1 to 1024
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, TypeVar

from calculators.errors import InputError, UnknownNameError

E = TypeVar("E")


def positive_int(field: str, value: Any, *, maximum: int, minimum: int = 1) -> int:
    """Return ``value`` as an int if it is an integer in ``[minimum, maximum]``."""
    accepted = f"an integer from {minimum} to {maximum}"
    if isinstance(value, bool):
        raise InputError(field, value, accepted)
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise InputError(field, value, accepted)
        value = int(value)
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise InputError(field, value, accepted) from None
    if not isinstance(value, int) or not minimum <= value <= maximum:
        raise InputError(field, value, accepted)
    return value


def nonnegative_int(field: str, value: Any, *, maximum: int) -> int:
    """Return ``value`` as an int if it is an integer in ``[0, maximum]``."""
    return positive_int(field, value, maximum=maximum, minimum=0)


def finite_float(field: str, value: Any, *, minimum: float, maximum: float,
                 allow_minimum: bool = True) -> float:
    """Return ``value`` as a float if it is finite and within the given range."""
    low = "from" if allow_minimum else "above"
    accepted = f"a number {low} {minimum:g} to {maximum:g}"
    if isinstance(value, bool):
        raise InputError(field, value, accepted)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(field, value, accepted) from None
    if not math.isfinite(number) or number > maximum:
        raise InputError(field, value, accepted)
    if number < minimum or (number == minimum and not allow_minimum):
        raise InputError(field, value, accepted)
    return number


def flag(field: str, value: Any) -> bool:
    """Return ``value`` as a bool; accepts True/False and the strings true/false/1/0/yes/no/on/off.

    >>> flag("grad_checkpointing", "false")
    False
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        key = value.strip().lower()
        if key in ("true", "1", "yes", "on"):
            return True
        if key in ("false", "0", "no", "off", ""):
            return False
    raise InputError(field, value, "true or false")


def one_of(field: str, value: Any, choices: Iterable[E]) -> E:
    """Return the choice equal to ``value`` (enum members also match their ``.value``)."""
    options = list(choices)
    for option in options:
        if value == option or value == getattr(option, "value", object()):
            return option
    names = [str(getattr(option, "value", option)) for option in options]
    raise UnknownNameError(field, value, names)
