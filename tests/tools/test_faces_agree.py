"""The CLI, the widget forms and the engine agree on every input they share.

Every ``mlhw`` subcommand is built from a calculator's fields and feeds its engine functions
(:func:`calculators.cli.command_engines`: ``Calculator.engines``). This test walks every
option of every subcommand and every input of every form in the registry, finds the engine
keyword it feeds (its name; a field's ``keyword`` and ``scale`` for an input in other units;
a form's ``aliases``) and fails when:

* no engine takes that keyword (an input the engine does not know);
* the default differs from the engine's: ``"0"`` and ``0``, ``"q,k"`` and ``("q", "k")``
  read alike; where the engine's default is ``None`` (it chooses), the command line's
  default is ``None`` and the form offers its explicit "none" choice (``none_label``);
* a flag (``--fp8``, ``--no-overlap``) does not turn the engine's default around;
* an option whose engine default is ``None`` does not take ``auto`` (the one spelling of
  "the engine's default" on the command line; a form's "none" choice takes it too);
* the engine requires the keyword and the option is neither required nor ``None``
  (an optional extra), or the form opens on a value it does not explain.

Exempt: :data:`PRESENTATION` (both faces), a custom GPU's numbers (:data:`CUSTOM_GPU`) and
each calculator's ``own_defaults``, every one with its reason; an exemption that is no
longer needed (the form's default is the engine's) fails too.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from support import command_options

from calculators import cli
from calculators.inputs.fields import float_field, int_field
from calculators.inputs.shared import custom_gpu_fields
from calculators.memory.training_inputs import MAX_SEQ, training_setup
from calculators.parallel.step import step_communication
from calculators.validate import AUTO, none_if_auto
from calculators.jobs.calculator import Calculator
from calculators.jobs.registry import calculator_names, get_calculator

Engines = tuple[Callable[..., Any], ...]

#: Inputs of either face that feed no engine keyword of their own, and why.
PRESENTATION = {
    "help": "argparse's own --help",
    "json": "--json chooses the output's format",
    "model": "read into the ModelSpec every engine takes first (Workload.model; system: its parameter count)",
    "config": "a custom model's config.json text, read with 'model'",
}
#: A form's custom-GPU and Mac numbers: together they describe one GPU record (gpu_from_values).
CUSTOM_GPU = frozenset(field.name for field in custom_gpu_fields())


#: One parser for every walk, so an option is the same object wherever it is looked up.
PARSER = cli.build_parser()


COMMANDS = dict(command_options(PARSER))


def _one_of_actions() -> dict[int, argparse.Action]:
    """Options in a required either/or group (``serve-load --concurrency | --request-rate``): their
    ``None`` means "the other one was given", not "the engine chooses", so they take no ``auto``."""
    found: dict[int, argparse.Action] = {}

    def walk(parser: argparse.ArgumentParser) -> None:
        for group in parser._mutually_exclusive_groups:
            if group.required:
                found.update((id(action), action) for action in group._group_actions)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    walk(child)

    walk(PARSER)
    return found


ONE_OF = _one_of_actions()


def _parameters(engines: Engines, keyword: str) -> list[inspect.Parameter]:
    """The parameters called ``keyword`` of ``engines`` (``**settings`` is no keyword): those with a
    default where any has one (an engine that requires it, such as ``kv_cache_bytes``'s ``batch``, is
    fed the same value but has no default of its own to compare)."""
    found = [parameter for engine in engines for name, parameter in inspect.signature(engine).parameters.items()
             if name == keyword and parameter.kind not in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL)]
    with_default = [parameter for parameter in found if parameter.default is not inspect.Parameter.empty]
    return with_default or found


def _canonical(value: Any) -> Any:
    """``value`` as the engine reads it, so equal inputs compare equal (numbers as floats, lists as text)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (tuple, list)):
        return ",".join(str(item) for item in value)
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    try:
        return float(text)
    except ValueError:
        return text


def option_problems(command: str, actions: list[argparse.Action], engines: Engines,
                    scaled: Mapping[str, tuple[str, float]]) -> list[str]:
    """What is wrong with the options of ``mlhw COMMAND`` against ``engines`` (empty: they agree)."""
    problems: list[str] = []
    names = ", ".join(engine.__name__ for engine in engines) or "no engine"
    for action in actions:
        if action.dest in PRESENTATION:
            continue
        flag = max(action.option_strings, key=len)
        keyword, scale = scaled.get(action.dest, (action.dest, 1.0))
        found = _parameters(engines, keyword)
        if not found:
            problems.append(f"mlhw {command} {flag}: {names} take no {keyword!r}")
        for parameter in found:
            engine_default = parameter.default
            if engine_default is inspect.Parameter.empty:
                if not action.required and action.default is not None:
                    problems.append(f"mlhw {command} {flag}: the engine requires {keyword}; the option defaults "
                                    f"to {action.default!r}")
            elif (engine_default is None and action.type is not none_if_auto and id(action) not in ONE_OF
                  and not isinstance(action, argparse._AppendAction)):  # a repeated option: leaving it out is None
                problems.append(f"mlhw {command} {flag}: the engine's default is None; take '{AUTO}' for it "
                                "(engine_option)")
            elif isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
                if action.default != engine_default or action.const == engine_default:
                    problems.append(f"mlhw {command} {flag}: a flag from {action.default!r} to {action.const!r}; "
                                    f"the engine's default is {engine_default!r}")
            else:
                expected = engine_default * scale if scale != 1.0 and engine_default is not None else engine_default
                if _canonical(action.default) != _canonical(expected):
                    problems.append(f"mlhw {command} {flag}: default {action.default!r}, the engine's {expected!r}")
    return problems


def _scaled(default: Any, scale: float) -> Any:
    """``default`` in the input's units (``scale`` of them per engine unit); only numbers scale."""
    return default * scale if scale != 1.0 and isinstance(default, (int, float)) else default


def form_problems(calculator: Calculator) -> list[str]:
    """What is wrong with the inputs of ``calculator`` against its engines (empty: they agree)."""
    name = calculator.name
    if not calculator.engines:
        return [f"{name}: name the engine functions its inputs feed (Calculator.engines)"]
    problems = [f"{name}.{stale}: in own_defaults but no input of the form"
                for stale in sorted(set(calculator.own_defaults) - {field.name for field in calculator.fields})]
    keyword_of = {form: keyword for keyword, form in calculator.aliases.items()}
    for field in calculator.fields:
        if field.name in PRESENTATION or field.name in CUSTOM_GPU:
            continue
        keyword = keyword_of.get(field.name, field.engine_keyword)
        found = _parameters(calculator.engines, keyword)
        if field.name in calculator.own_defaults:
            if found and all(p.default not in (None, inspect.Parameter.empty)
                             and _canonical(p.default) == _canonical(field.check(None)) for p in found):
                problems.append(f"{name}.{field.name}: its default is the engine's; read it, drop the exemption")
            continue
        if not found:
            problems.append(f"{name}.{field.name}: {', '.join(e.__name__ for e in calculator.engines)} "
                            f"take no {keyword!r}")
        for parameter in found:
            if parameter.default is inspect.Parameter.empty:
                problems.append(f"{name}.{field.name}: the engine requires {keyword}; say in own_defaults why "
                                f"the form opens on {field.default!r}")
            elif parameter.default is None:
                if not field.none_label:
                    problems.append(f"{name}.{field.name}: the engine's default is None; offer it as the form's "
                                    "'none' choice (none_label)")
            elif _canonical(field.check(None)) != _canonical(_scaled(parameter.default, field.scale)):
                problems.append(f"{name}.{field.name}: default {field.default!r}, the engine's "  # what it gets
                                f"{parameter.default!r}")
    return problems


def test_every_subcommand_is_walked() -> None:
    assert {"train", "infer", "fit train", "fit infer", "speed", "train-time", "parallel", "recommend", "cost",
            "system", "models", "gpus"} <= set(COMMANDS)
    assert set(COMMANDS) == set(cli.command_engines()), "each subcommand names the engines its options feed"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_cli_options_are_the_engines_keywords_and_defaults(command: str) -> None:
    engines = cli.command_engines().get(command)
    assert engines is not None, f"mlhw {command}: declare ENGINES (the engine functions its options feed)"
    scaled = {field.name: (field.engine_keyword, field.scale) for field in cli.command_options(command)
              if field.engine_keyword != field.name}
    assert not option_problems(command, COMMANDS[command], engines, scaled)


@pytest.mark.parametrize("name", calculator_names())
def test_form_inputs_are_the_engines_keywords_and_defaults(name: str) -> None:
    assert not form_problems(get_calculator(name))


#: A valid value of each required option, to run every subcommand.
_REQUIRED = {"--model": "llama-3-8b", "--gpu": "h100-sxm", "--tokens": "1e9", "--samples-per-s": "100",
             "--bytes-per-sample": "1000", "--concurrency": "8"}


def _argv(command: str, extra: list[str]) -> list[str]:
    """``mlhw COMMAND`` with its required options (at their level: ``fit --model M train``) and ``extra``."""
    words = command.split()
    # cost: a GPU with a list price, so the purchase price is not missing
    required = {**_REQUIRED, "--gpu": "rtx-4090"} if command == "cost" else _REQUIRED
    head = [word for action in COMMANDS[command] if action.required or id(action) in ONE_OF
            for flag in action.option_strings if flag in required for word in (flag, required[flag])]
    return [words[0], *head, *words[1:], *extra]


AUTO_OPTIONS = [(command, max(action.option_strings, key=len)) for command, actions in sorted(COMMANDS.items())
                for action in actions if action.type is none_if_auto and id(action) not in ONE_OF]


@pytest.mark.parametrize(("command", "flag"), AUTO_OPTIONS, ids=[f"{c} {f}" for c, f in AUTO_OPTIONS])
def test_auto_is_the_engines_default(command: str, flag: str) -> None:
    """``--flag auto`` answers exactly as leaving the option out."""
    assert cli.run(_argv(command, [flag, AUTO]))[0] == cli.run(_argv(command, []))[0]


def _feeds_tokens(calculator: Calculator) -> list[str]:
    keyword_of = {form: keyword for keyword, form in calculator.aliases.items()}
    return [field.name for field in calculator.fields if keyword_of.get(field.name, field.name) == "tokens"]


TWO_TRILLION = 2 * 10**12  # what 2T, 2000B and 2e12 all mean


@pytest.mark.parametrize("text", ["2T", "2t", "2000B", "2e12", "2000000000000", " 2T "])
def test_token_counts_are_spelled_alike_on_both_faces(text: str) -> None:
    forms = [(name, field) for name in calculator_names() for field in _feeds_tokens(get_calculator(name))]
    assert {name for name, _ in forms} >= {"training-time", "recommend", "cost-breakeven"}
    for name, field in forms:
        assert get_calculator(name).field(field).check(text) == TWO_TRILLION, (name, field)
    commands = [command for command, actions in COMMANDS.items() if any(a.dest == "tokens" for a in actions)]
    assert set(commands) == {"train-time", "recommend", "plan"}
    for command in commands:
        extra = {"recommend": ["--job", "train"], "plan": ["--job", "full"]}.get(command, [])
        data = cli.run(_argv(command, ["--tokens", text, *extra]))[0]
        assert (data["time"] if command == "plan" else data)["tokens"] == TWO_TRILLION, command


def test_the_option_check_can_fail() -> None:
    """Hand-typed defaults that drifted, an option no engine takes and a flag the wrong way round are caught."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--seq", default="4096")  # training_setup's is 2048
    parser.add_argument("--colour", default="red")
    parser.add_argument("--grad-checkpointing", action="store_true", default=True)
    parser.add_argument("--zero", default="0")  # agrees: read as the engine's 0
    parser.add_argument("--lora-targets", default="q,k,v,o,gate,up,down")  # agrees with the engine's tuple
    parser.add_argument("--base-dtype", default=None)  # the engine's None, but 'auto' is not taken
    actions = [action for action in parser._actions if action.dest != "help"]
    problems = option_problems("demo", actions, (training_setup,), {})
    assert [problem.split(":")[0] for problem in problems] == ["mlhw demo --seq", "mlhw demo --colour",
                                                                "mlhw demo --grad-checkpointing",
                                                                "mlhw demo --base-dtype"]
    latency = argparse.ArgumentParser()
    latency.add_argument("--latency-us", dest="latency_us", default=5.0)  # the engine's is None
    assert option_problems("demo", latency._actions[1:], (step_communication,), {"latency_us": ("latency_s", 1e6)})


def test_the_form_check_can_fail() -> None:
    """A form default typed by hand, an input no engine takes, a None without its choice and a stale exemption."""
    base = get_calculator("training-memory")
    calculator = dataclasses.replace(base, fields=(
        int_field("seq", "Sequence length", default=4096, maximum=MAX_SEQ),
        int_field("colour", "Colour", default=1, maximum=2),
        int_field("batch", "Micro-batch", default=1, maximum=8),  # agrees
    ), own_defaults={"batch": "stale: the engine's default is 1 too"})
    problems = form_problems(calculator)
    assert [problem.split(":")[0] for problem in problems] == [
        "training-memory.seq", "training-memory.colour", "training-memory.batch"]
    efficiency = dataclasses.replace(get_calculator("interconnect"), fields=(
        float_field("efficiency", "Efficiency", default=0.0, minimum=0, maximum=1),), own_defaults={})
    assert form_problems(efficiency) == ["interconnect.efficiency: the engine's default is None; offer it as the "
                                         "form's 'none' choice (none_label)"]
