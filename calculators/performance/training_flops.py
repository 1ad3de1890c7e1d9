"""FLOPs per trained token: full training, LoRA/QLoRA with frozen base weights, and recomputation.

Forward ``2 N``, backward ``4 N`` (half input gradients, half weight gradients, Kaplan et
al. 2020 section 2.1); LoRA/QLoRA skip the base's weight gradients (``4 N + 6 N_adapter``,
Hu et al. 2021 section 4); attention adds ``4 x q_dim`` per layer per attended token in
the forward pass and twice that in the backward pass; full recomputation adds one forward.
The derivation is in :mod:`calculators.performance.training_time`.

>>> from calculators.catalog.models import get_model
>>> round(training_flops_per_token(get_model("llama-2-7b"), seq=4096) / 1e9, 2)  # GFLOP
46.09
"""

from __future__ import annotations

from typing import Any

from calculators.memory.lora import lora_parameters
from calculators.memory.training_inputs import DEFAULT_LORA_TARGETS, MAX_SEQ, METHODS
from calculators.model import ModelSpec
from calculators.performance.flops import attended_tokens, matmul_parameters
from calculators.validate import flag, one_of, positive_int


def adapter_parameters(spec: ModelSpec, *, method: str, lora_rank: int = 16,
                       lora_targets: Any = DEFAULT_LORA_TARGETS) -> int:
    """Trainable adapter parameters of a LoRA/QLoRA run (0 for full training), count."""
    if one_of("method", method, METHODS) == "full":
        return 0
    return lora_parameters(spec, rank=lora_rank, targets=lora_targets)


def forward_flops_per_token(spec: ModelSpec, *, seq: int, adapter: int = 0) -> float:
    """FLOP of one forward pass per token: ``2 x (matmul parameters + adapters) + 4 x q_dim x attended``."""
    seq = positive_int("seq", seq, maximum=MAX_SEQ)
    return 2.0 * (matmul_parameters(spec) + adapter) + 4.0 * spec.q_dim * attended_tokens(spec, context=seq)


def training_flops_per_token(spec: ModelSpec, *, seq: int, grad_checkpointing: bool = False, method: str = "full",
                             lora_rank: int = 16, lora_targets: Any = DEFAULT_LORA_TARGETS) -> float:
    """FLOP per trained token: model FLOPs, or executed FLOPs with recomputation.

    Formula: full: ``6 x N + 12 x q_dim x attended`` (``N`` = matmul parameters, active
    for a mixture of experts; attended = sum over layers of min(seq, window)); LoRA and
    QLoRA: ``4 x N + 6 x N_adapter + 12 x q_dim x attended`` (module docstring). Full
    activation recomputation adds one forward (:func:`forward_flops_per_token`).

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("llama-2-7b")
    >>> round(training_flops_per_token(spec, seq=4096) / 1e9, 2)  # GFLOP
    46.09
    >>> round(training_flops_per_token(spec, seq=4096, method="lora") / 1e9, 2)  # rank 16, all linears
    33.11
    """
    seq = positive_int("seq", seq, maximum=MAX_SEQ)
    checkpointing = flag("grad_checkpointing", grad_checkpointing)
    adapter = adapter_parameters(spec, method=method, lora_rank=lora_rank, lora_targets=lora_targets)
    attention = 12.0 * spec.q_dim * attended_tokens(spec, context=seq)
    if one_of("method", method, METHODS) == "full":
        model = 6.0 * matmul_parameters(spec) + attention
    else:
        model = 4.0 * matmul_parameters(spec) + 6.0 * adapter + attention
    return model + (forward_flops_per_token(spec, seq=seq, adapter=adapter) if checkpointing else 0.0)
