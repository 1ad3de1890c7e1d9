#!/usr/bin/env python3
"""The largest batch that runs on an H100 80GB, simulated: a fake-tensor step replayed through the allocator.

For each scenario (a model and a job), this records the allocation order of the step under
fake tensors (``scripts/harness/``, needs the ``measure`` extra), replays it through
:mod:`calculators.memory.caching_allocator` with the H100's capacity (the usable memory less
the CUDA context), where a request that does not fit releases the free cached segments and
fails as ``torch.OutOfMemoryError`` does, and searches the largest batch that runs: from the
calculators' answer up while it runs, or down while it does not.

The three boundaries measured on the GPU are simulated too, as the check of the method
(``boundaries.json``). The others are jobs nobody ran on the GPU: they test the calculators'
fit verdicts where no measurement exists. Writes
``tests/data/measurements_cuda/h100-sxm/simulated_boundaries.json`` (table
``accuracy-simulated-boundaries``)::

    scripts/simulate_boundaries.py                 # every scenario (about 15 minutes on 2 cores)
    scripts/simulate_boundaries.py --match LoRA    # the scenarios whose label matches
    scripts/simulate_boundaries.py --needed        # what each job needs above its allocated peak

``--needed`` writes nothing: at each scenario's simulated largest batch (read from the JSON above) it
prints the smallest capacity under which the replay runs, as memory above the step's allocated
peak, in GiB and in the calculators' transient blocks (the block the fit margin is a multiple of).
That is the fragmentation the allocator cannot give back: free pieces of segments that still hold a
live tensor.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # scripts/ is not a package: make `harness` importable

from harness.case import Case
from harness.order import allocation_order

from calculators.accuracy_real_gpu import boundary_answer
from calculators.catalog.model_record import thaw
from calculators.catalog.models import get_model_record
from calculators.catalog.gpus import get_gpu
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.memory.caching_allocator import AllocatorOutOfMemory, replay
from calculators.memory.overhead import CUDA_CONTEXT_BYTES
from calculators.memory.training_inputs import DEFAULT_LORA_TARGETS

OUT = ROOT / "tests" / "data" / "measurements_cuda" / "h100-sxm" / "simulated_boundaries.json"
GPU = "h100-sxm"
#: (label, model, job, the calculators' settings, the batch that ran on the GPU or None). The harness runs
#: the same settings (:func:`harness_settings`).
SCENARIOS: tuple[tuple[str, str, str, dict[str, Any], int | None], ...] = (
    ("Phi-3-mini-4k full bf16, 2k, checkpointing", "phi-3-mini-4k", "train",
     {"method": "full", "precision": "bf16", "seq": 2048, "grad_checkpointing": True}, 39),
    ("Mistral 7B v0.1 inference, 8k context", "mistral-7b-v0.1", "infer", {"context": 8192}, 28),
    ("Qwen2.5 7B LoRA r64 all linear, 4k, checkpointing", "qwen2.5-7b", "train",
     {"method": "lora", "lora_rank": 64, "seq": 4096, "grad_checkpointing": True}, 6),
    ("Llama 3.1 8B LoRA r16 q/k/v/o, 2k, checkpointing", "llama-3.1-8b", "train",
     {"method": "lora", "lora_rank": 16, "lora_targets": ("q", "k", "v", "o"), "seq": 2048,
      "grad_checkpointing": True}, None),
    ("Mistral 7B v0.3 LoRA r16 all linear, 4k, checkpointing", "mistral-7b-v0.3", "train",
     {"method": "lora", "lora_rank": 16, "seq": 4096, "grad_checkpointing": True}, None),
    ("Llama 3.2 3B full bf16, 4k, checkpointing", "llama-3.2-3b", "train",
     {"precision": "bf16", "seq": 4096, "grad_checkpointing": True}, None),
    ("Gemma 2 2B full bf16, 2k, checkpointing, eager", "gemma-2-2b", "train",
     {"precision": "bf16", "seq": 2048, "grad_checkpointing": True, "attention": "eager"}, None),
    ("Qwen2.5 1.5B full bf16, 1k", "qwen2.5-1.5b", "train", {"precision": "bf16", "seq": 1024}, None),
    ("Llama 3.2 1B bf16 autocast, 2k, checkpointing", "llama-3.2-1b", "train",
     {"precision": "bf16-mixed", "seq": 2048, "grad_checkpointing": True}, None),
    ("Llama 3.1 8B inference, 8k context", "llama-3.1-8b", "infer", {"context": 8192}, None),
    ("Qwen2.5 7B inference, 16k context", "qwen2.5-7b", "infer", {"context": 16384}, None),
)
#: Decode steps after the prefill, as in the measured inference runs (their peaks cover 4).
NEW_TOKENS = 4


def harness_settings(job: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The harness :class:`Case` fields for the calculators' ``settings``, with the calculators' defaults.

    A LoRA base and an inference model are bf16, as in the measured runs; LoRA adapters train under bf16
    autocast (``bf16-mixed``, the calculators' default precision).
    """
    if job == "infer":
        return {"weights": "bf16", "context": settings["context"], "new_tokens": NEW_TOKENS}
    case: dict[str, Any] = {"method": settings.get("method", "full"),
                            "precision": settings.get("precision", "bf16-mixed"), "seq": settings["seq"],
                            "grad_checkpointing": settings.get("grad_checkpointing", False),
                            "attention": settings.get("attention", "sdpa")}
    if case["method"] == "lora":
        case.update(weights="bf16", lora_rank=settings.get("lora_rank", 16),
                    lora_targets=tuple(settings.get("lora_targets", DEFAULT_LORA_TARGETS)))
    return case


def runs(model: str, job: str, harness_settings: dict[str, Any], batch: int) -> bool:
    """Whether the step at ``batch`` fits the GPU's capacity when its allocation order is replayed."""
    case = Case(model, job, batch=batch, steps=2, model_config=thaw(get_model_record(model).config),
                **harness_settings)
    events, _ = allocation_order(case)
    try:
        replay(events, capacity_bytes=usable_memory_bytes(get_gpu(GPU)) - CUDA_CONTEXT_BYTES)
    except AllocatorOutOfMemory:
        return False
    return True


def needed_above_allocated(model: str, job: str, harness_settings: dict[str, Any], batch: int) -> tuple[int, int]:
    """``(allocated peak, smallest capacity that runs)`` of the step at ``batch``, bisected to 16 MiB."""
    case = Case(model, job, batch=batch, steps=2, model_config=thaw(get_model_record(model).config),
                **harness_settings)
    events, _ = allocation_order(case)
    free_run = replay(events)
    low, high = free_run.peak_allocated_bytes, free_run.peak_reserved_bytes
    while high - low > 16 << 20:
        middle = (low + high) // 2
        try:
            replay(events, capacity_bytes=middle)
        except AllocatorOutOfMemory:
            low = middle
        else:
            high = middle
    return free_run.peak_allocated_bytes, high


def print_needed(match: str) -> None:
    """Print, for each scenario at its simulated largest batch, the memory it needs above its allocated peak."""
    from calculators.catalog.models import get_model
    from calculators.memory.inference import inference_memory
    from calculators.memory.training import training_memory

    simulated = {boundary["label"]: boundary for boundary in json.loads(OUT.read_text(encoding="utf-8"))["boundaries"]}
    for label, model, job, settings, _measured in SCENARIOS:
        if not re.search(match, label) or label not in simulated:
            continue
        batch = int(simulated[label]["largest_batch_that_ran"])
        allocated, capacity = needed_above_allocated(model, job, harness_settings(job, settings), batch)
        memory = training_memory if job == "train" else inference_memory
        block = memory(get_model(model), batch=batch, **settings).transient_block_bytes
        print(f"{label}, batch {batch}: needs {(capacity - allocated) / 2**30:5.2f} GiB above its allocated peak "
              f"({(capacity - allocated) / block:.2f} transient blocks of {block / 2**30:.2f} GiB)", flush=True)


def largest_batch(model: str, job: str, harness_settings: dict[str, Any], start: int) -> tuple[int, list[list[Any]]]:
    """The largest batch that runs, searched from ``start`` (up while it runs, down while it does not)."""
    trials: list[list[Any]] = []

    def trial(batch: int) -> bool:
        ran = runs(model, job, harness_settings, batch)
        trials.append([batch, ran])
        print(f"  batch {batch}: {'runs' if ran else 'out of memory'}", file=sys.stderr, flush=True)
        return ran

    batch = max(start, 1)
    if trial(batch):
        while trial(batch + 1):
            batch += 1
        return batch, trials
    while batch > 1 and not trial(batch - 1):
        batch -= 1
    return batch - 1, trials


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--match", default="", help="only the scenarios whose label matches this regular expression")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the results (JSON)")
    parser.add_argument("--needed", action="store_true",
                        help="print what each job needs above its allocated peak at its simulated limit; write nothing")
    args = parser.parse_args(argv)
    if args.needed:
        print_needed(args.match)
        return 0
    import torch
    import transformers

    boundaries = []
    for label, model, job, settings, measured in SCENARIOS:
        if not re.search(args.match, label):
            continue
        boundary = {"label": label, "job": job, "model": model, "settings": settings}
        answer, _ = boundary_answer(boundary, GPU)
        print(f"{label}: the calculators fit {answer}", file=sys.stderr, flush=True)
        harness = harness_settings(job, settings)
        largest, trials = largest_batch(model, job, harness, answer)
        boundaries.append({**boundary, "harness_settings": harness, "largest_batch_that_ran": largest,
                           "measured_largest_batch": measured, "trials": trials})
        print(f"{label}: simulated largest batch {largest}" + (f" (measured {measured})" if measured else ""),
              flush=True)
    document = {
        "source": ("simulated, not measured: each step's fake-tensor allocation order (scripts/harness/, torch "
                   f"{torch.__version__}, transformers {transformers.__version__}) replayed through "
                   "calculators.memory.caching_allocator with the capacity of one H100 80GB "
                   f"({usable_memory_bytes(get_gpu(GPU))} B usable less a {CUDA_CONTEXT_BYTES >> 20} MiB CUDA context), "
                   f"by scripts/simulate_boundaries.py on {datetime.date.today().isoformat()}"),
        "boundaries": boundaries,
    }
    args.out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
