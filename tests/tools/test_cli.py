"""The command line: ``calculators.cli.main`` in-process (fast), plus smoke tests of
``python -m calculators`` and the ``mlhw`` console script in a subprocess, as a user runs them.

Contract (``calculators/cli.py`` docstring): subcommands ``train``, ``infer``, ``fit``,
``models``, ``gpus`` and one per named calculator, each with ``--json``; an answer opens with
the reader's GPU and count, the verdict and the margin; bad input prints one line naming the
field on stderr and exits with status 2, with no traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from calculators.cli import main

ROOT = Path(__file__).resolve().parents[2]
ESTIMATE_KEYS = {"parameters", "trainable_parameters", "active_parameters", "peak_allocated_bytes", "total_bytes",
                 "peak_phase", "breakdown"}

TINY_CONFIG = {
    "model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8,
    "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100, "tie_word_embeddings": False,
}
# By hand (see tests/engine/test_model_spec.py): attention 10240 + mlp 24576 + norms 128 per layer,
# two layers 69888; embed 6400 + final norm 64 + untied head 6400.
TINY_PARAMS = 6400 + 69888 + 64 + 6400


def mlhw(*args: str, executable: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI: in this process (``main``, stdout and stderr captured), or with ``executable``
    in a subprocess."""
    if executable is None:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(args))
        return subprocess.CompletedProcess(["mlhw", *args], status, out.getvalue(), err.getvalue())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(executable + list(args), capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
                          check=False)


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.strip()
    return result.stdout


# ------------------------------------------------------------------ happy paths
COMMANDS = {
    "train": ["train", "--model", "llama-3-8b", "--seq", "512"],
    "train-lora": ["train", "--model", "llama-3-8b", "--method", "qlora", "--lora-targets", "q,v",
                   "--grad-checkpointing", "--optimizer", "paged-adamw-8bit"],
    "infer": ["infer", "--model", "llama-3-8b", "--context", "8192", "--new-tokens", "128"],
}


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_estimate_text(args: list[str]) -> None:
    out = _ok(mlhw(*args))
    assert out.startswith("On 1x H100 SXM 80GB: ")  # the GPU the form opens on, when --gpu is not given
    assert "Peak allocated (" in out and "Total on each GPU" in out
    assert "GiB" in out


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_estimate_json(args: list[str]) -> None:
    data = json.loads(_ok(mlhw(*args, "--json")))
    assert ESTIMATE_KEYS <= set(data), set(data)
    assert data["total_bytes"] >= data["peak_allocated_bytes"] > 0
    assert sum(data["breakdown"].values()) == data["peak_allocated_bytes"]
    # Meta-Llama-3-8B: 8,030,261,248 parameters (Hugging Face model API safetensors total).
    assert data["parameters"] == 8_030_261_248


def test_train_json_trainable_for_lora() -> None:
    # LoRA r=16 on q and v of Llama 3 8B: 32 layers x 16 x ((4096 + 4096) + (4096 + 1024)),
    # K/V at 8 KV heads x 128 = 1024 wide (GQA).
    data = json.loads(_ok(mlhw("train", "--model", "llama-3-8b", "--method", "lora", "--lora-targets", "q,v",
                               "--lora-rank", "16", "--json")))
    assert data["trainable_parameters"] == 32 * 16 * ((4096 + 4096) + (4096 + 1024))


FIT = {
    "fit-infer": ["fit", "--model", "llama-3-8b", "--gpu", "h100-sxm", "infer", "--context", "8192"],
    "fit-train": ["fit", "--model", "llama-3-8b", "--gpu", "h100-sxm", "train", "--seq", "512", "--method", "lora"],
}


@pytest.mark.parametrize("args", FIT.values(), ids=FIT.keys())
def test_fit_text(args: list[str]) -> None:
    out = _ok(mlhw(*args))
    assert out.startswith("On 1x H100 SXM 80GB: fits, ")
    assert "GeForce RTX 4090" in out  # the table of every GPU follows


@pytest.mark.parametrize("args", FIT.values(), ids=FIT.keys())
def test_fit_json_before_job(args: list[str]) -> None:
    # --json belongs to the fit parser, so it is accepted before the job name.
    where = args.index("h100-sxm") + 1
    data = json.loads(_ok(mlhw(*args[:where], "--json", *args[where:])))
    assert data["answer"]["gpu"] == "h100-sxm" and data["answer"]["verdict"] == "fits"
    row = next(row for row in data["gpus"] if row["gpu"] == "h100-sxm")
    assert {"fits", "headroom_bytes", "gpus_needed", "gpus_needed_tight", "max_batch", "max_context",
            "estimate"} <= set(row)
    assert ESTIMATE_KEYS <= set(row["estimate"])
    assert row["margin_bytes"] == data["answer"]["margin_bytes"]


@pytest.mark.parametrize("args", FIT.values(), ids=FIT.keys())
def test_fit_json_after_job(args: list[str]) -> None:
    # Regression: --json was added only to the top-level subcommands, so
    # 'mlhw fit --model M infer --json' failed with 'unrecognized arguments: --json'.
    data = json.loads(_ok(mlhw(*args, "--json")))
    assert data["answer"]["gpu"] == "h100-sxm"


def test_fit_infer_every_gpu() -> None:
    # Every GPU in the catalog follows the answer: the H100 and the RTX 4090 included.
    out = _ok(mlhw("fit", "--model", "llama-3-8b", "infer"))
    assert "H100 SXM 80GB" in out and "GeForce RTX 4090" in out


def test_fit_takes_a_gpu_count_for_both_jobs() -> None:
    """#27: 'Does Llama 3.1 70B fit on 2x RTX 4090 at 8k context with int4 weights?' is one command, and its
    answer is the first line; training takes the count too (data parallel, sharded by ZeRO)."""
    out = _ok(mlhw("fit", "--model", "llama-3.1-70b", "--gpu", "rtx-4090", "infer", "--gpus", "2",
                   "--weights", "int4", "--context", "8192"))
    assert out.startswith("On 2x GeForce RTX 4090, tensor or pipeline parallel: tight, ")
    assert "2 (tight) · 3 (fits)" in out
    data = json.loads(_ok(mlhw("fit", "--model", "llama-3-8b", "--gpu", "h100-sxm", "train", "--gpus", "8",
                               "--zero", "3", "--json")))
    assert data["answer"]["gpus"] == 8 and data["answer"]["split"] == "data parallel, ZeRO-3"


def test_models_text_and_json() -> None:
    assert "llama-3-8b" in _ok(mlhw("models"))
    rows = json.loads(_ok(mlhw("models", "--json")))
    by_id = {row["id"]: row for row in rows}
    assert by_id["llama-3-8b"]["parameters"] == 8_030_261_248  # HF safetensors total of Meta-Llama-3-8B


def test_gpus_text_and_json() -> None:
    assert "h100-sxm" in _ok(mlhw("gpus"))
    rows = json.loads(_ok(mlhw("gpus", "--json")))
    by_id = {row["id"]: row for row in rows}
    # NVIDIA H100 datasheet: H100 SXM has 80 GB of HBM3 (80 GiB as the card reports it).
    assert by_id["h100-sxm"]["memory_bytes"] == 80 * 2**30


def test_config_path_as_model(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY_CONFIG), encoding="utf-8")
    for command in (["train", "--seq", "64"], ["infer", "--context", "64"]):
        data = json.loads(_ok(mlhw(command[0], "--model", str(path), *command[1:], "--json")))
        assert data["parameters"] == TINY_PARAMS


def test_config_json_text_as_model() -> None:
    data = json.loads(_ok(mlhw("infer", "--model", json.dumps(TINY_CONFIG), "--context", "64", "--json")))
    assert data["parameters"] == TINY_PARAMS


# ------------------------------------------------------------------ bad input
def _bad(result: subprocess.CompletedProcess[str], *names: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("mlhw: error:"), line
    for name in names:
        assert name in line, (name, line)
    return line


BAD: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "negative-batch": (["train", "--model", "llama-3-8b", "--batch", "-1"], ("batch", "-1", "1 to")),
    "negative-batch-infer": (["infer", "--model", "llama-3-8b", "--batch", "-1"], ("batch",)),
    "text-batch": (["infer", "--model", "llama-3-8b", "--batch", "lots"], ("batch",)),
    "zero-context": (["infer", "--model", "llama-3-8b", "--context", "0"], ("context",)),
    "zero-stage-4": (["train", "--model", "llama-3-8b", "--gpus", "8", "--zero", "4"], ("zero", "0, 1, 2, 3")),
    "unknown-model": (["train", "--model", "nope"], ("model", "nope")),
    "unknown-gpu": (["fit", "--model", "llama-3-8b", "--gpu", "h9000", "infer"], ("gpu", "h9000")),
    "fp64-precision": (["train", "--model", "llama-3-8b", "--precision", "fp64"], ("precision", "bf16-mixed")),
    "unknown-method": (["train", "--model", "llama-3-8b", "--method", "sft"], ("method", "qlora")),
    "unknown-weights": (["infer", "--model", "llama-3-8b", "--weights", "int3"], ("weights", "int4")),
    "unknown-lora-target": (["train", "--model", "llama-3-8b", "--method", "lora", "--lora-targets", "q,zz"],
                            ("--lora-targets", "zz")),
    "missing-subcommand": ([], ("command",)),
    "missing-model": (["train"], ("--model",)),
    "unknown-option": (["infer", "--model", "llama-3-8b", "--bogus"], ("--bogus",)),
    "fit-without-job": (["fit", "--model", "llama-3-8b"], ("job",)),
}


@pytest.mark.parametrize(("args", "names"), BAD.values(), ids=BAD.keys())
def test_bad_input_one_line_exit_2(args: list[str], names: tuple[str, ...]) -> None:
    _bad(mlhw(*args), *names)


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_bad_input_same_with_json(json_flag: list[str]) -> None:
    _bad(mlhw("train", "--model", "llama-3-8b", "--batch", "-1", *json_flag), "batch")


def test_malformed_config_path(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", "hidden_size": ', encoding="utf-8")
    _bad(mlhw("infer", "--model", str(path)), "config.json")


def test_config_missing_key(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({k: v for k, v in TINY_CONFIG.items() if k != "vocab_size"}), encoding="utf-8")
    _bad(mlhw("train", "--model", str(path)), "config.vocab_size")


def test_missing_config_path(tmp_path: Path) -> None:
    _bad(mlhw("infer", "--model", str(tmp_path / "absent" / "config.json")), "config")


# ------------------------------------------------------------------ console script
def _console_script() -> str | None:
    # The venv that runs the tests; mlhw is installed there by `pip install -e .`.
    candidate = Path(sys.executable).parent / "mlhw"
    if candidate.exists():
        return str(candidate)
    return shutil.which("mlhw")


def test_python_dash_m() -> None:
    """``python -m calculators`` as a user runs it: a result on stdout, and a bad input's one line on stderr."""
    module = [sys.executable, "-m", "calculators"]
    data: Any = json.loads(_ok(mlhw("infer", "--model", "llama-3-8b", "--json", executable=module)))
    assert ESTIMATE_KEYS <= set(data)
    _bad(mlhw("train", "--model", "llama-3-8b", "--batch", "-1", executable=module), "batch")


@pytest.mark.skipif(_console_script() is None, reason="console script mlhw not installed (pip install -e .)")
def test_console_script() -> None:
    script = _console_script()
    assert script is not None
    data: Any = json.loads(_ok(mlhw("infer", "--model", "llama-3-8b", "--json", executable=[script])))
    assert ESTIMATE_KEYS <= set(data)
    _bad(mlhw("infer", "--model", "llama-3-8b", "--batch", "-1", executable=[script]), "batch")
