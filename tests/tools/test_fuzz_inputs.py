"""Hostile input fuzzing of the three faces: the ``mlhw`` CLI, the Python API and the widgets' ``compute_json``.

Issue #17 asked for one input boundary: whatever a user types or uploads, the answer is
a result or one error of the documented type (:class:`~calculators.errors.InputError`,
a ``ValueError``) naming the field as the user typed it: the flag in the CLI
(``--host-ram-factor``), the keyword argument in the API (``host_ram_factor``), the form
input in a widget (with its label in the message). Never a traceback, never NaN, infinity
or a negative size, and never an invalid value accepted because the job happens not to
use it.

Each case is drawn from a seeded :class:`random.Random` (hypothesis picks the seeds, so a
failure prints a seed that replays it); a checker returns the problems it found, and the
tests assert there are none. ``python -m tests.tools.test_fuzz_inputs 3000`` runs that many
cases per face and prints the counts by kind of problem (what the issue's closing note
reports; a second number picks other seeds, ``... 3000 777``). The suite itself is bounded: a few hundred cases per face, well under a minute.

Hostile config.json files come from :func:`hostile_configs`: UTF-16 and Latin-1 bytes, a
UTF-8 byte-order mark (accepted), nesting 100,000 deep, a 5,000-digit integer, numbers
past the float range, wrong types, missing keys, a file over the size limit, a path longer
than the file system allows, and MoE architectures without their expert keys (they must
get the architecture's defaults with a note, never a silent dense model).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import math
import os
import random
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calculators
from calculators import cli
from calculators.config_input import MAX_CONFIG_BYTES
from calculators.errors import InputError
from calculators.inputs.fields import NONE_SPELLINGS
from calculators.inputs.shared import CUSTOM
from calculators.model import ModelSpec
from calculators.model_config import spec_from_config
from calculators.widgets.api import INTERNAL_ERROR, compute_json
from calculators.jobs.registry import calculator_names, get_calculator

#: Cases per face in the test run; ``python -m tests.tools.test_fuzz_inputs N`` runs N per face.
CASES = int(os.environ.get("MLHW_FUZZ_CASES", "400"))
FUZZ = settings(max_examples=CASES, deadline=None, database=None, derandomize=True)

LLAMA = {"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
         "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 1000}

#: Values no numeric input accepts (every count, size, rate and fraction here is >= 0 and finite).
BAD_NUMBER_TEXT = ["nan", "NaN", "inf", "-inf", "Infinity", "-1", "-0.5", "1e400", "-1e400", "abc", "",
                   " ", "1,5", "0x10", "9" * 4300, "9" * 4301, "9" * 5000, "1" + "0" * 400, "\u0661\u0662x", "None",
                   "4" * 30]
BAD_NUMBER_VALUES: list[Any] = [math.nan, math.inf, -math.inf, -1, -0.5, 10**400, 10**5000, -(10**400), "abc",
                                None, [], {}, [1], object(), b"4", 1e308 * 10]
BAD_NAME_TEXT = ["bogus-xyz", "", "BF16 ", "\x00", "a" * 300]
#: Extreme values that may be valid: the answer must still be finite, non-negative and tracebackless.
EXTREME_NUMBER_TEXT = ["5e-324", "1e-300", "1e-12", "0.000001", "1", "0", "1e12", "1e15", "1e300", "1.7976931348623157e308",
                       "65536", "16777216", "1048576", "4294967296"]


# ------------------------------------------------------------------------------ hostile config files
def _mixtral_without_experts() -> dict[str, Any]:
    # Mixtral 8x7B's config.json less its expert keys: transformers' MixtralConfig
    # defaults (num_local_experts=8, num_experts_per_tok=2) make it the 46.7B model.
    return {"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000}


def _qwen2_moe_without_experts() -> dict[str, Any]:
    return {"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
            "num_key_value_heads": 16, "intermediate_size": 5632, "vocab_size": 151936}


def _nested(depth: int) -> str:
    return '{"model_type": "llama", "x": ' + "[" * depth + "]" * depth + "}"


@functools.cache
def hostile_configs() -> dict[str, tuple[bytes, str]]:
    """Name -> (file bytes, expected outcome): ``ok``, ``error`` or ``moe`` (MoE with a defaults note)."""
    text = json.dumps(LLAMA)
    latin = json.dumps({**LLAMA, "_name_or_path": "caf\u00e9"}, ensure_ascii=False)
    return {
        "valid": (text.encode(), "ok"),
        "utf8-bom": (b"\xef\xbb\xbf" + text.encode(), "ok"),
        "utf16": (text.encode("utf-16"), "error"),
        "utf16-le-no-bom": (text.encode("utf-16-le"), "error"),
        "utf32": (text.encode("utf-32"), "error"),
        "latin1": (latin.encode("latin-1"), "error"),
        "nested-100000": (("[" * 100_000 + "]" * 100_000).encode(), "error"),
        "nested-5000-inside": (_nested(5000).encode(), "error"),
        "object-nested-50000": (('{"a":' * 50_000 + "1" + "}" * 50_000).encode(), "error"),
        "int-5000-digits": (text.replace('"hidden_size": 256', '"hidden_size": ' + "9" * 5000).encode(), "error"),
        "int-4301-digits-unused": (text.replace("}", ', "junk": ' + "7" * 4301 + "}").encode(), "error"),
        "float-1e400": (text.replace('"hidden_size": 256', '"hidden_size": 1e400').encode(), "error"),
        "nan": (text.replace('"vocab_size": 1000', '"vocab_size": NaN').encode(), "error"),
        "string-number": (text.replace('"hidden_size": 256', '"hidden_size": "256"').encode(), "error"),
        "list-number": (text.replace('"hidden_size": 256', '"hidden_size": [256]').encode(), "error"),
        "null-number": (text.replace('"hidden_size": 256', '"hidden_size": null').encode(), "error"),
        "bool-number": (text.replace('"hidden_size": 256', '"hidden_size": true').encode(), "error"),
        "missing-layers": (json.dumps({k: v for k, v in LLAMA.items() if k != "num_hidden_layers"}).encode(), "error"),
        "model-type-number": (text.replace('"llama"', "7").encode(), "error"),
        "top-level-list": (b"[1, 2]", "error"),
        "top-level-string": (b'"llama"', "error"),
        "empty": (b"", "error"),
        "truncated": (text[:40].encode(), "error"),
        "nul-bytes": (b"\x00" * 64, "error"),
        "too-big": (b"{" + b" " * (MAX_CONFIG_BYTES + 10) + b"}", "error"),
        "lone-surrogate-name": (text.replace("}", ', "_name_or_path": "\\ud800x"}').encode(), "ok"),
        "lone-surrogate-type": (text.replace('"llama"', '"\\udfffllama"').encode(), "ok"),
        "mixtral-no-experts": (json.dumps(_mixtral_without_experts()).encode(), "moe"),
        "qwen2-moe-no-experts": (json.dumps(_qwen2_moe_without_experts()).encode(), "moe"),
        "mixtral-zero-experts": (json.dumps({**_mixtral_without_experts(), "num_local_experts": 0}).encode(), "error"),
    }


@contextlib.contextmanager
def config_files() -> Iterator[dict[str, tuple[str, str]]]:
    """Hostile config files on disk: name -> (path as typed, expected outcome)."""
    with tempfile.TemporaryDirectory() as folder:
        found: dict[str, tuple[str, str]] = {}
        for name, (data, outcome) in hostile_configs().items():
            path = Path(folder) / f"{name}.json"
            path.write_bytes(data)
            found[name] = (str(path), outcome)
        (Path(folder) / "dir.json").mkdir()
        found["directory"] = (str(Path(folder) / "dir.json"), "error")
        found["missing-file"] = (str(Path(folder) / "absent.json"), "error")
        found["path-too-long"] = (str(Path(folder) / ("a" * 5000 + ".json")), "error")
        found["name-too-long"] = (str(Path(folder) / ("b" * 300 + ".json")), "error")
        found["nul-in-path"] = (str(Path(folder) / "a\x00b.json"), "error")
        yield found


# ------------------------------------------------------------------------------ output checks
def bad_numbers(data: Any, path: str = "") -> list[str]:
    """Places in a JSON-ready result holding NaN, infinity or a negative size."""
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            found += bad_numbers(value, f"{path}.{key}")
    elif isinstance(data, (list, tuple)):
        for index, value in enumerate(data):
            found += bad_numbers(value, f"{path}[{index}]")
    elif isinstance(data, float) and not math.isfinite(data):
        found.append(f"non-finite {path}")
    elif isinstance(data, (int, float)) and not isinstance(data, bool) and data < 0:
        last = path.rsplit(".", 1)[-1]
        signed = ("headroom" in last or "margin" in last)  # usable memory minus the need: negative when short
        if not signed and any(word in last for word in ("bytes", "parameters", "gib", "tokens", "seconds", "hours")):
            found.append(f"negative {path}")
    return found


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} in output")
    return json.loads(text, parse_constant=refuse)


# ------------------------------------------------------------------------------ CLI face
def _cli_options() -> dict[tuple[str, ...], dict[str, tuple[str, int, bool]]]:
    """Each subcommand path (``("fit", "train")``) -> its value options: (kind, level, optional).

    ``level`` is how many words of the path come before the option (``fit --model``: 1).
    """
    parser = cli.build_parser()
    found: dict[tuple[str, ...], dict[str, tuple[str, int, bool]]] = {}

    def walk(command: Any, path: tuple[str, ...], inherited: dict[str, tuple[str, int, bool]]) -> None:
        options = dict(inherited)
        subs = None
        for action in command._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                subs = action
            elif action.option_strings and action.nargs != 0 and action.dest != "help":
                flag = max(action.option_strings, key=len)
                options[flag] = (_kind(flag), len(path), action.default is None and not action.required)
        if subs is None:
            found[path] = options
            return
        for name, child in subs.choices.items():
            walk(child, (*path, name), options)

    walk(parser, (), {})
    return found


#: Options whose value is a name (catalog id, choice, list of names); every other value option is a number.
_NAME_OPTIONS = {"--method", "--precision", "--base-dtype", "--optimizer", "--attention", "--lora-targets",
                 "--weights", "--kv-cache", "--gpu", "--interconnect", "--offload", "--grad-dtype",
                 "--param-dtype", "--job", "--zero"}


def _kind(flag: str) -> str:
    if flag == "--model":
        return "model"
    if flag == "--tokens":
        return "tokens"
    return "name" if flag in _NAME_OPTIONS else "number"


#: A valid value for options that are required.
_REQUIRED = {"--model": "llama-3-8b", "--gpu": "h100-sxm", "--tokens": "1e9", "--samples-per-s": "100",
             "--bytes-per-sample": "1000", "--concurrency": "4"}


def cli_case(rng: random.Random, files: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """One invocation with exactly one hostile option (the rest valid), and what must happen."""
    options = _cli_options()
    path = rng.choice(sorted(p for p in options if options[p]))
    flags = options[path]
    flag = rng.choice(sorted(flags))
    kind, _, optional = flags[flag]
    expect = "error"
    if kind == "model":
        name = rng.choice(sorted(files))
        value, outcome = files[name]
        if rng.random() < 0.3 and name not in ("path-too-long", "name-too-long", "nul-in-path", "directory",
                                                 "missing-file", "too-big"):
            value = Path(value).read_bytes().decode("utf-8", "replace") if outcome != "ok" else Path(value).read_text()
            outcome = "any" if name == "latin1" else outcome  # with replacement characters it is valid text
        expect = {"ok": "ok", "moe": "ok", "any": "any"}.get(outcome, "error")
    elif kind == "name":
        value = rng.choice(BAD_NAME_TEXT + ["5", "-1"])
    elif kind == "tokens":
        value = rng.choice(BAD_NUMBER_TEXT + ["-5T", "1e40", "0"])
    else:
        value = rng.choice(BAD_NUMBER_TEXT)
        if rng.random() < 0.3:
            value, expect = rng.choice(EXTREME_NUMBER_TEXT), "any"
    if optional and not value.strip():
        expect = "any"  # a blank optional option means "not given": the default
    given = {name: _REQUIRED[name] for name in flags if name in _REQUIRED}
    if path[0] == "embed":  # the encoder calculator: an encoder id; the decoder configs are refused by name
        given["--model"] = "bge-m3"
        expect = "error" if kind == "model" and expect == "ok" else expect
    if path[0] == "cost":
        given["--gpu"] = "rtx-4090"  # one with a list price, so no other option is missing
    given[flag] = value
    argv: list[str] = []
    for level, word in enumerate([*path, ""]):
        argv += [item for name, text in given.items() if flags[name][1] == level for item in (name, text)]
        if word:
            argv.append(word)
    if rng.random() < 0.5:
        argv.append("--json")
    return {"argv": argv, "flag": flag, "expect": expect}


def run_cli(argv: list[str]) -> tuple[int, str, str, BaseException | None]:
    # Byte streams that refuse what UTF-8 cannot encode, as a terminal's do.
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    raised: BaseException | None = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(argv)
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
        except BaseException as error:  # noqa: BLE001 - a fuzz target must not raise
            status, raised = -1, error
    texts = []
    for stream in (out, err):
        stream.flush()
        texts.append(stream.buffer.getvalue().decode("utf-8"))
    return status, texts[0], texts[1], raised


def check_cli(case: dict[str, Any]) -> list[str]:
    """Problems with one invocation: a traceback, a wrong status, an error not naming the flag, bad numbers."""
    status, out, err, raised = run_cli(case["argv"])
    if raised is not None:
        return [f"traceback: {type(raised).__name__}"]
    problems: list[str] = []
    if "Traceback" in err or "Traceback" in out:
        problems.append("traceback printed")
    if case["expect"] == "any" and status in (0, 2):
        if status == 0 and "--json" in case["argv"]:
            try:
                problems += bad_numbers(_strict_json(out))
            except ValueError as error:
                problems.append(f"bad output: {error}")
        return problems
    if status == 0:
        if case["expect"] == "error":
            problems.append(f"accepted invalid {case['flag']}")
        if "--json" in case["argv"]:
            try:
                problems += bad_numbers(_strict_json(out))
            except ValueError as error:
                problems.append(f"bad output: {error}")
    elif status == 2:
        lines = err.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("mlhw: error: "):
            problems.append("error not one line")
        elif case["expect"] == "ok":
            problems.append(f"refused valid {case['flag']}")
        elif case["flag"] not in lines[0] and not (lines[0].startswith("mlhw: error: --")
                                                  and case["flag"][2:].replace("-", "_") in lines[0]):
            # A limit on two inputs together names one flag and the other's argument.
            problems.append(f"error does not name {case['flag']}")
        if lines and len(lines[0]) > 2000:
            problems.append("error message over 2000 characters")
    else:
        problems.append(f"exit status {status}")
    return problems


# ------------------------------------------------------------------------------ API face
def _spec() -> ModelSpec:
    return spec_from_config(LLAMA, name="fuzz")


def _api_targets() -> dict[str, tuple[Callable[..., Any], dict[str, Any]]]:
    """Public functions with valid keyword arguments; each case makes one of them hostile."""
    from calculators import cost, system
    from calculators.memory.lora import lora_parameters
    from calculators.parallel.step import step_communication
    from calculators.performance.inference_speed import inference_speed
    from calculators.performance.serving_load import Load, ServedModel, serving_load
    from calculators.performance.training_time import training_time
    from calculators.recommend import Workload, recommend

    spec, gpu = _spec(), calculators.get_gpu("h100-sxm")
    train = {"method": "lora", "precision": "bf16-mixed", "base_dtype": "bf16", "optimizer": "adamw", "batch": 1,
             "seq": 256, "grad_checkpointing": False, "attention": "sdpa", "lora_rank": 8, "lora_targets": "q,v",
             "grad_accumulation": 1, "gpus": 1, "zero": 0}
    infer = {"weights": "bf16", "kv_cache": "bf16", "batch": 1, "context": 256, "new_tokens": 0, "attention": "sdpa"}
    return {
        "training_memory": (lambda spec, **kw: calculators.training_memory(spec, **kw), {"spec": spec, **train}),
        "inference_memory": (lambda spec, **kw: calculators.inference_memory(spec, **kw), {"spec": spec, **infer}),
        "kv_cache_bytes": (lambda spec, **kw: calculators.kv_cache_bytes(spec, **kw),
                           {"spec": spec, "batch": 1, "context": 16, "kv_dtype": "bf16"}),
        "max_batch_for_memory": (lambda spec, **kw: calculators.max_batch_for_memory(spec, **kw),
                                 {"spec": spec, "memory_bytes": 2**34, "context": 128, "new_tokens": 0,
                                  "weights": "bf16", "kv_cache": "bf16", "attention": "sdpa"}),
        "max_context_for_memory": (lambda spec, **kw: calculators.max_context_for_memory(spec, **kw),
                                   {"spec": spec, "memory_bytes": 2**34, "batch": 1, "weights": "bf16",
                                    "kv_cache": "bf16", "attention": "sdpa"}),
        "fit_inference": (lambda spec, gpu, **kw: calculators.fit_inference(spec, gpu, **kw),
                          {"spec": spec, "gpu": gpu, **infer}),
        "fit_training": (lambda spec, gpu, **kw: calculators.fit_training(spec, gpu, **kw),
                         {"spec": spec, "gpu": gpu, **train}),
        "lora_parameters": (lambda spec, **kw: lora_parameters(spec, **kw),
                            {"spec": spec, "rank": 8, "targets": ["q", "v"]}),
        "cost_comparison": (lambda **kw: cost.cost_comparison(**kw),
                            {"gpu": "h100-sxm", "gpus": 1, "purchase_usd": 30000.0, "cloud_usd_per_gpu_hour": 2.0,
                             "kwh_usd": 0.15, "power_watts": 700.0, "utilization": 0.5, "years": 3.0}),
        "training_run_cost_usd": (lambda **kw: cost.training_run_cost_usd(**kw),
                                  {"gpu_hours": 10.0, "usd_per_gpu_hour": 2.0}),
        "usd_per_million_tokens": (lambda **kw: cost.usd_per_million_tokens(**kw),
                                   {"tokens_per_s": 100.0, "usd_per_hour": 2.0}),
        "system_balance": (lambda **kw: system.system_balance(system.HostJob.of(**kw)),
                           {"samples_per_s": 100.0, "bytes_per_sample": 1000.0, "decode_ms_per_sample": 1.0,
                            "core_efficiency": 1.0, "gpu": "h100-sxm", "gpus": 1, "host_ram_factor": 1.0,
                            "dataset_cache_bytes": 0, "offload_parameters": 0, "offload": "none", "batch_bytes": 0,
                            "num_workers": None}),
        "inference_speed": (lambda spec, gpu, **kw: inference_speed(spec, gpu, **kw),
                            {"spec": spec, "gpu": gpu, "new_tokens": 16, **{k: v for k, v in infer.items()
                                                                           if k not in ("new_tokens", "attention")}}),
        "serving_load": (lambda spec, gpu, prompt_tokens, output_tokens, concurrency, **kw: serving_load(
                             ServedModel.of(model=spec, gpu=gpu, **kw),
                             Load.of(prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                                     concurrency=concurrency)),
                         {"spec": spec, "gpu": gpu, "prompt_tokens": 128, "output_tokens": 16, "concurrency": 4,
                          "weights": "bf16", "kv_cache": "bf16", "gpus": 1}),
        "training_time": (lambda spec, gpu, **kw: training_time(spec, gpu, **kw),
                          {"spec": spec, "gpu": gpu, "tokens": 10**9, "gpus": 1, "mfu": 0.4,
                           "precision": "bf16-mixed", "grad_checkpointing": False, "seq": 256, "method": "lora",
                           "lora_rank": 8, "lora_targets": "q,v", "batch": 1, "grad_accumulation": 1, "zero": 0,
                           "interconnect": "auto"}),
        "step_communication": (lambda spec, **kw: step_communication(spec, **kw),
                               {"spec": spec, "gpu": "h100-sxm", "gpus": 8, "zero": 0, "interconnect": "auto",
                                "batch": 1, "seq": 256, "mfu": 0.4, "efficiency": 0.8, "latency_s": 2e-6,
                                "grad_dtype": "fp32", "param_dtype": "bf16", "overlap": True,
                                "precision": "bf16-mixed"}),
        "recommend": (lambda **kw: recommend(Workload(**kw)),
                      {"model": spec, "job": "serve", "method": "bf16", "context": 256, "batch": 1,
                       "kv_cache": "bf16", "tokens": 10**9, "target_tokens_per_s": None,
                       "budget_usd_per_hour": None, "grad_checkpointing": True, "include_apple": False,
                       "mfu": None}),
        "from_config": (lambda config, **kw: spec_from_config(config, **kw), {"config": dict(LLAMA)}),
    }


#: Arguments that take None (and blank text) to mean "the default", per function.
_OPTIONAL = {("training_memory", "base_dtype"), ("fit_training", "base_dtype"), ("system_balance", "num_workers"),
             ("training_time", "mfu"), ("recommend", "mfu"), ("recommend", "method"), ("recommend", "context"),
             ("recommend", "target_tokens_per_s"), ("recommend", "budget_usd_per_hour")} | {
    ("cost_comparison", name) for name in ("purchase_usd", "cloud_usd_per_gpu_hour", "kwh_usd", "power_watts")}
_FLAGS = {"grad_checkpointing", "overlap", "include_apple"}


def _reading_spec(function: Callable[..., Any]) -> Callable[..., Any]:
    def call(spec: Any, **kwargs: Any) -> Any:
        return function(spec_from_config(spec), **kwargs)
    return call


def api_case(rng: random.Random, files: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """One call with exactly one hostile argument."""
    targets = _api_targets()
    name = rng.choice(sorted(targets))
    function, kwargs = targets[name]
    kwargs = dict(kwargs)
    argument = rng.choice(sorted(kwargs))
    expect = "error"
    if argument in ("spec", "model", "config"):
        pick = rng.random()
        if pick < 0.5 and argument != "model":
            config_name = rng.choice(sorted(files))
            value: Any
            value, outcome = files[config_name]
            if rng.random() < 0.5 and config_name not in ("path-too-long", "name-too-long", "nul-in-path",
                                                          "directory", "missing-file"):
                raw = Path(value).read_bytes()
                value = raw.decode("utf-8", "replace") if rng.random() < 0.5 else raw
                if isinstance(value, str) and config_name == "latin1":
                    outcome = "any"  # with replacement characters it is valid text
            expect = {"ok": "ok", "moe": "ok", "any": "any"}.get(outcome, "error")
            if argument == "spec" and expect == "ok":
                # A spec read from the config (inside the call, so a refusal is checked too).
                function = _reading_spec(function)
        else:
            value = rng.choice([None, "llama-3-8b-typo", 7, [], {}, object(), math.nan])
            if argument == "model" and value == "llama-3-8b-typo":
                value = "no-such-model"
    elif argument in _FLAGS:
        value = rng.choice(["maybe", 2, -1, math.nan, [], None, object()])
    elif argument in ("gpu", "kv_dtype", "weights", "kv_cache", "attention", "method", "precision", "base_dtype",
                      "optimizer", "lora_targets", "targets", "interconnect", "grad_dtype", "param_dtype",
                      "offload", "job"):
        value = rng.choice(["bogus-xyz", "", 7, None, [], math.nan, ["q", None], object()])
    else:
        value = rng.choice(BAD_NUMBER_VALUES + BAD_NUMBER_TEXT)
    if (name, argument) in _OPTIONAL and (value is None or isinstance(value, str) and not value.strip()):
        expect = "any"
    kwargs[argument] = value
    return {"name": name, "function": function, "kwargs": kwargs, "argument": argument, "expect": expect}


def check_api(case: dict[str, Any]) -> list[str]:
    """Problems with one call: another exception type, an error not naming the argument, bad numbers."""
    try:
        result = case["function"](**case["kwargs"])
    except InputError as error:
        if case["expect"] == "any":
            return []
        if case["expect"] == "ok":
            return [f"refused valid {case['name']}({case['argument']})"]
        named = error.field.split(".", 1)[0]
        wanted = {case["argument"]} | ({"config", "spec", "model"} if case["argument"] in ("config", "spec", "model")
                                       else set())
        if named not in wanted:
            return [f"{case['name']}({case['argument']}) error names {error.field!r}"]
        try:
            text = str(error)
        except Exception as failure:  # noqa: BLE001
            return [f"error message fails: {type(failure).__name__}"]
        return ["error message over 2000 characters"] if len(text) > 2000 else []
    except Exception as error:  # noqa: BLE001 - the point of the test
        return [f"{case['name']}({case['argument']}): {type(error).__name__}"]
    problems: list[str] = []
    if case["expect"] == "error":
        problems.append(f"accepted invalid {case['name']}({case['argument']})")
    if isinstance(result, int) and result < 0:
        problems.append(f"negative {case['name']}")
    to_dict = getattr(result, "to_dict", None)
    data = to_dict() if callable(to_dict) else result
    if isinstance(data, ModelSpec):
        data = {"parameters": data.parameters}
    problems += bad_numbers(data)
    return problems


# ------------------------------------------------------------------------------ widget face
def _mixed_widget_case(rng: random.Random) -> dict[str, Any]:
    """Every input random: a valid value or garbage; any answer but a crash or "a bug" will do."""
    name = rng.choice(calculator_names())
    calculator = get_calculator(name)
    inputs: dict[str, Any] = {}
    for field in calculator.fields:
        pool: list[Any] = [str(field.default), *field.choices, *BAD_NUMBER_TEXT, *BAD_NAME_TEXT, "9" * 4300]
        if field.kind == "config":
            pool = [data.decode("utf-8", "replace") for data, _ in hostile_configs().values()]
        inputs[field.name] = rng.choice(pool)
    return {"name": name, "inputs": inputs, "field": None, "label": "", "expect": "any"}


def widget_case(rng: random.Random, files: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """One form with exactly one hostile input (the controlling input set so it is shown)."""
    if rng.random() < 0.25:
        return _mixed_widget_case(rng)
    name = rng.choice(calculator_names())
    calculator = get_calculator(name)
    field = rng.choice(calculator.fields)
    inputs: dict[str, Any] = {}
    if field.show_when is not None:
        inputs[field.show_when[0]] = field.show_when[1].split("|")[0]  # "a|b": either reveals it
    expect = "error"
    if field.kind in ("int", "float"):
        value: Any = rng.choice(BAD_NUMBER_TEXT + [str((field.minimum or 0) - 1)])
        if rng.random() < 0.3:
            value, expect = rng.choice(EXTREME_NUMBER_TEXT), "any"
    elif field.kind == "choice":
        value = rng.choice(BAD_NAME_TEXT)
    elif field.kind == "bool":
        value = rng.choice(["maybe", "2", "-1", "nan"])
    elif field.kind == "config":
        config_name = rng.choice(sorted(hostile_configs()))
        data, outcome = hostile_configs()[config_name]
        # The page reads a file as UTF-8 text (FileReader.readAsText), replacing bad bytes.
        value = data.decode("utf-8", "replace")
        expect = "ok" if outcome in ("ok", "moe") else "error"
        if config_name == "latin1":
            expect = "any"  # decoded with replacement characters it is valid text: the page refuses the file
        if field.show_when == ("network", CUSTOM):
            expect = "error"  # the vision calculator takes ViT and ResNet configs only
        if config_name == "utf8-bom":
            value = "\ufeff" + data[3:].decode()
    else:
        value = rng.choice(["bogus", "q,x", "\x00", "a" * 5000, "q;v"])
    if field.none_label and isinstance(value, str) and value.strip().lower() in NONE_SPELLINGS:
        expect = "any"  # blank is the field's explicit "none" choice: the engine's default
    inputs[field.name] = value
    return {"name": name, "inputs": inputs, "field": field.name, "label": field.label, "expect": expect}


def _shows(html: str, word: str) -> bool:
    """Whether the rendered result shows ``nan`` or ``inf`` as a number (not inside a word)."""
    import re

    text = re.sub(r"<[^>]+>", " ", html).lower()
    return re.search(rf"(?<![a-z]){word}(?![a-z])", text) is not None


def check_widget(case: dict[str, Any]) -> list[str]:
    """Problems with one compute: a raise, the bug message, an error on the wrong field or not naming it."""
    try:
        reply = json.loads(compute_json(case["name"], json.dumps(case["inputs"])))
    except Exception as error:  # noqa: BLE001
        return [f"compute_json raised {type(error).__name__}"]
    if reply["ok"] and case["expect"] == "any":
        return [f"{case['name']} shows {word}" for word in ("nan", "inf") if _shows(reply["html"], word)]
    if case["expect"] == "any" and reply["message"] != INTERNAL_ERROR and (
            case["field"] is None or reply["field"] == case["field"]):
        return ["error message over 2000 characters"] if len(reply["message"]) > 2000 else []
    if reply["ok"]:
        return [f"accepted invalid {case['name']}.{case['field']}"] if case["expect"] == "error" else []
    if reply["message"] == INTERNAL_ERROR:
        return [f"'a bug' message for {case['name']}.{case['field']}"]
    if case["expect"] == "ok":
        return [f"refused valid {case['name']}.{case['field']}: {reply['message'][:80]}"]
    if reply["field"] != case["field"] and case["field"] not in reply["message"]:
        # A limit on two inputs together is shown at one of them and names the other.
        return [f"{case['name']}.{case['field']} error shown at {reply['field']!r}"]
    message = reply["message"]
    if case["field"] == "config" or reply["field"] != case["field"]:  # config.<key> errors name the key
        return ["error message over 2000 characters"] if len(message) > 2000 else []
    if not message.startswith(case["label"]):
        return [f"{case['name']}.{case['field']} message does not start with its label"]
    return ["error message over 2000 characters"] if len(message) > 2000 else []


# ------------------------------------------------------------------------------ config face (silent dense)
def check_config(name: str, data: bytes, outcome: str) -> list[str]:
    """A hostile config through ``spec_from_config`` (bytes, text and path)."""
    problems: list[str] = []
    for given_as in ("bytes", "text"):
        value: Any = data if given_as == "bytes" else data.decode("utf-8", "replace")
        try:
            spec = spec_from_config(value)
        except InputError:
            if outcome != "error" and not (given_as == "text" and name == "utf8-bom"):
                problems.append(f"{name} as {given_as} refused")
            continue
        except Exception as error:  # noqa: BLE001
            problems.append(f"{name} as {given_as}: {type(error).__name__}")
            continue
        if outcome == "error" and not (given_as == "text" and "replace" and name == "latin1"):
            problems.append(f"{name} as {given_as} accepted")
        if outcome == "moe" and (spec.moe is None or not any("default" in note for note in spec.notes)):
            problems.append(f"{name} silently dense" if spec.moe is None else f"{name} MoE defaults without a note")
    return problems


# ------------------------------------------------------------------------------ the tests
@pytest.fixture(scope="module")
def files() -> Iterator[dict[str, tuple[str, str]]]:
    with config_files() as found:
        yield found


@FUZZ
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_cli_never_tracebacks_and_names_the_flag(seed: int, files: dict[str, tuple[str, str]]) -> None:
    case = cli_case(random.Random(seed), files)
    assert check_cli(case) == [], case["argv"]


@FUZZ
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_api_raises_only_input_error_naming_the_argument(seed: int, files: dict[str, tuple[str, str]]) -> None:
    case = api_case(random.Random(seed), files)
    assert check_api(case) == [], (case["name"], case["argument"], repr(case["kwargs"][case["argument"]])[:200])


@FUZZ
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_widgets_answer_every_input_with_a_field_error(seed: int, files: dict[str, tuple[str, str]]) -> None:
    case = widget_case(random.Random(seed), files)
    assert check_widget(case) == [], (case["name"], case["field"], repr(case["inputs"])[:200])


@pytest.mark.parametrize("name", sorted(hostile_configs()))
def test_hostile_config_file(name: str) -> None:
    data, outcome = hostile_configs()[name]
    assert check_config(name, data, outcome) == []


# ------------------------------------------------------------------------------ the one-off count
def count(cases: int, first_seed: int = 10_000_000) -> dict[str, Counter[str]]:
    """Run ``cases`` per face; the problems found, by kind (numbers and names stripped)."""
    tallies: dict[str, Counter[str]] = {}
    with config_files() as found:
        faces: dict[str, tuple[Callable[..., dict[str, Any]], Callable[[dict[str, Any]], list[str]]]] = {
            "cli": (cli_case, check_cli), "api": (api_case, check_api), "widget": (widget_case, check_widget)}
        for face, (make, check) in faces.items():
            tally: Counter[str] = Counter()
            for seed in range(cases):
                tally["cases"] += 1
                for problem in check(make(random.Random(first_seed + seed), found)):
                    tally[problem] += 1
            tallies[face] = tally
        config: Counter[str] = Counter()
        for name, (data, outcome) in hostile_configs().items():
            config["cases"] += 2
            for problem in check_config(name, data, outcome):
                config[problem] += 1
        tallies["config"] = config
    return tallies


def category(problem: str) -> str:
    """The kind of a problem, for the closing counts."""
    if problem.startswith(("traceback", "compute_json raised")) or problem.split(": ")[-1].endswith("Error"):
        return "traceback or undocumented exception"
    if problem.startswith("'a bug'"):
        return "'a bug' message in a widget"
    if problem.startswith("accepted invalid") or problem.endswith(" accepted"):
        return "invalid value accepted"
    if "silently dense" in problem:
        return "silent dense fallback"
    if problem.startswith("refused valid") or problem.endswith(" refused"):
        return "valid input refused"
    if "over 2000 characters" in problem:
        return "error message over 2000 characters (the bad value echoed whole)"
    if "name" in problem or "shown at" in problem or "label" in problem:
        return "error not naming the field as typed"
    return "other (" + problem.split(" ")[0] + ")"


if __name__ == "__main__":
    numbers = [int(arg) for arg in sys.argv[1:] if arg.isdigit()]
    per_face = numbers[0] if numbers else 1000
    for face_name, tally in count(per_face, *numbers[1:2]).items():
        total = sum(value for key, value in tally.items() if key != "cases")
        print(f"== {face_name}: {tally['cases']} cases, {total} problems")
        kinds: Counter[str] = Counter()
        for problem, times in tally.items():
            if problem != "cases":
                kinds[category(problem)] += times
        for kind, times in kinds.most_common():
            print(f"   {times:6d}  {kind}")
        if "-v" in sys.argv:
            for problem, times in tally.most_common():
                if problem != "cases":
                    print(f"          {times:6d}  {problem}")
