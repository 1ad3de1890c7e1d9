"""Tables of what fits one GPU, and the source guides' GPU claims checked (docs/hardware/index.md).

Fits come from :func:`calculators.fit.fit_inference` and :func:`calculators.fit.fit_training`
on the ``total_bytes`` basis; GPU figures from :mod:`calculators.catalog.gpus`.

>>> fit_cell(True, False)
'infer'
"""

from __future__ import annotations

from calculators.catalog.gpus import GPU, all_gpus, get_gpu
from calculators.catalog.models import all_models, get_model
from calculators.doc_tables.hardware import (
    GIB,
    catalog_as_of,
    gbps,
    gib,
    link_cell,
    ordered_gpus,
    ridge_flop_per_byte,
    tflops,
    yes_no,
)
from calculators.fit import fit_inference, fit_training
from calculators.memory.overhead import overhead_assumptions
from calculators.tables import Table, TableFunction

#: The two jobs of the fit table, passed unchanged to fit_inference / fit_training.
INFERENCE_SETTINGS: dict[str, object] = {"weights": "bf16", "kv_cache": "bf16", "batch": 1, "context": 8192}
QLORA_SETTINGS: dict[str, object] = {"method": "qlora", "batch": 1, "seq": 2048, "grad_checkpointing": True}


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
        f"{gib(cap.memory_bytes)} GiB: " + ", ".join(g.name for g in ordered_gpus() if g.memory_bytes == cap.memory_bytes)
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
        columns=("model", "params B", "config context", "infer GiB", "QLoRA GiB", *(f"{gib(c.memory_bytes)} GiB" for c in caps)),
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
         f"{sxm.name}: {gbps(sxm.memory_bandwidth_bytes_per_s)} GB/s; {pcie.name}: "
         f"{gbps(pcie.memory_bandwidth_bytes_per_s)} GB/s",
         "true of the SXM part only"),
        (lyceum, "NVLink: up to 900 GB/s GPU-to-GPU on H100",
         f"{sxm.name}: {link_cell(sxm)}",
         "matches; the figure is both directions summed"),
        (lyceum, "Inference is strictly bound by memory bandwidth",
         f"{sxm.name} BF16 ridge point {h100_ridge:,.0f} FLOP/byte (derived)",
         "true for small-batch decode, not for prefill or large batches (see How it works)"),
        (lyceum, "An L40S suits a 7B model better than an A100/H100",
         f"Mistral 7B v0.3 inference needs {mistral.estimate.total_bytes / GIB:,.1f} GiB of the "
         f"{gib(l40s.memory_bytes)} GiB; L40S bandwidth {gbps(l40s.memory_bandwidth_bytes_per_s)} GB/s",
         "it fits; decode is bounded by less bandwidth than on an H100 (price not modelled)"),
        (practitioners, "RTX 3090 and RTX 4090 both have 24 GB",
         f"{gib(r3090.memory_bytes)} GiB and {gib(r4090.memory_bytes)} GiB",
         "matches (GiB: vendor 'GB' here is binary)"),
        (practitioners, "RTX 4090 is about 2x the 3090 in raw FLOPS",
         f"dense BF16 {tflops(r4090.bf16_dense_flop_per_s)} vs {tflops(r3090.bf16_dense_flop_per_s)} TFLOPS "
         f"({(r4090.bf16_dense_flop_per_s or 0) / (r3090.bf16_dense_flop_per_s or 1):.2f}x); bandwidth "
         f"{gbps(r4090.memory_bandwidth_bytes_per_s)} vs {gbps(r3090.memory_bandwidth_bytes_per_s)} GB/s "
         f"({r4090.memory_bandwidth_bytes_per_s / r3090.memory_bandwidth_bytes_per_s:.2f}x)",
         "compute ratio holds; bandwidth, which bounds decode, barely differs"),
        (practitioners, "RTX 4090: $1600 new; RTX 3090: $800 used",
         f"launch MSRP {r4090.launch_price_usd or 0:,.0f} and {r3090.launch_price_usd or 0:,.0f} USD",
         "4090 matches launch MSRP; the catalog carries no used or street prices"),
        (practitioners, "A 7B model runs on an RTX 3090 with quantization",
         f"Qwen2.5 7B, bf16 weights, 8k prompt: {qwen_7b.estimate.total_bytes / GIB:,.1f} GiB of "
         f"{gib(r3090.memory_bytes)} GiB",
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
         f"{gib(pro.memory_bytes)} GiB {pro.memory_type}, ECC {yes_no(pro.ecc)}; dense BF16 "
         f"{tflops(pro.bf16_dense_flop_per_s)} TFLOPS",
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


TABLES: dict[str, TableFunction] = {
    "hardware-fit": fit_matrix,
    "hardware-claims": claims,
}
