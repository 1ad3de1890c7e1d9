#!/usr/bin/env python3
"""The GPU measurements issue #12 still needs, as one command of under ten minutes on one NVIDIA GPU.

Two questions the CPU traces cannot answer (validation page, "How accurate are these numbers?"):

1. **The reserve a model's construction leaves.** Qwen2.5-0.5B inference at 2048 tokens held
   exactly 1,830 MiB reserved on the H100 with sdpa and with eager, although their allocated
   peaks differ by 518 MiB: a floor set before the step. Each of these runs records
   ``memory_allocated()`` and ``memory_reserved()`` at every step boundary (``boundaries``:
   ``weights@cuda_reserved`` is the reserve after construction).
2. **Fit boundaries nobody has measured.** For the scenarios of ``scripts/simulate_boundaries.py``
   without a measured batch (LoRA with checkpointing first: the calculators answer them 3-4
   batches below the simulated limit on an H100), the largest batch that runs on this GPU,
   searched from the calculators' answer for ``--gpu``: up while it runs, down while it does not.

Writes every run's JSON record (``scripts/measure_memory.py``'s format; an out-of-memory error
is a recorded outcome) and ``summary.json`` under ``--out``, and prints one line per run and
per boundary. It starts no new run after ``--budget-s`` seconds, so a session can leave time
for a second try; a boundary whose search was cut is marked incomplete. On the device
(torch, transformers and peft are in its image)::

    python3 scripts/check_on_gpu.py --gpu h200 --out "$OUT" --budget-s 420

``--device fake`` is a dry run here (fake tensors, no GPU): every step "runs", so each search
stops after ``--max-up`` batches above the answer. It checks the script end to end.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # scripts/ is not a package: make `harness` importable

from harness.case import Case  # noqa: E402
from harness.outcomes import run_case_or_oom  # noqa: E402
from simulate_boundaries import SCENARIOS, harness_settings  # noqa: E402

from calculators.accuracy_real_gpu import boundary_answer  # noqa: E402
from calculators.catalog.model_record import thaw  # noqa: E402
from calculators.catalog.models import get_model_record  # noqa: E402

#: The floor runs: Qwen2.5-0.5B inference at 2048 tokens, as measured on the H100 (4 decode steps).
FLOOR_RUNS = tuple((batch, attention) for batch in (1, 4) for attention in ("sdpa", "eager"))


def _ran(record: dict[str, Any]) -> bool:
    return not record["measured"].get("out_of_memory")


class Session:
    """Runs cases one after another, writes each record, and refuses to start one past the budget."""

    def __init__(self, device: str, out: Path, budget_s: float) -> None:
        self.device, self.out, self.budget_s = device, out, budget_s
        self.started = time.monotonic()
        self.written: list[str] = []

    def time_left(self) -> bool:
        return time.monotonic() - self.started < self.budget_s

    def run(self, case: Case, name: str) -> dict[str, Any]:
        record = run_case_or_oom(case, self.device)
        path = self.out / f"{name}.json"
        path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        self.written.append(path.name)
        print(f"{time.monotonic() - self.started:6.0f} s  {name}: {'ran' if _ran(record) else 'out of memory'}",
              flush=True)
        return record


def floor_runs(session: Session) -> list[dict[str, Any]]:
    """Question 1: each floor run's allocated peak, reserved peak and the reserve at each boundary (bytes)."""
    rows = []
    for batch, attention in FLOOR_RUNS:
        if not session.time_left():
            break
        case = Case("qwen2.5-0.5b", "infer", batch=batch, context=2048, new_tokens=4, attention=attention,
                    weights="bf16")
        record = session.run(case, f"floor_qwen2.5-0.5b_b{batch}_{attention}")
        measured = record["measured"]
        rows.append({"batch": batch, "attention": attention, "ran": _ran(record),
                     "peak_allocated_bytes": measured.get("peak_allocated_bytes"),
                     "peak_reserved_bytes": measured.get("peak_reserved_bytes"),
                     "boundaries": measured.get("boundaries")})
    return rows


def search_from(start: int, runs: Callable[[int], bool | None], *, max_up: int) -> tuple[int | None, bool]:
    """``(largest batch that ran, whether the search ended at a batch that did not)``, from ``start``.

    Up while a batch runs (at most ``max_up`` above ``start``), down while it does not. ``runs``
    answers ``None`` when no time is left: the search stops there, incomplete (``None`` when it
    could not try ``start``).

    >>> search_from(13, lambda batch: batch <= 17, max_up=12)
    (17, True)
    >>> search_from(13, lambda batch: batch <= 9, max_up=12)
    (9, True)
    >>> search_from(13, lambda batch: True, max_up=2)
    (15, False)
    >>> search_from(2, lambda batch: False, max_up=2)
    (0, True)
    """
    first = runs(start)
    if first is None:
        return None, False
    batch = start
    if first:
        while batch < start + max_up:
            ran = runs(batch + 1)
            if not ran:
                return batch, ran is not None
            batch += 1
        return batch, False
    while batch > 1:
        ran = runs(batch - 1)
        if ran is None:
            return 0, False
        batch -= 1
        if ran:
            return batch, True
    return 0, True


def boundary_search(session: Session, label: str, model: str, job: str, settings: dict[str, Any], gpu: str,
                    max_up: int) -> dict[str, Any]:
    """Question 2 for one scenario: the largest batch that runs, searched from the calculators' answer."""
    fits, tight = boundary_answer({"job": job, "model": model, "settings": settings}, gpu)
    config = thaw(get_model_record(model).config)
    trials: list[list[Any]] = []

    def runs(batch: int) -> bool | None:
        if not session.time_left():
            return None
        case = Case(model, job, batch=batch, steps=2, model_config=config, **harness_settings(job, settings))
        ran = _ran(session.run(case, f"boundary_{model}_{job}_b{batch}"))
        trials.append([batch, ran])
        return ran

    largest, complete = search_from(max(fits, 1), runs, max_up=max_up)
    return {"label": label, "model": model, "job": job, "settings": settings, "gpu": gpu,
            "calculators_fits": fits, "calculators_tight": tight, "largest_batch_that_ran": largest,
            "complete": complete, "trials": trials}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpu", required=True, help="catalog id of this GPU, for the calculators' answers (h200, ...)")
    parser.add_argument("--out", type=Path, required=True, help="directory for the records and summary.json")
    parser.add_argument("--device", choices=("cuda", "fake"), default="cuda", help="fake: a dry run without a GPU")
    parser.add_argument("--budget-s", type=float, default=420.0, help="start no run after this many seconds")
    parser.add_argument("--max-up", type=int, default=12, help="batches searched above the calculators' answer")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    session = Session(args.device, args.out, args.budget_s)
    environment: dict[str, Any] = {"device": args.device}
    if args.device == "cuda":
        import torch
        environment.update(name=torch.cuda.get_device_name(0), usable_bytes=int(torch.cuda.mem_get_info()[1]),
                           torch=torch.__version__, cuda=torch.version.cuda)
    summary: dict[str, Any] = {"environment": environment, "floor_runs": floor_runs(session), "boundaries": []}
    unmeasured = [s for s in SCENARIOS if s[4] is None]
    for label, model, job, settings, _measured in sorted(unmeasured, key=lambda s: "LoRA" not in s[0]):
        if not session.time_left():
            break
        result = boundary_search(session, label, model, job, settings, args.gpu, args.max_up)
        summary["boundaries"].append(result)
        print(f"{label}: ran up to {result['largest_batch_that_ran']}"
              f"{'' if result['complete'] else ' (search cut)'}; the calculators fit {result['calculators_fits']}, "
              f"tight up to {result['calculators_tight']}", flush=True)
    summary["records"] = session.written
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
