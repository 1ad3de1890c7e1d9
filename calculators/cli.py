"""Command line: ``mlhw`` or ``python -m calculators``.

Each subcommand but the two listings (``models``, ``gpus``) is built from a named calculator
(:mod:`calculators.jobs`): its options are the calculator's fields, and it computes through the
calculator the web page's widget computes through, printing its text (:attr:`Answer.text
<calculators.jobs.calculator.Answer.text>`) or, with ``--json``, its data. Bad input prints one
line naming the field and the accepted range on stderr and exits with status 2; no traceback.

>>> main(["infer", "--model", "llama-3-8b", "--context", "8192", "--json"])  # doctest: +ELLIPSIS
{
  "parameters": 8030261248,
...
0
>>> main(["infer", "--model", "llama-3-8b", "--gpu", "rtx-4090"])  # doctest: +ELLIPSIS
On 1x GeForce RTX 4090: fits, 6.4 GiB to spare of 23.6 GiB usable.
...
0
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from calculators.catalog.gpus import all_gpus
from calculators.catalog.models import all_models
from calculators.columns import Column, gib_column, number_column
from calculators.commands import add_options, calculator_of, command_fields, flag_aliases
from calculators.errors import CalculatorError, InputError
from calculators.fit import fit_inference, fit_training
from calculators.inputs.fields import Field
from calculators.jobs.calculator import Answer, Calculator
from calculators.jobs.fit import fit_job_fields
from calculators.jobs.registry import calculator_names, get_calculator
from calculators.jobs.text import table_text
from calculators.memory.inference import InferenceInputs
from calculators.memory.training_inputs import training_setup
from calculators.tables import Table


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting, so errors share one format."""

    def error(self, message: str) -> Any:
        raise _UsageError(message)


class _UsageError(Exception):
    pass


#: The subcommands listed first, in this order; the others follow by name.
FIRST = ("train", "infer", "fit")
#: Subcommands no calculator declares: they list a catalog (no inputs, no form).
LISTINGS = ("models", "gpus")
#: ``mlhw fit JOB``: the fit calculator's ``job`` as a subcommand (its form's choice). The job's
#: settings follow the subcommand; the model and the GPU, the same for both jobs, precede it
#: (:data:`FIT_TOP`).
FIT_JOBS = {"train": "training", "infer": "inference"}
FIT_TOP = ("model", "gpu")
#: Engine arguments whose flag is spelled differently and that no field feeds by name, by subcommand.
FLAGS = {"system": {"offload_parameters": "--model"}}


def _commands() -> dict[str, Calculator]:
    """Each subcommand built from a calculator (its ``command``) -> that calculator, in the order ``mlhw --help``
    lists them (:data:`FIRST`, then by name)."""
    found = {get_calculator(name).command: get_calculator(name) for name in calculator_names()
             if get_calculator(name).command}
    return {name: found[name] for name in sorted(found, key=lambda name: (name not in FIRST,
                                                                           FIRST.index(name) if name in FIRST else 0,
                                                                           name))}


def _fit_top() -> tuple[Field, ...]:
    return tuple(field for field in command_fields(calculator_of("fit")) if field.name in FIT_TOP)


def _fit_job(command: str) -> tuple[Field, ...]:
    """The options of ``mlhw fit COMMAND``: the settings the fit form passes on for that job
    (:func:`~calculators.jobs.fit.fit_job_fields`), with the command line's own."""
    return fit_job_fields(command_fields(calculator_of("fit")), FIT_JOBS[command])


def build_parser() -> argparse.ArgumentParser:
    """The ``mlhw`` argument parser (numbers are parsed and range-checked by the calculators)."""
    parser = _Parser(prog="mlhw", description="Size GPU memory, speed and cost of training and inference of "
                                              "transformer models on your GPUs.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    engines = command_engines()
    fit_sub = None
    for name, calculator in _commands().items():
        if name == "fit":
            fit = sub.add_parser("fit", help=calculator.command_help)
            add_options(fit, _fit_top(), engines["fit train"])
            fit_sub = fit.add_subparsers(dest="job", required=True, parser_class=_Parser)
            for job, help in (("train", "fit a training step"), ("infer", "fit inference")):
                add_options(fit_sub.add_parser(job, help=help), _fit_job(job), engines[f"fit {job}"])
            for listing, help in zip(LISTINGS, ("list the model catalog", "list the GPU catalog"), strict=True):
                sub.add_parser(listing, help=help)
            continue
        add_options(sub.add_parser(name, help=calculator.command_help), command_fields(calculator), engines[name])
    assert fit_sub is not None
    for command in [*sub.choices.values(), *fit_sub.choices.values()]:
        command.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parser


#: The engine functions whose keywords each ``fit`` job's options feed (the fit calculator's, by job);
#: ``--model`` feeds the ModelSpec they all take first, ``fit --gpu`` the GPU.
_FIT_ENGINES: dict[str, tuple[Callable[..., Any], ...]] = {
    "fit train": (training_setup, fit_training), "fit infer": (InferenceInputs, fit_inference),
}


def command_engines() -> dict[str, tuple[Callable[..., Any], ...]]:
    """Each subcommand (``"fit train"`` for a nested one) -> the engine functions its options feed:
    its calculator's (``Calculator.engines``).

    >>> command_engines()["speed"][0].__name__
    'inference_speed'
    """
    built = {name: calculator.engines for name, calculator in _commands().items() if name != "fit"}
    return {**built, **_FIT_ENGINES, **{name: () for name in LISTINGS}}


def command_calculators() -> dict[str, str]:
    """Each subcommand built from a calculator's fields -> that calculator's name (``fit train``: ``fit``).

    >>> command_calculators()["speed"]
    'inference-speed'
    """
    built = {name: calculator.name for name, calculator in _commands().items() if name != "fit"}
    return {**built, **{command: "fit" for command in _FIT_ENGINES}}


def command_options(command: str) -> tuple[Field, ...]:
    """The fields whose options ``mlhw COMMAND`` takes (``fit train``: the model and GPU before the job
    too); none for a listing command (``models``).

    >>> [field.cli_flag for field in command_options("fit infer")][:4]
    ['--model', '--gpu', '--gpus', '--batch']
    """
    if command in _FIT_ENGINES:
        return (*_fit_top(), *_fit_job(command.split()[1]))
    calculator = command_calculators().get(command)
    return command_fields(get_calculator(calculator)) if calculator else ()


#: Engine argument names that differ from the flag carrying them (any command).
_FLAG_OF = {
    "config": "--model", "spec": "--model", "model": "--model", "json": "--model",
    "lora_targets": "--lora-targets", "targets": "--lora-targets", "rank": "--lora-rank",
}


def _flags(parser: argparse.ArgumentParser, argv: Sequence[str]) -> dict[str, str]:
    """``dest -> --flag`` of the (sub)command ``argv`` names (``fit train`` included)."""
    found: dict[str, str] = {}
    command: argparse.ArgumentParser | None = parser
    words = list(argv)
    while command is not None:
        following: argparse.ArgumentParser | None = None
        for action in command._actions:
            if action.option_strings:
                found[action.dest] = max(action.option_strings, key=len)
            elif isinstance(action, argparse._SubParsersAction):
                following = next((action.choices[word] for word in words if word in action.choices), None)
        command = following
    return found


def flag_error(error: InputError, flags: dict[str, str], aliases: dict[str, str]) -> InputError:
    """``error`` naming the flag the user typed (``--host-ram-factor``), not the engine's argument.

    >>> flag_error(InputError("config.vocab_size", 0, "an integer"), {"model": "--model"}, {}).field
    '--model: config.vocab_size'
    >>> flag_error(InputError("gpu memory_gb", -1, "a number"), {"gpu": "--gpu"}, {}).field
    '--gpu memory_gb'
    """
    field = error.field
    if " " in field:  # a key of an option's value: "gpu memory_gb" is --gpu's memory_gb
        option, key = field.split(" ", 1)
        flag = flags.get(option)
        return error if flag is None else error.renamed(f"{flag} {key}")
    head = field.split(".", 1)[0]
    flag = aliases.get(field) or flags.get(field) or flags.get(field.replace("-", "_")) or _FLAG_OF.get(head)
    if flag is None:
        return error
    return error.renamed(f"{flag}: {field}" if head in ("config", "json") else flag)


def run(argv: Sequence[str]) -> tuple[Any, str]:
    """Parse ``argv`` and compute through the subcommand's calculator; returns (JSON-ready data, text).

    A bad value raises :class:`~calculators.errors.InputError` naming its flag.
    """
    parser = build_parser()
    args = parser.parse_args(list(argv))
    if args.command in LISTINGS:
        return _listing(args.command)
    command = f"fit {args.job}" if args.command == "fit" else args.command
    aliases = {**flag_aliases(command_options(command)), **FLAGS.get(args.command, {})}
    try:
        answer = _answer(args)
        return answer.data, answer.text  # the views run engine functions too (a run's cost): inside the try
    except InputError as error:
        raise flag_error(error, _flags(parser, argv), aliases) from None


def _answer(args: argparse.Namespace) -> Answer:
    """The answer of the calculator whose subcommand ``args`` parsed: its options as the command line's values."""
    calculator = calculator_of(args.command)
    raw = {field.name: getattr(args, field.name, None) for field in command_fields(calculator)}
    values = calculator.values(raw, face="cli")
    if args.command == "fit":
        values["job"] = FIT_JOBS[args.job]
    return calculator.answer_for(values)


def _listing(command: str) -> tuple[Any, str]:
    """``mlhw models`` and ``mlhw gpus``: the catalogs."""
    if command == "models":
        rows: list[dict[str, Any]] = [{"id": r.id, "name": r.name, "parameters": r.spec().parameters,
                 "active_parameters": r.spec().active_parameters, "source": r.source.url, "as_of": r.source.as_of}
                for r in all_models()]
        models = Table.of((Column("id"), number_column("parameters (B)", 2, unit=1e9), Column("name")),
                          [(row["id"], row["parameters"], row["name"]) for row in rows], caption="")
        return rows, table_text(models)
    gpu_rows: list[dict[str, Any]] = []
    for g in all_gpus():
        row: dict[str, Any] = {f.name: getattr(g, f.name) for f in dataclasses.fields(g)
                               if f.name not in ("source", "field_sources", "notes")}
        row["notes"] = list(g.notes)
        row["source"] = dataclasses.asdict(g.source)
        row["field_sources"] = {name: dataclasses.asdict(src) for name, src in g.field_sources}
        gpu_rows.append(row)
    gpus = Table.of((Column("id"), gib_column("memory (GiB)", 1), Column("name")),
                    [(row["id"], row["memory_bytes"], row["name"]) for row in gpu_rows], caption="")
    return gpu_rows, table_text(gpus)


def _print(text: str, stream: Any) -> None:
    """Print ``text``; characters the stream cannot encode (a lone surrogate escaped in a
    config.json's name, say) are written as backslash escapes instead of failing."""
    try:
        print(text, file=stream)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        print(text.encode(encoding, "backslashreplace").decode(encoding), file=stream)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        data, text = run(arguments)
    except (CalculatorError, _UsageError) as error:
        _print(f"mlhw: error: {error}", sys.stderr)
        return 2
    try:
        _print(json.dumps(data, indent=2) if "--json" in arguments else text, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `mlhw models | head`: the reader left, which is fine
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
