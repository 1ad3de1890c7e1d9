"""scripts/check_on_gpu.py: the search it runs on a GPU, checked here without one.

On the device every trial costs a model build and two training steps, and the session's device
time is short: the search must find the largest batch that runs from the calculators' answer
with as few trials as the answer allows, and stop cleanly when the time is up.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import load_script

search_from = load_script("check_on_gpu").search_from


def _counting(limit: int, *, time_for: int = 1000) -> tuple[Callable[[int], bool | None], list[int]]:
    """A GPU on which batches up to ``limit`` run, with time for ``time_for`` trials."""
    tried: list[int] = []

    def runs(batch: int) -> bool | None:
        if len(tried) == time_for:
            return None
        tried.append(batch)
        return batch <= limit

    return runs, tried


# Trials: up from a start that runs, the start to the first batch that fails (limit - start + 2); down from
# a start that fails, to the first batch that runs (start - limit + 1), or to batch 1 when none runs (start).
@pytest.mark.parametrize("start, limit, trials", [(13, 17, 6), (17, 17, 2), (20, 17, 4), (1, 0, 1), (5, 1, 5),
                                                  (3, 0, 3)])
def test_the_search_finds_the_limit_and_tries_each_batch_once(start: int, limit: int, trials: int) -> None:
    runs, tried = _counting(limit)
    assert search_from(start, runs, max_up=12) == (limit, True)
    assert len(tried) == len(set(tried)) == trials


def test_a_search_cut_by_time_is_incomplete_and_names_what_ran() -> None:
    runs, tried = _counting(17, time_for=3)
    assert search_from(13, runs, max_up=12) == (15, False)
    assert tried == [13, 14, 15]
    runs, _ = _counting(17, time_for=0)
    assert search_from(13, runs, max_up=12) == (None, False)


def test_the_upward_search_stops_at_max_up() -> None:
    runs, tried = _counting(100)
    assert search_from(13, runs, max_up=4) == (17, False)
    assert tried == [13, 14, 15, 16, 17]
