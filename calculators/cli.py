"""Command line: ``mlhw`` or ``python -m calculators``.

Subcommands: ``train``, ``infer``, ``fit``, ``models``, ``gpus``; each takes ``--json``.
Bad input prints one line naming the field and the accepted range on stderr and exits
with status 2; no traceback.

>>> main(["infer", "--model", "llama-3-8b", "--context", "8192", "--json"])  # doctest: +ELLIPSIS
{
  "parameters": 8030261248,
...
0
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import pkgutil
import sys
from collections.abc import Callable, Sequence
from typing import Any

from calculators.catalog.gpus import all_gpus
from calculators.catalog.models import all_models
from calculators.commands import (
    add_options,
    calculator_of,
    command_fields,
    command_settings,
    engine_kwargs,
    flag_aliases,
)
from calculators.dtype_support import UnsupportedFormatError, on_gpu
from calculators.errors import CalculatorError, InputError
from calculators.fit import fit_inference, fit_training
from calculators.inputs.fields import Field
from calculators.inputs.gpu import resolve_gpu
from calculators.inputs.model import resolve_model
from calculators.memory.inference import inference_memory, inference_setup
from calculators.memory.training import training_memory
from calculators.memory.training_inputs import training_setup
from calculators.units import GIB
from calculators.jobs.registry import fit_job_fields, get_calculator


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting, so errors share one format."""

    def error(self, message: str) -> Any:
        raise _UsageError(message)


class _UsageError(Exception):
    pass


#: The built-in subcommands built from a calculator's fields (whose ``command`` they are): name -> help.
_BUILT_IN = {"train": "peak memory of one training step", "infer": "peak memory of prefill + decode"}
#: Subcommands no calculator declares: they list a catalog (no inputs, no form).
LISTINGS = ("models", "gpus")
#: ``mlhw fit JOB``: the fit calculator's ``job`` as a subcommand (its form's choice). The job's
#: settings follow the subcommand; the model and the GPU, the same for both jobs, precede it
#: (:data:`FIT_TOP`).
FIT_JOBS = {"train": "training", "infer": "inference"}
FIT_TOP = ("model", "gpu")


def _fit_top() -> tuple[Field, ...]:
    return tuple(field for field in command_fields(calculator_of("fit")) if field.name in FIT_TOP)


def _fit_job(command: str) -> tuple[Field, ...]:
    """The options of ``mlhw fit COMMAND``: the settings the fit form passes on for that job
    (:func:`~calculators.jobs.registry.fit_job_fields`), with the command line's own."""
    return fit_job_fields(command_fields(calculator_of("fit")), FIT_JOBS[command])


def build_parser() -> argparse.ArgumentParser:
    """The ``mlhw`` argument parser (numbers are parsed and range-checked by the calculators)."""
    parser = _Parser(prog="mlhw", description="Size GPU memory for training and inference of transformer models.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    engines = command_engines()
    for name, help in _BUILT_IN.items():
        add_options(sub.add_parser(name, help=help), command_fields(calculator_of(name)), engines[name])

    fit = sub.add_parser("fit", help="which GPUs a job fits, how many, max batch/context")
    add_options(fit, _fit_top(), engines["fit train"])
    fit_sub = fit.add_subparsers(dest="job", required=True, parser_class=_Parser)
    for name, help in (("train", "fit a training step"), ("infer", "fit inference")):
        add_options(fit_sub.add_parser(name, help=help), _fit_job(name), engines[f"fit {name}"])

    for name, help in zip(LISTINGS, ("list the model catalog", "list the GPU catalog"), strict=True):
        sub.add_parser(name, help=help)
    for name, module in _plugins().items():
        add_options(sub.add_parser(name, help=(module.__doc__ or name).strip().splitlines()[0]),
                    command_fields(calculator_of(name)), engines[name])
    for command in [*sub.choices.values(), *fit_sub.choices.values()]:
        command.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parser


def _plugins() -> dict[str, Any]:
    """Subcommands defined in :mod:`calculators.commands`, by name."""
    from calculators import commands

    found: dict[str, Any] = {}
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda item: item.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        found[str(module.COMMAND)] = module
    return found


#: The engine functions whose keywords each ``fit`` job's options feed (the fit calculator's, by job);
#: ``--model`` feeds the ModelSpec they all take first, ``fit --gpu`` the GPU.
_FIT_ENGINES: dict[str, tuple[Callable[..., Any], ...]] = {
    "fit train": (training_setup, fit_training), "fit infer": (inference_setup, fit_inference),
}


def command_engines() -> dict[str, tuple[Callable[..., Any], ...]]:
    """Each subcommand (``"fit train"`` for a nested one) -> the engine functions its options feed:
    its calculator's (``Calculator.engines``).

    >>> command_engines()["speed"][0].__name__
    'inference_speed'
    """
    built_in = {name: calculator_of(name).engines for name in _BUILT_IN}
    plugins = {name: calculator_of(name).engines for name in _plugins()}
    return {**built_in, **_FIT_ENGINES, **{name: () for name in LISTINGS}, **plugins}


def command_calculators() -> dict[str, str]:
    """Each subcommand built from a calculator's fields -> that calculator's name (``fit train``: ``fit``).

    >>> command_calculators()["speed"]
    'inference-speed'
    """
    names = [*_BUILT_IN, *_plugins()]
    return {**{name: calculator_of(name).name for name in names}, **{command: "fit" for command in _FIT_ENGINES}}


def command_options(command: str) -> tuple[Field, ...]:
    """The fields whose options ``mlhw COMMAND`` takes (``fit train``: the model and GPU before the job
    too); none for a listing command (``models``).

    >>> [field.cli_flag for field in command_options("fit infer")][:4]
    ['--model', '--gpu', '--batch', '--weights']
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
    """
    field = error.field
    head = field.split(".", 1)[0]
    flag = aliases.get(field) or flags.get(field) or flags.get(field.replace("-", "_")) or _FLAG_OF.get(head)
    if flag is None:
        return error
    return error.renamed(f"{flag}: {field}" if head in ("config", "json") else flag)


def run(argv: Sequence[str]) -> tuple[Any, str]:
    """Parse ``argv`` and compute; returns (JSON-ready data, text rendering).

    A bad value raises :class:`~calculators.errors.InputError` naming its flag.
    """
    parser = build_parser()
    args = parser.parse_args(list(argv))
    plugins = _plugins()
    aliases = flag_aliases(command_options(f"fit {args.job}" if args.command == "fit" else args.command))
    aliases.update(getattr(plugins.get(args.command), "FLAGS", {}))
    try:
        return _run(args, plugins)
    except InputError as error:
        raise flag_error(error, _flags(parser, argv), aliases) from None


def _run(args: argparse.Namespace, plugins: dict[str, Any]) -> tuple[Any, str]:
    if args.command in plugins:
        data, text = plugins[args.command].run(args)
        return data, text
    if args.command in _BUILT_IN:
        memory = training_memory if args.command == "train" else inference_memory
        settings = command_settings(args, args.command)
        estimate = memory(resolve_model(args.model), **settings)
        return estimate.to_dict(), estimate.to_text()
    if args.command == "fit":
        spec = resolve_model(args.model)
        fit = fit_training if args.job == "train" else fit_inference
        settings = engine_kwargs(args, _fit_job(args.job))
        if args.gpu:
            gpus = [resolve_gpu(args.gpu, field="--gpu")]
            results = [fit(spec, gpus[0], **settings)]
        else:  # every catalog GPU, each in the 16-bit format it runs; one that cannot run the job is named
            gpus, results, refused = [], [], []
            for gpu in all_gpus():
                try:
                    results.append(fit(spec, gpu, **on_gpu(gpu, settings)))
                    gpus.append(gpu)
                except UnsupportedFormatError as error:
                    refused.append(f"{gpu.id}: cannot run this job: {error.accepted}")
        lines = [f"{'gpu':<24} {'verdict':<12} {'needs GiB':>9} {'+/- GiB':>7} {'usable':>7} {'margin':>7} "
                 f"{'GPUs':>5} {'max batch (tight)':>17} {'max ctx (tight)':>17}"]
        for gpu, result in zip(gpus, results, strict=True):
            needed = "-" if result.gpus_needed is None else str(result.gpus_needed)
            verdict = result.verdict
            lines.append(f"{gpu.id:<24} {verdict.verdict:<12} {verdict.total_bytes / GIB:9.2f} "
                         f"{verdict.uncertainty_bytes / GIB:7.2f} {verdict.usable_bytes / GIB:7.2f} "
                         f"{verdict.margin_bytes / GIB:+7.2f} {needed:>5} "
                         f"{f'{result.max_batch} ({result.max_batch_tight})':>17} "
                         f"{f'{result.max_context} ({result.max_context_tight})':>17}")
        lines.append("fits: total + uncertainty fits the usable memory; tight: only the total does (a risk); "
                     "uncertainty measured on a real H100 (scripts/score_real_gpu.py)")
        if not args.gpu:
            lines += refused
        lines += sorted({f"note: {note}" for result in results for note in result.notes})
        return [r.to_dict() for r in results], "\n".join(lines)
    if args.command == "models":
        rows: list[dict[str, Any]] = [{"id": r.id, "name": r.name, "parameters": r.spec().parameters,
                 "active_parameters": r.spec().active_parameters, "source": r.source.url, "as_of": r.source.as_of}
                for r in all_models()]
        text = "\n".join(f"{row['id']:<20} {row['parameters'] / 1e9:9.2f}B  {row['name']}" for row in rows)
        return rows, text
    gpu_rows: list[dict[str, Any]] = []
    for g in all_gpus():
        row: dict[str, Any] = {f.name: getattr(g, f.name) for f in dataclasses.fields(g)
                               if f.name not in ("source", "field_sources", "notes")}
        row["notes"] = list(g.notes)
        row["source"] = dataclasses.asdict(g.source)
        row["field_sources"] = {name: dataclasses.asdict(src) for name, src in g.field_sources}
        gpu_rows.append(row)
    text = "\n".join(f"{row['id']:<24} {row['memory_bytes'] / GIB:7.1f} GiB  {row['name']}" for row in gpu_rows)
    return gpu_rows, text


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
