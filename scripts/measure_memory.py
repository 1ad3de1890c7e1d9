#!/usr/bin/env python3
"""Measure the peak memory PyTorch allocates for real training and inference steps.

Ground truth for the estimator in ``calculators/memory/``.  Every case builds a
Hugging Face ``transformers`` causal LM from config values with random weights
(nothing is downloaded), runs real training steps (forward, backward,
optimizer step, zero_grad), real inference (prefill plus a decode loop with a
``DynamicCache``) or, with ``--kind embed``, one encoder forward of a padded batch
(``harness/encoder.py``) and records the peak live tensor bytes per phase together with
a breakdown of what was live at each peak.

Devices
-------
``--device fake`` (default)
    Everything runs under ``FakeTensorMode`` on fake CPU tensors: shapes, dtypes
    and aliasing are exact, no data exists, so 8B-70B models take seconds.
``--device cpu``
    Same tracking on real CPU tensors (small models only); the test suite checks
    that it gives exactly the same per-phase peaks as fake mode.
``--device cuda``
    Real GPU run: records ``torch.cuda.max_memory_allocated`` /
    ``max_memory_reserved`` per phase (peak stats reset at every phase start),
    ``nvidia-smi`` used memory when available, and also the same storage
    tracking as the other modes for comparison. It also records what the
    process held outside the allocator (``non_torch_bytes``: ``(total - free) -
    memory_reserved()``, the CUDA context and libraries), the device total a
    process can use (``usable_bytes``, ``mem_get_info``) and their sum with the
    reserved peak (``process_peak_bytes``). At each step boundary (``boundaries``: after
    the model and optimizer are built, before and after each phase) it records
    ``memory_allocated()`` and ``memory_reserved()`` (``NAME@cuda_allocated``,
    ``NAME@cuda_reserved``): the reserve left by construction is a floor under the step's
    reserved peak, which fake runs cannot see. A case that runs out of memory is a
    recorded outcome (``"out_of_memory": true`` with the error), not a failure.

``--search-batch`` (with one case, usually ``--device cuda``)
    Finds the largest batch that runs: doubles the batch from 1 until a run is
    out of memory, then bisects. Every trial is recorded, and the
    answer is written as ``largest_batch_that_ran``.

Tracking (fake and cpu)
-----------------------
A ``TorchDispatchMode`` sees the output of every ATen op (forward, autograd
backward and optimizer).  Each distinct ``UntypedStorage`` is counted once, at its
``nbytes`` rounded up to a multiple of 512 B (the CUDA caching allocator's block
rounding; zero-byte storages count 0), and is dropped when its last reference
dies (``weakref.finalize`` on the storage).  Parameters and buffers that exist
before tracking starts are registered explicitly.  The peak of each phase is
exact at op granularity; the live set at the peak is snapshotted and later
classified into parameters / gradients / optimizer_states / kv_cache /
activations_and_temporaries.

Run ``python scripts/measure_memory.py --help`` for the CLI; ``--grid all``
regenerates ``tests/data/measurements/``. This file is the command line; the harness itself
(presets, cases, tracker, steps, records, outcomes, grids) is the package ``scripts/harness/``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/ is not a package: make `harness` importable

from harness.case import Case
from harness.grid import GRIDS
from harness.outcomes import (is_out_of_memory, largest_that_runs, out_of_memory_record, run_case, run_case_or_oom,
                               search_batch)
from harness.presets import PRESETS
from harness.steps import NotMeasurable

#: What the tests and other scripts use of the harness, through this entry point.
__all__ = ["GRIDS", "PRESETS", "Case", "NotMeasurable", "is_out_of_memory", "largest_that_runs", "main",
           "out_of_memory_record", "run_case", "run_case_or_oom", "search_batch"]


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, indent=1, sort_keys=True) + "\n"


def _safe_name(slug: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@-]+", "-", slug) + ".json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grid", help=f"run a named grid: {', '.join(GRIDS)}")
    ap.add_argument("--list", action="store_true", help="list the cases of --grid and exit")
    ap.add_argument("--out", type=Path, help="directory to write one JSON file per case")
    ap.add_argument("--model-config", type=Path, help="HF config.json to build the model from")
    ap.add_argument("--preset", choices=sorted(PRESETS), help="built-in model config")
    ap.add_argument("--kind", choices=("train", "infer", "embed"), default="train",
                    help="embed: one encoder forward (embedding, reranking) of --batch x --seq")
    ap.add_argument("--method", choices=("full", "lora", "qlora"), default="full")
    ap.add_argument("--precision", choices=("fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp16"),
                    default="bf16-mixed")
    ap.add_argument("--optimizer", choices=("adamw", "adamw-fused", "sgd", "adafactor", "adamw-8bit"),
                    default="adamw")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--grad-checkpointing", action="store_true")
    ap.add_argument("--attention", choices=("sdpa", "eager"), default="sdpa")
    ap.add_argument("--lora-rank", type=int, default=16)
    ap.add_argument("--lora-targets", default="q,v")
    ap.add_argument("--weights", choices=("bf16", "fp16", "fp32"), default="bf16")
    ap.add_argument("--kv-cache", choices=("bf16", "fp16", "fp32"), default=None)
    ap.add_argument("--context", type=int, default=1024)
    ap.add_argument("--new-tokens", type=int, default=16)
    ap.add_argument("--device", choices=("fake", "cpu", "cuda"), default="fake")
    ap.add_argument("--json", action="store_true", help="print the record(s) as JSON on stdout")
    ap.add_argument("--match", help="with --grid: only cases whose id contains this regex")
    ap.add_argument("--jobs", type=int, default=1, help="run grid cases in this many processes")
    ap.add_argument("--search-batch", action="store_true",
                    help="one case: find the largest batch that runs (doubling, then bisecting); OOM is an outcome")
    a = ap.parse_args(argv)

    if a.grid:
        if a.grid not in GRIDS:
            ap.error(f"unknown grid {a.grid}; choose from {', '.join(GRIDS)}")
        cases = GRIDS[a.grid]
        if a.match:
            cases = [c for c in cases if re.search(a.match, c.slug())]
    else:
        if not (a.preset or a.model_config):
            ap.error("give --grid, --preset or --model-config")
        raw = None
        name = a.preset
        if a.model_config:
            raw = json.loads(a.model_config.read_text())
            name = a.preset or a.model_config.stem
        cases = [Case(name, a.kind, method=a.method, precision=a.precision, optimizer=a.optimizer,
                      batch=a.batch, seq=a.seq, grad_checkpointing=a.grad_checkpointing,
                      attention=a.attention, lora_rank=a.lora_rank,
                      lora_targets=tuple(x.strip() for x in a.lora_targets.split(",") if x.strip()),
                      weights=a.weights, kv_cache=a.kv_cache, context=a.context,
                      new_tokens=a.new_tokens, steps=a.steps, model_config=raw)]
    if a.list:
        for c in cases:
            print(c.slug())
        return 0
    if a.out:
        a.out.mkdir(parents=True, exist_ok=True)
    if a.search_batch:
        if len(cases) != 1:
            ap.error("--search-batch takes exactly one case (not a grid)")
        result = search_batch(cases[0], a.device)
        print(f"largest batch that ran: {result['largest_batch_that_ran']}", file=sys.stderr)
        if a.out:
            (a.out / _safe_name(result["id"])).write_text(_dump(result))
        if a.json:
            sys.stdout.write(_dump(result))
        return 0
    status = 0
    t_all = time.time()
    if a.grid and a.jobs > 1:
        import concurrent.futures as cf
        import multiprocessing as mp
        with cf.ProcessPoolExecutor(a.jobs, mp_context=mp.get_context("spawn")) as ex:
            results = ex.map(_run_logged, cases, itertools.repeat(a.device))
            for c, (rec, msg, dt) in zip(cases, results):
                status |= _report(c, rec, msg, dt, a)
    else:
        for c in cases:
            if not a.grid:
                try:
                    rec = run_case_or_oom(c, a.device)
                except NotMeasurable as e:
                    print(f"SKIP {c.slug()}: not measurable here: {e}", file=sys.stderr)
                    continue
                status |= _report(c, rec, None, 0.0, a)
                continue
            rec, msg, dt = _run_logged(c, a.device)
            status |= _report(c, rec, msg, dt, a)
    print(f"total {time.time() - t_all:.1f}s", file=sys.stderr)
    return status


def _run_logged(case: Case, device: str) -> tuple[dict[str, Any] | None, str | None, float]:
    t0 = time.time()
    try:
        return run_case_or_oom(case, device), None, time.time() - t0
    except NotMeasurable as e:
        return None, f"SKIP {case.slug()}: not measurable here: {e}", time.time() - t0
    except Exception as e:  # keep going through a grid
        return None, f"FAIL {case.slug()}: {type(e).__name__}: {e}", time.time() - t0


def _report(case: Case, rec: dict[str, Any] | None, msg: str | None, dt: float, a: argparse.Namespace) -> int:
    if rec is None:
        print(msg, file=sys.stderr)
        return 1 if msg and msg.startswith("FAIL") else 0
    m = rec["measured"]
    if m.get("out_of_memory"):
        print(f"{dt:6.1f}s {rec['id']}: out of memory (recorded)", file=sys.stderr, flush=True)
    else:
        print(f"{dt:6.1f}s {rec['id']}: peak {m['peak_allocated_bytes'] / 2**30:.3f} GiB in {m['peak_phase']}",
              file=sys.stderr, flush=True)
    if a.out:
        (a.out / _safe_name(rec["id"])).write_text(_dump(rec))
    if a.json:
        sys.stdout.write(_dump(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
