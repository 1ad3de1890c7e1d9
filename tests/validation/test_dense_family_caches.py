"""KV-cache bytes of the dense families against transformers' own cache objects.

A tiny random model of each family (built on the CPU from config values, nothing downloaded) prefills a prompt
shorter and one longer than its sliding window with ``use_cache=True``; the bytes of the returned cache's key
and value tensors are compared with :func:`calculators.memory.inference.kv_cache_bytes` at the same context.
transformers' sliding-window layers keep ``window - 1`` tokens after a prefill (the next token completes the
window), where the estimate holds ``min(context, window)``: past the window they differ by exactly one token per
sliding layer. Needs the ``[measure]`` extra (torch, transformers); skipped cleanly without it.
"""

from __future__ import annotations

from typing import Any

import pytest

from calculators.memory.inference import kv_cache_bytes
from calculators.model_config import spec_from_config

pytestmark = pytest.mark.measure

WINDOW = 16
_TINY = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 4, "num_attention_heads": 4,
         "num_key_value_heads": 2, "vocab_size": 128, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}
CONFIGS: dict[str, dict[str, Any]] = {
    "smollm3": {**_TINY, "model_type": "smollm3", "no_rope_layer_interval": 2},
    "olmo3": {**_TINY, "model_type": "olmo3", "sliding_window": WINDOW},
    "cohere2": {**_TINY, "model_type": "cohere2", "sliding_window": WINDOW, "sliding_window_pattern": 2},
    "exaone4": {**_TINY, "model_type": "exaone4", "sliding_window": WINDOW, "sliding_window_pattern": 2},
    "seed_oss": {**_TINY, "model_type": "seed_oss", "head_dim": 32},
    "phi3 (Phi-4-mini's partial rotary)": {**_TINY, "model_type": "phi3", "partial_rotary_factor": 0.75},
}


@pytest.mark.parametrize("family", list(CONFIGS))
def test_kv_cache_bytes_match_transformers_cache(family: str) -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = CONFIGS[family]
    raw = {k: v for k, v in config.items() if k != "model_type"}
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(
        transformers.AutoConfig.for_model(config["model_type"], **raw), dtype=torch.float32)
    spec = spec_from_config(config)
    per_token_layer = 2 * spec.kv_dim * 4  # K and V, fp32
    sliding = spec.sliding_window_layers
    for context in (WINDOW // 2, 3 * WINDOW):
        with torch.no_grad():
            cache = model(torch.randint(3, 128, (1, context)), use_cache=True).past_key_values
        held = sum(t.numel() * t.element_size() for layer in cache.layers for t in (layer.keys, layer.values))
        estimate = kv_cache_bytes(spec, batch=1, context=context, kv_dtype="fp32")
        window_tail = sliding * per_token_layer if spec.sliding_window and context >= spec.sliding_window else 0
        assert held == estimate - window_tail, (family, context, held, estimate)
