"""The 2025 MoE families against transformers 5.23 itself: meta-device parameter counts and real cache objects.

Needs the ``[measure]`` extra (torch, transformers); skipped cleanly without it. Each model is tiny (a few
layers 64 wide), so the whole module runs in about a second once torch is imported.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from calculators.memory.inference import kv_cache_bytes
from calculators.model_config import spec_from_config

pytestmark = pytest.mark.measure

_TINY = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 128,
         "intermediate_size": 32, "num_hidden_layers": 4, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}
CHUNK = 16
TINY_MODELS: dict[str, dict[str, Any]] = {
    "llama4_text": {"model_type": "llama4_text", **_TINY, "intermediate_size_mlp": 64, "num_local_experts": 2,
                    "num_experts_per_tok": 1, "attention_chunk_size": CHUNK, "no_rope_layer_interval": 4,
                    "interleave_moe_layer_step": 2},
    "glm4_moe": {"model_type": "glm4_moe", **_TINY, "moe_intermediate_size": 16, "n_routed_experts": 4,
                 "num_experts_per_tok": 2, "n_shared_experts": 1, "first_k_dense_replace": 1, "attention_bias": True,
                 "use_qk_norm": True},
    "deepseek_v32": {"model_type": "deepseek_v32", **_TINY, "num_key_value_heads": 4, "moe_intermediate_size": 16,
                     "n_routed_experts": 4, "num_experts_per_tok": 2, "n_shared_experts": 1,
                     "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1, "q_lora_rank": 24, "kv_lora_rank": 16,
                     "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8, "index_n_heads": 2,
                     "index_head_dim": 8, "index_topk": 4},
    "minimax_m2": {"model_type": "minimax_m2", **_TINY, "num_local_experts": 4, "num_experts_per_tok": 2},
    "olmoe": {"model_type": "olmoe", **_TINY, "num_experts": 4, "num_experts_per_tok": 2},
    "ernie4_5_moe": {"model_type": "ernie4_5_moe", **_TINY, "moe_num_experts": 4, "moe_k": 2,
                     "moe_intermediate_size": 16, "moe_num_shared_experts": 1, "use_bias": True},
    "hunyuan_v1_moe": {"model_type": "hunyuan_v1_moe", **_TINY, "num_experts": 4, "moe_topk": 2},
}


def _build(config: dict[str, Any], device: str) -> Any:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    transformers.utils.logging.set_verbosity_error()
    values = dict(config)
    model_type = values.pop("model_type")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        conf = transformers.AutoConfig.for_model(model_type, **values)
        with torch.device(device):
            return transformers.AutoModelForCausalLM.from_config(conf).eval()


@pytest.mark.parametrize("model_type", sorted(TINY_MODELS))
def test_parameters_equal_the_meta_build(model_type: str) -> None:
    model = _build(TINY_MODELS[model_type], "meta")
    state = model.state_dict()
    names = {name for name, _ in model.named_parameters()}
    built = sum(p.numel() for p in model.parameters())
    built += sum(b.numel() for name, b in model.named_buffers() if name in state and name not in names)
    assert spec_from_config(TINY_MODELS[model_type]).parameters == built


@pytest.mark.parametrize("model_type", sorted(TINY_MODELS))
@pytest.mark.parametrize("prompt", [8, 40])
def test_cache_equals_transformers_cache_objects(model_type: str, prompt: int) -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = _build(TINY_MODELS[model_type], "cpu")
    with torch.no_grad():
        cache = model(input_ids=torch.randint(3, 128, (1, prompt)), use_cache=True).past_key_values
    held = sum(t.numel() * t.element_size() for layer in cache.layers
               for t in (getattr(layer, "keys", None), getattr(layer, "values", None),
                         getattr(layer, "indexer_keys", None)) if isinstance(t, torch.Tensor))
    spec = spec_from_config(TINY_MODELS[model_type])
    ours = kv_cache_bytes(spec, batch=1, context=prompt, kv_dtype="fp32")
    # transformers' chunked (sliding) cache layer keeps chunk - 1 tokens once the prompt passes a chunk (the
    # token being decoded is appended before attention); the guide counts a whole chunk per layer: one token
    # of K and V per chunked layer more.
    chunked = spec.count_layers(mixer="chunked_attention") if prompt > CHUNK else 0
    assert ours - held == chunked * 2 * spec.kv_dim * 4
