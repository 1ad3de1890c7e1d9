#!/usr/bin/env python3
"""Score the continuous-batching serving model on the published runs that state their concurrency.

Usage: ``.venv/bin/python scripts/score_serving_load.py``

Prints every serving figure taken at a stated concurrency with the error of
``serving_load`` and of the static-batch model, each with engine constants refitted without
the figure's own source, then the median, 90th percentile and worst absolute error of each.
Reports only: nothing is fitted to these scores.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calculators.speed_accuracy.serving import error_summary, scored_serving  # noqa: E402


def main() -> int:
    rows = scored_serving()
    print(f"{'figure':34} {'metric':17} {'C':>3} {'measured':>13} {'separate':>10} {'fused':>10} {'static':>8}")
    for row in rows:
        measured = f"{row['measured']:g} {row['unit']}"
        if row["skipped"]:
            print(f"{row['figure_id']:34} {row['metric']:17} {row['concurrency']:3d} {measured:>13} "
                  f"skipped: {row['skipped']}")
            continue
        loads = ["cannot run" if row[key] is None else f"{row[key]:+.1%}" for key in ("separate_error", "fused_error")]
        print(f"{row['figure_id']:34} {row['metric']:17} {row['concurrency']:3d} {measured:>13} {loads[0]:>10} "
              f"{loads[1]:>10} {row['static_error']:+8.1%}")
    used = [row for row in rows if not row["skipped"] and None not in (row["separate_error"], row["fused_error"])]
    print(f"\n{'model':31} {'n':>3} {'median':>8} {'p90':>8} {'worst':>8}")
    for name, key in (("serving_load, separate prefill", "separate_error"),
                      ("serving_load, fused prefill", "fused_error"), ("static batch", "static_error")):
        item = error_summary([row[key] for row in used])
        print(f"{name:31} {item['n']:3d} {item['median']:8.1%} {item['p90']:8.1%} {item['worst']:8.1%}")
    print("errors on the speed axis (positive over-promises); engine constants refitted without each figure's "
          "source (leave one source out)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
