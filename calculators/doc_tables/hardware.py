"""Tables of the "Which GPU should I pick?" page (docs/hardware/index.md).

Every cell comes from :mod:`calculators.catalog.gpus` (spec figures with their sources)
or from :mod:`calculators.fit` (memory fit). Derived columns (ratios) are labelled as
derived in their captions; nothing here estimates speed or time.

>>> table = TABLES["hardware-catalog"]()
>>> table.columns[:3]
('GPU', 'segment', 'memory GiB')
>>> [row[0] for row in table.rows][:2]
['GeForce RTX 3090', 'GeForce RTX 4090']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields

from calculators.catalog.gpus import GPU, all_gpus, get_gpu
from calculators.catalog.models import all_models, get_model
from calculators.fit import fit_inference, fit_training
from calculators.memory.overhead import overhead_assumptions
from calculators.tables import Table, TableFunction

GIB = 2**30
SEGMENTS = ("consumer", "workstation", "datacenter", "apple")

#: The two jobs of the fit table, passed unchanged to fit_inference / fit_training.
INFERENCE_SETTINGS: dict[str, object] = {"weights": "bf16", "kv_cache": "bf16", "batch": 1, "context": 8192}
QLORA_SETTINGS: dict[str, object] = {"method": "qlora", "batch": 1, "seq": 2048, "grad_checkpointing": True}


# --------------------------------------------------------------------------- formatting
def catalog_as_of() -> str:
    """The catalog's as-of date: the latest ``as_of`` among the records' sources."""
    return max(gpu.source.as_of for gpu in all_gpus())


def _gib(value: float) -> str:
    return f"{value / GIB:,.0f}"


def _gbps(value: float) -> str:
    return f"{value / 1e9:,.0f}"


def _tflops(value: float | None) -> str:
    return "—" if value is None else f"{value / 1e12:,.1f}"


def _range(values: Iterable[float | None], fmt: Callable[[float], str]) -> str:
    known = sorted(v for v in values if v is not None)
    if not known:
        return "unknown"
    low, high = fmt(known[0]), fmt(known[-1])
    return low if low == high else f"{low}–{high}"


def _ordered() -> list[GPU]:
    """GPUs by segment (consumer, workstation, datacenter, Apple), then memory, then name."""
    return sorted(all_gpus(), key=lambda g: (SEGMENTS.index(g.segment), g.memory_bytes, g.name))


def _link(gpu: GPU) -> str:
    if gpu.interconnect is None:
        return "—"
    if gpu.nvlink_bandwidth_bytes_per_s is None:
        return gpu.interconnect
    return f"{gpu.interconnect} ({_gbps(gpu.nvlink_bandwidth_bytes_per_s)} GB/s)"


def _yes_no(value: bool | None) -> str:
    return "unknown" if value is None else ("yes" if value else "no")


def ridge_flop_per_byte(flop_per_s: float | None, bandwidth_bytes_per_s: float) -> float | None:
    """Arithmetic intensity (FLOP per byte of DRAM traffic) at which a rate-limited kernel turns compute-bound.

    Formula: ``dense FLOP/s / memory bytes/s`` (the roofline's ridge point). Derived from spec rates.

    >>> round(ridge_flop_per_byte(989.4e12, 3.35e12) or 0.0, 1)  # H100 SXM, BF16
    295.3
    """
    return None if flop_per_s is None else flop_per_s / bandwidth_bytes_per_s


# --------------------------------------------------------------------------- tables
def key_numbers() -> Table:
    """Five headline figures of the catalog, each with the GPU it belongs to."""
    gpus = all_gpus()
    biggest = max(gpus, key=lambda g: g.memory_bytes)
    fastest = max(gpus, key=lambda g: g.memory_bandwidth_bytes_per_s)
    compute = max((g for g in gpus if g.bf16_dense_flop_per_s), key=lambda g: g.bf16_dense_flop_per_s or 0.0)
    consumer = max((g for g in gpus if g.segment == "consumer"), key=lambda g: g.memory_bytes)
    h100 = get_gpu("h100-sxm")
    ridge = ridge_flop_per_byte(h100.bf16_dense_flop_per_s, h100.memory_bandwidth_bytes_per_s)
    rows = (
        ("Largest memory on one GPU", _gib(biggest.memory_bytes), "GiB", biggest.name,
         biggest.source_of("memory_bytes").kind, "GPU.memory_bytes"),
        ("Largest consumer-card memory", _gib(consumer.memory_bytes), "GiB", consumer.name,
         consumer.source_of("memory_bytes").kind, "GPU.memory_bytes"),
        ("Highest memory bandwidth", _gbps(fastest.memory_bandwidth_bytes_per_s), "GB/s", fastest.name,
         fastest.source_of("memory_bandwidth_bytes_per_s").kind, "GPU.memory_bandwidth_bytes_per_s"),
        ("Highest dense BF16 rate", _tflops(compute.bf16_dense_flop_per_s), "TFLOPS", compute.name,
         compute.source_of("bf16_dense_flop_per_s").kind, "GPU.bf16_dense_flop_per_s"),
        ("BF16 ridge point (dense FLOP/s ÷ bandwidth)", f"{ridge or 0.0:,.0f}", "FLOP/byte", h100.name,
         "derived", "hardware.ridge_flop_per_byte"),
    )
    return Table(
        id="hardware-key-numbers",
        caption=(f"Headline figures of the GPU catalog (as of {catalog_as_of()}). 'kind' is the catalog's own "
                 "label for the figure's source: spec (datasheet or whitepaper), derived (arithmetic on spec "
                 "figures, e.g. half of a sparsity headline)."),
        columns=("quantity", "value", "unit", "GPU", "kind", "where"),
        align=("l", "r", "l", "l", "l", "l"),
        rows=rows,
    )


def catalog() -> Table:
    """The GPU catalog, one row per SKU, in base units converted for display."""
    rows = tuple(
        (
            gpu.name, gpu.segment, _gib(gpu.memory_bytes), gpu.memory_type or "unknown",
            _gbps(gpu.memory_bandwidth_bytes_per_s), _tflops(gpu.bf16_dense_flop_per_s),
            _tflops(gpu.fp8_dense_flop_per_s), "unknown" if gpu.tdp_watts is None else f"{gpu.tdp_watts:,.0f}",
            _yes_no(gpu.ecc), _link(gpu),
            "—" if gpu.pcie_generation is None else f"Gen {gpu.pcie_generation} x{gpu.pcie_lanes}",
            "unknown" if gpu.launch_price_usd is None else f"{gpu.launch_price_usd:,.0f}",
        )
        for gpu in _ordered()
    )
    return Table(
        id="hardware-catalog",
        caption=(f"The GPU catalog (calculators.catalog.gpus, as of {catalog_as_of()}). Every value carries a "
                 "source: the record's source for most fields, GPU.source_of(field) for the rest (see the "
                 "hardware-sources table and `mlhw gpus --json`). Memory in GiB (2^30 bytes); bandwidth in "
                 "decimal GB/s as vendors quote it; TFLOPS are dense tensor-core rates (never the 2:4 sparsity "
                 "headline; FP32 accumulation on GeForce/RTX cards). '—' in a rate column: no such tensor path "
                 "or no published figure; '—' under GPU-to-GPU link: none, or none in the cited documents; link "
                 "bandwidth is both directions summed. Launch price is the vendor's launch MSRP, 'unknown' where "
                 "none was published: never a street price."),
        columns=("GPU", "segment", "memory GiB", "memory type", "bandwidth GB/s", "BF16 dense TFLOPS",
                 "FP8 dense TFLOPS", "TDP W", "ECC", "GPU-to-GPU link", "PCIe", "launch price USD"),
        align=("l", "l", "r", "l", "r", "r", "r", "r", "l", "l", "l", "r"),
        rows=rows,
    )


def sparse_notes() -> Table:
    """Dense rates next to what the datasheet's headline (sparse) figure is."""
    rows = tuple(
        (
            gpu.name, _tflops(gpu.bf16_dense_flop_per_s), _tflops(gpu.fp16_dense_flop_per_s),
            _tflops(gpu.fp8_dense_flop_per_s),
            gpu.source_of("bf16_dense_flop_per_s").kind if gpu.bf16_dense_flop_per_s is not None else "—",
            gpu.sparse_figures_note or "no sparse figure quoted",
        )
        for gpu in _ordered()
    )
    return Table(
        id="hardware-sparse",
        caption=(f"Dense tensor rates and the datasheet's sparse headline, from the catalog (as of "
                 f"{catalog_as_of()}). 'BF16 kind' is spec where the document prints the dense figure and "
                 "derived where the catalog halved a 2:4-sparsity headline. FP16 is with FP32 accumulation. "
                 "'—': no such tensor path or no published figure."),
        columns=("GPU", "BF16 dense TFLOPS", "FP16 dense TFLOPS", "FP8 dense TFLOPS", "BF16 kind",
                 "datasheet sparse note (sparse_figures_note)"),
        align=("l", "r", "r", "r", "l", "l"),
        rows=rows,
    )


def ridge() -> Table:
    """Derived ratios: ridge points and tensor-vs-FP32 rate, per GPU with known rates."""
    rows = []
    for gpu in _ordered():
        bw = gpu.memory_bandwidth_bytes_per_s
        bf16 = ridge_flop_per_byte(gpu.bf16_dense_flop_per_s, bw)
        fp8 = ridge_flop_per_byte(gpu.fp8_dense_flop_per_s, bw)
        tensor_vs_fp32 = (None if gpu.bf16_dense_flop_per_s is None or gpu.fp32_flop_per_s is None
                          else gpu.bf16_dense_flop_per_s / gpu.fp32_flop_per_s)
        rows.append((
            gpu.name, _gbps(bw), _tflops(gpu.bf16_dense_flop_per_s),
            "—" if bf16 is None else f"{bf16:,.0f}", "—" if fp8 is None else f"{fp8:,.0f}",
            "—" if tensor_vs_fp32 is None else f"{tensor_vs_fp32:,.1f}",
        ))
    rows.sort(key=lambda r: (r[3] == "—", -float(r[3].replace(",", "")) if r[3] != "—" else 0.0, r[0]))
    return Table(
        id="hardware-ridge",
        caption=(f"Derived from catalog spec rates (as of {catalog_as_of()}), not measured. Ridge point = dense "
                 "FLOP/s ÷ memory bytes/s: a kernel that does fewer FLOP per byte it reads from memory is "
                 "limited by bandwidth on that GPU, more is limited by compute. 'BF16 ÷ FP32' is the dense BF16 "
                 "tensor rate over the non-tensor FP32 rate. Rows sorted by BF16 ridge point; '—': a rate is "
                 "unknown or absent. These are spec-rate ratios, bounds rather than achieved speeds."),
        columns=("GPU", "bandwidth GB/s", "BF16 dense TFLOPS", "BF16 ridge FLOP/byte", "FP8 ridge FLOP/byte",
                 "BF16 ÷ FP32 rate"),
        align=("l", "r", "r", "r", "r", "r"),
        rows=tuple(rows),
    )


def segments() -> Table:
    """Consumer, workstation, datacenter and Apple parts side by side, from catalog fields."""
    rows = []
    for segment in SEGMENTS:
        group = [g for g in all_gpus() if g.segment == segment]
        ecc = {v: sum(1 for g in group if g.ecc is v) for v in (True, False, None)}
        ecc_text = ", ".join(f"{label} {count}" for label, count in
                             (("yes", ecc[True]), ("no", ecc[False]), ("unknown", ecc[None])) if count)
        links = sum(1 for g in group if g.interconnect is not None)
        rows.append((
            segment, str(len(group)), _range((g.memory_bytes for g in group), _gib),
            _range((g.memory_bandwidth_bytes_per_s for g in group), _gbps), ecc_text,
            f"{links} of {len(group)}", _range((g.tdp_watts for g in group), lambda w: f"{w:,.0f}"),
            f"{sum(1 for g in group if g.launch_price_usd is not None)} of {len(group)}",
        ))
    return Table(
        id="hardware-segments",
        caption=(f"Catalog GPUs grouped by GPU.segment (as of {catalog_as_of()}). Ranges are min–max over the "
                 "group; Apple memory is the largest unified-memory configuration, shared with the CPU. 'GPU-to-GPU "
                 "link' counts records with an interconnect field (NVLink, NVLink bridge or Infinity Fabric)."),
        columns=("segment", "GPUs", "memory GiB", "bandwidth GB/s", "ECC memory (count)", "GPU-to-GPU link",
                 "TDP W", "launch price known"),
        align=("l", "r", "r", "r", "l", "l", "r", "l"),
        rows=tuple(rows),
    )


def apple() -> Table:
    """Apple unified-memory parts: what the catalog knows and what it does not."""
    rows = tuple(
        (gpu.name, _gib(gpu.memory_bytes), _gbps(gpu.memory_bandwidth_bytes_per_s),
         "unknown" if gpu.bf16_dense_flop_per_s is None else _tflops(gpu.bf16_dense_flop_per_s),
         " ".join(gpu.notes))
        for gpu in _ordered() if gpu.segment == "apple"
    )
    return Table(
        id="hardware-apple",
        caption=(f"Apple parts in the catalog (as of {catalog_as_of()}), with the record's notes verbatim. "
                 "Memory is the largest configuration, in GiB, and is shared by CPU and GPU."),
        columns=("chip", "unified memory GiB", "bandwidth GB/s", "BF16 TFLOPS", "notes"),
        align=("l", "r", "r", "r", "l"),
        rows=rows,
    )


def capacities() -> list[GPU]:
    """One GPU per distinct memory capacity (fit depends only on memory), smallest first."""
    seen: dict[int, GPU] = {}
    for gpu in sorted(all_gpus(), key=lambda g: (g.memory_bytes, g.name)):
        seen.setdefault(gpu.memory_bytes, gpu)
    return list(seen.values())


def fit_cell(inference_fits: bool, qlora_fits: bool) -> str:
    """The cell text of the fit table."""
    return {(True, True): "both", (True, False): "infer", (False, True): "QLoRA", (False, False): "—"}[
        (inference_fits, qlora_fits)]


def fit_matrix() -> Table:
    """Which catalog models' inference and QLoRA fine-tuning fit one GPU of each memory size."""
    caps = capacities()
    rows = []
    for record in sorted(all_models(), key=lambda r: (r.spec().parameters, r.name)):
        spec = record.spec()
        infer = [fit_inference(spec, gpu, **INFERENCE_SETTINGS) for gpu in caps]
        qlora = [fit_training(spec, gpu, **QLORA_SETTINGS) for gpu in caps]
        positions = spec.max_position_embeddings
        rows.append((
            record.name, f"{spec.parameters / 1e9:,.1f}", "unknown" if positions is None else f"{positions:,}",
            f"{infer[0].estimate.total_bytes / GIB:,.1f}",
            f"{qlora[0].estimate.total_bytes / GIB:,.1f}",
            *(fit_cell(i.fits, q.fits) for i, q in zip(infer, qlora, strict=True)),
        ))
    legend = "; ".join(
        f"{_gib(cap.memory_bytes)} GiB: " + ", ".join(g.name for g in _ordered() if g.memory_bytes == cap.memory_bytes)
        for cap in caps)
    return Table(
        id="hardware-fit",
        caption=(
            "Does the job fit one GPU? Computed with calculators.fit.fit_inference and fit_training on the "
            "total_bytes basis (peak allocated plus runtime overhead). 'infer': inference fits; 'QLoRA': QLoRA "
            "fine-tuning fits; 'both'; '—': neither. GPUs by memory: " + legend + ". The 128 GiB column counts "
            "all of Apple's unified memory, which macOS does not give the GPU by default: an upper bound there. "
            "'config context' is max_position_embeddings from the model's config.json; where it is below the "
            "8192-token prompt, the inference figure is memory arithmetic for a prompt longer than the model "
            "was trained on (the calculators do not refuse it)."),
        columns=("model", "params B", "config context", "infer GiB", "QLoRA GiB", *(f"{_gib(c.memory_bytes)} GiB" for c in caps)),
        align=("l", "r", "r", "r", "r", *("c" for _ in caps)),
        rows=tuple(rows),
        assumptions=(
            "inference: bf16 weights, bf16 KV cache, batch 1, 8192-token prompt, no new tokens, SDPA attention",
            "QLoRA: nf4 base, bf16-mixed, AdamW on the adapters, rank 16 on all linear projections, batch 1, "
            "seq 2048, gradient checkpointing",
            *overhead_assumptions(),
        ),
    )


def claims() -> Table:
    """GPU claims from the source guides, next to what the catalog and calculators say."""
    def g(id_: str) -> GPU:
        return get_gpu(id_)

    sxm, pcie, l40s = g("h100-sxm"), g("h100-pcie"), g("l40s")
    r3090, r4090, pro = g("rtx-3090"), g("rtx-4090"), g("rtx-pro-6000-blackwell")
    h100_ridge = ridge_flop_per_byte(sxm.bf16_dense_flop_per_s, sxm.memory_bandwidth_bytes_per_s) or 0.0
    ratios = [gpu.bf16_dense_flop_per_s / gpu.fp32_flop_per_s for gpu in all_gpus()
              if gpu.bf16_dense_flop_per_s and gpu.fp32_flop_per_s]
    qwen_7b = fit_inference(get_model("qwen2.5-7b"), r3090, **INFERENCE_SETTINGS)
    a100 = g("a100-80gb-sxm")
    full_ft = {"method": "full", "precision": "bf16-mixed", "optimizer": "adamw", "batch": 1, "seq": 2048,
               "grad_checkpointing": True}
    by_size = sorted(all_models(), key=lambda r: (r.spec().parameters, r.name))
    full_fits = [r for r in by_size if fit_training(r.spec(), a100, **full_ft).fits]
    largest = full_fits[-1]
    smallest_miss = next(r for r in by_size if r.spec().parameters > largest.spec().parameters)
    largest_fit = fit_training(largest.spec(), a100, **full_ft)
    qwen_32b_int4 = fit_inference(get_model("qwen2.5-32b"), g("m4-max"), **{**INFERENCE_SETTINGS, "weights": "int4"})
    mistral = fit_inference(get_model("mistral-7b-v0.3"), l40s, **INFERENCE_SETTINGS)
    lyceum, practitioners, vrla = "Lyceum (2026)", "Hardware for ML Practitioners (2026)", "VRLA Tech (2026)"
    rows = (
        (lyceum, "H100: 3.35 TB/s memory bandwidth",
         f"{sxm.name}: {_gbps(sxm.memory_bandwidth_bytes_per_s)} GB/s; {pcie.name}: "
         f"{_gbps(pcie.memory_bandwidth_bytes_per_s)} GB/s",
         "true of the SXM part only"),
        (lyceum, "NVLink: up to 900 GB/s GPU-to-GPU on H100",
         f"{sxm.name}: {_link(sxm)}",
         "matches; the figure is both directions summed"),
        (lyceum, "Inference is strictly bound by memory bandwidth",
         f"{sxm.name} BF16 ridge point {h100_ridge:,.0f} FLOP/byte (derived)",
         "true for small-batch decode, not for prefill or large batches (see How it works)"),
        (lyceum, "An L40S suits a 7B model better than an A100/H100",
         f"Mistral 7B v0.3 inference needs {mistral.estimate.total_bytes / GIB:,.1f} GiB of the "
         f"{_gib(l40s.memory_bytes)} GiB; L40S bandwidth {_gbps(l40s.memory_bandwidth_bytes_per_s)} GB/s",
         "it fits; decode is bounded by less bandwidth than on an H100 (price not modelled)"),
        (practitioners, "RTX 3090 and RTX 4090 both have 24 GB",
         f"{_gib(r3090.memory_bytes)} GiB and {_gib(r4090.memory_bytes)} GiB",
         "matches (GiB: vendor 'GB' here is binary)"),
        (practitioners, "RTX 4090 is about 2x the 3090 in raw FLOPS",
         f"dense BF16 {_tflops(r4090.bf16_dense_flop_per_s)} vs {_tflops(r3090.bf16_dense_flop_per_s)} TFLOPS "
         f"({(r4090.bf16_dense_flop_per_s or 0) / (r3090.bf16_dense_flop_per_s or 1):.2f}x); bandwidth "
         f"{_gbps(r4090.memory_bandwidth_bytes_per_s)} vs {_gbps(r3090.memory_bandwidth_bytes_per_s)} GB/s "
         f"({r4090.memory_bandwidth_bytes_per_s / r3090.memory_bandwidth_bytes_per_s:.2f}x)",
         "compute ratio holds; bandwidth, which bounds decode, barely differs"),
        (practitioners, "RTX 4090: $1600 new; RTX 3090: $800 used",
         f"launch MSRP {r4090.launch_price_usd or 0:,.0f} and {r3090.launch_price_usd or 0:,.0f} USD",
         "4090 matches launch MSRP; the catalog carries no used or street prices"),
        (practitioners, "A 7B model runs on an RTX 3090 with quantization",
         f"Qwen2.5 7B, bf16 weights, 8k prompt: {qwen_7b.estimate.total_bytes / GIB:,.1f} GiB of "
         f"{_gib(r3090.memory_bytes)} GiB",
         "fits without quantization" if qwen_7b.fits else "does not fit in bf16"),
        (practitioners, "An A100 80GB fully trains models up to about 5B parameters (Adam, mixed precision)",
         f"largest catalog model that fits (bf16-mixed AdamW, batch 1, seq 2048, checkpointing): {largest.name}, "
         f"{largest.spec().parameters / 1e9:.1f}B, {largest_fit.estimate.total_bytes / GIB:,.1f} GiB; next size "
         f"up, {smallest_miss.name} ({smallest_miss.spec().parameters / 1e9:.1f}B), does not fit",
         f"lower than claimed: the peak allocates "
         f"{largest_fit.estimate.peak_allocated_bytes / largest.spec().parameters:.1f} bytes per parameter, "
         "not the 16 the claim counts"),
        (practitioners, "A 36 GB MacBook Pro runs quantized models up to about 30B",
         f"Qwen2.5 32B, int4 weights, 8k prompt: {qwen_32b_int4.estimate.total_bytes / GIB:,.1f} GiB",
         "not checked: the catalog holds neither a 36 GB configuration nor the share macOS gives the GPU"),
        (vrla, "RTX PRO 6000 Blackwell: 96 GB ECC GDDR7, 4,000 AI TOPS",
         f"{_gib(pro.memory_bytes)} GiB {pro.memory_type}, ECC {_yes_no(pro.ecc)}; dense BF16 "
         f"{_tflops(pro.bf16_dense_flop_per_s)} TFLOPS",
         "memory matches; the TOPS headline is FP4 with sparsity"),
        (vrla, "Mixed precision gives 2–8x the throughput of FP32",
         f"spec ratio dense BF16 ÷ FP32 across the catalog: {min(ratios):.1f}x to {max(ratios):.1f}x",
         "spec ratios span a wider range; achieved speed-ups are not modelled"),
    )
    return Table(
        id="hardware-claims",
        caption=(f"GPU claims in the source guides (quoted, paraphrased) against the catalog (as of "
                 f"{catalog_as_of()}) and the fit calculator. Fit figures are total_bytes with the settings of the "
                 "hardware-fit table unless the cell states others."),
        columns=("source guide", "claim", "catalog or calculator", "reading"),
        align=("l", "l", "l", "l"),
        rows=rows,
    )


def sources() -> Table:
    """Per GPU, the primary document and which fields cite another one."""
    field_order = [f.name for f in fields(GPU)]
    rows = tuple(
        (gpu.name, gpu.source.title, f"<{gpu.source.url}>", gpu.source.as_of,
         ", ".join(sorted((name for name, _ in gpu.field_sources), key=field_order.index)) or "none")
        for gpu in _ordered()
    )
    return Table(
        id="hardware-sources",
        caption=(f"Where each catalog record comes from (GPU.source; catalog as of {catalog_as_of()}). 'as of' is "
                 "the document's own date where it prints one, otherwise the date it was read. Fields listed last "
                 "cite another document: GPU.source_of(field) returns it, with its kind (spec, derived)."),
        columns=("GPU", "document", "URL", "as of", "fields from other documents"),
        align=("l", "l", "l", "l", "l"),
        rows=rows,
    )


TABLES: dict[str, TableFunction] = {
    "hardware-key-numbers": key_numbers,
    "hardware-catalog": catalog,
    "hardware-sparse": sparse_notes,
    "hardware-ridge": ridge,
    "hardware-segments": segments,
    "hardware-apple": apple,
    "hardware-fit": fit_matrix,
    "hardware-claims": claims,
    "hardware-sources": sources,
}
