#!/usr/bin/env python3
"""Score the speed model with each figure's source, engine or hardware generation held out, and print the summary.

Usage: ``.venv/bin/python scripts/score_generalisation.py [--split source|engine|generation ...] [--groups]
[--figures] [--write-bands]``

Prints, per split (default: all three), the count, median, 90th percentile and worst absolute
error per category and for all figures together, against issue 28's targets (median <= 12 %,
p90 <= 30 % for all figures and every category with at least 10 figures).
``--groups`` adds the errors per held-out group (engine, generation); ``--figures`` lists
every figure with its error; ``--write-bands`` rewrites :mod:`calculators.catalog.speed_error_bands`,
the error bands every speed and time answer carries (run it after refitting: ``scripts/score_speed.py
--write-fits`` refits the engines, ``scripts/fit_speed_training.py`` the training utilisation).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calculators.speed_accuracy import MIN_RECORDS  # noqa: E402
from calculators.speed_accuracy import generalisation as gen  # noqa: E402


def _mark(meets: bool | None) -> str:
    return f"n < {MIN_RECORDS}" if meets is None else "meets" if meets else "MISSES"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", nargs="+", choices=gen.SPLITS, default=list(gen.SPLITS))
    parser.add_argument("--groups", action="store_true", help="errors per held-out group too")
    parser.add_argument("--figures", action="store_true", help="every figure with its error")
    parser.add_argument("--write-bands", action="store_true",
                        help="rewrite calculators/catalog/speed_error_bands.py (the answers' error bands)")
    args = parser.parse_args(argv)
    if args.write_bands:
        from calculators.speed_accuracy.bands import bands_module_text

        path = ROOT / "calculators" / "catalog" / "speed_error_bands.py"
        path.write_text(bands_module_text(), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
        return 0
    for split in args.split:
        print(gen.SPLIT_TITLES[split])
        if args.figures:
            for row in sorted(gen.scored_rows(split), key=lambda r: (str(r["category"]), -abs(float(r["error"])))):
                print(f"  {row['category']:20} {row['engine'][:16]:16} {row['group'][:24]:24} {row['figure_id']:55} "
                      f"{row['error']:+8.1%}")
        print(f"  {'category':22} {'n':>4} {'median':>8} {'p90':>8} {'worst':>9}")
        for item in gen.summary_by_split((split,)):
            print(f"  {item['category']:22} {item['n']:4d} {item['median']:8.1%} {item['p90']:8.1%} "
                  f"{item['worst']:9.1%}   {_mark(item['meets'])}")
        if args.groups and split != "source":
            print(f"  {'category':22} {'held out':24} {'n':>4} {'median':>8} {'p90':>8} {'worst':>9}")
            for item in gen.by_group(split):
                print(f"  {item['category']:22} {gen.group_title(split, item['group'])[:24]:24} {item['n']:4d} "
                      f"{item['median']:8.1%} {item['p90']:8.1%} {item['worst']:9.1%}")
        print()
    print(f"targets (issue 28; all figures and categories with >= {MIN_RECORDS} figures): median <= "
          f"{gen.TARGET_MEDIAN:.0%}, p90 <= {gen.TARGET_P90:.0%}, in every split; errors on the speed axis")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
