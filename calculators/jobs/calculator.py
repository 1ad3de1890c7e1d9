"""A calculator a page can embed: its inputs, its compute function and its view, declared once.

The registry (:mod:`calculators.jobs.registry`) holds every calculator by name; the
command line builds a subcommand from the same declaration (:mod:`calculators.commands`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from calculators.errors import InputError, UnknownNameError
from calculators.inputs.fields import Field, Value
from calculators.inputs.shared import CUSTOM
from calculators.jobs.values import Values, model_spec
from calculators.jobs.memory_views import config_echo_html


@dataclass(frozen=True)
class Calculator:
    """A calculator a page can embed.

    Attributes:
        name: the id used in ``<!-- widget: NAME -->`` and ``data-calculator``.
        title: heading shown above the form.
        fields: the inputs, in form order.
        compute: takes :meth:`values` (checked, engine-ready) and returns a view.
        render: turns that view into an HTML fragment.
        aliases: engine argument -> the form input that feeds it, where their names differ
            (an engine error is shown next to that input).
        engines: the engine functions whose keywords the inputs feed; an input is named after
            its keyword (or in ``aliases``) and reads its default from their signatures
            (:func:`~calculators.inputs.fields.default_of`).
        own_defaults: input -> why its default is not read from ``engines``: the engine has
            none, the form deliberately opens elsewhere, or the input feeds no engine keyword.
            ``tests/tools/test_faces_agree.py`` checks every other input against the engine.
        command: the ``mlhw`` subcommand built from these fields (:mod:`calculators.commands`);
            empty: none.
        cli_fields: options of that subcommand the form lacks (each named, with its reason, in
            :data:`calculators.commands.CLI_ONLY`); the form's inputs it lacks are in ``FORM_ONLY``.
    """

    name: str
    title: str
    fields: tuple[Field, ...]
    compute: Callable[[Values], Any]
    render: Callable[[Any], str]
    aliases: Mapping[str, str] = dataclasses.field(default_factory=dict)
    engines: tuple[Callable[..., Any], ...] = ()
    own_defaults: Mapping[str, str] = dataclasses.field(default_factory=dict)
    command: str = ""
    cli_fields: tuple[Field, ...] = ()

    def field(self, name: str) -> Field:
        """The field called ``name``; raises :class:`InputError` naming it otherwise."""
        for item in self.fields:
            if item.name == name:
                return item
        raise UnknownNameError(name, name, [item.name for item in self.fields])

    def values(self, raw: Mapping[str, object]) -> dict[str, Value]:
        """Check form values (strings) and return engine-ready values; absent ones take the default.

        Fields hidden by ``show_when`` take their default, so a bad value left in a hidden
        input does not block the visible ones.
        """
        names = [item.name for item in self.fields]
        for key in raw:
            if key not in names:
                raise InputError(str(key), raw[key], f"an input of {self.name}: {', '.join(names)}")
        chosen = {item.name: raw.get(item.name) for item in self.fields}
        values: dict[str, Value] = {}
        for item in self.fields:
            if item.show_when is not None:
                other, wanted = item.show_when
                if str(chosen.get(other, self.field(other).default)) not in wanted.split("|"):
                    values[item.name] = item.default
                    continue
            values[item.name] = item.check(chosen[item.name])
        return values

    def run(self, raw: Mapping[str, object]) -> str:
        """Check ``raw``, compute and render: the HTML of the result.

        A custom model's result opens with what was read from its config.json
        (:func:`~calculators.jobs.memory_views.config_echo`), for every calculator alike.
        """
        values = self.values(raw)
        html = self.render(self.compute(values))
        if values.get("model") == CUSTOM and "config" in values:
            html = config_echo_html(model_spec(values)) + html
        return html
