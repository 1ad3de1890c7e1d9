"""Errors raised for bad input, with messages that name the field and the accepted range.

Every public function validates its inputs and raises a subclass of
:class:`CalculatorError` (itself a :class:`ValueError`), so callers can catch one type.
The CLI prints ``str(error)`` and exits non-zero; the browser widget shows it next to
the field named by :attr:`InputError.field`.

>>> try:
...     raise InputError("batch", -1, "an integer from 1 to 1048576")
... except CalculatorError as error:
...     print(error)
batch: got -1; expected an integer from 1 to 1048576
"""

from __future__ import annotations

from typing import Any


class CalculatorError(ValueError):
    """Base class of every error this package raises for bad input."""


class InputError(CalculatorError):
    """A named input is out of range, of the wrong type, or not one of the choices."""

    def __init__(self, field: str, value: Any, accepted: str) -> None:
        self.field = field
        self.value = value
        self.accepted = accepted
        super().__init__(f"{field}: got {shown(value)}; expected {accepted}")

    def renamed(self, field: str) -> InputError:
        """The same error naming ``field`` (the flag or form label the user typed) instead.

        >>> print(InputError("factor", -1, "a number from 0 to 64").renamed("--host-ram-factor"))
        --host-ram-factor: got -1; expected a number from 0 to 64
        """
        return InputError(field, self.value, self.accepted)


#: Longest rendering of a bad value in an error message, in characters.
MAX_SHOWN_CHARS = 120


def shown(value: Any) -> str:
    """``repr(value)`` for an error message, cut to :data:`MAX_SHOWN_CHARS`; never raises.

    An integer past Python's 4,300-digit conversion limit has no ``repr``; it is described.

    >>> shown(10**5000)
    'an integer of 5001 digits'
    >>> shown("9" * 500)[-22:]
    '99... (500 characters)'
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        digits = len(str(abs(value))) if value.bit_length() < 14_000 else int(value.bit_length() * 0.30103) + 1
        return f"an integer of {digits} digits" if digits > 30 else repr(value)
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a message must never fail
        return f"a {type(value).__name__}"
    if len(text) > MAX_SHOWN_CHARS:
        size = f"{len(value):,} characters" if isinstance(value, str) else type(value).__name__
        return f"{text[:MAX_SHOWN_CHARS]}... ({size})"
    return text


class UnknownNameError(InputError):
    """A model, GPU or other catalog id that the catalog does not hold."""

    def __init__(self, field: str, value: str, choices: list[str]) -> None:
        import difflib

        close = difflib.get_close_matches(str(value), choices, n=3, cutoff=0.5)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        shown = ", ".join(choices[:40]) + (", ..." if len(choices) > 40 else "")
        super().__init__(field, value, f"one of: {shown}{hint}")
        self.choices = choices


class ConfigError(InputError):
    """A Hugging Face ``config.json`` that is malformed or lacks a needed key."""

    def __init__(self, key: str, value: Any, accepted: str) -> None:
        super().__init__(f"config.{key}", value, accepted)
