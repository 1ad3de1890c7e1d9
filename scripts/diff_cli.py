#!/usr/bin/env python3
"""Print one digest line per ``mlhw`` call over a fixed set of calls, to compare two versions of the CLI.

Usage::

    scripts/diff_cli.py > before.txt     # on one commit
    scripts/diff_cli.py > after.txt      # on another
    diff before.txt after.txt            # empty: every answer is byte-identical

Each line is ``NAME STATUS SHA256(--json output) SHA256(text output)``: the output is what
``mlhw ARGS --json`` and ``mlhw ARGS`` print (stdout, or the one-line error on stderr), read
in-process through :func:`calculators.cli.main`. The calls cover every subcommand with its
defaults and with non-default options, plus a few bad inputs (their messages are output
too). ``--show NAME`` prints that call's JSON instead, to see what changed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calculators.cli import main  # noqa: E402

#: name -> arguments (``--json`` is added for the JSON digest).
CALLS: dict[str, list[str]] = {
    "models": ["models"],
    "gpus": ["gpus"],
    "train": ["train", "--model", "llama-3-8b"],
    "train-lora": ["train", "--model", "llama-3-8b", "--method", "lora", "--lora-rank", "64", "--lora-targets", "q,v",
                   "--seq", "4096", "--batch", "4", "--grad-checkpointing", "--gpus", "8", "--zero", "3",
                   "--allocator", "expandable_segments"],
    "infer": ["infer", "--model", "llama-3-8b"],
    "infer-fp8": ["infer", "--model", "qwen2.5-7b", "--weights", "fp8", "--kv-cache", "fp8", "--batch", "16",
                  "--context", "32768", "--new-tokens", "1024", "--attention", "eager"],
    "fit-infer": ["fit", "--model", "llama-3-8b", "infer"],
    "fit-infer-gpu": ["fit", "--model", "llama-3-70b", "--gpu", "h100-sxm", "infer", "--weights", "int4"],
    "fit-train": ["fit", "--model", "llama-3-8b", "--gpu", "a100-80gb-sxm", "train", "--method", "qlora"],
    "fit-train-all": ["fit", "--model", "llama-3-8b", "train"],
    "speed": ["speed", "--model", "llama-3-8b", "--gpu", "h100-sxm"],
    "speed-vllm": ["speed", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--engine", "vllm", "--weights", "fp8",
                   "--batch", "32", "--context", "8192", "--new-tokens", "512", "--gpus", "4",
                   "--interconnect", "nvlink4"],
    "speed-eff": ["speed", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--bandwidth-efficiency", "0.7",
                  "--compute-efficiency", "0.5", "--collective-efficiency", "0.6"],
    "train-time": ["train-time", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--tokens", "1e12"],
    "train-time-3d": ["train-time", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tokens", "2T", "--gpus", "1024",
                      "--tp", "4", "--pp", "4", "--virtual-stages", "2", "--fp8", "--zero", "1", "--seq", "8192",
                      "--grad-accumulation", "16", "--goodput", "1", "--nics-per-node", "4"],
    "train-time-lora": ["train-time", "--model", "llama-3-8b", "--gpu", "a100-80gb-sxm", "--tokens", "500M",
                        "--method", "lora", "--lora-rank", "32", "--mfu", "0.3", "--grad-checkpointing",
                        "--precision", "fp16-mixed", "--batch", "4"],
    "parallel": ["parallel", "--model", "llama-3-8b"],
    "parallel-pcie": ["parallel", "--model", "llama-3-8b", "--gpu", "a100-80gb-sxm", "--gpus", "16", "--zero", "3",
                      "--interconnect", "pcie4", "--batch", "2", "--seq", "2048", "--mfu", "0.5",
                      "--efficiency", "0.7", "--latency-us", "10", "--grad-dtype", "bf16", "--no-overlap"],
    "recommend": ["recommend", "--model", "llama-3-8b"],
    "recommend-serve": ["recommend", "--model", "llama-3-70b", "--method", "fp8", "--kv-cache", "fp8",
                        "--context", "16384", "--batch", "32", "--objective", "latency", "--include-apple"],
    "recommend-finetune": ["recommend", "--model", "llama-3-8b", "--job", "finetune", "--method", "qlora",
                           "--tokens", "500M", "--budget-usd-per-hour", "20", "--no-grad-checkpointing"],
    "recommend-train": ["recommend", "--model", "llama-3-8b", "--job", "train", "--tokens", "2T", "--mfu", "0.35",
                        "--gpu", "h100-sxm", "--gpu", "a100-80gb-sxm", "--target-tokens-per-s", "1e5"],
    "cost": ["cost", "--gpu", "rtx-4090"],
    "cost-h100": ["cost", "--gpu", "h100-sxm", "--purchase-usd", "30000", "--cloud-usd-per-hour", "2.5",
                  "--kwh-usd", "0.3", "--power-watts", "500", "--utilization", "0.8", "--years", "4",
                  "--gpu-hours", "1000", "--tokens-per-s", "2000"],
    "plan": ["plan", "--model", "llama-3.1-70b", "--gpu", "rtx-4090", "--gpus", "2", "--weights", "int4",
             "--context", "8192"],
    "plan-qlora": ["plan", "--model", "qwen2.5-7b", "--gpu", "rtx-4090", "--job", "qlora", "--tokens", "1B",
                   "--grad-checkpointing", "--cloud-usd-per-hour", "0.5"],
    "plan-h100": ["plan", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--job", "full", "--zero", "3",
                  "--tokens", "100B"],
    "system": ["system", "--samples-per-s", "3000", "--bytes-per-sample", "110000"],
    "system-offload": ["system", "--samples-per-s", "500", "--bytes-per-sample", "1e6", "--decode-ms", "5",
                       "--core-efficiency", "0.8", "--gpu", "a100-80gb-sxm", "--gpus", "8", "--host-ram-factor", "2",
                       "--dataset-cache-gib", "100", "--batch-bytes", "1e8", "--offload", "optimizer",
                       "--model", "llama-3-8b"],
    "bad-seq": ["train", "--model", "llama-3-8b", "--seq", "0"],
    "bad-tokens": ["train-time", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--tokens", "lots"],
    "bad-latency": ["parallel", "--model", "llama-3-8b", "--latency-us", "-1"],
    "bad-cache": ["system", "--samples-per-s", "1", "--bytes-per-sample", "1", "--dataset-cache-gib", "x"],
}


def output(argv: list[str]) -> tuple[int, str]:
    """Exit status and everything ``mlhw ARGV`` prints (stdout then stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue() + err.getvalue()


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def main_(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", choices=sorted(CALLS), help="print this call's JSON output instead of digests")
    options = parser.parse_args(arguments)
    if options.show:
        print(output([*CALLS[options.show], "--json"])[1], end="")
        return 0
    for name, argv in CALLS.items():
        status, json_text = output([*argv, "--json"])
        print(name, status, digest(json_text), digest(output(argv)[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main_(sys.argv[1:]))
