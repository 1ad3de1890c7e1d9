"""scripts/test's work units (tests/scheduling.py): they name files that exist, and xdist runs them so.

A renamed or split test file would silently leave the shared unit (and compute the site tables on
both workers again) or drop out of the head of the queue; an xdist release that changes the
scheduler's internals would silently make every file (or every test) its own unit again. These
tests fail instead.
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys
from pathlib import Path

from scheduling import FIRST, SHARED, SHARED_COMPUTATION, queue_order, work_unit

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_file_and_folder_exists() -> None:
    missing = [entry for entry in SHARED_COMPUTATION if not (ROOT / entry).exists()]
    missing += [unit for unit in FIRST if unit != SHARED and not (ROOT / unit).is_file()]
    assert missing == []
    assert all((ROOT / entry).is_dir() == entry.endswith("/") for entry in SHARED_COMPUTATION)


def test_the_files_that_compute_every_site_table_share_one_unit() -> None:
    # support.site_tables()/site_values() compute every table and value once per process.
    users = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "tests").rglob("test_*.py")
                   if re.search(r"shared_site_(tables|values)\(\)", path.read_text(encoding="utf-8")))
    assert len(users) >= 3 and [path for path in users if work_unit(f"{path}::t") != SHARED] == []


def test_queue_puts_the_listed_units_first_then_the_largest() -> None:
    units = ["tests/engine/a.py", "tests/browser/test_offline.py", SHARED, "tests/scripts/test_site_build.py",
             "tests/engine/b.py"]
    order = [units[index] for index in queue_order(units, [3, 2, 500, 18, 40])]
    assert order == ["tests/scripts/test_site_build.py", SHARED, "tests/browser/test_offline.py",
                     "tests/engine/b.py", "tests/engine/a.py"]


def test_two_workers_run_each_unit_on_one_worker() -> None:
    """Through pytest-xdist itself, as scripts/test runs it (cheap doctests, two files per unit)."""
    files = ["calculators/doc_tables/cost.py", "calculators/doc_values/cost.py", "calculators/units.py",
             "tests/scheduling.py"]
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadscope",
                          "-v", *files], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    workers: dict[str, set[str]] = collections.defaultdict(set)
    for worker, nodeid in re.findall(r"\[(gw\d)\] \[ *\d+%\] PASSED (\S+)", run.stdout):
        workers[work_unit(nodeid)].add(worker)
    assert sorted(workers) == sorted({work_unit(f"{name}::x") for name in files}) == [
        "calculators/units.py", SHARED, "tests/scheduling.py"]
    assert all(len(ran_on) == 1 for ran_on in workers.values()), dict(workers)
