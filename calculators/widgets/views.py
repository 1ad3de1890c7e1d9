"""What each calculator shows: a summary sentence, a chart and a table, as one HTML fragment.

A view is a small frozen record of a computed result; :func:`memory_html`,
:func:`kv_cache_html` and :func:`fit_html` turn it into HTML with the primitives of
:mod:`calculators.widgets.render`. The build puts that HTML into the page and the
browser replaces it with the same function's output for new inputs.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> from calculators.memory.inference import inference_memory
>>> spec = get_model("llama-3-8b")
>>> view = MemoryView(spec=spec, job="inference", estimate=inference_memory(spec), gpu=get_gpu("rtx-4090"))
>>> html = memory_html(view)
>>> "<svg" in html and "GeForce RTX 4090" in html and "GiB" in html
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from calculators.catalog.gpus import GPU
from calculators.fit import FitResult
from calculators.memory.result import MemoryEstimate
from calculators.model import ModelSpec
from calculators.widgets.render import chart_html, gib, label, notes_html, paragraph, table_html


@dataclass(frozen=True)
class MemoryView:
    """A memory estimate of one job, to be drawn against one GPU's memory."""

    spec: ModelSpec
    job: str
    estimate: MemoryEstimate
    gpu: GPU


@dataclass(frozen=True)
class KVCacheView:
    """KV-cache size of a batch of sequences, with the weights beside it for scale."""

    spec: ModelSpec
    kv_dtype: str
    batch: int
    context: int
    bytes_per_token: int
    bytes_per_sequence: int
    total_bytes: int
    weights_dtype: str
    weight_bytes: int
    gpu: GPU


@dataclass(frozen=True)
class FitView:
    """Which GPUs of the catalog hold one job: one :class:`FitResult` per GPU."""

    spec: ModelSpec
    job: str
    rows: tuple[tuple[GPU, FitResult], ...]
    gpu: GPU


def _segments(estimate: MemoryEstimate) -> list[tuple[str, int]]:
    """Breakdown then runtime overhead: the parts that add up to ``total_bytes``."""
    return [*estimate.breakdown.items(), *estimate.overhead.items()]


def _verdict(needed_bytes: int, gpu: GPU) -> str:
    spare = gpu.memory_bytes - needed_bytes
    if spare >= 0:
        return f"{gpu.name} has {gib(gpu.memory_bytes)} GiB: it fits, with {gib(spare)} GiB to spare."
    return f"{gpu.name} has {gib(gpu.memory_bytes)} GiB: it does not fit, short by {gib(-spare)} GiB."


def memory_html(view: MemoryView) -> str:
    """Summary, stacked bar against the GPU, breakdown table (GiB) and assumptions."""
    estimate, gpu = view.estimate, view.gpu
    summary = (f"{view.spec.name}, {view.job}: needs {gib(estimate.total_bytes)} GiB on each GPU "
               f"(peak allocated {gib(estimate.peak_allocated_bytes)} GiB, in the {estimate.peak_phase} phase). "
               + _verdict(estimate.total_bytes, gpu))
    rows: list[list[str]] = []
    classes: list[str] = []
    for name, value in estimate.breakdown.items():
        if value:
            rows.append([label(name), gib(value)])
            classes.append("")
    rows.append([f"Peak allocated ({estimate.peak_phase} phase)", gib(estimate.peak_allocated_bytes)])
    classes.append("mlhw-subtotal")
    for name, value in estimate.overhead.items():
        rows.append([label(name), gib(value)])
        classes.append("")
    rows.append(["Total on each GPU", gib(estimate.total_bytes)])
    classes.append("mlhw-total")
    rows.append([f"{gpu.name} memory", gib(gpu.memory_bytes)])
    classes.append("")
    spare = gpu.memory_bytes - estimate.total_bytes
    rows.append(["Headroom" if spare >= 0 else "Shortfall", gib(abs(spare))])
    classes.append("mlhw-fits" if spare >= 0 else "mlhw-short")
    return "".join([
        paragraph(summary),
        chart_html(_segments(estimate), capacity_bytes=gpu.memory_bytes, capacity_label=gpu.name,
                        title=f"{view.spec.name}, {view.job}"),
        table_html(["Component", "GiB (2^30 bytes)"], rows, numeric=[False, True], row_classes=classes,
                   caption=f"Memory per GPU, {view.job}"),
        notes_html(estimate.assumptions, estimate.notes),
    ])


def kv_cache_html(view: KVCacheView) -> str:
    """Summary, stacked bar (weights + KV cache) against the GPU, and the KV-cache table."""
    needed = view.weight_bytes + view.total_bytes
    summary = (f"{view.spec.name} caches {view.bytes_per_token:,} bytes per token ({view.kv_dtype}, "
               f"{view.spec.num_layers} layers); {view.batch:,} x {view.context:,} tokens hold "
               f"{gib(view.total_bytes)} GiB of KV cache, {gib(needed)} GiB with the {view.weights_dtype} "
               f"weights. " + _verdict(needed, view.gpu) + " (Runtime overhead and activations not included.)")
    rows = [
        ["KV cache per token, all layers", f"{view.bytes_per_token:,}", "bytes"],
        [f"KV cache per sequence of {view.context:,} tokens", gib(view.bytes_per_sequence), "GiB"],
        [f"KV cache for {view.batch:,} sequences", gib(view.total_bytes), "GiB"],
        [f"Weights ({view.weights_dtype})", gib(view.weight_bytes), "GiB"],
        ["Weights and KV cache", gib(needed), "GiB"],
        [f"{view.gpu.name} memory", gib(view.gpu.memory_bytes), "GiB"],
    ]
    return "".join([
        paragraph(summary),
        chart_html([("weights", view.weight_bytes), ("kv_cache", view.total_bytes)],
                        capacity_bytes=view.gpu.memory_bytes, capacity_label=view.gpu.name,
                        title=f"{view.spec.name}, weights and KV cache"),
        table_html(["Quantity", "Value", "Unit"], rows, numeric=[False, True, False],
                   row_classes=["", "", "mlhw-subtotal", "", "mlhw-total", ""],
                   caption="KV cache (GiB = 2^30 bytes)"),
        notes_html((), view.spec.notes),
    ])


def _count(value: int | None, *, limit: str) -> str:
    return limit if value is None else f"{value:,}"


def fit_html(view: FitView) -> str:
    """Summary, the job against the chosen GPU, and one table row per catalog GPU."""
    first = view.rows[0][1].estimate
    fitting = [gpu for gpu, result in view.rows if result.fits]
    if fitting:
        smallest = min(fitting, key=lambda gpu: gpu.memory_bytes)
        verdict = (f"It fits on one GPU for {len(fitting)} of the {len(view.rows)} GPUs in the catalog; "
                   f"the smallest is the {smallest.name} ({gib(smallest.memory_bytes)} GiB).")
    else:
        verdict = f"It fits on none of the {len(view.rows)} GPUs in the catalog alone: see the GPUs needed."
    summary = f"{view.spec.name}, {view.job}: needs {gib(first.total_bytes)} GiB on one GPU. {verdict}"
    how = "ZeRO-3 data parallel" if view.job == "training" else "tensor parallel"
    context = "Max sequence (tokens)" if view.job == "training" else "Max context (tokens)"
    rows: list[Sequence[str]] = []
    classes: list[str] = []
    ordered = sorted(view.rows, key=lambda item: (item[0].memory_bytes, item[0].name))
    for gpu, result in ordered:
        rows.append([gpu.name, gib(gpu.memory_bytes), "yes" if result.fits else "no",
                     _count(result.gpus_needed, limit="over 1,024"), f"{result.max_batch:,}",
                     f"{result.max_context:,}"])
        classes.append(" ".join(c for c in ("mlhw-fits" if result.fits else "mlhw-short",
                                            "mlhw-chosen" if gpu.id == view.gpu.id else "") if c))
    return "".join([
        paragraph(summary),
        chart_html(_segments(first), capacity_bytes=view.gpu.memory_bytes, capacity_label=view.gpu.name,
                        title=f"{view.spec.name}, {view.job}"),
        table_html(["GPU", "Memory (GiB)", "Fits on one", f"GPUs needed ({how})", "Max batch", context], rows,
                   numeric=[False, True, False, True, True, True], row_classes=classes,
                   caption="Every GPU in the catalog, smallest memory first (GiB = 2^30 bytes)"),
        notes_html(first.assumptions, first.notes),
    ])
