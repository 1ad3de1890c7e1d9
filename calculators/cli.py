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

from calculators.catalog.gpu_input import gpu_record
from calculators.catalog.gpus import all_gpus
from calculators.catalog.models import all_models, resolve_model
from calculators.commands import engine_option
from calculators.dtype_support import UnsupportedFormatError, on_gpu
from calculators.errors import CalculatorError, InputError
from calculators.fit import fit_inference, fit_training
from calculators.memory.inference import ATTENTIONS as INFER_ATTENTIONS
from calculators.memory.inference import KV_DTYPES, WEIGHT_DTYPES, inference_memory, inference_setup
from calculators.memory.optimizers import OPTIMIZERS
from calculators.memory.overhead import ALLOCATORS
from calculators.memory.training import training_memory
from calculators.memory.training_inputs import (
    ATTENTIONS,
    BASE_DTYPES,
    METHODS,
    PRECISIONS,
    training_setup,
)
from calculators.units import GIB
from calculators.validate import default_of


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting, so errors share one format."""

    def error(self, message: str) -> Any:
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _add_train_options(parser: argparse.ArgumentParser) -> None:
    def option(flag: str, help: str, **options: Any) -> None:
        engine_option(parser, flag, training_setup, help=help, **options)

    option("--method", f"one of {', '.join(METHODS)}")
    option("--precision", f"one of {', '.join(PRECISIONS)}")
    option("--base-dtype", f"frozen base for lora/qlora: {', '.join(BASE_DTYPES)}; auto: bf16, nf4 for qlora")
    option("--optimizer", f"one of {', '.join(OPTIMIZERS)}")
    option("--batch", "micro-batch per GPU (sequences)")
    option("--seq", "sequence length in tokens")
    option("--grad-checkpointing", "recompute activations in backward", action="store_true")
    option("--attention", f"one of {', '.join(ATTENTIONS)}")
    option("--lora-rank", "LoRA rank r")
    # The engine's default is a tuple; the option is its comma-separated text.
    parser.add_argument("--lora-targets", default=",".join(default_of(training_setup, "lora_targets")),
                        help="comma-separated: q,k,v,o,gate,up,down (default: %(default)s)")
    option("--grad-accumulation", "micro-batches per optimizer step")
    option("--gpus", "data-parallel GPUs")
    option("--zero", "ZeRO stage 0-3 (0 = plain DDP)")
    option("--allocator", f"PyTorch caching allocator: one of {', '.join(ALLOCATORS)}")


def _add_infer_options(parser: argparse.ArgumentParser) -> None:
    def option(flag: str, help: str, **options: Any) -> None:
        engine_option(parser, flag, inference_setup, help=help, **options)

    option("--weights", f"one of {', '.join(WEIGHT_DTYPES)}")
    option("--kv-cache", f"one of {', '.join(KV_DTYPES)}")
    option("--batch", "concurrent sequences")
    option("--context", "prompt tokens per sequence")
    option("--new-tokens", "generated tokens per sequence")
    option("--attention", f"one of {', '.join(INFER_ATTENTIONS)}")
    option("--allocator", f"PyTorch caching allocator: one of {', '.join(ALLOCATORS)}")


def _train_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "method": args.method, "precision": args.precision, "base_dtype": args.base_dtype,
        "optimizer": args.optimizer, "batch": args.batch, "seq": args.seq,
        "grad_checkpointing": args.grad_checkpointing, "attention": args.attention,
        "lora_rank": args.lora_rank, "lora_targets": args.lora_targets,
        "grad_accumulation": args.grad_accumulation, "gpus": args.gpus, "zero": args.zero,
        "allocator": args.allocator,
    }


def _infer_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "weights": args.weights, "kv_cache": args.kv_cache, "batch": args.batch, "context": args.context,
        "new_tokens": args.new_tokens, "attention": args.attention, "allocator": args.allocator,
    }


def build_parser() -> argparse.ArgumentParser:
    """The ``mlhw`` argument parser (numbers are parsed and range-checked by the calculators)."""
    parser = _Parser(prog="mlhw", description="Size GPU memory for training and inference of transformer models.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    train = sub.add_parser("train", help="peak memory of one training step")
    train.add_argument("--model", required=True, help="catalog id (see 'mlhw models') or path to config.json")
    _add_train_options(train)

    infer = sub.add_parser("infer", help="peak memory of prefill + decode")
    infer.add_argument("--model", required=True, help="catalog id or path to config.json")
    _add_infer_options(infer)

    fit = sub.add_parser("fit", help="which GPUs a job fits, how many, max batch/context")
    fit.add_argument("--model", required=True, help="catalog id or path to config.json")
    fit.add_argument("--gpu", default=None, help="GPU id (see 'mlhw gpus'), custom:memory_gb=N,bandwidth_gbps=N,... "
                                                 "or mac:GB; default: every GPU in the catalog")
    fit_sub = fit.add_subparsers(dest="job", required=True, parser_class=_Parser)
    _add_train_options(fit_sub.add_parser("train", help="fit a training step"))
    _add_infer_options(fit_sub.add_parser("infer", help="fit inference"))

    sub.add_parser("models", help="list the model catalog")
    sub.add_parser("gpus", help="list the GPU catalog")
    for name, module in _plugins().items():
        module.add_arguments(sub.add_parser(name, help=(module.__doc__ or name).strip().splitlines()[0]))
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


#: The engine functions whose keywords each built-in subcommand's options feed (a plugin declares
#: ``ENGINES``); ``--model`` feeds the ModelSpec they all take first, ``fit --gpu`` the GPU.
_ENGINES: dict[str, tuple[Callable[..., Any], ...]] = {
    "train": (training_setup,), "infer": (inference_setup,), "fit train": (training_setup, fit_training),
    "fit infer": (inference_setup, fit_inference), "models": (), "gpus": (),
}


def command_engines() -> dict[str, tuple[Callable[..., Any], ...]]:
    """Each subcommand (``"fit train"`` for a nested one) -> the engine functions its options feed.

    >>> command_engines()["speed"][0].__name__
    'inference_speed'
    """
    plugins = {name: tuple(module.ENGINES) for name, module in _plugins().items()}
    return {**_ENGINES, **plugins}


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
    aliases: dict[str, str] = dict(getattr(plugins.get(args.command), "FLAGS", {}))
    try:
        return _run(args, plugins)
    except InputError as error:
        raise flag_error(error, _flags(parser, argv), aliases) from None


def _run(args: argparse.Namespace, plugins: dict[str, Any]) -> tuple[Any, str]:
    if args.command in plugins:
        data, text = plugins[args.command].run(args)
        return data, text
    if args.command == "train":
        estimate = training_memory(resolve_model(args.model), **_train_kwargs(args))
        return estimate.to_dict(), estimate.to_text()
    if args.command == "infer":
        estimate = inference_memory(resolve_model(args.model), **_infer_kwargs(args))
        return estimate.to_dict(), estimate.to_text()
    if args.command == "fit":
        spec = resolve_model(args.model)
        fit = fit_training if args.job == "train" else fit_inference
        settings = _train_kwargs(args) if args.job == "train" else _infer_kwargs(args)
        if args.gpu:
            gpus = [gpu_record("--gpu", args.gpu)]
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
