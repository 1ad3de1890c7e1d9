#!/usr/bin/env python3
"""Refit the training utilisation on tests/data/published_speed/training.jsonl and print the errors.

Usage: ``scripts/fit_speed_training.py`` rewrites ``calculators/catalog/utilisation_fit.py``
and prints the leave-one-source-out error per category next to the naive roofline;
``--check`` only compares the committed module with a refit (exit 1 when stale).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from calculators.speed_accuracy.training import error_statistics, fit_module_text, scored_figures  # noqa: E402

TARGET = REPO / "calculators" / "catalog" / "utilisation_fit.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when the module is stale")
    args = parser.parse_args(argv)
    text = fit_module_text()
    if args.check:
        stale = TARGET.read_text(encoding="utf-8") != text
        print(f"{TARGET.relative_to(REPO)}: {'stale' if stale else 'up to date'}")
        return 1 if stale else 0
    TARGET.write_text(text, encoding="utf-8")
    rows = scored_figures()
    for key in ("estimated", "naive_roofline"):
        for category, stats in error_statistics(rows, key=key).items():
            print(f"{key:15} {category:13} n={stats['n']:.0f} median={stats['median']:.1%} p90={stats['p90']:.1%} "
                  f"worst={stats['worst']:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
