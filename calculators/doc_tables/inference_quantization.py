"""Tables of the quantization pages (docs/inference/quantization.md and docs/inference/quantization-formats.md).

Bits and bytes per weight come from :mod:`calculators.memory.weights`, fits from
:mod:`calculators.memory.inference`; nothing here is typed by hand except the claims quoted
from the source guides in :func:`quant_claims_table`, which are quotations and marked so.

>>> [row[0] for row in quant_formats_table().rows][:2]
['bf16', 'fp16']
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import all_models, get_model, model_name
from calculators.columns import Column, decimal_column, gib_column, number_column
from calculators.doc_tables.claims import AUDIT, selected_claims
from calculators.doc_tables.inference import BATCH_CONTEXT, CATALOG, gpu_header, limits_cell
from calculators.dtypes import DType
from calculators.fit import fit_inference
from calculators.memory.inference import inference_memory
from calculators.memory.weights import QUANT_OVERHEAD_BYTES_PER_ELEMENT, quantized_bytes_per_element, weight_bytes
from calculators.model import ModelSpec
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import gib, number

#: Weight storage formats the quantization tables compare.
WEIGHT_FORMATS = ("bf16", "fp8", "int8", "int4", "nf4")
QUANT_MODELS_MIN_PARAMETERS = 6_000_000_000


def _dense_models(min_parameters: int = QUANT_MODELS_MIN_PARAMETERS) -> list[tuple[str, ModelSpec]]:
    chosen = []
    for record in all_models():
        spec = record.spec()
        if spec.moe is None and spec.parameters >= min_parameters:
            chosen.append((record.name, spec))
    chosen.sort(key=lambda item: (item[1].parameters, item[0]))
    return chosen


@table("inference-quant-key-numbers")
def quant_key_numbers_table() -> Table:
    """Headline figures of the quantization page."""
    l70 = get_model("llama-3.1-70b")
    l8 = get_model("llama-3.1-8b")
    h100 = get_gpu("h100-sxm")
    kept = l8.parameters - l8.linear_parameters
    fit = fit_inference(l70, h100, weights="int4", kv_cache="fp8")
    rows = (
        ("Stored bits per int4 weight, group of 128 with fp16 scale and 4-bit zero point",
         number(quantized_bytes_per_element(DType.INT4) * 8, 3), "bits", quantized_bytes_per_element),
        ("Llama 3.1 70B weights, bf16", gib(weight_bytes(l70, dtype="bf16")), "GiB", weight_bytes),
        ("Llama 3.1 70B weights, int4 (embeddings, head and norms stay bf16)",
         gib(weight_bytes(l70, dtype="int4")), "GiB", weight_bytes),
        ("Llama 3.1 8B parameters that stay 16-bit when quantised (embeddings, head, norms)",
         f"{kept / l8.parameters:.1%}", "of parameters", "`ModelSpec.linear_parameters`"),
        (f"Longest prompt Llama 3.1 70B int4 with an fp8 KV cache fits on an {h100.name}, batch 1",
         number(fit.max_context), "tokens", computed_by(fit_inference) + " (max_context)"),
    )
    # A memory estimate states the runtime overhead last among its assumptions.
    return Table.key_numbers(
        rows, caption="Key numbers for quantised serving (derived by the calculators; GiB = 2^30 bytes).",
        assumptions=("quantised formats apply to the nn.Linear weights of the decoder layers only",
                     "SDPA attention, no new tokens", fit.estimate.overhead_assumption, CATALOG))


_FORMAT_NOTES = {
    DType.BF16: "reference: 16-bit brain float",
    DType.FP16: "16-bit IEEE half",
    DType.FP8: "E4M3; per-tensor or per-block scales not counted",
    DType.INT8: "per-channel scales not counted",
    DType.INT4: "GPTQ/AWQ style: one fp16 scale and one 4-bit zero point per 128 weights",
    DType.NF4: "bitsandbytes/QLoRA: 64-weight blocks, absmax double-quantised to 8 bits",
}


@table("inference-quant-formats")
def quant_formats_table() -> Table:
    """Bits per stored weight of each format, scales included."""
    rows = []
    for dtype in (DType.BF16, DType.FP16, DType.FP8, DType.INT8, DType.INT4, DType.NF4):
        overhead = QUANT_OVERHEAD_BYTES_PER_ELEMENT.get(dtype, 0.0)
        rows.append((dtype.value, dtype.bytes_per_element * 8, overhead * 8, (dtype.bytes_per_element + overhead) * 8,
                     _FORMAT_NOTES[dtype]))
    return Table.of(
        caption=("Bits each quantised weight occupies: the element itself plus its share of scales and zero "
                 "points, from calculators.memory.weights.QUANT_OVERHEAD_BYTES_PER_ELEMENT (derived from "
                 "each format's block layout)."),
        columns=(Column("format"), decimal_column("element bits", 3), decimal_column("scale bits per weight", 3),
                 decimal_column("total bits per weight", 3), Column("layout")),
        rows=rows,
        assumptions=("NF4 overhead as in the QLoRA paper, section 3",),
    )


@table("inference-quant-weights")
def quant_weights_table() -> Table:
    """Weight GiB of every dense catalog model of 6B parameters or more, by storage format."""
    rows = []
    for name, spec in _dense_models():
        kept = weight_bytes(spec, dtype="int4") - round(spec.linear_parameters
                                                        * quantized_bytes_per_element(DType.INT4))
        rows.append((name, spec.parameters, *(weight_bytes(spec, dtype=fmt) for fmt in WEIGHT_FORMATS), kept))
    return Table.of(
        caption=("Weights alone (no KV cache, activations or runtime overhead), GiB = 2^30 bytes, derived by "
                 "weight_bytes. Quantised columns store the decoder layers' linear weights in the format and keep "
                 "the embedding, output head and norms in bf16; the last column is that 16-bit part."),
        columns=(Column("model"), number_column("parameters (B)", 2, unit=1e9),
                 *(gib_column(f"{fmt} GiB", 1, grouped=True) for fmt in WEIGHT_FORMATS),
                 gib_column("kept in bf16 GiB", grouped=True)),
        rows=rows,
        assumptions=("dense catalog models with at least 6B parameters; MoE models are on the MoE page", CATALOG),
    )


QUANT_FIT_CASES: tuple[tuple[str, str, str], ...] = (
    ("llama-3.1-8b", "bf16", "bf16"), ("llama-3.1-8b", "int8", "bf16"), ("llama-3.1-8b", "int4", "bf16"),
    ("llama-3.1-8b", "int4", "fp8"),
    ("llama-3.1-70b", "bf16", "bf16"), ("llama-3.1-70b", "fp8", "bf16"), ("llama-3.1-70b", "int8", "bf16"),
    ("llama-3.1-70b", "int4", "bf16"), ("llama-3.1-70b", "int4", "fp8"),
)


@table("inference-quant-fit")
def quant_fit_table() -> Table:
    """How the weight and KV-cache format move the fit on 24, 48 and 80 GiB GPUs."""
    gpus = [get_gpu(g) for g in ("rtx-4090", "l40s", "h100-sxm")]
    rows = []
    for model_id, weights, kv in QUANT_FIT_CASES:
        spec = get_model(model_id)
        est = inference_memory(spec, weights=weights, kv_cache=kv, batch=1, context=BATCH_CONTEXT)
        rows.append((model_name(model_id), weights, kv, est.total_bytes,
                     *(limits_cell(spec, fit_inference(spec, gpu, context=BATCH_CONTEXT, weights=weights, kv_cache=kv))
                       for gpu in gpus)))
    return Table.of(
        caption=("total GiB: one 8K-token prompt at batch 1 (peak allocated plus assumed runtime overhead). GPU "
                 "cells: longest prompt at batch 1 (tokens) / most 8K-token prompts at once; '-' = none fits; "
                 "† = beyond max_position_embeddings. Derived by inference_memory and fit_inference (what fits: total_bytes "
                 "plus its measured uncertainty within the memory a process can allocate); the kernels' "
                 "dequantisation workspaces are not counted."),
        columns=(Column("model"), Column("weights"), Column("KV cache"), gib_column("total GiB at 8K", grouped=True),
                 *(Column(gpu_header(g), align="r") for g in gpus)),
        rows=rows,
        assumptions=("SDPA attention, no new tokens, one GPU", est.overhead_assumption, CATALOG),
    )


#: The audit's records of the source guides' quantisation claims (calculators.claims), shown on
#: the quantisation page with the audit's own quotes, figures and verdicts.
QUANT_CLAIM_IDS: tuple[str, ...] = (
    "lyceum-int8-1-byte", "lyceum-70b-int8-one-a100", "lyceum-int8-halves-cost", "vrla-4bit-0.5-bytes",
    "vrla-4bit-75pct-smaller", "vrla-70b-nf4-35-40gb", "vrla-ws-inference-70b-fp8", "hfp-7b-inference-24gb",
    "hfp-macbook-36gb-30b",
)


@table("inference-quant-claims")
def quant_claims_table() -> Table:
    """The source guides' quantisation claims, with the verdicts of the rules-of-thumb audit."""
    return selected_claims(QUANT_CLAIM_IDS, page="inference/quantization-formats.md",
        caption=(f"Quantisation claims of the source guides, as {AUDIT} records and judges them: the verbatim quote, "
                 "the conditions it implies, our figure (the function behind it is linked in each row) and the "
                 "computed verdict."))


TABLES: dict[str, TableFunction] = declared_tables(globals())
