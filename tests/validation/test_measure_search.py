"""The harness's batch search and out-of-memory outcome, without a GPU (scripts/measure_memory.py)."""

from __future__ import annotations

import pytest

from support import load_script

measure = load_script("measure_memory")


@pytest.mark.parametrize("boundary", [1, 6, 28, 39, 47, 1000])
def test_the_search_finds_the_largest_batch_that_runs(boundary: int) -> None:
    largest, trials = measure.largest_that_runs(lambda n: n <= boundary)
    assert largest == boundary
    ran = {n for n, ok in trials if ok}
    failed = {n for n, ok in trials if not ok}
    assert boundary in ran and boundary + 1 in failed
    # Doubling then bisecting: about 2 log2(boundary) trials, never a scan.
    assert len(trials) <= 2 * boundary.bit_length() + 2


def test_nothing_runs() -> None:
    assert measure.largest_that_runs(lambda n: False) == (0, [(1, False)])


def test_out_of_memory_is_recognised_by_name_and_message() -> None:
    class OutOfMemoryError(RuntimeError):  # the name torch.OutOfMemoryError carries
        pass

    assert measure.is_out_of_memory(OutOfMemoryError("CUDA out of memory. Tried to allocate 3.91 GiB"))
    assert measure.is_out_of_memory(RuntimeError("CUDA error: out of memory"))
    assert not measure.is_out_of_memory(ValueError("bad shape"))


def test_an_out_of_memory_case_is_a_record_not_a_failure() -> None:
    case = measure.Case("tiny-llama", "train", batch=4, seq=128)
    record = measure.out_of_memory_record(case, "cpu", RuntimeError("out of memory"))
    assert record["measured"]["out_of_memory"] is True
    assert record["id"].endswith("@cpu") and record["settings"]["batch"] == 4
