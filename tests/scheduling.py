"""How ``scripts/test`` spreads the suite over its two workers (``pytest -n 2 --dist loadscope``).

Each test file is one work unit, as ``loadscope`` makes them (a module's fixtures run once), except
:data:`SHARED_COMPUTATION`: the files that need the suite's costliest computations, each cached once
per process (every site table and value, ``support.site_tables``/``site_values``, and the speed
model's held-out fits and scored rows, :mod:`calculators.speed_accuracy`), form one unit, so that a
run fills those caches on one worker instead of on both. Units are queued longest first:
:data:`FIRST` in its order, then the others by number of tests (``loadscope``'s own order), so that
no worker is left alone with a unit of minutes at the end while the other idles.

``conftest.py`` installs :class:`UnitScheduling` for ``--dist loadscope``. It changes which worker
runs a test and when, never what a test checks. (``--dist loadgroup`` with ``xdist_group`` marks
would say the same, but xdist 3.8 tags node ids through ``Item._nodeid``, which pytest 9 no longer
reads: every test became its own unit.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

#: The shared unit's name.
SHARED = "shared-computation"
#: Files (and folders, ending with ``/``) of the shared unit, relative to the repository root.
SHARED_COMPUTATION = (
    "tests/content/test_generated_tables.py", "tests/content/test_inline_values.py",
    "tests/content/test_tables_citability.py", "tests/content/test_doc_tables_claim_views.py",
    "tests/validation/test_speed_accuracy.py", "tests/validation/test_speed_generalisation.py",
    "tests/validation/test_speed_training.py", "tests/validation/test_serving_load_scores.py",
    "tests/validation/test_published_speed.py",
    "calculators/speed_accuracy/", "calculators/doc_tables/", "calculators/doc_values/",
)
#: Units of minutes on 2 cores (``--durations`` of the CI runs), queued first in this order: the two
#: release builds, the shared computations, the browser files that visit every page.
FIRST = (
    "tests/scripts/test_site_build.py", SHARED, "tests/browser/test_site.py", "tests/browser/test_offline.py",
    "tests/browser/test_updates.py", "tests/browser/test_hostile_links.py", "tests/browser/test_findable.py",
    "tests/browser/test_reading.py",
)


def work_unit(nodeid: str) -> str:
    """The work unit of a test, by its node id: its file, or :data:`SHARED`.

    >>> work_unit("tests/content/test_inline_values.py::test_x[a]"), work_unit("calculators/doc_tables/cost.py::x")
    ('shared-computation', 'shared-computation')
    >>> work_unit("calculators/units.py::calculators.units.gib")
    'calculators/units.py'
    """
    path = nodeid.split("::", 1)[0]
    shared = any(path == entry or (entry.endswith("/") and path.startswith(entry)) for entry in SHARED_COMPUTATION)
    return SHARED if shared else path


def queue_order(units: Sequence[str], sizes: Sequence[int]) -> list[int]:
    """The indices of ``units`` (each with its number of tests) in queue order.

    :data:`FIRST` units first, in their order, then the others by number of tests, most first;
    ties keep their given order.

    >>> queue_order(["a.py", "b.py", "tests/scripts/test_site_build.py", "c.py"], [1, 5, 2, 5])
    [2, 1, 3, 0]
    """
    def rank(index: int) -> tuple[int, int, int]:
        unit = units[index]
        return (FIRST.index(unit) if unit in FIRST else len(FIRST), -sizes[index], index)

    return sorted(range(len(units)), key=rank)


class UnitScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """``loadscope`` over :func:`work_unit`'s units, queued in :func:`queue_order`."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        self._queued = False

    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid)

    def _assign_work_unit(self, node: Any) -> None:
        if not self._queued:  # the first assignment: the queue holds every unit
            units = list(self.workqueue.items())
            self.workqueue.clear()
            for index in queue_order([unit for unit, _ in units], [len(tests) for _, tests in units]):
                self.workqueue[units[index][0]] = units[index][1]
            self._queued = True
        super()._assign_work_unit(node)
