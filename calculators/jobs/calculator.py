"""A named calculator, declared once for every face: its inputs, its compute and its views.

The registry (:mod:`calculators.jobs.registry`) holds every calculator by name. The web face
draws its form from :attr:`Calculator.fields` and shows :attr:`Answer.html`; the command line
builds a subcommand's options from the same fields (:func:`command_fields`) and prints
:attr:`Answer.text` or :attr:`Answer.data`. Both check their values here
(:meth:`Calculator.values`, one face's spelling each) and compute through
:meth:`Calculator.answer`: one job, one code path, one :class:`~calculators.jobs.report.Report`.

>>> from calculators.jobs.registry import get_calculator
>>> answer = get_calculator("inference-memory").answer({"model": "llama-3-8b", "gpus": "2"})
>>> answer.report.headline.startswith("On 2x H100 SXM 80GB, tensor or pipeline parallel: fits")
True
>>> answer.data["answer"]["verdict"], answer.text.splitlines()[0] == answer.report.headline
('fits', True)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from calculators.errors import InputError, UnknownNameError
from calculators.inputs.fields import NONE, NONE_SPELLINGS, Field
from calculators.inputs.shared import CUSTOM
from calculators.jobs.echo import config_echo
from calculators.jobs.faces import FORM_ONLY, face_only
from calculators.jobs.html import report_html
from calculators.jobs.plan_links import links_html
from calculators.jobs.report import Report
from calculators.jobs.text import report_text
from calculators.jobs.values import FRONT_DOOR, OMITTED, Values, model_spec
from calculators.validate import AUTO

#: The faces a calculator's values come from: the web form's strings, the command line's parsed options.
FACES = ("form", "cli")


@dataclass(frozen=True)
class Calculator:
    """A named calculator (see the module docstring).

    Attributes:
        name: the id used in ``<!-- widget: NAME -->`` and ``data-calculator``.
        title: heading shown above the form.
        fields: the inputs, in form order.
        compute: takes :meth:`values` (checked, engine-ready) and returns a view (the engine's results).
        report: turns that view into the :class:`~calculators.jobs.report.Report` every face draws.
        data: turns that view into the JSON-ready answer (``mlhw ... --json`` prints it; the faces' data are equal).
        used: the values the engine used for inputs left to it (a fitted utilisation), by input name, as the
            copied result states them (``None``: every input is used as given).
        aliases: engine argument -> the form input that feeds it, where their names differ
            (an engine error is shown next to that input).
        engines: the engine functions whose keywords the inputs feed; an input is named after
            its keyword (or in ``aliases``) and reads its default from their signatures
            (:func:`~calculators.inputs.fields.default_of`).
        own_defaults: input -> why its default is not read from ``engines``: the engine has
            none, the form deliberately opens elsewhere, or the input feeds no engine keyword.
            ``tests/tools/test_faces_agree.py`` checks every other input against the engine.
        command: the ``mlhw`` subcommand built from these fields (:mod:`calculators.commands`);
            empty: none. command_help: its one-line help.
        cli_fields: options of that subcommand the form lacks (each named, with its reason, in
            :data:`calculators.jobs.faces.CLI_ONLY`); the form's inputs it lacks are in ``FORM_ONLY``.
        echo: what a custom model's answer opens with, for a calculator whose configs are not decoders'
            (``None``: :func:`~calculators.jobs.echo.config_echo` of the decoder).
        links: the web face's links under the result, (text, site-relative address carrying the inputs), for
            checked values (:mod:`calculators.jobs.plan_links`); ``None``: none. The command line prints none.
    """

    name: str
    title: str
    fields: tuple[Field, ...]
    compute: Callable[[Values], Any]
    report: Callable[[Any], Report]
    data: Callable[[Any], dict[str, Any]]
    used: Callable[[Any], Mapping[str, str]] | None = None
    aliases: Mapping[str, str] = dataclasses.field(default_factory=dict)
    engines: tuple[Callable[..., Any], ...] = ()
    own_defaults: Mapping[str, str] = dataclasses.field(default_factory=dict)
    command: str = ""
    command_help: str = ""
    cli_fields: tuple[Field, ...] = ()
    echo: Callable[[Values], str] | None = None
    links: Callable[[Values], tuple[tuple[str, str], ...]] | None = None

    def field(self, name: str) -> Field:
        """The field called ``name``; raises :class:`InputError` naming it otherwise."""
        for item in self.fields:
            if item.name == name:
                return item
        raise UnknownNameError(name, name, [item.name for item in self.fields])

    def values(self, raw: Mapping[str, object], *, face: str = "form") -> dict[str, Any]:
        """Check one face's values and return engine-ready values.

        The form (``face="form"``) sends every input as a string; absent ones take the default,
        and fields hidden by ``show_when`` take theirs, so a bad value left in a hidden input does
        not block the visible ones. The command line (``face="cli"``) sends its parsed options
        (:func:`command_fields`): an option left out is the engine's own choice
        (:data:`~calculators.jobs.values.OMITTED`, which :func:`~calculators.jobs.values.engine_settings` passes
        on as ``None``), a model
        or GPU is the text the front door reads (an id, a path, ``custom:...``), a repeated
        option its tuple of texts.
        """
        if face not in FACES:
            raise ValueError(f"face {face!r} is not one of {FACES}")
        fields = self.fields if face == "form" else command_fields(self)
        names = [item.name for item in fields]
        for key in raw:
            if key not in names:
                raise InputError(str(key), raw[key], f"an input of {self.name}: {', '.join(names)}")
        if face == "cli":
            return {item.name: _cli_value(item, raw.get(item.name)) for item in fields}
        chosen = {item.name: raw.get(item.name) for item in fields}
        values: dict[str, Any] = {}
        for item in fields:
            if item.show_when is not None:
                other, wanted = item.show_when
                shown = chosen.get(other)
                if str(self.field(other).default if shown is None else shown) not in wanted.split("|"):
                    values[item.name] = item.default
                    continue
            values[item.name] = item.check(chosen[item.name])
        return values

    def answer(self, raw: Mapping[str, object], *, face: str = "form") -> Answer:
        """Check ``raw`` (one face's values), compute, and return the answer every face draws."""
        values = self.values(raw, face=face)
        return self.answer_for(values)

    def answer_for(self, values: Values) -> Answer:
        """The answer for checked ``values`` (:meth:`values`)."""
        return Answer(self, values, self.compute(values))

    def run(self, raw: Mapping[str, object]) -> str:
        """Check form values, compute and draw: the HTML of the result."""
        return self.answer(raw).html


def _cli_value(field: Field, given: object) -> Any:
    """One parsed option as the calculator takes it (see :meth:`Calculator.values`)."""
    if field.repeat:
        return tuple(str(item) for item in given) if isinstance(given, (list, tuple)) else ()
    if given is None:
        return field.check(NONE) if field.none_label else OMITTED
    if field.name in FRONT_DOOR and field.kind == "choice":
        return str(given).strip()
    if field.kind in ("choice", "text", "tokens") and not isinstance(given, (str, bool)):
        given = str(given)  # an engine's default as argparse keeps it (ZeRO stage 0)
    if field.none_label and str(given).strip().lower() == NONE:  # the form's spelling; the command line's is auto
        raise InputError(field.name, given, f"a number from {field.minimum:g} to {field.maximum:g}, or {AUTO} for "
                                            "the engine's choice")
    value = field.check(given)
    if field.none_label and value == 0 and str(given).strip().lower() not in NONE_SPELLINGS:
        # A zero typed on the command line is a number, not the form's "none" choice: the engine judges it
        # (``--mfu 0`` is refused, ``--latency-us 0`` is no latency), as text that engine_settings passes on.
        return str(given).strip()
    return value


def command_fields(calculator: Calculator) -> tuple[Field, ...]:
    """The fields that are options of the subcommand built from ``calculator``: its form's fields, in
    form order, less those the command line does not offer (:attr:`Field.faces
    <calculators.inputs.fields.Field.faces>`, :data:`~calculators.jobs.faces.FORM_ONLY`), then its ``cli_fields``.

    >>> from calculators.jobs.registry import get_calculator
    >>> [field.cli_flag for field in command_fields(get_calculator("inference-memory"))][:4]
    ['--model', '--gpu', '--gpus', '--weights']
    """
    shared = [field for field in calculator.fields
              if "cli" in field.faces and face_only(FORM_ONLY, calculator.name, field.name) is None]
    return (*shared, *calculator.cli_fields)


@dataclass(frozen=True)
class Answer:
    """One computed answer of a calculator: its checked values, the engine's view, and what each face shows."""

    calculator: Calculator
    values: Values
    view: Any

    @cached_property
    def report(self) -> Report:
        """The face-neutral report; a custom model's opens with what was read from its config.json."""
        report = self.calculator.report(self.view)
        if self.values.get("model") == CUSTOM and "config" in self.values:
            echo = self.calculator.echo
            report = dataclasses.replace(report, echo=echo(self.values) if echo else config_echo(model_spec(self.values)))
        return report

    @cached_property
    def data(self) -> dict[str, Any]:
        """The JSON-ready answer; the report's warnings are in it too (``warnings``)."""
        data = self.calculator.data(self.view)
        if self.report.warnings and "warnings" not in data:
            data = {**data, "warnings": list(self.report.warnings)}
        return data

    @property
    def html(self) -> str:
        """The web face's result (:func:`~calculators.jobs.html.report_html`), then its links (:attr:`Calculator.links`)."""
        links = self.calculator.links
        return report_html(self.report) + ("" if links is None else links_html(links(self.values)))

    @property
    def text(self) -> str:
        """The command line's text (:func:`~calculators.jobs.text.report_text`)."""
        return report_text(self.report)

    @property
    def used(self) -> Mapping[str, str]:
        """What the engine used for the inputs left to it, by input name (see :attr:`Calculator.used`)."""
        return {} if self.calculator.used is None else self.calculator.used(self.view)
