"""How a subcommand of ``mlhw`` is built from a named calculator's fields.

A named calculator is declared once, in a module of :mod:`calculators.jobs`: its fields
(:class:`~calculators.inputs.fields.Field`, each with its kind, range, help, default read from
the engine and, where the command line spells it differently,
:meth:`~calculators.inputs.fields.Field.option`), the engine functions they feed, its compute
function and its views. The widget form reads those fields; the subcommand's options are built
from the same fields here (:func:`command_fields`, :func:`add_options`), and :mod:`calculators.cli`
hands the parsed options to the calculator (:meth:`Calculator.values
<calculators.jobs.calculator.Calculator.values>` with ``face="cli"``), which computes as it does for
the form. Adding an input to a calculator is one field in its declaration; an input one face lacks
is named in :data:`~calculators.jobs.faces.FORM_ONLY` or :data:`~calculators.jobs.faces.CLI_ONLY`
with the reason (``tests/tools/test_one_declaration.py``).
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from calculators.inputs.fields import Field
from calculators.jobs.calculator import Calculator, command_fields
from calculators.jobs.faces import CLI_ONLY, FORM_ONLY, NO_COMMAND, face_only
from calculators.jobs.registry import calculator_names, get_calculator
from calculators.validate import AUTO, default_of, none_if_auto, parameters_of

__all__ = ["CLI_ONLY", "FORM_ONLY", "NO_COMMAND", "add_options", "calculator_of", "command_fields", "engine_option",
           "face_only", "flag_aliases"]

def _engine_default(engines: Sequence[Callable[..., Any]], keyword: str) -> Callable[..., Any] | None:
    """The first of ``engines`` with a default for ``keyword`` (``None``: none has one)."""
    for engine in engines:
        parameter = parameters_of(engine).get(keyword)
        if parameter is not None and parameter.default is not inspect.Parameter.empty:
            return engine
    return None


def add_options(parser: argparse.ArgumentParser, fields: Sequence[Field],
                engines: Sequence[Callable[..., Any]]) -> None:
    """Add an option for each of ``fields`` to ``parser``; defaults are ``engines``' own.

    The option's ``dest`` is the field's name and its flag :attr:`Field.cli_flag`. A field
    whose keyword has an engine default takes it (:func:`engine_option`: ``auto`` for a
    ``None``); a checkbox is a flag that turns the engine's default around. A field the
    engines require is required (:attr:`Field.required`) or left ``None`` (an optional
    extra the command adds when given); so are the fields of an either/or group.

    >>> from calculators.memory.training_inputs import training_setup
    >>> from calculators.inputs.fields import bool_field, int_field
    >>> parser = argparse.ArgumentParser()
    >>> add_options(parser, [int_field("seq", "Sequence", default=2048, maximum=8).option("tokens"),
    ...                      bool_field("grad_checkpointing", "Checkpointing", default=False)], [training_setup])
    >>> args = parser.parse_args(["--grad-checkpointing"])
    >>> args.seq, args.grad_checkpointing
    (2048, True)
    """
    groups: dict[str, argparse._MutuallyExclusiveGroup] = {}
    for field in fields:
        help = field.cli_help or field.help or field.label
        options: dict[str, Any] = {}
        if field.kind == "bool":
            engine = _engine_default(engines, field.engine_keyword)
            turned_off = engine is not None and default_of(engine, field.engine_keyword) is True
            options["action"] = "store_false" if turned_off else "store_true"
        if field.repeat:
            options["action"] = "append"
        if field.either:
            if field.either not in groups:
                groups[field.either] = parser.add_mutually_exclusive_group(required=True)
            groups[field.either].add_argument(field.cli_flag, dest=field.name, default=None, help=help)
            continue
        engine = None if field.required else _engine_default(engines, field.engine_keyword)
        if engine is None:
            parser.add_argument(field.cli_flag, dest=field.name, required=field.required, help=help, **options)
            continue
        engine_option(parser, field.cli_flag, engine, help=help, name=field.name, keyword=field.engine_keyword,
                      scale=field.scale, **options)


def calculator_of(command: str) -> Calculator:
    """The calculator whose fields are the options of ``mlhw COMMAND`` (its ``command``).

    >>> calculator_of("speed").name
    'inference-speed'
    """
    for name in calculator_names():
        if get_calculator(name).command == command:
            return get_calculator(name)
    raise KeyError(f"no calculator declares the command {command!r}")


def flag_aliases(fields: Iterable[Field]) -> dict[str, str]:
    """Engine keyword -> the flag that carries it, where the two are named differently (for error messages).

    >>> from calculators.inputs.fields import int_field
    >>> flag_aliases([int_field("latency_us", "Latency", default=1, maximum=9).option("us", keyword="latency_s")])
    {'latency_s': '--latency-us'}
    """
    return {field.engine_keyword: field.cli_flag for field in fields if field.engine_keyword != field.name}


def engine_option(parser: argparse.ArgumentParser, flag: str, engine: Callable[..., Any], *, help: str,
                  name: str | None = None, keyword: str | None = None, scale: float = 1.0,
                  **options: Any) -> None:
    """Add ``flag``, whose default is the default of ``engine``'s keyword ``name``.

    ``name`` (the flag without dashes, ``-`` read as ``_``, unless given) is also the
    option's ``dest``, so ``args.<name>`` is what the engine takes. An option in another unit
    than its keyword names the ``keyword`` and the ``scale``: how many of the option's units
    make one of the keyword's (``1e6``: the option is in microseconds, the keyword in seconds;
    the command divides by it). A keyword whose default is ``None`` (the engine chooses) also
    takes ``auto``, the command line's one spelling of "the engine's default". A tuple default
    is its comma-separated text. The help ends with the default, spelled one way:
    ``(default: 4096)``, ``(default: auto)``.

    >>> parser = argparse.ArgumentParser()
    >>> from calculators.parallel.step import step_communication
    >>> engine_option(parser, "--seq", step_communication, help="tokens")
    >>> engine_option(parser, "--efficiency", step_communication, help="fraction")
    >>> args = parser.parse_args(["--efficiency", "auto"])
    >>> args.seq, args.efficiency
    (2048, None)
    """
    dest = name or flag.removeprefix("--").replace("-", "_")
    default = default_of(engine, keyword or dest)
    if default is not None and scale != 1.0:
        default = default * scale
    if isinstance(default, tuple):
        default = ",".join(str(item) for item in default)
    if options.get("action") is None:
        if default is None:
            options["type"] = none_if_auto
        help = f"{help} (default: {AUTO if default is None else '%(default)s'})"
    parser.add_argument(flag, dest=dest, default=default, help=help, **options)
