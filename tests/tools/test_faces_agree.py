"""The CLI, the widget forms and the engine agree on every input they share.

Each face reads its defaults from the engine's signature
(:func:`calculators.validate.default_of`); this test walks the memory calculators'
subcommands and forms and compares every shared input's default with the engine's
(``training_setup`` and ``inference_setup``), so an input added or changed in one place
and typed by hand in another fails here.
"""

from __future__ import annotations

import argparse
import inspect
from typing import Any

import pytest

from calculators.cli import build_parser
from calculators.memory.inference import inference_setup
from calculators.memory.training_inputs import DEFAULT_LORA_TARGETS, training_setup
from calculators.widgets.registry import get_calculator

#: (CLI words, widget calculator, engine function whose keywords they feed)
FACES = [
    (["train"], "training-memory", training_setup),
    (["fit", "train"], "fit", training_setup),
    (["infer"], "inference-memory", inference_setup),
    (["fit", "infer"], "fit", inference_setup),
]


def _subparser(words: list[str]) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = build_parser()
    for word in words:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[word]
    return parser


def _cli_defaults(words: list[str]) -> dict[str, Any]:
    return {action.dest: action.default for action in _subparser(words)._actions
            if action.option_strings and action.dest not in ("help", "json", "model", "gpu")}


def _reads_as_default(engine: Any, name: str, value: Any) -> bool:
    """True when the engine reads ``value`` for ``name`` as it reads its own default
    (``"0"`` and ``0`` for the ZeRO stage, ``"q,k"`` and ``("q", "k")`` for LoRA targets)."""
    return bool(engine(**{name: value}) == engine())


def _engine_defaults(function: Any) -> dict[str, Any]:
    return {name: p.default for name, p in inspect.signature(function).parameters.items()
            if p.default is not inspect.Parameter.empty}


@pytest.mark.parametrize(("words", "widget", "engine"), FACES, ids=[" ".join(f[0]) for f in FACES])
def test_cli_defaults_are_the_engines(words: list[str], widget: str, engine: Any) -> None:
    engine_defaults = _engine_defaults(engine)
    cli = _cli_defaults(words)
    unknown = sorted(set(cli) - set(engine_defaults))
    assert not unknown, f"mlhw {' '.join(words)} options the engine does not take: {unknown}"
    differing = {name: (value, engine_defaults[name]) for name, value in cli.items()
                 if not _reads_as_default(engine, name, value)}
    assert not differing, f"mlhw {' '.join(words)}: (CLI default, engine default) {differing}"


@pytest.mark.parametrize(("words", "widget", "engine"), FACES, ids=[" ".join(f[0]) for f in FACES])
def test_widget_defaults_are_the_engines(words: list[str], widget: str, engine: Any) -> None:
    engine_defaults = _engine_defaults(engine)
    calculator = get_calculator(widget)
    cli = _cli_defaults(words)
    for field in calculator.fields:
        if field.name not in engine_defaults or field.name not in cli:
            continue
        checked = calculator.values({})[field.name]
        assert _reads_as_default(engine, field.name, checked), (widget, field.name, checked)


def test_the_check_can_fail() -> None:
    """A hand-typed default that drifted from the engine is caught (a check of the check)."""
    assert not _reads_as_default(training_setup, "seq", "4096")
    assert not _reads_as_default(inference_setup, "weights", "int4")
    assert _reads_as_default(training_setup, "lora_targets", ",".join(DEFAULT_LORA_TARGETS))
    assert _reads_as_default(training_setup, "zero", "0")
