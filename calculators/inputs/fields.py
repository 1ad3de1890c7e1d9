"""Inputs of the calculators: one declaration drives the HTML form, the ``mlhw`` option, parsing and checks.

A :class:`Field` names a keyword argument of an engine function and carries everything
a face needs to offer it: label, kind, default, range or choices, unit and help;
:meth:`Field.option` adds what the command line needs where it differs from the name (its
flag, its one-line help, whether it must be given), and :attr:`Field.faces` says which faces
show it. Ranges and choices are read from the engine's constants (``MAX_BATCH``,
``PRECISIONS``...) and defaults from the engine functions' signatures, so the form, the
command line and the Python API cannot disagree: :mod:`calculators.commands` builds each
subcommand's options from the fields of its calculator (:mod:`calculators.jobs.registry`),
and the web face draws its form from the same fields (:mod:`calculators.widgets.form`, with
the readable text of each choice from :mod:`calculators.widgets.fields`).

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

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

from calculators.errors import InputError
from calculators.units import token_text
from calculators.validate import default_of as default_of  # re-exported for the forms
from calculators.validate import AUTO, finite_float, one_of, positive_int, token_count

#: What each kind of field becomes in the form: ``int`` and ``float`` an
#: ``<input type=number>``, ``choice`` a ``<select>``, ``bool`` a checkbox, ``text`` a
#: text input, ``tokens`` a text input for a token count (``2T``, ``500B``, as the command
#: line reads it) and ``config`` a textarea with a file picker for a ``config.json``.
KINDS = ("int", "float", "choice", "bool", "text", "tokens", "config")

Value = str | int | float | bool

#: The faces an input can appear on: the web page's form and the ``mlhw`` command line.
FACES = ("form", "cli")

#: The form value of a number field's explicit "none" choice (see ``Field.none_label``).
NONE = "none"
#: What a number field with that choice reads as its default: blank, ``none``, or the command
#: line's ``auto`` (one spelling works on both faces).
NONE_SPELLINGS = ("", NONE, AUTO)

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
        choice_labels: text shown for each choice; none: the web face reads each id
            (:func:`calculators.widgets.fields.choice_texts`).
        unit: unit of the value (``tokens``, ``sequences``), shown after the label.
        help: one sentence shown under the input.
        show_when: ``(field, value)``: show this input only while that field has that
            value (the config textarea while the model is ``custom``); ``"a|b"`` means either.
        advanced: drawn inside the form's "More settings" section.
        none_label: for a number whose default means "none" or "the engine's default" (a
            budget of 0 = no budget): the text of that explicit choice ("No budget"). The form
            then offers it beside "Set a value" instead of asking the reader to type 0; the
            empty value and ``none`` parse to ``default``.
        flag: the command line's flag where it is not ``--`` + the name with ``-`` for ``_``
            (``--tp`` for ``tensor_parallel``; ``--no-overlap`` for a flag that turns a ``True`` off).
        cli_help: the option's help on the command line (its default is added); empty: ``help``.
        keyword: the engine keyword the input feeds where it is not ``name``, and ``scale`` how
            many of the input's units make one of the keyword's (``dataset_cache_gib`` feeds
            ``dataset_cache_bytes`` at ``1 / 2**30``): the option's default is the engine's, scaled.
        required: the command line must give it (the form always opens on a value).
        repeat: the option may be given several times (a list: ``--gpu a --gpu b``).
        either: options of one subcommand sharing this name form a required either/or group
            (``--concurrency`` or ``--request-rate``); each is ``None`` when the other is given.
        faces: the faces that offer this input, of :data:`FACES` (a pasted config.json is the form's,
            ``--gpu-hours`` the command line's); why one face lacks it is said in
            :data:`calculators.commands.FORM_ONLY` or :data:`~calculators.commands.CLI_ONLY`.
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
    none_label: str = ""
    flag: str = ""
    cli_help: str = ""
    keyword: str = ""
    scale: float = 1.0
    required: bool = False
    repeat: bool = False
    either: str = ""
    faces: tuple[str, ...] = FACES

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"field {self.name}: kind {self.kind!r} is not one of {KINDS}")
        if not self.faces or not set(self.faces) <= set(FACES):
            raise ValueError(f"field {self.name}: faces {self.faces!r} are not a selection of {FACES}")
        if self.choice_labels and len(self.choice_labels) != len(self.choices):
            raise ValueError(f"field {self.name}: {len(self.choice_labels)} labels for {len(self.choices)} choices")

    def option(self, help: str = "", *, flag: str = "", keyword: str = "", scale: float = 1.0,
               required: bool = False, repeat: bool = False, either: str = "") -> Field:
        """This field with how the command line spells it (see the attributes of the same names; each
        call sets them all).

        >>> field = int_field("tensor_parallel", "Tensor-parallel GPUs", default=1, maximum=64)
        >>> option = field.option("tensor-parallel GPUs per replica", flag="--tp")
        >>> option.flag, option.cli_flag, option.engine_keyword, field.cli_flag
        ('--tp', '--tp', 'tensor_parallel', '--tensor-parallel')
        """
        return dataclasses.replace(self, cli_help=help, flag=flag, keyword=keyword, scale=scale, required=required,
                                   repeat=repeat, either=either)

    @property
    def cli_flag(self) -> str:
        """The command line's flag for this input."""
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def engine_keyword(self) -> str:
        """The engine keyword this input feeds."""
        return self.keyword or self.name

    def parse(self, raw: object) -> Value:
        """Turn a form value (a string) into what the engine takes; range checks stay with the engine.

        Numbers pass through as stripped strings (the engine's validators accept numeric
        text and name the field when it is not a number); booleans become ``bool``.
        """
        if raw is None:
            return self.default
        if self.none_label and isinstance(raw, str) and raw.strip().lower() in NONE_SPELLINGS:
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
        return raw.strip() if self.kind in ("int", "float", "choice", "tokens") else raw

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
        if self.kind == "tokens":
            assert self.maximum is not None
            if self.none_label and str(value).strip().lower() in NONE_SPELLINGS:
                return 0  # the "none" choice, as a number field's: the calculator passes None on
            return token_count(self.name, value, maximum=self.maximum)
        return value


class Shown(TypedDict, total=False):
    """How a number input is shown, the keywords :func:`int_field` and :func:`float_field` share with
    :class:`Field` (see its attributes): ``unit``, ``help``, ``show_when``, ``advanced``, ``none_label``."""

    unit: str
    help: str
    show_when: tuple[str, str] | None
    advanced: bool
    none_label: str


def int_field(name: str, label: str, *, default: int, maximum: int, minimum: int = 1, **shown: Unpack[Shown]) -> Field:
    """An integer input from ``minimum`` to ``maximum`` in steps of 1 (``shown``: see :class:`Shown`)."""
    return Field(name, label, "int", default, minimum=minimum, maximum=maximum, step=1, **shown)


def float_field(name: str, label: str, *, default: float, minimum: float, maximum: float, step: float | None = None,
                **shown: Unpack[Shown]) -> Field:
    """A number input from ``minimum`` to ``maximum`` (``step`` None: any value; ``shown``: see :class:`Shown`).

    >>> budget = float_field("budget", "Budget", default=0.0, minimum=0, maximum=1e6, none_label="No budget")
    >>> budget.parse("none"), budget.parse(""), budget.parse("12.5")
    (0.0, 0.0, '12.5')
    """
    return Field(name, label, "float", default, minimum=minimum, maximum=maximum, step=step, **shown)


def choice_field(name: str, label: str, *, choices: Sequence[object], default: object,
                 labels: Sequence[str] = (), help: str = "", show_when: tuple[str, str] | None = None,
                 advanced: bool = False) -> Field:
    """A ``<select>`` over ``choices`` (ints such as ZeRO stages become their text)."""
    return Field(name, label, "choice", str(default), choices=tuple(str(c) for c in choices),
                 choice_labels=tuple(labels), help=help, show_when=show_when, advanced=advanced)


def tokens_field(name: str, label: str, *, default: int | None, maximum: float, help: str = "",
                 show_when: tuple[str, str] | None = None, advanced: bool = False, none_label: str = "") -> Field:
    """A token count from 1 to ``maximum``, typed as the command line takes it (``2T``, ``500B``, ``1e9``).

    The form shows the default in that spelling (:func:`~calculators.units.token_text`); the
    checked value is the count. With ``none_label`` the default is ``None`` (the engine's
    choice), offered as a choice of its own, which checks to 0 as a number field's does.

    >>> tokens = tokens_field("tokens", "Training tokens", default=10**11, maximum=1e16)
    >>> tokens.default, tokens.check("2T"), tokens.check(None)
    ('100B', 2000000000000, 100000000000)
    >>> batch = tokens_field("global_batch_tokens", "Global batch", default=None, maximum=1e12, none_label="Engine's")
    >>> batch.check("none"), batch.check("4M")
    (0, 4000000)
    """
    return Field(name, label, "tokens", NONE if default is None else token_text(default), minimum=1,
                 maximum=maximum, unit="tokens", help=help, show_when=show_when, advanced=advanced,
                 none_label=none_label)


def bool_field(name: str, label: str, *, default: bool, help: str = "", show_when: tuple[str, str] | None = None,
               advanced: bool = False) -> Field:
    """A checkbox."""
    return Field(name, label, "bool", default, help=help, show_when=show_when, advanced=advanced)


def text_field(name: str, label: str, *, default: str, help: str = "", show_when: tuple[str, str] | None = None,
               advanced: bool = False) -> Field:
    """A one-line text input."""
    return Field(name, label, "text", default, help=help, show_when=show_when, advanced=advanced)


def config_field(name: str, label: str, *, help: str = "", show_when: tuple[str, str] | None = None) -> Field:
    """A textarea for the text of a Hugging Face ``config.json``, with a file picker (the form's only: the
    command line's ``--model`` takes a path to the file)."""
    return Field(name, label, "config", "", help=help, show_when=show_when, faces=("form",))


def cli_field(name: str, help: str, *, show_when: tuple[str, str] | None = None, **option: Any) -> Field:
    """An input of the command line only (its calculator's form has none; say why in
    :data:`calculators.commands.CLI_ONLY`): ``help`` and the :meth:`Field.option` settings.

    >>> cli_field("gpu_hours", "GPU-hours of a run to price").cli_flag, cli_field("gpu_hours", "").faces
    ('--gpu-hours', ('cli',))
    """
    return Field(name, name, "text", "", show_when=show_when, faces=("cli",)).option(help, **option)
