"""Running a case: an out-of-memory error is a recorded outcome, and the search for the largest batch that runs."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import gc
import sys
from typing import Any

from harness.case import Case, command_for
from harness.presets import PRESETS
from harness.record import versions
from harness.encoder import run_embed
from harness.steps import run_infer, run_train


def is_out_of_memory(error: BaseException) -> bool:
    """True for PyTorch's CUDA out-of-memory error (checked by name: importing torch is not needed)."""
    return type(error).__name__ in ("OutOfMemoryError", "OutOfMemoryException") or (
        isinstance(error, RuntimeError) and "out of memory" in str(error).lower())


def out_of_memory_record(case: Case, device: str, error: BaseException) -> dict[str, Any]:
    """The record of a case that ran out of memory: an outcome, with the error and the device's usable total."""
    measured: dict[str, Any] = {"out_of_memory": True, "error": f"{type(error).__name__}: {error}"[:2000]}
    if device == "cuda":
        import torch
        gc.collect()
        torch.cuda.empty_cache()
        measured["usable_bytes"] = int(torch.cuda.mem_get_info()[1])
    return {
        "id": case.slug() + ("" if device == "fake" else f"@{device}"),
        "kind": case.kind,
        "model": {"name": case.preset, "config": case.model_config or PRESETS[case.preset]},
        "settings": {"batch": case.batch, "seq": case.seq, "context": case.context},
        "measured": measured,
        "provenance": {**versions(), "device": device, "mode": "real", "date": _dt.date.today().isoformat(),
                       "command": command_for(case, device)},
    }


def run_case_or_oom(case: Case, device: str) -> dict[str, Any]:
    """:func:`run_case`, with an out-of-memory error recorded as the outcome instead of raised."""
    try:
        return run_case(case, device)
    except Exception as error:  # noqa: BLE001 - only out-of-memory is turned into a record
        if not is_out_of_memory(error):
            raise
        return out_of_memory_record(case, device, error)
    finally:
        if device == "cuda":  # as between the committed real-GPU runs: start each case with an empty cache
            import torch
            gc.collect()
            torch.cuda.empty_cache()


def largest_that_runs(runs: Any, limit: int = 1 << 16) -> tuple[int, list[tuple[int, bool]]]:
    """The largest n in [1, limit] for which ``runs(n)`` is True, assuming larger n never runs
    where a smaller one does not; 0 if ``runs(1)`` is False. Doubles, then bisects (the search
    of :func:`calculators.memory.inference.largest_fitting`).

    Returns the answer and every trial as ``(n, ran)``.

    >>> largest_that_runs(lambda n: n <= 39)[0]
    39
    """
    from calculators.memory.inference import largest_fitting

    trials: list[tuple[int, bool]] = []

    def trial(n: int) -> bool:
        ran = bool(runs(n))
        trials.append((n, ran))
        return ran

    return largest_fitting(trial, limit), trials


def search_batch(case: Case, device: str) -> dict[str, Any]:
    """Every trial of :func:`largest_that_runs` over the batch of ``case``, and the answer."""
    records: dict[int, dict[str, Any]] = {}

    def runs(batch: int) -> bool:
        trial_case = dataclasses.replace(case, batch=batch)
        records[batch] = run_case_or_oom(trial_case, device)
        print(f"batch {batch}: {'out of memory' if records[batch]['measured'].get('out_of_memory') else 'ran'}",
              file=sys.stderr, flush=True)
        return not records[batch]["measured"].get("out_of_memory")

    largest, trials = largest_that_runs(runs)
    return {"id": dataclasses.replace(case, batch=largest or case.batch).slug() + f"@{device}-search",
            "kind": "batch-search", "largest_batch_that_ran": largest, "trials": [list(t) for t in trials],
            "runs": [records[n] for n, _ in trials], "command": command_for(case, device) + " --search-batch"}



def run_case(case: Case, device: str = "fake") -> dict[str, Any]:
    # gc.collect() runs at every phase boundary; freezing the (huge, long-lived) heap of torch/transformers
    # objects first makes those collections cheap without changing what they free.
    gc.collect()
    gc.freeze()
    if case.kind == "train":
        return run_train(case, device)
    if case.kind == "embed":
        return run_embed(case, device)
    return run_infer(case, device)
