"""Trainable LoRA parameters: which linears an adapter config touches and their count.

PEFT's LoRA replaces the update of a linear ``W`` (in x out) by ``B @ A`` with ``A``
(rank x in) and ``B`` (out x rank), so each adapted linear adds ``rank x (in + out)``
trainable parameters.
"""

from __future__ import annotations

from collections.abc import Iterable

from calculators.errors import InputError
from calculators.memory.activations import LORA_TARGETS
from calculators.memory.training_inputs import DEFAULT_LORA_TARGETS, MAX_RANK
from calculators.model import ModelSpec
from calculators.validate import model_spec, one_of, positive_int


def lora_adapted_linears(spec: ModelSpec, *, targets: Iterable[str]) -> list[tuple[int, int, int]]:
    """``(in_features, out_features, count)`` of every linear a LoRA config adapts."""
    if isinstance(targets, str):
        targets = [t for t in targets.split(",") if t.strip()]
    names = [str(t).strip() for t in targets]
    if names == ["all-linear"]:
        names = list(DEFAULT_LORA_TARGETS)
    wanted = {one_of("lora_targets", name, (*LORA_TARGETS, "all-linear")) for name in names}
    if "all-linear" in wanted:
        raise InputError("lora_targets", ",".join(names), "all-linear alone, or names from "
                         f"{', '.join(LORA_TARGETS)}")
    if not wanted:
        raise InputError("lora_targets", "", f"at least one of {', '.join(LORA_TARGETS)}")
    h = spec.hidden_size
    # Fused projections (Phi-3's qkv_proj, gate_up_proj) are single linears; elsewhere the
    # fused names stand for their parts.
    if spec.fused_qkv:
        fused_attention = bool(wanted & {"q", "k", "v", "qkv"})
        fused_mlp = bool(wanted & {"gate", "up", "gate_up"})
        linears = []
        if fused_attention:
            linears.append((h, spec.q_dim + 2 * spec.kv_dim, spec.num_layers))
        if "o" in wanted:
            linears.append((spec.q_dim, h, spec.num_layers))
        if fused_mlp:
            linears.append((h, 2 * spec.intermediate_size, spec.num_layers))
        if "down" in wanted:
            linears.append((spec.intermediate_size, h, spec.num_layers))
        return linears
    if "qkv" in wanted:
        wanted |= {"q", "k", "v"}
    if "gate_up" in wanted:
        wanted |= {"gate", "up"}
    if spec.is_hybrid and spec.mla is None:
        return _hybrid_linears(spec, wanted)
    linears = []
    if spec.mla is None:
        for name, (fan_in, fan_out, _bias) in zip(("q", "k", "v", "o"), spec.attention_linears()):
            if name in wanted:
                linears.append((fan_in, fan_out, spec.num_layers))
    elif wanted & {"q", "k", "v", "o"}:
        # MLA: every attention projection counts as adapted when any attention target is chosen.
        linears += [(i, o, spec.num_layers) for i, o, _b in spec.attention_linears()]
    widths = [(spec.intermediate_size, spec.num_dense_layers)]
    if spec.moe is not None:
        m = spec.moe
        widths.append((m.expert_intermediate_size, m.num_experts * spec.num_moe_layers))
        if m.num_shared_experts:
            widths.append((m.shared_intermediate_size, m.num_shared_experts * spec.num_moe_layers))
    for width, count in widths:
        if not count:
            continue
        for name in ("gate", "up"):
            if name in wanted:
                linears.append((h, width, count))
        if "down" in wanted:
            linears.append((width, h, count))
    return linears


def _hybrid_linears(spec: ModelSpec, wanted: set[str]) -> list[tuple[int, int, int]]:
    """Adapted linears of a hybrid model, layer kind by layer kind, as PEFT matches module names.

    The attention projections exist only in the layers with attention; the MLP's linears only in
    the layers with a dense MLP or a shared expert, under the names the model gives them
    (:attr:`~calculators.model.ModelSpec.mlp_linear_names`: Nemotron-H's MLP has up and down only).
    A Mamba or Gated DeltaNet mixer (``in_proj``, ``x_proj``, ``dt_proj``, ``out_proj``,
    ``in_proj_qkvz``, ...) matches no short name here, and transformers 5.23 keeps routed
    experts as 3-D parameters, not ``nn.Linear`` modules, so ``target_modules`` leaves them alone.
    PEFT 0.21 rewrites MLP targets into expert-parameter targets for a few MoE families (Qwen3-Next):
    not modelled.
    """
    h = spec.hidden_size
    linears = [(fan_in, fan_out, spec.attention_layers)
               for name, (fan_in, fan_out, _bias) in zip(("q", "k", "v", "o"), spec.attention_linears())
               if name in wanted and spec.attention_layers]
    names = [name for name in spec.mlp_linear_names if name in wanted]
    has_mlp_linears = False
    for layer, count in spec.layer_groups:
        if layer.mlp == "dense":
            width = layer.mlp_width or spec.intermediate_size
        elif layer.mlp == "moe" and spec.moe is not None and spec.moe.num_shared_experts:
            width, count = spec.moe.shared_intermediate_size, count * spec.moe.num_shared_experts
        else:
            continue
        has_mlp_linears = True
        linears += [(width, h, count) if name == "down" else (h, width, count) for name in names]
    if not linears:
        present = (["q", "k", "v", "o"] if spec.attention_layers else []) + (
            list(spec.mlp_linear_names) if has_mlp_linears else [])
        raise InputError("lora_targets", ",".join(sorted(wanted)),
                         f"names of linears this model has: {', '.join(present) or 'none'} (PEFT adapts no module "
                         "otherwise; Mamba and linear-attention projections are not LoRA targets here)")
    return linears


def has_lora_targets(spec: ModelSpec) -> bool:
    """True when some layer has a projection LoRA adapts here (attention, a dense MLP or a shared expert);
    False for a pure state-space model (Mamba), whose projections are not adapted.

    >>> from calculators.catalog.models import get_model
    >>> has_lora_targets(get_model("llama-3-8b"))
    True
    """
    try:
        lora_adapted_linears(spec, targets=LORA_TARGETS)
    except InputError:
        return False
    return True


def lora_parameters(spec: ModelSpec, *, rank: int, targets: Iterable[str]) -> int:
    """Trainable LoRA parameters: ``sum over adapted linears of rank x (in + out)``.

    >>> from calculators.catalog.models import get_model
    >>> lora_parameters(get_model("llama-3-8b"), rank=16, targets=["q", "v"])
    6815744
    """
    spec = model_spec("spec", spec)
    rank = positive_int("rank", rank, maximum=MAX_RANK)
    if not isinstance(targets, (str, list, tuple, set, frozenset)):
        raise InputError("targets", targets, f"names from {', '.join(LORA_TARGETS)}")
    try:
        linears = lora_adapted_linears(spec, targets=targets)
    except InputError as error:
        raise error.renamed("targets") from None
    return sum(count * rank * (fan_in + fan_out) for fan_in, fan_out, count in linears)
