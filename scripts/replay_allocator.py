#!/usr/bin/env python3
"""Replay the allocation order of the real-GPU runs through the caching-allocator simulation.

For every run in ``tests/data/measurements_cuda/h100-sxm`` (real H100 steps), this re-runs the
same step under fake tensors with the measurement harness (``scripts/harness/``, needs the
``measure`` extra: torch, transformers, peft), records the order in which tensors are
allocated and freed, replays it through :mod:`calculators.memory.caching_allocator` and
compares the replayed ``max_memory_reserved`` with the one measured on the GPU.

It answers one question: is the gap between what a step allocates and what the process
holds explained by the caching allocator's rules applied to the step's allocation order?
Then ``total_bytes`` needs that order (an allocation schedule from the calculators), not a
fitted reserve. It prints one line per run and a summary, next to the calculators'
``total_bytes`` error on the same runs:

    scripts/replay_allocator.py                      # every run (about 20 minutes on 2 cores)
    scripts/replay_allocator.py --match "qwen.*ckpt"  # the runs whose label matches
    scripts/replay_allocator.py --out replay.json    # also write the per-run figures

A run whose replayed allocated peak is more than 5 % from the measured one took another
kernel path on the GPU than under fake tensors (fp32 SDPA runs PyTorch's math backend on
CUDA); it is listed apart, since its allocation order is not the GPU's.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # scripts/ is not a package: make `harness` importable

from harness.case import Case
from harness.order import allocation_order

from calculators.accuracy_real_gpu import PRECISION_OF_MODE, error_stats, load_runs, run_label, score_run
from calculators.memory.caching_allocator import replay
from calculators.memory.overhead import CUDA_CONTEXT_BYTES
from calculators.units import GIB

DATA = ROOT / "tests" / "data" / "measurements_cuda" / "h100-sxm"
#: A replay whose allocated peak is further than this from the measured one followed another kernel path.
SAME_PATH_TOLERANCE = 0.05


def harness_case(record: dict[str, Any], configs: dict[str, Any]) -> Case:
    """The harness case that runs the same step as one real-GPU run."""
    common = {"batch": record["batch"], "attention": record["attention"], "model_config": configs[record["model"]]}
    if record["kind"] == "infer":
        return Case(record["model"], "infer", weights="bf16", context=record["seq"],
                    new_tokens=record.get("new_tokens") or 0, **common)
    settings: dict[str, Any] = {"precision": PRECISION_OF_MODE[record["mode"]]}
    if record.get("lora"):
        settings.update(method="lora", weights=record["weights_dtype"], lora_rank=record["lora"]["rank"],
                        lora_targets=tuple(name.removesuffix("_proj") for name in record["lora"]["targets"]))
    return Case(record["model"], "train", seq=record["seq"], grad_checkpointing=bool(record["gradient_checkpointing"]),
                steps=2, **common, **settings)


def replayed_peaks(case: Case) -> tuple[int, int]:
    """Allocated and reserved peaks of the case's allocation order replayed through the allocator simulation."""
    events, first_phase = allocation_order(case)
    allocator = replay(events, reset_at=first_phase)
    return allocator.peak_allocated_bytes, allocator.peak_reserved_bytes


def provenance(args: argparse.Namespace) -> dict[str, Any]:
    """How the replay was made: the command, the library versions of the fake-tensor runs, the date."""
    import datetime

    import torch
    import transformers

    command = "python scripts/replay_allocator.py" + (f" --match {args.match!r}" if args.match else "")
    return {"command": command + " --out FILE", "torch": torch.__version__, "transformers": transformers.__version__,
            "date": datetime.date.today().isoformat(), "measured": "tests/data/measurements_cuda/h100-sxm/cases.jsonl",
            "allocator_rules": "calculators.memory.caching_allocator (PyTorch CUDACachingAllocator.cpp, defaults)",
            "context_bytes": CUDA_CONTEXT_BYTES}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="a real-GPU data set (cases.jsonl, configs.json)")
    parser.add_argument("--match", default="", help="only the runs whose label matches this regular expression")
    parser.add_argument("--out", type=Path, help="write the per-run figures to this JSON file")
    args = parser.parse_args(argv)
    runs, configs = load_runs(args.data)
    rows: list[dict[str, Any]] = []
    for record in runs:
        label = run_label(record)
        if record.get("out_of_memory") or not re.search(args.match, label):
            continue
        allocated, reserved = replayed_peaks(harness_case(record, configs))
        measured_total = record["cuda_peak_reserved"] + record["non_torch_bytes"]
        row = {
            "label": label, "kind": record["kind"], "checkpointing": bool(record.get("gradient_checkpointing")),
            "measured_allocated": record["cuda_peak_allocated"],
            "measured_reserved": record["cuda_peak_reserved"], "measured_total": measured_total,
            "replayed_allocated": allocated, "replayed_reserved": reserved,
            "replayed_total": reserved + CUDA_CONTEXT_BYTES,
            "calculators_total": score_run(record, configs).estimated_total,
        }
        row["same_path"] = abs(allocated - row["measured_allocated"]) <= SAME_PATH_TOLERANCE * row["measured_allocated"]
        rows.append(row)
        print(f"{label:<52} reserved {row['measured_reserved'] / GIB:6.2f} GiB, replayed {reserved / GIB:6.2f} "
              f"({(reserved - row['measured_reserved']) / row['measured_reserved']:+6.1%}); total: replay "
              f"{(row['replayed_total'] - measured_total) / measured_total:+6.1%}, calculators "
              f"{(row['calculators_total'] - measured_total) / measured_total:+6.1%}"
              + ("" if row["same_path"] else "  [other kernel path on the GPU]"), flush=True)
    for name, chosen in (("same kernel path", [r for r in rows if r["same_path"]]),
                         ("other kernel path", [r for r in rows if not r["same_path"]])):
        if not chosen:
            continue
        for what, key in (("replayed allocator", "replayed_total"), ("calculators' total_bytes", "calculators_total")):
            stats = error_stats((r[key] - r["measured_total"]) / r["measured_total"] for r in chosen)
            print(f"{name} (n={stats.count}), {what}: total median {stats.median:.2%}, p95 {stats.p95:.2%}, "
                  f"worst {stats.worst:.2%}, most under {stats.most_under:+.2%}")
    if args.out:
        document = {"provenance": provenance(args), "runs": rows}
        args.out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
