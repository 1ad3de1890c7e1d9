#!/usr/bin/env python3
"""Print the calculators' error against real-GPU runs, refit the allocator reserve, check the fit margin.

Usage: .venv/bin/python scripts/score_real_gpu.py [DATA_DIR] [--runs]

DATA_DIR defaults to tests/data/measurements_cuda/h100-sxm. Prints the allocated and total
errors (median, 95th percentile, worst, most under), how many runs the fit line
(``total_upper_bytes``) covered, the out-of-memory runs with their estimates, the measured fit
boundaries with the calculators' answers and the fit-margin factors each allows, the factor
each kind of run needed, and a fresh median (L1) fit of the reserve coefficients next to the
ones in ``calculators.memory.overhead.RESERVE_FIT``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calculators.accuracy_real_gpu import (  # noqa: E402
    boundary_answer,
    boundary_factor_range,
    error_stats,
    estimate_run,
    factor_needed,
    load_boundaries,
    load_runs,
    oom_runs,
    score_runs,
)
from calculators.catalog.gpus import get_gpu  # noqa: E402
from calculators.catalog.usable_memory import usable_memory_bytes  # noqa: E402
from calculators.memory.overhead import CUDA_CONTEXT_BYTES, FIT_MARGIN, RESERVE_FIT  # noqa: E402

GIB = 2**30


Row = tuple[int, int, bool, bool, int]  # allocated + context, block, recompute, prefill, measured total


def _features(runs: list[dict], configs: dict) -> list[Row]:
    """Per completed run: (allocated peak + context, largest transient block, recompute, prefill, measured total)."""
    return [row for _model, row in _features_by_model(runs, configs)]


def _features_by_model(runs: list[dict], configs: dict) -> list[tuple[str, Row]]:
    rows = []
    for record in runs:
        if record.get("out_of_memory"):
            continue
        estimate = estimate_run(record, configs)
        rows.append((str(record["model"]), (estimate.peak_allocated_bytes + CUDA_CONTEXT_BYTES,
                                            estimate.transient_block_bytes, bool(record["gradient_checkpointing"]),
                                            record["kind"] == "infer",
                                            record["cuda_peak_reserved"] + record["non_torch_bytes"])))
    return rows


def _reserve(base: float, a: float, b: float, c: float, block: int, recompute: bool, prefill: bool) -> float:
    return base + (c * block if prefill else a * block + b * block * recompute)


def _refit(rows: list[Row]) -> tuple[float, float, float, float]:
    """The grid search behind RESERVE_FIT: (base MiB, a, b) on training runs by lowest median error of the
    total, then the prefill factor c on inference runs with that base."""
    grid = [x / 20 for x in range(31)]
    training = [row for row in rows if not row[3]]
    inference = [row for row in rows if row[3]]
    best: tuple[float, float, float, float] | None = None
    for base_mib in (0, 128, 256, 384, 512, 768):
        for a in grid:
            for b in grid:
                median = error_stats((fixed + base_mib * 2**20 + a * block + b * block * recompute - total) / total
                                     for fixed, block, recompute, _prefill, total in training).median
                if best is None or median < best[0] - 1e-12:
                    best = (median, base_mib, a, b)
    assert best is not None
    _, base_mib, a, b = best
    c = min(grid, key=lambda c: error_stats((fixed + base_mib * 2**20 + c * block - total) / total
                                            for fixed, block, _r, _p, total in inference).median) if inference else 0.0
    return float(base_mib), a, b, c


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv and not argv[0].startswith("-") else (
        Path(__file__).resolve().parents[1] / "tests/data/measurements_cuda/h100-sxm")
    runs, configs = load_runs(folder)
    scores = score_runs(runs, configs)
    print(f"{len(scores)} runs from {folder}")
    for name, kinds in (("training", {"train"}), ("inference", {"infer"}), ("all", {"train", "infer"})):
        items = [s for s in scores if s.kind in kinds]
        allocated = error_stats(s.allocated_error for s in items)
        total = error_stats(s.total_error for s in items)
        covered = sum(1 for s in items if s.covered)
        print(f"{name:9} n={allocated.count:3}  allocated median {allocated.median:6.2%} p95 {allocated.p95:6.2%} "
              f"worst {allocated.worst:6.2%} | total median {total.median:6.2%} p95 {total.p95:6.2%} "
              f"worst {total.worst:6.2%} most under {total.most_under:+7.2%} | fit line covers {covered}/{len(items)}")
    for label, estimate in oom_runs(runs, configs):
        print(f"out of memory: {label}: estimated total {estimate.total_bytes / GIB:.2f} GiB, "
              f"upper {estimate.total_upper_bytes / GIB:.2f} GiB")
    for boundary in load_boundaries(folder):
        fits, tight = boundary_answer(boundary, "h100-sxm")
        over, right, conservative = boundary_factor_range(boundary, usable_memory_bytes(get_gpu("h100-sxm")))
        print(f"boundary: {boundary['label']}: ran up to {boundary['largest_batch_that_ran']}, "
              f"previously said {boundary['previous_answer']}, now fits {fits}, tight up to {tight}; "
              f"fit-margin factor over-promises at or below {over:.2f}, right up to {right:.2f}, "
              f"one batch conservative up to {conservative:.2f}")
    needed: dict[str, float] = {}
    for record in runs:
        if not record.get("out_of_memory"):
            kind = "inference" if record["kind"] == "infer" else (
                "training, checkpointing" if record["gradient_checkpointing"] else "training")
            needed[kind] = max(needed.get(kind, -1e9), factor_needed(record, configs))
    print(f"fit margin in use: {FIT_MARGIN.base_bytes / GIB:.0f} GiB + {FIT_MARGIN.per_block} x block "
          f"({FIT_MARGIN.per_prefill_block} x in a prefill); to cover every unconstrained run it would need: "
          + ", ".join(f"{kind} {factor:.3f}" for kind, factor in sorted(needed.items())))
    base_mib, a, b, c = _refit(_features(runs, configs))
    fit = RESERVE_FIT
    print(f"reserve fit: base {base_mib:.0f} MiB, per_block {a:.2f}, per_recomputed_block {b:.2f}, "
          f"per_prefill_block {c:.2f} (in use: {fit.base_bytes / 2**20:.0f} MiB, {fit.per_block}, "
          f"{fit.per_recomputed_block}, {fit.per_prefill_block}); context {CUDA_CONTEXT_BYTES / 2**20:.0f} MiB")
    labelled = _features_by_model(runs, configs)
    for model in sorted({model for model, _ in labelled}):
        base_mib, a, b, c = _refit([row for m, row in labelled if m != model])
        held_out = [(fixed + _reserve(base_mib * 2**20, a, b, c, block, recompute, prefill) - total) / total
                    for m, (fixed, block, recompute, prefill, total) in labelled if m == model]
        stats = error_stats(held_out)
        print(f"fitted without {model} ({base_mib:.0f} MiB, {a:.2f}, {b:.2f}, {c:.2f}): total on {model} median "
              f"{stats.median:.2%} p95 {stats.p95:.2%} most under {stats.most_under:+.2%} (n={stats.count})")
    if "--runs" in argv:
        for s in sorted(scores, key=lambda s: s.total_error):
            print(f"{s.total_error:+7.2%} alloc {s.allocated_error:+6.2%} {'' if s.covered else 'NOT COVERED '}{s.label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
