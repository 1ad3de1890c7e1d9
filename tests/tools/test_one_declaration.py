"""Every ``mlhw`` subcommand and every widget form are built from one declaration per calculator.

A calculator (:class:`~calculators.jobs.calculator.Calculator`) declares its inputs once, as
fields; the form draws them and :mod:`calculators.commands` turns the same fields into the
subcommand's options. This test walks every subcommand of the real parser and every calculator
of the registry and fails when:

* a subcommand is neither built from a calculator nor a catalog listing (``cli.LISTINGS``), or
  a calculator has neither a subcommand nor a reason (``commands.NO_COMMAND``);
* the options of a subcommand are not the fields of its form, less the inputs
  ``commands.FORM_ONLY`` names, plus its ``cli_fields``, which ``commands.CLI_ONLY`` names
  (``fit train``: the fields the fit form shows for the training job);
* an option's flag is not its field's (:attr:`~calculators.inputs.fields.Field.cli_flag`), or
  its default is not the engine signature's (scaled into the option's unit; ``None``, taking
  ``auto``, where the engine chooses; ``None`` where the engine requires it and the option is an
  optional extra);
* an entry of ``FORM_ONLY`` or ``CLI_ONLY`` names no input (stale).

So adding an input to a calculator is one field in its declaration: both faces get it, or the
face that lacks it says why in one table.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from support import command_options

from calculators import cli
from calculators.commands import CLI_ONLY, FORM_ONLY, NO_COMMAND, face_only
from calculators.inputs.fields import Field, int_field
from calculators.inputs.shared import CUSTOM_GPU_NAMES, custom_gpu_fields
from calculators.validate import none_if_auto
from calculators.jobs.calculator import Calculator
from calculators.jobs.registry import calculator_names, get_calculator

#: Options every subcommand has that no calculator declares (``CLI_ONLY`` says why).
EVERY_COMMAND = ("help", "json")


COMMANDS = dict(command_options(cli.build_parser()))
BUILT = sorted(set(COMMANDS) - set(cli.LISTINGS))


def _engine_default(engines: tuple[Callable[..., Any], ...], keyword: str) -> Any:
    """The first default of ``keyword`` among ``engines`` (``inspect.Parameter.empty``: none has one)."""
    for engine in engines:
        parameter = inspect.signature(engine).parameters.get(keyword)
        if parameter is not None and parameter.default is not inspect.Parameter.empty:
            return parameter.default
    return inspect.Parameter.empty


def _expected_default(field: Field, engines: tuple[Callable[..., Any], ...]) -> Any:
    """What the option's default must be: the engine's, in the option's unit and spelling."""
    if field.required:
        return None
    default = _engine_default(engines, field.engine_keyword)
    if default is inspect.Parameter.empty:
        return None  # an optional extra, or an input no engine keyword takes by name (the model)
    if isinstance(default, tuple):
        return ",".join(default)
    if isinstance(default, (int, float)) and not isinstance(default, bool) and field.scale != 1.0:
        return default * field.scale
    return default


def _shown_for(command: str) -> Callable[[Field], bool]:
    """Which of its calculator's fields ``mlhw COMMAND`` offers (``fit train``: those of the training job)."""
    if not command.startswith("fit "):
        return lambda field: True
    job = cli.FIT_JOBS[command.split()[1]]
    return lambda field: field.show_when is None or field.show_when[0] != "job" or field.show_when == ("job", job)


def declaration_problems(command: str, actions: list[argparse.Action], calculator: Calculator,
                         engines: tuple[Callable[..., Any], ...]) -> list[str]:
    """What in ``mlhw COMMAND``'s ``actions`` is not generated from ``calculator``'s fields (empty: all is)."""
    shown = _shown_for(command)
    form = [field for field in calculator.fields if shown(field)]
    cli_only = [field for field in calculator.cli_fields if shown(field)]
    expected = {field.name: field for field in form if face_only(FORM_ONLY, calculator.name, field.name) is None}
    expected.update((field.name, field) for field in cli_only)
    problems = [f"{calculator.name}.{field.name}: an option the form lacks; say why in CLI_ONLY"
                for field in cli_only if face_only(CLI_ONLY, calculator.name, field.name) is None]
    options = {action.dest: action for action in actions if action.dest not in EVERY_COMMAND}
    problems += [f"mlhw {command} {max(options[name].option_strings, key=len)}: no field of {calculator.name} "
                 "declares it" for name in sorted(set(options) - set(expected))]
    problems += [f"{calculator.name}.{name}: a form input without an option; add it or say why in FORM_ONLY"
                 for name in sorted(set(expected) - set(options))]
    for name in sorted(set(options) & set(expected)):
        action, field = options[name], expected[name]
        flag = max(action.option_strings, key=len)
        if flag != field.cli_flag:
            problems.append(f"mlhw {command} {flag}: the field declares {field.cli_flag}")
        wanted = _expected_default(field, engines)
        if action.default != wanted:
            problems.append(f"mlhw {command} {flag}: default {action.default!r}, the engine's {wanted!r}")
        if wanted is None and not field.required and not field.either and not field.repeat \
                and _engine_default(engines, field.engine_keyword) is None and action.type is not none_if_auto:
            problems.append(f"mlhw {command} {flag}: the engine chooses; take 'auto' for it")
    return problems


def test_every_subcommand_and_calculator_is_walked() -> None:
    assert set(COMMANDS) >= {"train", "infer", "fit train", "fit infer", "speed", "serve-load", "train-time",
                             "parallel", "recommend", "cost", "system", "models", "gpus"}
    assert set(BUILT) == set(cli.command_calculators()), "each subcommand but a listing is built from a calculator"
    commands = {get_calculator(name).command for name in calculator_names()}
    without = {name for name in calculator_names() if not get_calculator(name).command}
    assert without == set(NO_COMMAND), "a calculator without a subcommand says why (commands.NO_COMMAND)"
    assert commands - {""} == {command.split()[0] for command in BUILT}


@pytest.mark.parametrize("command", BUILT)
def test_options_are_the_calculators_fields(command: str) -> None:
    """The subcommand's options are its calculator's fields, flags and engine defaults included."""
    calculator = get_calculator(cli.command_calculators()[command])
    assert not declaration_problems(command, COMMANDS[command], calculator, cli.command_engines()[command])


def test_face_only_entries_name_an_input() -> None:
    """Each FORM_ONLY entry names a form input and each CLI_ONLY entry an option (no stale reasons)."""
    calculators = [get_calculator(name) for name in calculator_names()]
    form = {f"{c.name}.{field.name}" for c in calculators for field in c.fields} | {
        field.name for c in calculators for field in c.fields}
    options = {f"{c.name}.{field.name}" for c in calculators for field in c.cli_fields} | {
        field.name for c in calculators for field in c.cli_fields} | set(EVERY_COMMAND)
    assert set(FORM_ONLY) - form == set()
    assert set(CLI_ONLY) - options == set()
    assert set(CUSTOM_GPU_NAMES) == {field.name for field in custom_gpu_fields()}


def test_the_declaration_check_can_fail() -> None:
    """An option added by hand, a form input with no option and a default typed by hand are caught."""
    calculator = get_calculator("inference-memory")
    engines = cli.command_engines()["infer"]
    actions = list(COMMANDS["infer"])
    assert declaration_problems("infer", actions, calculator, engines) == []
    parser = argparse.ArgumentParser()
    colour = parser.add_argument("--colour", default="red")
    context = parser.add_argument("--context", default=123457)  # typed by hand; InferenceInputs' differs
    assert [problem.split(":")[0] for problem in declaration_problems("infer", [*actions, colour], calculator,
                                                                      engines)] == ["mlhw infer --colour"]
    typed = [context if action.dest == "context" else action for action in actions]
    assert [problem.split(":")[0] for problem in declaration_problems("infer", typed, calculator, engines)] == [
        "mlhw infer --context"]
    extra = dataclasses.replace(calculator, fields=(*calculator.fields,
                                                    int_field("beams", "Beams", default=1, maximum=8)))
    assert declaration_problems("infer", actions, extra, engines) == [
        "inference-memory.beams: a form input without an option; add it or say why in FORM_ONLY"]
    unexplained = dataclasses.replace(calculator, cli_fields=(
        int_field("beams", "Beams", default=1, maximum=8).option("beams"),))
    assert "inference-memory.beams: an option the form lacks; say why in CLI_ONLY" in declaration_problems(
        "infer", actions, unexplained, engines)
