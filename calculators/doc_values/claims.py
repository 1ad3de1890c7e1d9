"""Numbers in the prose of the claims audit: docs/validation/claims.md.

Catalog facts are read from the GPU and link catalogs (``spec``); the ratios of the
pitfalls use the same memory figures as the claim records
(:mod:`calculators.claims.figures`: batch 1, SDPA attention, rank-16 adapters on every
linear layer).

>>> claims_h100_memory().text
'80 GiB'
"""

from __future__ import annotations

import functools
from typing import Any

from calculators.catalog.gpus import get_gpu
from calculators.catalog.interconnects import get_interconnect
from calculators.claims.figures import LORA, MODEL_7B, QLORA, name, training
from calculators.inline_values import Value, ValueFunction, quantity

GB, GIB = 1e9, 2**30
#: The two settings the range pitfall compares: a short checkpointed step and a long one without.
SHORT = {"seq": 512, "grad_checkpointing": True}
LONG = {"seq": 2048, "grad_checkpointing": False}


def claims_h100_memory() -> Value:
    """Memory of the H100 SXM 80GB in the GPU catalog, GiB (spec)."""
    gpu = get_gpu("h100-sxm")
    return quantity("claims-h100-memory", gpu.memory_bytes, scale=GIB, digits=0, unit="GiB", kind="spec",
                    description=f"Memory of one {gpu.name} (GPU catalog).")


def link_both_directions(value_id: str, *, link: str) -> Value:
    """A link catalog figure, both directions summed, GB/s (spec)."""
    record = get_interconnect(link)
    return quantity(value_id, record.bidirectional_bytes_per_s, scale=GB, digits=0, unit="GB/s", kind="spec",
                    description=f"{record.name}: {record.scope}, both directions summed (link catalog, "
                                f"{record.source.title}).")


def range_ratio(value_id: str, *, model: str, method: str) -> Value:
    """total_bytes of a 2048-token step without checkpointing over a 512-token checkpointed one (a ratio)."""
    settings: dict[str, Any] = LORA if method == "lora" else QLORA
    short = training(model, **settings, **SHORT).total_bytes
    long = training(model, **settings, **LONG).total_bytes
    return quantity(value_id, long / short, digits=1, unit="", kind="derived",
                    description=f"{name(model)} {method.upper()}: total_bytes at batch 1 x 2048 tokens without "
                                "checkpointing over batch 1 x 512 tokens with checkpointing.",
                    assumptions=("rank-16 adapters on every linear layer, bf16-mixed, AdamW, SDPA attention",))


VALUES: dict[str, ValueFunction] = {
    "claims-h100-memory": claims_h100_memory,
    "claims-pitfall-nvlink4": functools.partial(link_both_directions, "claims-pitfall-nvlink4", link="nvlink4"),
    "claims-pitfall-pcie5": functools.partial(link_both_directions, "claims-pitfall-pcie5", link="pcie5"),
    "claims-lora-7b-range-ratio": functools.partial(range_ratio, "claims-lora-7b-range-ratio", model=MODEL_7B,
                                                    method="lora"),
    "claims-qlora-70b-range-ratio": functools.partial(range_ratio, "claims-qlora-70b-range-ratio",
                                                      model="llama-3-70b", method="qlora"),
}
