#!/usr/bin/env python3
"""Score published figures no fit has seen: the held-out set, or new records before they are added.

Usage: ``.venv/bin/python scripts/score_held_out.py [FILE ...]``

Without FILE: every figure of ``tests/data/published_speed/held_out/`` (:mod:`calculators.speed_accuracy.held_out`),
with the catalog's fits, which never see them. With FILE (JSON-lines records in the format of
``tests/data/published_speed/``, any mix of categories): those records, refused if one is already held, so that
each error printed is a first contact. Prints each figure's signed error on the speed axis (positive
over-promises) and the count, median, 90th percentile and worst |error|, overall and per category; records that
are excluded or that the catalog cannot answer yet are listed, not scored.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calculators.speed_accuracy import held_out, training  # noqa: E402
from calculators.speed_accuracy.data import load_figures  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="JSON-lines files of new records (default: the held-out set)")
    args = parser.parse_args(argv)
    if args.files:
        records = [json.loads(line) for path in args.files
                   for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        held = {str(r["id"]) for r in [*load_figures(), *held_out.held_out_records()]}
        held |= {str(r["id"]) for name in training.FILES for r in training.load(name)}
        clash = sorted(str(r["id"]) for r in records if str(r["id"]) in held)
        if clash:
            print(f"already held (not a first contact): {', '.join(clash)}")
            return 1
        rows = held_out.score_records(records)
    else:
        records = held_out.held_out_records()
        rows = list(held_out.held_out_rows())
    scored_ids = {str(row["id"]) for row in rows}
    for record in records:
        if str(record["id"]) not in scored_ids:
            print(f"  not scored: {record['id']}: {record.get('excluded') or 'the catalog cannot answer it yet'}"[:160])
    for row in sorted(rows, key=lambda r: (str(r["category"]), -abs(float(r["error"])))):
        print(f"  {row['category']:20} {row['source_id'][:26]:26} {row['id'][:58]:58} {row['error']:+8.1%}")
    print(f"  {'category':22} {'n':>4} {'median':>8} {'p90':>8} {'worst':>9}")
    for item in held_out.summary(rows):
        print(f"  {item['category']:22} {item['n']:4d} {item['median']:8.1%} {item['p90']:8.1%} {item['worst']:9.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
