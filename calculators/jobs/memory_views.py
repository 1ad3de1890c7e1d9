"""What each calculator shows: a summary sentence, a chart and a table, as one HTML fragment.

A view is a small frozen record of a computed result; :func:`memory_html`,
:func:`kv_cache_html` and :func:`fit_html` turn it into HTML with the primitives of
:mod:`calculators.jobs.html`. The build puts that HTML into the page and the
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
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.fit import DOES_NOT_FIT, FITS, TIGHT, FitResult, fit_verdict
from calculators.memory.result import MemoryEstimate
from calculators.model import ModelSpec
from calculators.units import gib
from calculators.jobs.html import chart_html, label, notes_html, paragraph, table_html


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
    refused: tuple[str, ...] = ()  # GPUs that cannot run the job's number formats, with the reason


def _params(count: int) -> str:
    """A parameter count as K/M/B with three significant digits (``8.03B``, ``30.0M``)."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if count >= scale:
            return f"{count / scale:.3g}{suffix}"
    return f"{count:,}"


def config_echo(spec: ModelSpec) -> str:
    """What was read from a pasted or uploaded config.json, as one sentence the reader can check.

    >>> from calculators.model_config import spec_from_config
    >>> spec = spec_from_config({"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 4,
    ...     "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 1024, "vocab_size": 1000,
    ...     "max_position_embeddings": 2048}, name="tiny")
    >>> # 2 x 1000 x 512 (embedding, head) + 4 x (655,360 attention + 1,572,864 MLP + 1,024 norms) + 512 = 9,941,504
    >>> config_echo(spec)
    'Read from your config.json: tiny, architecture llama (GQA), 9.94M parameters (all active), 4 layers, hidden size 512, 8 attention heads and 2 KV heads of 64 dimensions, context up to 2,048 tokens (max_position_embeddings).'
    """
    attention = "MLA" if spec.mla else ("MHA" if spec.num_kv_heads == spec.num_attention_heads else "GQA")
    moe = (f", mixture of experts: {spec.moe.num_experts} experts, {spec.moe.experts_per_token} per token"
           if spec.moe else "")
    active = ("all active" if spec.active_parameters == spec.parameters
              else f"{_params(spec.active_parameters)} active per token")
    context = (f"context up to {spec.max_position_embeddings:,} tokens (max_position_embeddings)"
               if spec.max_position_embeddings else "context length not stated (no max_position_embeddings)")
    window = f", sliding window of {spec.sliding_window:,} tokens" if spec.sliding_window else ""
    return (f"Read from your config.json: {spec.name}, architecture {spec.model_type} ({attention}{moe}), "
            f"{_params(spec.parameters)} parameters ({active}), {spec.num_layers:,} layers, hidden size "
            f"{spec.hidden_size:,}, {spec.num_attention_heads:,} attention heads and {spec.num_kv_heads:,} KV heads "
            f"of {spec.head_dim:,} dimensions{window}, {context}.")


def config_echo_html(spec: ModelSpec) -> str:
    """:func:`config_echo` as the paragraph shown above a custom model's result."""
    return paragraph(config_echo(spec), css="mlhw-echo")


def _segments(estimate: MemoryEstimate) -> list[tuple[str, int]]:
    """Breakdown then runtime overhead: the parts that add up to ``total_bytes``."""
    return [*estimate.breakdown.items(), *estimate.overhead.items()]


def verdict_sentence(estimate: MemoryEstimate, gpu: GPU) -> str:
    """The fit verdict on ``gpu`` as a sentence (the one verdict of :func:`calculators.fit.fit_verdict`)."""
    verdict = fit_verdict(estimate, gpu)
    return f"On the {gpu.name} it {verdict.summary().replace('fits:', 'fits,', 1)}."


_VERDICT_CLASS = {FITS: "mlhw-fits", TIGHT: "mlhw-tight", DOES_NOT_FIT: "mlhw-short"}


def memory_html(view: MemoryView) -> str:
    """Summary, stacked bar against the GPU, breakdown table (GiB) and assumptions."""
    estimate, gpu = view.estimate, view.gpu
    summary = (f"{view.spec.name}, {view.job}: needs {gib(estimate.total_bytes)} GiB on each GPU "
               f"(peak allocated {gib(estimate.peak_allocated_bytes)} GiB, in the {estimate.peak_phase} phase). "
               + verdict_sentence(estimate, gpu))
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
    verdict = fit_verdict(estimate, gpu)
    rows.append(["Measured uncertainty above the total (up to)", gib(verdict.uncertainty_bytes)])
    classes.append("")
    rows.append([f"{gpu.name}: memory a process can allocate", gib(verdict.usable_bytes)])
    classes.append("")
    spare = verdict.margin_bytes
    rows.append([f"{'Headroom' if spare >= 0 else 'Shortfall'} ({verdict.verdict})", gib(abs(spare))])
    classes.append(_VERDICT_CLASS[verdict.verdict])
    return "".join([
        paragraph(summary),
        chart_html(_segments(estimate), capacity_bytes=verdict.usable_bytes, capacity_label=f"{gpu.name} (usable)",
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
               f"weights: {needed / usable_memory_bytes(view.gpu):.0%} of the {gib(usable_memory_bytes(view.gpu))} GiB "
               f"a process can allocate on the {view.gpu.name}. Not a fit verdict: activations, the CUDA context "
               "and the allocator's reserve are not included (the fit calculator counts them).")
    rows = [
        ["KV cache per token, all layers", f"{view.bytes_per_token:,}", "bytes"],
        [f"KV cache per sequence of {view.context:,} tokens", gib(view.bytes_per_sequence), "GiB"],
        [f"KV cache for {view.batch:,} sequences", gib(view.total_bytes), "GiB"],
        [f"Weights ({view.weights_dtype})", gib(view.weight_bytes), "GiB"],
        ["Weights and KV cache", gib(needed), "GiB"],
        [f"{view.gpu.name}: memory a process can allocate", gib(usable_memory_bytes(view.gpu)), "GiB"],
    ]
    return "".join([
        paragraph(summary),
        chart_html([("weights", view.weight_bytes), ("kv_cache", view.total_bytes)],
                        capacity_bytes=usable_memory_bytes(view.gpu), capacity_label=f"{view.gpu.name} (usable)",
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
    tight = [gpu for gpu, result in view.rows if result.verdict.verdict == TIGHT]
    if fitting:
        smallest = min(fitting, key=lambda gpu: (usable_memory_bytes(gpu), gpu.name))
        verdict = (f"It fits on one GPU for {len(fitting)} of the {len(view.rows)} GPUs in the catalog; "
                   f"the smallest is the {smallest.name} ({gib(usable_memory_bytes(smallest))} GiB usable).")
    else:
        verdict = f"It fits on none of the {len(view.rows)} GPUs in the catalog alone: see the GPUs needed."
    if tight:
        verdict += (f" Tight (a risk: only inside the measured uncertainty) on {len(tight)}: "
                    + ", ".join(gpu.name for gpu in tight) + ".")
    summary = f"{view.spec.name}, {view.job}: needs {gib(first.total_bytes)} GiB on one GPU. {verdict}"
    how = "ZeRO-3 data parallel" if view.job == "training" else "tensor parallel"
    context = "Max sequence (tokens)" if view.job == "training" else "Max context (tokens)"
    rows: list[Sequence[str]] = []
    classes: list[str] = []
    ordered = sorted(view.rows, key=lambda item: (item[0].memory_bytes, item[0].name))
    for gpu, result in ordered:
        rows.append([gpu.name, gib(gpu.memory_bytes), result.verdict.verdict, gib(result.verdict.usable_bytes),
                     f"{result.verdict.margin_bytes / 2**30:+,.1f}",
                     _count(result.gpus_needed, limit="over 1,024"), f"{result.max_batch:,} ({result.max_batch_tight:,})",
                     f"{result.max_context:,} ({result.max_context_tight:,})"])
        classes.append(" ".join(c for c in (_VERDICT_CLASS[result.verdict.verdict],
                                            "mlhw-chosen" if gpu.id == view.gpu.id else "") if c))
    return "".join([
        paragraph(summary),
        chart_html(_segments(first), capacity_bytes=usable_memory_bytes(view.gpu),
                   capacity_label=f"{view.gpu.name} (usable)", title=f"{view.spec.name}, {view.job}"),
        table_html(["GPU", "Memory (GiB)", "On one GPU", "Usable (GiB)", "Margin (GiB)", f"GPUs needed ({how})",
                    "Max batch (tight)", f"{context} (tight)"], rows,
                   numeric=[False, True, False, True, True, True, True, True], row_classes=classes,
                   caption=("Every GPU in the catalog, smallest memory first (GiB = 2^30 bytes). Fits: the total "
                            "plus its measured uncertainty fits the usable memory; tight: only the total does")),
        notes_html(first.assumptions, first.notes + view.rows[0][1].notes + view.refused),
    ])
