"""The named grids of cases (``--grid NAME``); ``all`` regenerates ``tests/data/measurements/``."""

from __future__ import annotations

from harness.case import Case


def _grid() -> dict[str, list[Case]]:
    T, I = "train", "infer"
    g: dict[str, list[Case]] = {}
    g["smoke"] = [
        Case("tiny-llama", T, precision="fp32", optimizer="adamw", batch=2, seq=128),
        Case("tiny-llama", T, method="lora", precision="bf16-mixed", weights="bf16", lora_rank=8,
             lora_targets=("q", "v"), batch=2, seq=128),
        Case("tiny-llama", I, weights="bf16", batch=2, context=256, new_tokens=4),
    ]
    small = []
    for prec in ("fp32", "bf16-mixed", "fp16-mixed", "bf16"):
        small.append(Case("tiny-llama", T, precision=prec, batch=4, seq=256))
    for opt in ("adamw-fused", "sgd", "adafactor"):
        small.append(Case("tiny-llama", T, precision="fp32", optimizer=opt, batch=4, seq=256))
    small += [
        Case("tiny-llama", T, precision="bf16-mixed", batch=4, seq=256, grad_checkpointing=True),
        Case("tiny-llama", T, precision="bf16-mixed", batch=4, seq=256, attention="eager"),
        Case("tiny-llama", T, precision="fp32", batch=8, seq=512),
        Case("small-llama", T, precision="fp32", batch=2, seq=512),
        Case("small-llama", T, precision="bf16-mixed", batch=4, seq=1024),
        Case("small-llama", T, precision="bf16-mixed", batch=4, seq=1024, grad_checkpointing=True),
        Case("small-llama", T, precision="bf16", batch=2, seq=2048),
        Case("tiny-qwen2", T, precision="bf16-mixed", batch=4, seq=256),
        # sequences past the sliding window: SDPA gets a mask, turns it into a bias per layer
        Case("tiny-sliding-mistral", T, precision="bf16", batch=2, seq=512),
        Case("tiny-sliding-mistral", T, precision="bf16-mixed", batch=2, seq=512),
        Case("tiny-sliding-mistral", I, weights="bf16", batch=4, context=512, new_tokens=4),
        Case("tiny-qwen2", T, precision="fp32", batch=2, seq=512, attention="eager"),
        # MoE experts use grouped_mm (transformers' default), whose kernel wants bf16 operands: bf16 weights only
        Case("tiny-mixtral", T, precision="bf16", batch=2, seq=256),
        Case("tiny-mixtral", T, method="lora", weights="bf16", lora_rank=8, lora_targets=("q", "k", "v", "o"),
             batch=2, seq=256),
        Case("tiny-llama", T, method="lora", precision="bf16-mixed", weights="bf16", lora_rank=16,
             lora_targets=("q", "k", "v", "o", "gate", "up", "down"), batch=4, seq=256),
        Case("tiny-llama", T, method="lora", precision="fp32", weights="fp32", lora_rank=8,
             lora_targets=("q", "v"), batch=4, seq=256),
        Case("small-llama", I, weights="bf16", batch=4, context=2048, new_tokens=16),
        Case("small-llama", I, weights="fp32", batch=1, context=4096, new_tokens=16),
        Case("tiny-mixtral", I, weights="bf16", batch=2, context=1024, new_tokens=8),
    ]
    g["small"] = small

    full = []
    for prec in ("fp32", "bf16-mixed", "bf16"):
        full.append(Case("qwen2.5-0.5b", T, precision=prec, batch=4, seq=1024))
    full += [
        Case("qwen2.5-0.5b", T, precision="bf16-mixed", batch=8, seq=2048, grad_checkpointing=True),
        Case("qwen2.5-0.5b", T, precision="bf16-mixed", batch=1, seq=4096),
        Case("qwen2.5-0.5b", T, precision="bf16-mixed", batch=2, seq=1024, attention="eager"),
        Case("qwen2.5-0.5b", T, precision="fp32", optimizer="sgd", batch=4, seq=1024),
        Case("qwen2.5-0.5b", T, precision="fp32", optimizer="adafactor", batch=4, seq=1024),
        Case("qwen2.5-0.5b", T, precision="fp32", optimizer="adamw-fused", batch=4, seq=1024),
        Case("llama-3-8b", T, precision="bf16-mixed", batch=1, seq=2048),
        Case("llama-3-8b", T, precision="bf16-mixed", batch=4, seq=4096, grad_checkpointing=True),
        Case("llama-3-8b", T, precision="bf16", batch=1, seq=4096),
        Case("llama-3-8b", T, precision="bf16", batch=8, seq=2048, grad_checkpointing=True),
        Case("llama-3-8b", T, precision="fp32", batch=1, seq=1024),
        Case("llama-3-8b", T, precision="bf16", optimizer="adamw-fused", batch=2, seq=2048),
        Case("llama-3-8b", T, precision="bf16", optimizer="sgd", batch=2, seq=2048),
        Case("llama-3-8b", T, precision="bf16", optimizer="adafactor", batch=2, seq=2048),
        Case("llama-2-7b", T, precision="bf16-mixed", batch=2, seq=2048),
        Case("llama-2-7b", T, precision="bf16", batch=4, seq=4096, grad_checkpointing=True),
        Case("llama-2-7b", T, precision="bf16", batch=1, seq=1024, attention="eager"),
        Case("mistral-7b", T, precision="bf16-mixed", batch=2, seq=4096, grad_checkpointing=True),
        Case("mistral-7b", T, precision="bf16", batch=1, seq=2048),
        # transformers 5.x has no SDPA path for Gemma-2 (logit soft-capping): eager attention only
        Case("gemma-2-2b", T, precision="bf16-mixed", batch=2, seq=2048, attention="eager"),
        Case("gemma-2-2b", T, precision="bf16", batch=4, seq=4096, grad_checkpointing=True, attention="eager"),
        Case("gemma-2-2b", T, precision="bf16", batch=1, seq=2048, attention="eager"),
        Case("phi-3-mini", T, precision="bf16-mixed", batch=2, seq=2048),
        Case("phi-3-mini", T, precision="bf16", batch=4, seq=4096, grad_checkpointing=True),
        Case("phi-3-mini", T, precision="bf16", batch=1, seq=1024),
    ]
    g["full-ft"] = full

    lora = []
    for r in (8, 16, 64):
        lora.append(Case("llama-3-8b", T, method="lora", weights="bf16", lora_rank=r,
                         lora_targets=("q", "v"), batch=2, seq=2048))
    ALL = ("q", "k", "v", "o", "gate", "up", "down")
    lora += [
        Case("llama-3-8b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ALL, batch=2, seq=2048),
        Case("llama-3-8b", T, method="lora", weights="bf16", lora_rank=64, lora_targets=ALL, batch=4, seq=4096,
             grad_checkpointing=True),
        Case("llama-3-8b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ALL, batch=8, seq=1024,
             grad_checkpointing=True),
        Case("llama-3-8b", T, method="lora", precision="bf16", weights="bf16", lora_rank=16, lora_targets=ALL,
             batch=2, seq=2048),
        Case("llama-3-8b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=("q", "v"), batch=1,
             seq=4096, attention="eager"),
        Case("llama-2-7b", T, method="lora", weights="bf16", lora_rank=8, lora_targets=("q", "v"), batch=4,
             seq=2048),
        Case("llama-2-7b", T, method="lora", precision="fp32", weights="fp32", lora_rank=16,
             lora_targets=("q", "v"), batch=1, seq=1024),
        Case("mistral-7b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ALL, batch=2, seq=4096,
             grad_checkpointing=True),
        Case("qwen2.5-0.5b", T, method="lora", weights="bf16", lora_rank=8, lora_targets=("q", "v"), batch=8,
             seq=1024),
        Case("qwen2.5-0.5b", T, method="lora", weights="bf16", lora_rank=64, lora_targets=ALL, batch=4,
             seq=2048),
        Case("gemma-2-2b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ALL, batch=2, seq=2048,
             attention="eager"),
        Case("phi-3-mini", T, method="lora", weights="bf16", lora_rank=16, lora_targets=("qkv", "o"), batch=2,
             seq=2048),
        Case("mixtral-8x7b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=("q", "k", "v", "o"),
             batch=1, seq=2048, grad_checkpointing=True),
    ]
    g["lora"] = lora

    infer = []
    for b, ctx in ((1, 8192), (4, 8192), (16, 2048), (1, 32768), (8, 4096)):
        infer.append(Case("llama-3-8b", I, weights="bf16", batch=b, context=ctx, new_tokens=16))
    infer += [
        Case("llama-3-8b", I, weights="fp16", batch=2, context=4096, new_tokens=16),
        Case("llama-3-8b", I, weights="bf16", batch=1, context=2048, new_tokens=16, attention="eager"),
        Case("llama-2-7b", I, weights="fp16", batch=4, context=4096, new_tokens=16),
        Case("llama-2-7b", I, weights="fp16", batch=1, context=4096, new_tokens=64),
        Case("mistral-7b", I, weights="bf16", batch=1, context=32768, new_tokens=16),
        Case("mistral-7b", I, weights="bf16", batch=8, context=8192, new_tokens=16),
        Case("qwen2.5-0.5b", I, weights="bf16", batch=16, context=8192, new_tokens=16),
        Case("qwen2.5-0.5b", I, weights="fp32", batch=1, context=32768, new_tokens=16),
        Case("gemma-2-2b", I, weights="bf16", batch=4, context=8192, new_tokens=16, attention="eager"),
        Case("gemma-2-2b", I, weights="bf16", batch=1, context=2048, new_tokens=16, attention="eager"),
        Case("phi-3-mini", I, weights="bf16", batch=4, context=2048, new_tokens=16),
        Case("phi-3-mini", I, weights="bf16", batch=1, context=4096, new_tokens=16),
        Case("mixtral-8x7b", I, weights="bf16", batch=1, context=8192, new_tokens=16),
        Case("mixtral-8x7b", I, weights="bf16", batch=8, context=4096, new_tokens=16),
    ]
    g["infer"] = infer

    g["large"] = [
        Case("llama-3-70b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ALL, batch=1, seq=4096,
             grad_checkpointing=True),
        Case("llama-3-70b", I, weights="bf16", batch=1, context=8192, new_tokens=16),
        Case("llama-3-70b", I, weights="bf16", batch=8, context=4096, new_tokens=16),
        Case("mixtral-8x7b", T, precision="bf16", batch=1, seq=2048, grad_checkpointing=True),
    ]
    # 2025 families: q/k norms (Qwen3, Gemma 3), Gemma 3's 5:1 local:global layers, gpt-oss's sinks,
    # biased experts and alternating 128-token windows (eager: no SDPA path with sinks), Qwen3 MoE
    # without shared experts, DeepSeek-V3's MLA + shared expert + dense first layers.
    ATT = ("q", "k", "v", "o")
    g["2025"] = [
        Case("qwen3-0.6b", T, precision="bf16-mixed", batch=2, seq=1024),
        Case("qwen3-0.6b", T, precision="bf16", batch=4, seq=4096, grad_checkpointing=True),
        Case("qwen3-0.6b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ALL, batch=4, seq=2048),
        Case("qwen3-0.6b", I, weights="bf16", batch=4, context=8192, new_tokens=16),
        Case("qwen3-0.6b", I, weights="bf16", batch=1, context=32768, new_tokens=16),
        Case("gemma-3-1b", T, precision="bf16-mixed", batch=2, seq=2048),
        Case("gemma-3-1b", T, precision="bf16", batch=4, seq=4096, grad_checkpointing=True),
        Case("gemma-3-1b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ALL, batch=2, seq=2048),
        Case("gemma-3-1b", I, weights="bf16", batch=1, context=2048, new_tokens=16),
        Case("gemma-3-1b", I, weights="bf16", batch=4, context=8192, new_tokens=16),
        Case("qwen3-30b-a3b", T, precision="bf16", batch=1, seq=2048, grad_checkpointing=True),
        Case("qwen3-30b-a3b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ATT, batch=1, seq=2048),
        Case("qwen3-30b-a3b", I, weights="bf16", batch=1, context=8192, new_tokens=16),
        Case("gpt-oss-20b", T, precision="bf16", batch=1, seq=2048, grad_checkpointing=True, attention="eager"),
        Case("gpt-oss-20b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ATT, batch=1, seq=2048,
             attention="eager"),
        Case("gpt-oss-20b", I, weights="bf16", batch=1, context=8192, new_tokens=16, attention="eager"),
        Case("gpt-oss-20b", I, weights="bf16", batch=4, context=2048, new_tokens=16, attention="eager"),
        # MLA's q/k head (nope + rope) is wider than its v head: the CPU flash kernel refuses that and
        # PyTorch's math fallback would materialise the scores, which CUDA's memory-efficient kernel does
        # not; eager attention is the same code path on both, so the MLA cases run eager.
        Case("small-deepseek-v3", T, precision="bf16", batch=2, seq=1024, attention="eager"),
        Case("small-deepseek-v3", T, precision="bf16", batch=4, seq=2048, grad_checkpointing=True,
             attention="eager"),
        Case("small-deepseek-v3", T, precision="bf16", batch=1, seq=2048, grad_checkpointing=True,
             attention="eager"),
        Case("small-deepseek-v3", I, weights="bf16", batch=2, context=4096, new_tokens=16, attention="eager"),
    ]
    # Hybrid and state-space families (transformers' torch paths on CPU: torch_chunk_gated_delta_rule, the
    # Mamba-2 chunk scan, the Mamba-1 sequential scan). MoE presets train in bf16 (grouped_mm); models without
    # attention run "eager" (transformers refuses sdpa for them; no attention is computed).
    g["hybrid"] = [
        Case("small-qwen3-next", I, weights="bf16", batch=1, context=4096, new_tokens=8),
        Case("small-qwen3-next", I, weights="bf16", batch=2, context=16384, new_tokens=8),
        Case("small-qwen3-next", T, precision="bf16", batch=1, seq=2048),
        Case("small-qwen3-next", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ATT, batch=2,
             seq=2048),
        Case("small-nemotron-h", I, weights="bf16", batch=1, context=4096, new_tokens=8),
        Case("small-nemotron-h", I, weights="bf16", batch=1, context=16384, new_tokens=8),
        Case("small-nemotron-h", T, precision="bf16", batch=2, seq=4096),
        Case("small-nemotron-h", T, method="lora", weights="bf16", lora_rank=16,
             lora_targets=("q", "k", "v", "o", "up", "down"), batch=2, seq=2048),
        Case("small-mamba2", I, weights="bf16", batch=1, context=4096, new_tokens=8, attention="eager"),
        Case("small-mamba2", I, weights="bf16", batch=4, context=8192, new_tokens=8, attention="eager"),
        Case("small-mamba2", T, precision="bf16", batch=1, seq=2048, attention="eager"),
        Case("small-jamba", I, weights="bf16", batch=1, context=2048, new_tokens=8),
        Case("small-jamba", I, weights="bf16", batch=1, context=8192, new_tokens=8),
        Case("small-jamba", T, precision="bf16", batch=1, seq=1024),
        Case("small-jamba", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ALL, batch=1, seq=1024),
        Case("small-falcon-h1", I, weights="bf16", batch=1, context=4096, new_tokens=8),
        Case("small-falcon-h1", I, weights="bf16", batch=4, context=8192, new_tokens=8),
        Case("small-falcon-h1", T, precision="bf16-mixed", batch=2, seq=2048),
        Case("small-falcon-h1", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ALL, batch=2, seq=2048),
        Case("small-granite-4-h", I, weights="bf16", batch=1, context=4096, new_tokens=8),
        Case("small-granite-4-h", I, weights="bf16", batch=1, context=16384, new_tokens=8),
        Case("small-granite-4-h", T, precision="bf16", batch=1, seq=2048),
        Case("small-granite-4-h", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ATT, batch=1,
             seq=2048),
        Case("small-granite-4-h", T, precision="bf16", batch=2, seq=4096, grad_checkpointing=True),
        Case("small-granite-4-h-dense", T, precision="bf16-mixed", batch=1, seq=2048),
        Case("small-mamba", I, weights="bf16", batch=1, context=2048, new_tokens=8, attention="eager"),
        Case("small-mamba", I, weights="bf16", batch=2, context=8192, new_tokens=8, attention="eager"),
        Case("small-mamba", T, precision="bf16-mixed", batch=2, seq=1024, attention="eager"),
    ]
    # 2025 attention + MoE families (#26), real widths with few layers and experts (presets.py): Llama 4's
    # chunked + NoPE layers and dense-dispatch experts (a prompt past the 8192-token chunk), GLM-4.5's
    # biased q/k/v and q/k norms, MiniMax-M2's and OLMoE's full-width q/k norms, DeepSeek-V3.2's indexer
    # (MLA: eager, as small-deepseek-v3), ERNIE 4.5's shared experts and dense first layer, Hunyuan's
    # shared MLP.
    g["moe-2025"] = [
        Case("small-llama4", I, weights="bf16", batch=1, context=4096, new_tokens=16),
        Case("small-llama4", I, weights="bf16", batch=1, context=16384, new_tokens=16),
        Case("small-llama4", T, precision="bf16", batch=1, seq=8192),
        Case("small-glm4-moe", I, weights="bf16", batch=1, context=8192, new_tokens=16),
        Case("small-glm4-moe", I, weights="bf16", batch=4, context=2048, new_tokens=16),
        Case("small-glm4-moe", T, precision="bf16", batch=2, seq=4096),
        Case("small-minimax-m2", I, weights="bf16", batch=1, context=8192, new_tokens=16),
        Case("small-minimax-m2", I, weights="bf16", batch=4, context=2048, new_tokens=16),
        Case("small-minimax-m2", T, precision="bf16", batch=2, seq=4096),
        Case("olmoe-1b-7b", I, weights="bf16", batch=1, context=8192, new_tokens=16),
        Case("olmoe-1b-7b", I, weights="bf16", batch=8, context=2048, new_tokens=16),
        Case("olmoe-1b-7b", T, precision="bf16", batch=4, seq=4096),
        Case("small-deepseek-v32", I, weights="bf16", batch=1, context=4096, new_tokens=16, attention="eager"),
        Case("small-deepseek-v32", I, weights="bf16", batch=2, context=2048, new_tokens=16, attention="eager"),
        Case("small-deepseek-v32", T, precision="bf16", batch=1, seq=2048, attention="eager"),
        Case("small-deepseek-v32", T, precision="bf16", batch=2, seq=2048, attention="eager"),
        Case("small-ernie4.5-moe", I, weights="bf16", batch=1, context=8192, new_tokens=16),
        Case("small-ernie4.5-moe", I, weights="bf16", batch=4, context=2048, new_tokens=16),
        Case("small-ernie4.5-moe", T, precision="bf16", batch=2, seq=2048),
        Case("small-hunyuan-moe", I, weights="bf16", batch=1, context=8192, new_tokens=16),
        Case("small-hunyuan-moe", I, weights="bf16", batch=4, context=2048, new_tokens=16),
        Case("small-hunyuan-moe", T, precision="bf16", batch=2, seq=4096),
    ]
    # Dense families of 2025-26 (calculators/model_config/dense_families.py): NoPE layers (SmolLM3), post-norm
    # with whole-width q/k norms (OLMo 2/3, EXAONE 4), OLMo 3's and EXAONE 4's 3:1 windows, Cohere 2's parallel
    # block with one LayerNorm, Seed-OSS's biases and residual dropout, Phi-4-mini's fused qkv with partial
    # rotary; inference at two contexts (past the 4096-token window for the windowed ones) and one training step
    # whose peak holds the activations (full fine-tuning backward, or LoRA for the 32B/36B models).
    dense = []
    for name in ("smollm3-3b", "olmo-3-7b", "command-r7b", "exaone-4.0-32b", "seed-oss-36b", "phi-4-mini"):
        dense += [Case(name, I, weights="bf16", batch=1, context=2048, new_tokens=16),
                  Case(name, I, weights="bf16", batch=1, context=8192, new_tokens=16)]
    dense += [
        Case("olmo-2-7b", I, weights="bf16", batch=1, context=2048, new_tokens=16),
        Case("olmo-2-7b", I, weights="bf16", batch=4, context=4096, new_tokens=16),
        Case("smollm3-3b", T, precision="bf16", batch=1, seq=2048),
        Case("olmo-2-7b", T, precision="bf16", batch=2, seq=2048),
        Case("olmo-3-7b", T, precision="bf16", batch=2, seq=2048),
        Case("command-r7b", T, precision="bf16", batch=2, seq=2048),
        Case("command-r7b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ATT, batch=1, seq=2048),
        Case("exaone-4.0-32b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ATT, batch=1,
             seq=2048),
        Case("seed-oss-36b", T, method="lora", weights="bf16", lora_rank=16, lora_targets=ATT, batch=1, seq=2048),
        Case("phi-4-mini", T, precision="bf16", batch=2, seq=2048),
    ]
    g["dense-2026"] = dense
    # Encoders (embedding, reranking): one forward of a padded batch, SDPA and eager, at two shapes each;
    # BERT (post-LN, GELU MLP), XLM-RoBERTa with 8,194 positions (BGE-M3), ModernBERT (FP32 rotary, GeGLU,
    # local and global masks), a reranker's classification head and an FP32 forward.
    E = "embed"
    encoders = [Case(preset, E, weights="bf16", batch=b, seq=s, attention=attention)
                for preset, shapes in (("bert-base-uncased", ((8, 512), (32, 128))),
                                       ("bge-m3", ((4, 2048), (16, 512))),
                                       ("modernbert-base", ((8, 1024), (32, 512))))
                for b, s in shapes for attention in ("sdpa", "eager")]
    encoders += [
        Case("bge-reranker-v2-m3", E, weights="bf16", batch=16, seq=1024),
        Case("modernbert-base", E, weights="fp32", batch=4, seq=512),
    ]
    g["encoders"] = encoders
    g["all"] = [c for k in ("smoke", "small", "full-ft", "lora", "infer", "large", "2025", "hybrid", "moe-2025",
                            "dense-2026", "encoders") for c in g[k]]
    return g


GRIDS = _grid()
