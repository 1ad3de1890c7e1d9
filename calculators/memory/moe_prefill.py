"""What one MoE block holds while a prefill runs through it: transformers' expert paths, tensor by tensor.

Traced with the measurement harness on Llama 4, GLM-4.5, MiniMax-M2, OLMoE, DeepSeek-V3.2, ERNIE 4.5
and Hunyuan configs (``tests/data/measurements``): the grouped_mm path of ``transformers.integrations.moe``
(every family but Llama 4), Llama 4's every-expert bmm (``Llama4TextMoe``), and the order of the
shared expert.
"""

from __future__ import annotations

from calculators.model import ModelSpec


def moe_prefill_bytes(spec: ModelSpec, *, tokens: int, act: int) -> int:
    """Temporaries of one MoE block during a prefill of ``tokens`` tokens, beyond the residual streams, in bytes.

    Formula: ``max(routed + [shared first] x h, shared + [shared last] x h) + router + ids`` per token,
    with ``act`` the bytes of an activation: the routed experts and the shared expert run one after the
    other (the shared one first in ERNIE 4.5 and Hunyuan, last elsewhere), so only the finished one's
    output (h) is alive beside the other's temporaries.

    >>> from calculators.model_config import spec_from_config
    >>> spec = spec_from_config({"model_type": "olmoe", "hidden_size": 64, "num_hidden_layers": 1,
    ...     "num_attention_heads": 4, "intermediate_size": 32, "vocab_size": 100, "num_experts": 4,
    ...     "num_experts_per_tok": 2})
    >>> moe_prefill_bytes(spec, tokens=1, act=2)  # 2 pairs x max(2 (64 + 4 x 32), 4 x 64 x 2) + 4 x 6 + 2 x 36
    1120
    """
    assert spec.moe is not None
    m = spec.moe
    h, width = spec.hidden_size, m.expert_intermediate_size
    if m.every_expert_runs:
        # Llama4TextMoe: every token is repeated to every expert and scaled by its router score (E x tokens
        # x h, twice while the multiply runs), then one bmm per projection over all experts: at the
        # activation, the scaled input, gate_up (2 I), the activation and the product (2 I).
        routed = tokens * act * m.num_experts * max(2 * h, h + 4 * width)
    else:
        # transformers' grouped_mm experts sort all tokens x top-k pairs by expert and run them at once:
        # gathered input (h), gate/up output (2 I), activation and product (2 I); later the gathered
        # input, the down output, its weighted copy and the un-permuted copy (h each). A router that hands
        # over fp32 weights makes the weighted and un-permuted copies fp32 (type promotion).
        weighted = 4 if m.fp32_routing_weights else act
        routed = tokens * m.experts_per_token * max(act * (h + 4 * width), 2 * act * h + 2 * weighted * h)
    shared = tokens * act * 3 * m.shared_intermediate_size * m.num_shared_experts
    finished = tokens * act * h if shared else 0  # the output of whichever branch ran first
    branches = max(routed + (finished if m.shared_expert_first else 0),
                   shared + (0 if m.shared_expert_first else finished))
    router = tokens * (act + 4) * m.num_experts  # router logits and their fp32 softmax
    ids = tokens * m.experts_per_token * (4 + 8 + 3 * 8)  # weights, ids, sort indices
    return int(branches + router + ids)
