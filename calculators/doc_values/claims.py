"""Numbers in the prose of the claims audit (docs/validation/claims.md) and the audit's verdicts quoted on the
pages whose claims it checks (``verdict-*``: docs/cost/index.md, docs/fine-tuning/vendor-tables.md,
docs/hardware/compute.md, docs/inference/moe.md, docs/inference/quantization-formats.md,
docs/memory/activation-levers.md, docs/memory/rules-of-thumb.md, docs/system/index.md).

Catalog facts are read from the GPU and link catalogs (``spec``); the ratios of the
pitfalls use the same memory figures as the claim records
(:mod:`calculators.claims.figures`: batch 1, SDPA attention, rank-16 adapters on every
linear layer).

>>> claims_h100_memory().text
'80 GiB'
"""

from __future__ import annotations

from typing import Any

from calculators.claims import evaluated
from calculators.claims.figures import LORA, MODEL_7B, QLORA, name, training
from calculators.doc_values.multi_gpu import gpu_memory, link_figure
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity, value

#: The two settings the range pitfall compares: a short checkpointed step and a long one without.
SHORT = {"seq": 512, "grad_checkpointing": True}
LONG = {"seq": 2048, "grad_checkpointing": False}


@value("claims-h100-memory")
def claims_h100_memory(value_id: str) -> Value:
    """Memory of the H100 SXM 80GB in the GPU catalog, GiB (spec)."""
    return gpu_memory(value_id, gpu="h100-sxm")


def link_both_directions(value_id: str, *, link: str) -> Value:
    """A link catalog figure, both directions summed, GB/s (spec)."""
    return link_figure(value_id, link=link)


def range_ratio(value_id: str, *, model: str, method: str) -> Value:
    """total_bytes of a 2048-token step without checkpointing over a 512-token checkpointed one (a ratio)."""
    settings: dict[str, Any] = LORA if method == "lora" else QLORA
    short = training(model, **settings, **SHORT).total_bytes
    long = training(model, **settings, **LONG).total_bytes
    return quantity(value_id, long / short, digits=1, unit="", kind="derived",
                    description=f"{name(model)} {method.upper()}: total_bytes at batch 1 x 2048 tokens without "
                                "checkpointing over batch 1 x 512 tokens with checkpointing.",
                    assumptions=("rank-16 adapters on every linear layer, bf16-mixed, AdamW, SDPA attention",))


def claim_verdict(value_id: str, *, claim_id: str) -> Value:
    """The audit's verdict on one claim, as the audit tables print it (a sentence, not a number).

    Prose that says whether a guide's claim holds quotes this value, so a changed verdict
    changes the sentence. ``number`` is how many conditions (or cases) hold.

    >>> claim_verdict("x", claim_id="vrla-ws-oom-fallback").text
    'wrong'
    """
    item = next((e for e in evaluated() if e.claim.id == claim_id), None)
    if item is None:
        raise KeyError(f"not a claim record: {claim_id}")
    return Value(id=value_id, text=item.verdict_text, kind="derived", number=float(len(item.holding)),
                 description=f"The rules-of-thumb audit's verdict on claim {claim_id}: \"{item.claim.quote}\".")


#: Prose verdicts: value id -> claim id (each sentence that judges a guide's claim quotes one).
VERDICT_VALUES: dict[str, str] = {
    "verdict-7b-fp16": "vrla-7b-fp16",
    "verdict-7b-fp32": "vrla-7b-fp32",
    "verdict-13b-fp16": "vrla-13b-fp16",
    "verdict-30-34b-fp16": "vrla-30-34b-fp16",
    "verdict-70b-fp16": "vrla-70b-fp16",
    "verdict-7b-lora": "vrla-7b-lora",
    "verdict-70b-qlora": "vrla-70b-qlora",
    "verdict-18-bytes": "lyceum-18-bytes-table",
    "verdict-16x-fp32": "vrla-16x-fp32",
    "verdict-8x-fp16": "hfp-adam-8x-fp16",
    "verdict-6-8x-mixed": "vrla-6-8x-mixed",
    "verdict-4x-fp32": "vrla-ws-fp32-4x",
    "verdict-2x-mixed": "vrla-ws-mixed-2x",
    "verdict-a100-price": "hfp-table-a100-price",
    "verdict-3090-price": "hfp-table-rtx-3090-price",
    "verdict-payback": "vrla-payback-4-8-weeks",
    "verdict-4090-2x": "hfp-4090-2x-3090",
    "verdict-ai-tops": "vrla-ws-4000-ai-tops",
    "verdict-4-cores": "pytorch-cpu-4-cores",
    "verdict-16-cores": "vrla-ws-cpu-16-cores",
    "verdict-70b-int8-a100": "lyceum-70b-int8-one-a100",
    "verdict-moe-56b": "lyceum-moe-56b-vram",
    "verdict-moe-14b": "lyceum-moe-14b-active",
    "verdict-moe-speed": "lyceum-moe-speed-14b",
    "verdict-13b-multi-gpu": "lyceum-13b-multi-gpu",
    "verdict-oom-fallback": "vrla-ws-oom-fallback",
    "verdict-flash-60-80": "vrla-flash-attention-60-80",
    "verdict-ckpt-60-70": "vrla-ckpt-60-70",
}

VALUES: dict[str, ValueFunction] = declared_values(globals(), {
    **{value_id: bound(claim_verdict, claim_id=claim_id) for value_id, claim_id in VERDICT_VALUES.items()},
    "claims-pitfall-nvlink4": bound(link_both_directions, link="nvlink4"),
    "claims-pitfall-pcie5": bound(link_both_directions, link="pcie5"),
    "claims-lora-7b-range-ratio": bound(range_ratio, model=MODEL_7B, method="lora"),
    "claims-qlora-70b-range-ratio": bound(range_ratio, model="llama-3-70b", method="qlora"),
})
