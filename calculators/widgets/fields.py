"""Form fields of the calculators: one declaration drives the HTML form, parsing and checks.

A :class:`Field` names a keyword argument of an engine function and carries everything
the page needs to draw an input for it: label, kind, default, range or choices, unit
and help. Ranges and choices are read from the engine's constants (``MAX_BATCH``,
``PRECISIONS``...) and defaults from the engine functions' signatures, so the form, the
command line and the Python API cannot disagree.

>>> batch = int_field("batch", "Batch", default=1, maximum=64)
>>> batch.parse("8")
'8'
>>> batch.check("65")
Traceback (most recent call last):
...
calculators.errors.InputError: batch: got 65; expected an integer from 1 to 64
>>> flag = bool_field("grad_checkpointing", "Checkpointing", default=False)
>>> flag.parse("on"), flag.parse("false")
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from calculators.errors import InputError
from calculators.validate import default_of as default_of  # re-exported for the forms
from calculators.validate import finite_float, one_of, positive_int

#: What each kind of field becomes in the form: ``int`` and ``float`` an
#: ``<input type=number>``, ``choice`` a ``<select>``, ``bool`` a checkbox, ``text`` a
#: text input and ``config`` a textarea with a file picker for a ``config.json``.
KINDS = ("int", "float", "choice", "bool", "text", "config")

Value = str | int | float | bool

_TRUE = ("true", "on", "1", "yes")
_FALSE = ("false", "off", "0", "no", "")


@dataclass(frozen=True)
class Field:
    """One input of a calculator.

    Attributes:
        name: the keyword argument of the engine function it feeds (``batch``).
        label: short text shown next to the input.
        kind: one of :data:`KINDS`.
        default: the value the page renders with, and the engine's own default.
        minimum: smallest accepted number (``int``/``float``), else ``None``.
        maximum: largest accepted number (``int``/``float``), else ``None``.
        step: the input's step (``int``: 1).
        choices: accepted values of a ``choice`` field, as the engine spells them.
        choice_labels: text shown for each choice (defaults to the choice itself).
        unit: unit of the value (``tokens``, ``sequences``), shown after the label.
        help: one sentence shown under the input.
        show_when: ``(field, value)``: show this input only while that field has that
            value (the config textarea while the model is ``custom``); ``"a|b"`` means either.
        advanced: drawn inside the form's "More settings" section.
    """

    name: str
    label: str
    kind: str
    default: Value
    minimum: int | float | None = None
    maximum: int | float | None = None
    step: int | float | None = None
    choices: tuple[str, ...] = ()
    choice_labels: tuple[str, ...] = ()
    unit: str = ""
    help: str = ""
    show_when: tuple[str, str] | None = None
    advanced: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"field {self.name}: kind {self.kind!r} is not one of {KINDS}")
        if self.choice_labels and len(self.choice_labels) != len(self.choices):
            raise ValueError(f"field {self.name}: {len(self.choice_labels)} labels for {len(self.choices)} choices")

    @property
    def labels(self) -> tuple[str, ...]:
        """The text of each choice (the choice itself where no label is given)."""
        return self.choice_labels or self.choices

    def parse(self, raw: object) -> Value:
        """Turn a form value (a string) into what the engine takes; range checks stay with the engine.

        Numbers pass through as stripped strings (the engine's validators accept numeric
        text and name the field when it is not a number); booleans become ``bool``.
        """
        if raw is None:
            return self.default
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise InputError(self.name, raw, "true or false")
        if isinstance(raw, (bool, int, float)) and self.kind in ("int", "float"):
            return raw
        if not isinstance(raw, str):
            raise InputError(self.name, raw, "a string from the form")
        return raw.strip() if self.kind in ("int", "float", "choice") else raw

    def check(self, raw: object) -> Value:
        """Parse ``raw`` and check it against this field's own range or choices.

        The engine checks again; this check names the form's field where the engine
        would name its own argument, and it is what catches a bad override in a page.
        """
        value = self.parse(raw)
        if self.kind == "int":
            assert isinstance(self.maximum, int) and isinstance(self.minimum, int)
            return positive_int(self.name, value, minimum=self.minimum, maximum=self.maximum)
        if self.kind == "float":
            assert self.minimum is not None and self.maximum is not None
            return finite_float(self.name, value, minimum=self.minimum, maximum=self.maximum)
        if self.kind == "choice":
            return str(one_of(self.name, value, self.choices))
        return value


def int_field(name: str, label: str, *, default: int, maximum: int, minimum: int = 1, unit: str = "",
              help: str = "", show_when: tuple[str, str] | None = None, advanced: bool = False) -> Field:
    """An integer input from ``minimum`` to ``maximum`` in steps of 1."""
    return Field(name, label, "int", default, minimum=minimum, maximum=maximum, step=1, unit=unit, help=help,
                 show_when=show_when, advanced=advanced)


def float_field(name: str, label: str, *, default: float, minimum: float, maximum: float, step: float | None = None,
                unit: str = "", help: str = "", show_when: tuple[str, str] | None = None,
                advanced: bool = False) -> Field:
    """A number input from ``minimum`` to ``maximum`` (``step`` None: any value)."""
    return Field(name, label, "float", default, minimum=minimum, maximum=maximum, step=step, unit=unit, help=help,
                 show_when=show_when, advanced=advanced)


def choice_field(name: str, label: str, *, choices: Sequence[object], default: object,
                 labels: Sequence[str] = (), help: str = "", show_when: tuple[str, str] | None = None,
                 advanced: bool = False) -> Field:
    """A ``<select>`` over ``choices`` (ints such as ZeRO stages become their text)."""
    return Field(name, label, "choice", str(default), choices=tuple(str(c) for c in choices),
                 choice_labels=tuple(labels), help=help, show_when=show_when, advanced=advanced)


def bool_field(name: str, label: str, *, default: bool, help: str = "", show_when: tuple[str, str] | None = None,
               advanced: bool = False) -> Field:
    """A checkbox."""
    return Field(name, label, "bool", default, help=help, show_when=show_when, advanced=advanced)


def text_field(name: str, label: str, *, default: str, help: str = "", show_when: tuple[str, str] | None = None,
               advanced: bool = False) -> Field:
    """A one-line text input."""
    return Field(name, label, "text", default, help=help, show_when=show_when, advanced=advanced)


def config_field(name: str, label: str, *, help: str = "", show_when: tuple[str, str] | None = None) -> Field:
    """A textarea for the text of a Hugging Face ``config.json``, with a file picker."""
    return Field(name, label, "config", "", help=help, show_when=show_when)
