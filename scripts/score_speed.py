#!/usr/bin/env python3
"""Score the speed model against the published figures (leave-one-source-out) and print the summary.

Usage: ``.venv/bin/python scripts/score_speed.py [--figures] [--write-fits]``

``--figures`` also lists every figure with its cross-validated error and the naive
roofline's; ``--write-fits`` refits the engine catalog on every figure and rewrites
``calculators/catalog/engine_fits.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calculators import speed_accuracy  # noqa: E402
from calculators.speed_accuracy.data import load_figures, scored  # noqa: E402
from calculators.speed_accuracy.fit import fit_catalog, fits_module  # noqa: E402
from calculators.speed_accuracy.predict import prepare  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figures", action="store_true", help="list every figure with its errors")
    parser.add_argument("--write-fits", action="store_true", help="refit calculators/catalog/engine_fits.py")
    args = parser.parse_args(argv)
    if args.write_fits:
        fits = fit_catalog(prepare(f) for f in scored(load_figures()))
        path = ROOT / "calculators" / "catalog" / "engine_fits.py"
        path.write_text(fits_module(fits), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
        return 0
    rows = speed_accuracy.all_scored()
    if args.figures:
        for row in sorted(rows, key=lambda r: (r["category"], -abs(r["error"]))):
            print(f"{row['category']:20} {row['engine']:13} {row['figure_id']:55} {row['error']:+8.1%} "
                  f"naive {row['naive_error']:+8.1%}")
        print()
    for title, subset in (("all scored figures", rows),
                          ("figures whose engine another source also measures in the category",
                           speed_accuracy.multi_source(rows))):
        print(title)
        print(f"  {'category':22} {'n':>4} {'median':>8} {'p90':>8} {'worst':>9}   {'naive median':>12} "
              f"{'naive p90':>10} {'naive worst':>11}")
        for item in speed_accuracy.summary(subset):
            print(f"  {item['category']:22} {item['n']:4d} {item['median']:8.1%} {item['p90']:8.1%} "
                  f"{item['worst']:9.1%}   {item['naive_median']:12.1%} {item['naive_p90']:10.1%} "
                  f"{item['naive_worst']:11.1%}")
    print(f"targets (categories with >= {speed_accuracy.MIN_RECORDS} figures): median <= "
          f"{speed_accuracy.TARGET_MEDIAN:.0%}, p90 <= {speed_accuracy.TARGET_P90:.0%}; errors are cross-validated "
          "(leave one source out), on the speed axis")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
