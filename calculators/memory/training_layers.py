"""Per-layer quantities of a training step: the temporaries of the layer being computed (forward and
backward), the largest layer's parameters (what ZeRO-3 gathers and autocast copies), the model's weight
matrices and the weights that pass through matmuls.

:func:`~calculators.memory.training.training_memory` places these in the phases of the step.

>>> from calculators.catalog.models import get_model
>>> spec = get_model("llama-3-8b")
>>> largest_layer_parameters(spec) == spec.attention_parameters_per_layer + spec.dense_mlp_parameters
True
"""

from __future__ import annotations

from calculators.memory.state_mixers import state_mixer_backward_bytes
from calculators.memory.training_inputs import TrainingSetup
from calculators.model import ModelSpec


def matmul_weight_parameters(spec: ModelSpec) -> int:
    """Parameters that pass through matmuls (decoder linears and the output projection)."""
    return spec.linear_parameters + spec.vocab_size * spec.hidden_size


def forward_layer_transient_bytes(spec: ModelSpec, setup: TrainingSetup, tokens: int, residual: int) -> int:
    """Bytes of the unsaved temporaries inside one layer's forward over ``tokens`` tokens (``residual``: bytes of
    the residual stream's dtype)."""
    # Inside a layer, unsaved temporaries peak in rotary embedding (q*cos, rotate_half(q),
    # rotate_half(q)*sin in the residual dtype) or in the MLP (the norm output and the product).
    rope = 3 * max(residual, setup.compute_bytes) * spec.q_dim
    mlp = residual * spec.hidden_size + setup.compute_bytes * spec.intermediate_size
    transient = max(rope, mlp) * tokens
    if spec.indexer is not None:  # DeepSeek-V3.2's indexer scores every sequence under no_grad
        transient = max(transient, spec.indexer.scoring_bytes(batch=setup.batch, queries=setup.seq, keys=setup.seq))
    return transient


def backward_layer_transient_bytes(spec: ModelSpec, setup: TrainingSetup, tokens: int, residual: int) -> int:
    """Bytes of the temporaries of one layer's backward over ``tokens`` tokens: gradients of the residual stream and
    of the MLP intermediates, eager attention's softmax gradients, and the largest weight gradient being formed."""
    # Gradient of the residual stream, of the MLP intermediates, and the largest weight
    # gradient being formed (16-bit then upcast to fp32 under autocast).
    a = setup.compute_bytes
    # The last layers backward reaches are the first ones: DeepSeek's dense first layers
    # (first_k_dense_replace) have the full intermediate width, wider than an expert's.
    if spec.moe is None or spec.num_dense_layers > 0:
        width = spec.intermediate_size
    else:
        width = spec.moe.expert_intermediate_size
    # A Mamba-1 layer's peak is in its mixer's backward, after its MLP's: one or the other, not both.
    intermediates = max(3 * a * width, state_mixer_backward_bytes(spec))
    activations = (residual + a) * spec.hidden_size * tokens + intermediates * tokens
    if setup.attention == "eager" or not spec.supports_sdpa:
        # Eager attention's softmax backward holds, beside the layer's saved scores, the incoming
        # gradient of the probabilities and the outgoing gradient of the scores, seq x seq per head.
        if spec.attention_sinks:
            per_score = 2 * a  # gpt-oss: both in the compute dtype
        else:
            # softmax(dtype=float32): fp32 incoming gradient (4), outgoing in the compute dtype (a);
            # the 16-bit copy of the probabilities (saved for the value matmul) is freed by then.
            per_score = 4 + a - (a if a != 4 else 0)
        activations += per_score * spec.num_attention_heads * setup.seq * tokens
    if setup.method == "full":
        grad_bytes = setup.weight_bytes
        weight = spec.hidden_size * width * (grad_bytes + (2 if setup.mixed else 0))
    else:
        weight = 0
    return activations + weight


def largest_layer_parameters(spec: ModelSpec) -> int:
    """Parameters of the largest layer (its mixer and MLP): what ZeRO-3 gathers, what autocast copies."""
    if not spec.is_hybrid:
        attention = spec.attention_parameters_per_layer
        mlp = spec.moe_parameters_per_layer if spec.moe else spec.dense_mlp_parameters
        return attention + mlp
    return max(spec.mixer_parameters(kind) + spec.mlp_block_parameters(kind) for kind, _count in spec.layer_groups)


def matrix_shapes(spec: ModelSpec) -> list[tuple[int, int]]:
    """The (rows, columns) of every weight matrix of the model, repeated per layer and expert (Adafactor's
    factored state is per matrix)."""
    shapes = [(i, o) for i, o, _b in spec.attention_linears()] * spec.attention_layers
    shapes += [shape for shape, count in spec.state_mixer_linears() for _ in range(count)]
    h = spec.hidden_size
    shapes += [(h, spec.intermediate_size)] * (3 * spec.num_dense_layers)
    if spec.moe:
        shapes += [(h, spec.moe.expert_intermediate_size)] * (3 * spec.moe.num_experts * spec.num_moe_layers)
    shapes += [(spec.vocab_size, h)] * (1 if spec.tie_word_embeddings else 2)
    return shapes
