#!/usr/bin/env python3
"""Measure the peak memory PyTorch allocates for real training and inference steps.

Ground truth for the estimator in ``calculators/memory/``.  Every case builds a
Hugging Face ``transformers`` causal LM from config values with random weights
(nothing is downloaded), runs real training steps (forward, backward,
optimizer step, zero_grad) or real inference (prefill plus a decode loop with a
``DynamicCache``) and records the peak live tensor bytes per phase together with
a breakdown of what was live at each peak.

Devices
-------
``--device fake`` (default)
    Everything runs under ``FakeTensorMode`` on fake CPU tensors: shapes, dtypes
    and aliasing are exact, no data exists, so 8B-70B models take seconds.
``--device cpu``
    Same tracking on real CPU tensors (small models only); the test suite checks
    that it gives exactly the same per-phase peaks as fake mode.
``--device cuda``
    Real GPU run: records ``torch.cuda.max_memory_allocated`` /
    ``max_memory_reserved`` per phase (peak stats reset at every phase start),
    ``nvidia-smi`` used memory when available, and also the same storage
    tracking as the other modes for comparison. It also records what the
    process held outside the allocator (``non_torch_bytes``: ``(total - free) -
    memory_reserved()``, the CUDA context and libraries), the device total a
    process can use (``usable_bytes``, ``mem_get_info``) and their sum with the
    reserved peak (``process_peak_bytes``). A case that runs out of memory is a
    recorded outcome (``"out_of_memory": true`` with the error), not a failure.

``--search-batch`` (with one case, usually ``--device cuda``)
    Finds the largest batch that runs: doubles the batch from 1 until a run is
    out of memory, then bisects. Every trial is recorded, and the
    answer is written as ``largest_batch_that_ran``.

Tracking (fake and cpu)
-----------------------
A ``TorchDispatchMode`` sees the output of every ATen op (forward, autograd
backward and optimizer).  Each distinct ``UntypedStorage`` is counted once, at its
``nbytes`` rounded up to a multiple of 512 B (the CUDA caching allocator's block
rounding; zero-byte storages count 0), and is dropped when its last reference
dies (``weakref.finalize`` on the storage).  Parameters and buffers that exist
before tracking starts are registered explicitly.  The peak of each phase is
exact at op granularity; the live set at the peak is snapshotted and later
classified into parameters / gradients / optimizer_states / kv_cache /
activations_and_temporaries.

Run ``python scripts/measure_memory.py --help`` for the CLI; ``--grid all``
regenerates ``tests/data/measurements/``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as _dt
import gc
import itertools
import json
import platform
import re
import shlex
import subprocess
import sys
import time
import warnings
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

ROUND = 512
REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "tests" / "data" / "measurements"

LORA_NAMES = {
    "q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj",
    "gate": "gate_proj", "up": "up_proj", "down": "down_proj",
    # phi3 fuses projections; these short names are used for it
    "qkv": "qkv_proj", "gate_up": "gate_up_proj",
}
DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}

# --------------------------------------------------------------------------------------
# Model configurations (raw config.json values; random weights are built from these)
# --------------------------------------------------------------------------------------

_LLAMA_COMMON = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "hidden_act": "silu", "initializer_range": 0.02, "mlp_bias": False, "model_type": "llama",
    "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None, "use_cache": True,
}

PRESETS: dict[str, dict[str, Any]] = {
    # ---- tiny synthetic models (cheap enough for real-CPU cross-checks) ----
    "tiny-llama": {**_LLAMA_COMMON, "hidden_size": 256, "intermediate_size": 688,
                   "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 4,
                   "vocab_size": 4096, "max_position_embeddings": 4096, "rope_theta": 10000.0,
                   "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2},
    # a sliding window (64) shorter than the traced sequences: transformers passes SDPA a mask
    "tiny-sliding-mistral": {"model_type": "mistral", "architectures": ["MistralForCausalLM"],
                             "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 4,
                             "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 32,
                             "vocab_size": 1000, "sliding_window": 64, "max_position_embeddings": 4096,
                             "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "tie_word_embeddings": False},
    "small-llama": {**_LLAMA_COMMON, "hidden_size": 768, "intermediate_size": 2048,
                    "num_hidden_layers": 6, "num_attention_heads": 12, "num_key_value_heads": 4,
                    "vocab_size": 32000, "max_position_embeddings": 8192, "rope_theta": 10000.0,
                    "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2},
    "tiny-qwen2": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_act": "silu",
                   "hidden_size": 256, "intermediate_size": 1024, "num_hidden_layers": 2,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 8192,
                   "max_position_embeddings": 4096, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
                   "tie_word_embeddings": True, "use_sliding_window": False, "sliding_window": None,
                   "attention_dropout": 0.0, "initializer_range": 0.02, "use_cache": True},
    "tiny-mixtral": {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
                     "hidden_act": "silu", "hidden_size": 256, "intermediate_size": 512,
                     "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
                     "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 4096,
                     "max_position_embeddings": 4096, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
                     "router_aux_loss_coef": 0.02, "output_router_logits": False,
                     "sliding_window": None, "tie_word_embeddings": False, "attention_dropout": 0.0,
                     "initializer_range": 0.02, "use_cache": True},
    # ---- real model configurations ----
    "llama-3-8b": {**_LLAMA_COMMON, "hidden_size": 4096, "intermediate_size": 14336,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                   "vocab_size": 128256, "max_position_embeddings": 8192, "rope_theta": 500000.0,
                   "tie_word_embeddings": False, "bos_token_id": 128000, "eos_token_id": 128001,
                   "torch_dtype": "bfloat16"},
    "llama-2-7b": {**_LLAMA_COMMON, "hidden_size": 4096, "intermediate_size": 11008,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
                   "vocab_size": 32000, "max_position_embeddings": 4096, "rope_theta": 10000.0,
                   "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2,
                   "torch_dtype": "float16"},
    "mistral-7b": {"architectures": ["MistralForCausalLM"], "model_type": "mistral",
                   "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                   "head_dim": 128, "vocab_size": 32768, "max_position_embeddings": 32768,
                   "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "sliding_window": None,
                   "tie_word_embeddings": False, "attention_dropout": 0.0, "initializer_range": 0.02,
                   "bos_token_id": 1, "eos_token_id": 2, "use_cache": True, "torch_dtype": "bfloat16",
                   "_name_or_path": "mistralai/Mistral-7B-v0.3"},
    "qwen2.5-0.5b": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
                     "hidden_act": "silu", "hidden_size": 896, "intermediate_size": 4864,
                     "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
                     "vocab_size": 151936, "max_position_embeddings": 32768, "max_window_layers": 24,
                     "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
                     "use_sliding_window": False, "tie_word_embeddings": True, "attention_dropout": 0.0,
                     "initializer_range": 0.02, "bos_token_id": 151643, "eos_token_id": 151643,
                     "use_cache": True, "torch_dtype": "bfloat16"},
    "gemma-2-2b": {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2",
                   "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 2304,
                   "intermediate_size": 9216, "num_hidden_layers": 26, "num_attention_heads": 8,
                   "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 256000,
                   "max_position_embeddings": 8192, "rms_norm_eps": 1e-06, "rope_theta": 10000.0,
                   "sliding_window": 4096, "query_pre_attn_scalar": 256,
                   "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0,
                   "attention_bias": False, "attention_dropout": 0.0, "tie_word_embeddings": True,
                   "initializer_range": 0.02, "pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 1,
                   "use_cache": True, "torch_dtype": "float32"},
    "phi-3-mini": {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_act": "silu",
                   "hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 32,
                   "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32064,
                   "max_position_embeddings": 4096, "original_max_position_embeddings": 4096,
                   "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "rope_scaling": None,
                   "sliding_window": 2047, "tie_word_embeddings": False, "attention_dropout": 0.0,
                   "embd_pdrop": 0.0, "resid_pdrop": 0.0, "initializer_range": 0.02,
                   "bos_token_id": 1, "eos_token_id": 32000, "pad_token_id": 32000,
                   "use_cache": True, "torch_dtype": "bfloat16"},
    "mixtral-8x7b": {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
                     "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336,
                     "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                     "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000,
                     "max_position_embeddings": 32768, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
                     "router_aux_loss_coef": 0.02, "output_router_logits": False,
                     "sliding_window": None, "tie_word_embeddings": False, "attention_dropout": 0.0,
                     "initializer_range": 0.02, "bos_token_id": 1, "eos_token_id": 2,
                     "use_cache": True, "torch_dtype": "bfloat16"},
    # ---- 2025 families (values of the catalog records in calculators/catalog/model_records/) ----
    "qwen3-0.6b": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_act": "silu",
                   "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
                   "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
                   "max_position_embeddings": 40960, "max_window_layers": 28, "rms_norm_eps": 1e-06,
                   "rope_theta": 1000000.0, "sliding_window": None, "use_sliding_window": False,
                   "tie_word_embeddings": True, "attention_bias": False, "attention_dropout": 0.0,
                   "initializer_range": 0.02, "bos_token_id": 151643, "eos_token_id": 151645,
                   "use_cache": True, "torch_dtype": "bfloat16"},
    "qwen3-30b-a3b": {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_act": "silu",
                      "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
                      "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4,
                      "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8, "decoder_sparse_step": 1,
                      "mlp_only_layers": [], "output_router_logits": False,
                      "vocab_size": 151936, "max_position_embeddings": 40960, "rms_norm_eps": 1e-06,
                      "rope_theta": 1000000.0, "sliding_window": None, "use_sliding_window": False,
                      "tie_word_embeddings": False, "attention_bias": False, "attention_dropout": 0.0,
                      "initializer_range": 0.02, "use_cache": True, "torch_dtype": "bfloat16"},
    "gemma-3-1b": {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text",
                   "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152, "intermediate_size": 6912,
                   "num_hidden_layers": 26, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
                   "vocab_size": 262144, "max_position_embeddings": 32768, "rms_norm_eps": 1e-06,
                   "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "sliding_window": 512,
                   "sliding_window_pattern": 6, "query_pre_attn_scalar": 256, "attn_logit_softcapping": None,
                   "final_logit_softcapping": None, "attention_bias": False, "attention_dropout": 0.0,
                   "tie_word_embeddings": True, "initializer_range": 0.02, "pad_token_id": 0,
                   "bos_token_id": 2, "eos_token_id": 1, "use_cache": True, "torch_dtype": "bfloat16"},
    # bf16 experts: a config without quantization_config builds the MXFP4-published experts in bf16
    "gpt-oss-20b": {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_act": "silu",
                    "hidden_size": 2880, "intermediate_size": 2880, "num_hidden_layers": 24,
                    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "num_local_experts": 32,
                    "num_experts_per_tok": 4, "experts_per_token": 4, "vocab_size": 201088,
                    "max_position_embeddings": 131072, "sliding_window": 128,
                    "layer_types": ["sliding_attention", "full_attention"] * 12, "attention_bias": True,
                    "attention_dropout": 0.0, "output_router_logits": False,
                    "tie_word_embeddings": False, "initializer_range": 0.02, "use_cache": True,
                    "torch_dtype": "bfloat16"},
    # DeepSeek-V3's layout (MLA with q/kv LoRA ranks, one shared expert, dense first layers, sigmoid
    # grouped routing) at a width the CPU cross-check can also run; the full model is in the catalog.
    "small-deepseek-v3": {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
                          "hidden_act": "silu", "hidden_size": 1024, "intermediate_size": 2816,
                          "moe_intermediate_size": 256, "num_hidden_layers": 6, "first_k_dense_replace": 2,
                          "num_attention_heads": 16, "num_key_value_heads": 16, "n_routed_experts": 32,
                          "n_shared_experts": 1, "num_experts_per_tok": 4, "n_group": 4, "topk_group": 2,
                          "routed_scaling_factor": 2.5, "norm_topk_prob": True, "q_lora_rank": 384,
                          "kv_lora_rank": 128, "qk_nope_head_dim": 64, "qk_rope_head_dim": 32,
                          "v_head_dim": 64, "vocab_size": 32000, "max_position_embeddings": 16384,
                          "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "rope_scaling": None,
                          "attention_bias": False, "attention_dropout": 0.0, "tie_word_embeddings": False,
                          "initializer_range": 0.02, "use_cache": True, "torch_dtype": "bfloat16"},
    "llama-3-70b": {**_LLAMA_COMMON, "hidden_size": 8192, "intermediate_size": 28672,
                    "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
                    "vocab_size": 128256, "max_position_embeddings": 8192, "rope_theta": 500000.0,
                    "tie_word_embeddings": False, "bos_token_id": 128000, "eos_token_id": 128001,
                    "torch_dtype": "bfloat16"},
}


# --------------------------------------------------------------------------------------
# Case description
# --------------------------------------------------------------------------------------

@dataclass
class Case:
    preset: str
    kind: str = "train"                 # train | infer
    method: str = "full"                # full | lora | qlora
    precision: str = "bf16-mixed"       # fp32 | bf16-mixed | fp16-mixed | bf16 | fp16
    optimizer: str = "adamw"            # adamw | adamw-fused | sgd | adafactor | adamw-8bit
    batch: int = 1
    seq: int = 512
    grad_checkpointing: bool = False
    attention: str = "sdpa"             # sdpa | eager
    lora_rank: int = 16
    lora_targets: tuple[str, ...] = ("q", "v")
    weights: str = "bf16"               # inference weights / LoRA frozen base
    kv_cache: str | None = None         # inference (defaults to weights)
    context: int = 1024
    new_tokens: int = 16
    steps: int = 2
    model_config: dict[str, Any] | None = field(default=None, repr=False)

    def slug(self) -> str:
        name = self.preset
        if self.kind == "train":
            parts = [name, "train", self.method, self.precision, self.optimizer,
                     f"b{self.batch}", f"s{self.seq}", self.attention]
            if self.grad_checkpointing:
                parts.append("gc")
            if self.method in ("lora", "qlora"):
                parts += [f"r{self.lora_rank}", "-".join(self.lora_targets), f"base-{self.weights}"]
        else:
            parts = [name, "infer", self.weights, f"kv-{self.kv_cache or self.weights}",
                     f"b{self.batch}", f"ctx{self.context}", f"new{self.new_tokens}", self.attention]
        return "_".join(parts)


# --------------------------------------------------------------------------------------
# The tracker
# --------------------------------------------------------------------------------------

def _round(n: int) -> int:
    return 0 if n <= 0 else ((n + ROUND - 1) // ROUND) * ROUND


def _make_tracker_class():  # defined lazily so that importing this file needs no torch
    import torch
    from torch._subclasses.fake_tensor import FakeTensor
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    aten = torch.ops.aten
    lift_ops = {aten.lift_fresh.default, aten.lift_fresh_copy.default}
    sdpa_names = ("scaled_dot_product", "flash_attention", "efficient_attention", "cudnn_attention")

    class StorageTracker(TorchDispatchMode):
        """Counts every live UntypedStorage once, rounded up to 512 B."""

        def __init__(self, only_device: str | None = None) -> None:
            super().__init__()
            self.only_device = only_device          # "cuda": ignore host tensors in a real GPU run
            self.live: dict[int, int] = {}          # serial -> rounded bytes
            self.by_id: dict[int, int] = {}         # id(storage) -> serial
            self.excluded_ids: set[int] = set()     # storages that would live on the host on CUDA
            self.total = 0
            self._serials = itertools.count()
            self.phase: str | None = None
            self.phase_peak = 0
            self.snapshot: dict[int, int] = {}
            self._pending = False
            self.cpu_scalar_rule = False            # active inside optimizer.step()
            self.fake_item_value = False            # answer .item() on fake tensors (Adafactor)
            self.op_counts: dict[str, int] = {}
            self.sdpa_calls: dict[str, int] = {}

        # -- registration --------------------------------------------------------------
        def register(self, t: "torch.Tensor", exclude: bool = False) -> None:
            if not isinstance(t, torch.Tensor) or t.is_sparse:
                return
            if self.only_device is not None and t.device.type != self.only_device:
                return
            try:
                st = t.untyped_storage()
            except Exception:  # pragma: no cover - tensors without storage
                return
            key = id(st)
            if key in self.by_id or key in self.excluded_ids:
                return
            if exclude:
                self.excluded_ids.add(key)
                weakref.finalize(st, self.excluded_ids.discard, key)
                return
            serial = next(self._serials)
            nbytes = _round(st.nbytes())
            self.by_id[key] = serial
            self.live[serial] = nbytes
            self.total += nbytes
            weakref.finalize(st, self._free, key, serial)
            if self.total > self.phase_peak:
                self.phase_peak = self.total
                self._pending = True

        def serial_of(self, t: "torch.Tensor") -> int | None:
            try:
                return self.by_id.get(id(t.untyped_storage()))
            except Exception:
                return None

        def is_excluded(self, t: Any) -> bool:
            return isinstance(t, torch.Tensor) and id(t.untyped_storage()) in self.excluded_ids

        def _free(self, key: int, serial: int) -> None:
            if self._pending:
                self.snapshot = dict(self.live)
                self._pending = False
            self.by_id.pop(key, None)
            nbytes = self.live.pop(serial, 0)
            self.total -= nbytes

        # -- phases --------------------------------------------------------------------
        def start_phase(self, name: str) -> None:
            self.phase = name
            self.phase_peak = self.total
            self.snapshot = dict(self.live)
            self._pending = False

        def end_phase(self) -> tuple[int, dict[int, int]]:
            if self._pending:
                self.snapshot = dict(self.live)
                self._pending = False
            self.phase = None
            return self.phase_peak, self.snapshot

        # -- dispatch ------------------------------------------------------------------
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[override]
            kwargs = kwargs or {}
            if func is aten._local_scalar_dense.default and self.fake_item_value:
                a = args[0]
                if isinstance(a, FakeTensor):
                    return True if a.dtype == torch.bool else (1 if not a.is_floating_point() else 1.0)
            out = func(*args, **kwargs)
            name = func.__name__ if hasattr(func, "__name__") else str(func)
            if any(s in name for s in sdpa_names):
                bound = dict(kwargs)
                for a_schema, val in zip(func._schema.arguments, args):
                    bound[a_schema.name] = val
                flags = []
                if isinstance(bound.get("attn_mask", bound.get("attn_bias")), torch.Tensor):
                    flags.append("mask")
                if bound.get("is_causal") is True:
                    flags.append("causal")
                key = name + "".join("+" + f for f in flags)
                self.sdpa_calls[key] = self.sdpa_calls.get(key, 0) + 1
            flat_out, _ = tree_flatten(out)
            exclude = False
            if self.cpu_scalar_rule:
                if func in lift_ops:
                    exclude = True
                else:
                    ins = [a for a in tree_flatten((args, kwargs))[0] if isinstance(a, torch.Tensor)]
                    if ins and all(self.is_excluded(a) for a in ins):
                        exclude = True
            for t in flat_out:
                if isinstance(t, torch.Tensor):
                    self.register(t, exclude=exclude and t.numel() <= 1)
            return out

    return StorageTracker


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------

def _torch_dtype(name: str):
    import torch
    return getattr(torch, DTYPES.get(name, name))


def _build_config(raw: dict[str, Any]):
    from transformers import AutoConfig
    cfg = dict(raw)
    model_type = cfg.pop("model_type")
    for k in ("architectures", "torch_dtype", "_name_or_path", "transformers_version"):
        cfg.pop(k, None)
    return AutoConfig.for_model(model_type, **cfg)


def _build_model(raw: dict[str, Any], dtype, attention: str, device: str):
    import torch
    from transformers import AutoModelForCausalLM
    cfg = _build_config(raw)
    dev_ctx = torch.device("cuda") if device == "cuda" else contextlib.nullcontext()
    with dev_ctx:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation=attention)
    return model


def _nvidia_smi_used() -> int | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20)
        return int(out.stdout.strip().splitlines()[0]) * 1024 * 1024
    except Exception:
        return None


class Recorder:
    """Phase bookkeeping shared by the train and infer runners."""

    def __init__(self, tracker, device: str) -> None:
        self.t = tracker
        self.device = device
        self.phase_peaks: dict[str, int] = {}                 # max over steps
        self.phase_peak_steps: dict[str, dict[str, int]] = {}  # per step
        self.snapshots: dict[str, dict[int, int]] = {}
        self.boundaries: dict[str, int] = {}
        self.cuda_peaks: dict[str, dict[str, int]] = {}
        self.gc_freed = 0

    def boundary(self, name: str) -> None:
        before = self.t.total
        gc.collect()
        self.gc_freed += before - self.t.total
        self.boundaries[name] = self.t.total
        if self.device == "cuda":
            import torch
            torch.cuda.synchronize()
            self.boundaries[name + "@cuda_allocated"] = int(torch.cuda.memory_allocated())

    @contextlib.contextmanager
    def phase(self, name: str, step: int | None = None) -> Iterator[None]:
        import torch
        gc.collect()
        if self.device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        self.t.start_phase(name)
        gc_was = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            if gc_was:
                gc.enable()
            peak, snap = self.t.end_phase()
            label = name if step is None else f"step{step}"
            self.phase_peak_steps.setdefault(label, {})[name] = peak
            if peak >= self.phase_peaks.get(name, -1):
                self.phase_peaks[name] = peak
                self.snapshots[name] = snap
            if self.device == "cuda":
                torch.cuda.synchronize()
                c = self.cuda_peaks.setdefault(name, {"max_memory_allocated": 0, "max_memory_reserved": 0})
                c["max_memory_allocated"] = max(c["max_memory_allocated"], int(torch.cuda.max_memory_allocated()))
                c["max_memory_reserved"] = max(c["max_memory_reserved"], int(torch.cuda.max_memory_reserved()))
                smi = _nvidia_smi_used()
                if smi is not None:
                    c["nvidia_smi_used"] = max(c.get("nvidia_smi_used", 0), smi)


def _classify(snap: dict[int, int], sets: dict[str, set[int]]) -> dict[str, int]:
    out = {k: 0 for k in ("parameters", "gradients", "optimizer_states", "kv_cache",
                          "activations_and_temporaries")}
    for serial, nbytes in snap.items():
        for cat in ("parameters", "gradients", "optimizer_states", "kv_cache"):
            if serial in sets.get(cat, ()):
                out[cat] += nbytes
                break
        else:
            out["activations_and_temporaries"] += nbytes
    out["total"] = sum(snap.values())
    return out


# --------------------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------------------

def _make_optimizer(name: str, params, device: str):
    import torch
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-5, foreach=True)
    if name == "adamw-fused":
        return torch.optim.AdamW(params, lr=1e-5, fused=True)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9, foreach=True)
    if name == "adafactor":
        return torch.optim.Adafactor(params, lr=1e-3, foreach=True)
    if name == "adamw-8bit":
        if device != "cuda":
            raise NotMeasurable("8-bit AdamW needs bitsandbytes on CUDA")
        import bitsandbytes as bnb  # type: ignore
        return bnb.optim.AdamW8bit(params, lr=1e-5)
    raise ValueError(f"unknown optimizer {name}")


class NotMeasurable(RuntimeError):
    pass


@contextlib.contextmanager
def _fake_patches(fake: bool) -> Iterator[list[str]]:
    """Work-arounds that make fake-tensor runs follow the code path of a real GPU run."""
    notes: list[str] = []
    if not fake:
        yield notes
        return
    import transformers.masking_utils as mu
    saved = []
    orig_packed = mu.find_packed_sequence_indices

    def find_packed_sequence_indices(position_ids):  # type: ignore[no-untyped-def]
        # transformers treats fake tensors as "tracing" and keeps a packed-sequence mask, which forces a
        # materialised 4-D attention mask; real unpacked batches return None here (checked on real CPU).
        return None

    mu.find_packed_sequence_indices = find_packed_sequence_indices
    saved.append((mu, "find_packed_sequence_indices", orig_packed))
    notes.append("fake mode: transformers.masking_utils.find_packed_sequence_indices returns None (as it does "
                 "for real unpacked batches) so SDPA gets attn_mask=None/is_causal=True like a real run")
    import torch
    orig_to = torch.nn.Module.to

    def module_to(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        # Module.to(cpu) on fake parameters swaps tensors and fails (weakref); everything is on cpu already.
        device, dtype, _nb, fmt = torch._C._nn._parse_to(*args, **kwargs)
        if (device is None or device.type == "cpu") and dtype is None and fmt is None:
            return self
        return orig_to(self, *args, **kwargs)

    torch.nn.Module.to = module_to  # type: ignore[method-assign]
    saved.append((torch.nn.Module, "to", orig_to))
    try:
        from peft.tuners.tuners_utils import BaseTunerLayer
        orig_move = BaseTunerLayer._move_adapter_to_device_of_base_layer

        def _move(self, adapter_name, device=None):  # type: ignore[no-untyped-def]
            # Module.to() on fake parameters fails (swap_tensors + weakref); adapters are already on the
            # (fake) cpu device in fp32, which is also what autocast_adapter_dtype=True ends with.
            return None

        BaseTunerLayer._move_adapter_to_device_of_base_layer = _move  # type: ignore[method-assign]
        saved.append((BaseTunerLayer, "_move_adapter_to_device_of_base_layer", orig_move))
    except Exception:  # pragma: no cover - peft missing
        pass
    try:
        yield notes
    finally:
        for obj, name, orig in saved:
            setattr(obj, name, orig)


def _apply_lora(model, case: Case):
    from peft import LoraConfig, get_peft_model
    targets = [LORA_NAMES[t] for t in case.lora_targets]
    present = {n.rsplit(".", 1)[-1] for n, _ in model.named_modules()}
    targets = [t for t in targets if t in present]
    if not targets:
        raise ValueError(f"no LoRA targets {case.lora_targets} in this model")
    cfg = LoraConfig(r=case.lora_rank, lora_alpha=2 * case.lora_rank, target_modules=targets,
                     lora_dropout=0.0, bias="none", task_type="CAUSAL_LM")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return get_peft_model(model, cfg), targets


def _quantize_4bit(model, compute_dtype):  # pragma: no cover - CUDA + bitsandbytes only
    import bitsandbytes as bnb  # type: ignore
    import torch
    for name, mod in list(model.named_modules()):
        for cname, child in list(mod.named_children()):
            if isinstance(child, torch.nn.Linear) and cname != "lm_head":
                q = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                      compute_dtype=compute_dtype, quant_type="nf4", device="cpu")
                q.weight = bnb.nn.Params4bit(child.weight.data.to("cpu"), requires_grad=False,
                                             quant_type="nf4")
                if child.bias is not None:
                    q.bias = torch.nn.Parameter(child.bias.data.to("cpu"), requires_grad=False)
                setattr(mod, cname, q.cuda())
                del child
    torch.cuda.empty_cache()
    return model


def run_train(case: Case, device: str) -> dict[str, Any]:
    import torch
    Tracker = _make_tracker_class()
    adjustments: list[str] = []
    raw = case.model_config or PRESETS[case.preset]
    if case.method == "qlora":
        if device != "cuda":
            raise NotMeasurable("QLoRA needs bitsandbytes on CUDA; not measurable in fake/cpu mode")
        import bitsandbytes  # noqa: F401  # type: ignore
    if case.optimizer == "adamw-8bit" and device != "cuda":
        raise NotMeasurable("8-bit AdamW needs bitsandbytes on CUDA")
    mixed = case.precision in ("bf16-mixed", "fp16-mixed")
    if case.method == "full":
        model_dtype = _torch_dtype("fp32" if mixed or case.precision == "fp32" else case.precision)
    else:
        # frozen base in `weights` dtype, adapters fp32 (peft autocast_adapter_dtype=True)
        model_dtype = _torch_dtype(case.weights)
    autocast_dtype = {"bf16-mixed": torch.bfloat16, "fp16-mixed": torch.float16}.get(case.precision)
    fake = device == "fake"
    mode_ctx = contextlib.ExitStack()
    if fake:
        from torch._subclasses.fake_tensor import FakeTensorMode
        mode_ctx.enter_context(FakeTensorMode())
    dev = "cuda" if device == "cuda" else "cpu"
    torch.manual_seed(0)
    patch_notes = mode_ctx.enter_context(_fake_patches(fake))
    adjustments += patch_notes
    with mode_ctx:
        model = _build_model(raw, model_dtype if case.method != "qlora" else torch.bfloat16,
                             case.attention, device)
        lora_targets_used = None
        if case.method == "qlora":
            model = _quantize_4bit(model, torch.bfloat16)
        if case.method in ("lora", "qlora"):
            model, lora_targets_used = _apply_lora(model, case)
        model.config.use_cache = False
        if case.grad_checkpointing:
            if hasattr(model, "activation_checkpointing_enable"):  # transformers >= 5.2x
                model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
            else:
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            if case.method != "full":
                # peft/transformers need an input that requires grad for checkpointed LoRA
                model.enable_input_require_grads()
        model.train()
        params = [p for p in model.parameters() if p.requires_grad]
        lora_dtypes = sorted({str(p.dtype).replace("torch.", "") for p in params})
        all_param_dtypes = sorted({str(p.dtype).replace("torch.", "") for p in model.parameters()})
        n_params = sum(p.numel() for p in model.parameters())
        n_trainable = sum(p.numel() for p in params)
        opt = _make_optimizer(case.optimizer, params, device)

        tracker = Tracker("cuda" if device == "cuda" else None)
        rec = Recorder(tracker, device)
        param_serials: set[int] = set()
        grad_serials: set[int] = set()
        state_serials: set[int] = set()
        with tracker:
            for p in model.parameters():
                tracker.register(p)
            for b in model.buffers():
                tracker.register(b)
            param_serials = {s for s in (tracker.serial_of(p) for p in itertools.chain(
                model.parameters(), model.buffers())) if s is not None}
            rec.boundary("weights")
            vocab = int(model.config.get_text_config().vocab_size)
            for step in range(1, case.steps + 1):
                ids = torch.randint(0, vocab, (case.batch, case.seq), device=dev)
                rec.boundary(f"step{step}.before_forward")
                with rec.phase("forward", step):
                    ac = (torch.autocast(device_type=dev, dtype=autocast_dtype) if autocast_dtype
                          else contextlib.nullcontext())
                    with ac:
                        loss = model(input_ids=ids, labels=ids).loss
                rec.boundary(f"step{step}.after_forward")
                with rec.phase("backward", step):
                    loss.backward()
                    del loss
                for p in params:
                    if p.grad is not None:
                        s = tracker.serial_of(p.grad)
                        if s is not None:
                            grad_serials.add(s)
                rec.boundary(f"step{step}.after_backward")
                with rec.phase("optimizer", step):
                    tracker.cpu_scalar_rule = dev != "cuda" and case.optimizer != "adamw-fused"
                    tracker.fake_item_value = fake
                    try:
                        opt.step()
                    finally:
                        tracker.cpu_scalar_rule = False
                        tracker.fake_item_value = False
                    for st in opt.state.values():
                        for k, v in st.items():
                            if isinstance(v, torch.Tensor):
                                s = tracker.serial_of(v)
                                if s is not None:
                                    state_serials.add(s)
                    rec.boundary(f"step{step}.after_optimizer")
                    opt.zero_grad(set_to_none=True)
                rec.boundary(f"step{step}.after_zero_grad")
                del ids
        sets = {"parameters": param_serials, "gradients": grad_serials, "optimizer_states": state_serials}
        if dev != "cuda" and case.optimizer in ("adamw", "sgd", "adafactor"):
            adjustments.append(
                "optimizer scalar step counters (torch.tensor created without device) and scalars derived "
                "only from them are excluded: on CUDA non-capturable foreach/for-loop optimizers keep them "
                "on the host")
        if case.optimizer == "adamw-fused":
            adjustments.append("fused AdamW keeps its step counters on the device: counted (512 B each)")
        if fake and case.optimizer == "adafactor":
            adjustments.append("Adafactor calls .item() (norms, step): answered with 1.0 under fake tensors; "
                               "values do not affect memory")
        info = {
            "n_params": n_params, "n_trainable_params": n_trainable,
            "experts_implementation": getattr(model.config, "_experts_implementation", None),
            "trainable_dtypes": lora_dtypes, "param_dtypes": all_param_dtypes,
            "lora_modules": lora_targets_used,
        }
    return _finish(case, device, rec, sets, adjustments, info, autocast_dtype)


# --------------------------------------------------------------------------------------
# Inference
# --------------------------------------------------------------------------------------

def run_infer(case: Case, device: str) -> dict[str, Any]:
    import torch
    from transformers import DynamicCache
    Tracker = _make_tracker_class()
    raw = case.model_config or PRESETS[case.preset]
    kv = case.kv_cache or case.weights
    if kv != case.weights:
        raise NotMeasurable("a KV cache dtype other than the weights dtype is not supported by DynamicCache")
    fake = device == "fake"
    mode_ctx = contextlib.ExitStack()
    if fake:
        from torch._subclasses.fake_tensor import FakeTensorMode
        mode_ctx.enter_context(FakeTensorMode())
    dev = "cuda" if device == "cuda" else "cpu"
    torch.manual_seed(0)
    adjustments: list[str] = list(mode_ctx.enter_context(_fake_patches(fake)))
    with mode_ctx:
        model = _build_model(raw, _torch_dtype(case.weights), case.attention, device)
        model.eval()
        n_params = sum(p.numel() for p in model.parameters())
        tracker = Tracker("cuda" if device == "cuda" else None)
        rec = Recorder(tracker, device)
        kv_serials: set[int] = set()

        def collect_cache(cache) -> int:
            total = 0
            seen: set[int] = set()
            for layer in cache.layers:
                for t in (getattr(layer, "keys", None), getattr(layer, "values", None)):
                    if isinstance(t, torch.Tensor):
                        s = tracker.serial_of(t)
                        if s is not None and s not in seen:
                            seen.add(s)
                            kv_serials.add(s)
                            total += tracker.live.get(s, 0)
            return total

        with tracker, torch.no_grad():
            for p in itertools.chain(model.parameters(), model.buffers()):
                tracker.register(p)
            param_serials = {s for s in (tracker.serial_of(p) for p in itertools.chain(
                model.parameters(), model.buffers())) if s is not None}
            rec.boundary("weights")
            vocab = int(model.config.get_text_config().vocab_size)
            ids = torch.randint(0, vocab, (case.batch, case.context), device=dev)
            cache = DynamicCache(config=model.config)
            rec.boundary("before_prefill")
            with rec.phase("prefill"):
                out = model(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1)
                nxt = out.logits[:, -1:].argmax(-1)
                del out
            del ids
            collect_cache(cache)
            rec.boundary("after_prefill")
            kv_after_prefill = collect_cache(cache)
            with rec.phase("decode"):
                for _ in range(case.new_tokens):
                    out = model(input_ids=nxt, past_key_values=cache, use_cache=True, logits_to_keep=1)
                    nxt = out.logits[:, -1:].argmax(-1)
                    del out
                    collect_cache(cache)
            rec.boundary("after_decode")
            kv_bytes = collect_cache(cache)
            kv_len = cache.get_seq_length()
        sets = {"parameters": param_serials, "kv_cache": kv_serials}
        info = {"n_params": n_params, "kv_cache_bytes_after_prefill": kv_after_prefill,
                "experts_implementation": getattr(model.config, "_experts_implementation", None),
                "kv_cache_seq_len": int(kv_len)}
    rec_out = _finish(case, device, rec, sets, adjustments, info, None)
    rec_out["measured"]["kv_cache_bytes"] = kv_bytes
    return rec_out


# --------------------------------------------------------------------------------------
# Record assembly
# --------------------------------------------------------------------------------------

def _versions() -> dict[str, str]:
    import torch
    import transformers
    v = {"torch": torch.__version__, "transformers": transformers.__version__,
         "python": platform.python_version()}
    try:
        import peft
        v["peft"] = peft.__version__
    except Exception:
        v["peft"] = None  # type: ignore[assignment]
    return v


def _finish(case: Case, device: str, rec: Recorder, sets, adjustments, info, autocast_dtype) -> dict[str, Any]:
    import torch
    t = rec.t
    peak_phase = max(rec.phase_peaks, key=lambda k: (rec.phase_peaks[k], k))
    breakdowns = {ph: _classify(rec.snapshots[ph], sets) for ph in rec.phase_peaks}
    common_adj = [
        "allocations counted per storage at nbytes rounded up to 512 B (CUDA caching allocator block "
        "rounding); kernel-internal workspaces (cuBLAS, flash-attention dq_accum/softmax_d) are invisible",
        "parameters category includes registered buffers (e.g. rotary inv_freq)",
        "Python garbage collection disabled inside each phase and run at phase boundaries",
    ]
    if device != "cuda":
        common_adj.append(
            "SDPA runs aten._scaled_dot_product_flash_attention_for_cpu (flash-style: no SxS buffer, saves "
            "fp32 logsumexp batch x heads x seq), as CUDA's flash kernel does in fp16/bf16; in fp32 with "
            "grouped K/V CUDA runs the math backend instead (calculators.memory.kernels); transformers "
            "passes attn_mask=None/is_causal for unpadded batches (verified via sdpa_calls)")
    if autocast_dtype is not None and device != "cuda":
        common_adj.append(
            "autocast(device_type='cpu'): linear/matmul/bmm/baddbmm/SDPA cast to low precision as on CUDA; "
            "CPU autocast has no fp32 list for softmax/log_softmax/layer_norm/pow/rsqrt/sum, which CUDA "
            "upcasts -- the HF models measured already upcast explicitly there (RMSNorm .float(), "
            "softmax(dtype=float32), logits.float() in the loss), so allocations match")
    if case.kind == "infer":
        common_adj.append("prefill uses logits_to_keep=1 as generate() does; decode is a hand-written greedy "
                          "loop over DynamicCache (generate() cannot run on fake tensors)")
    settings: dict[str, Any]
    if case.kind == "train":
        settings = {
            "method": case.method, "precision": case.precision, "optimizer": case.optimizer,
            "batch": case.batch, "seq": case.seq, "grad_checkpointing": case.grad_checkpointing,
            "attention": case.attention, "steps": case.steps,
            "lora_rank": case.lora_rank if case.method != "full" else None,
            "lora_targets": list(case.lora_targets) if case.method != "full" else None,
            "lora_dtype": (info["trainable_dtypes"][0] if case.method != "full" and
                           len(info["trainable_dtypes"]) == 1 else
                           (info["trainable_dtypes"] if case.method != "full" else None)),
            "base_dtype": case.weights if case.method != "full" else None,
            "param_dtypes": info["param_dtypes"],
            "autocast_dtype": str(autocast_dtype).replace("torch.", "") if autocast_dtype else None,
            "optimizer_kwargs": {"adamw": "foreach=True, lr=1e-5, weight_decay=0.01",
                                 "adamw-fused": "fused=True, lr=1e-5, weight_decay=0.01",
                                 "sgd": "momentum=0.9, foreach=True",
                                 "adafactor": "torch.optim.Adafactor defaults, foreach=True (the CUDA default)",
                                 "adamw-8bit": "bitsandbytes AdamW8bit"}[case.optimizer],
        }
    else:
        settings = {"weights": case.weights, "kv_cache": case.kv_cache or case.weights,
                    "batch": case.batch, "context": case.context, "new_tokens": case.new_tokens,
                    "attention": case.attention, "logits_to_keep": 1, "cache": "DynamicCache"}
    if device == "fake":
        dev_desc = "fake-cpu (FakeTensorMode)"
    elif device == "cpu":
        dev_desc = "cpu"
    else:
        dev_desc = torch.cuda.get_device_name(0)
    measured: dict[str, Any] = {
        "peak_allocated_bytes": rec.phase_peaks[peak_phase],
        "peak_phase": peak_phase,
        "phase_peaks": dict(rec.phase_peaks),
        "phase_peaks_per_step": rec.phase_peak_steps,
        "breakdown_at_peak": breakdowns[peak_phase],
        "breakdown_at_phase_peaks": breakdowns,
        "boundaries": rec.boundaries,
        "kv_cache_bytes": None,
        "n_params": info["n_params"],
        "sdpa_calls": dict(sorted(t.sdpa_calls.items())),
        "gc_freed_bytes_at_boundaries": rec.gc_freed,
    }
    if case.kind == "train":
        measured["n_trainable_params"] = info["n_trainable_params"]
        if info.get("lora_modules"):
            measured["lora_modules"] = info["lora_modules"]
    else:
        measured["kv_cache_bytes_after_prefill"] = info["kv_cache_bytes_after_prefill"]
        measured["kv_cache_seq_len"] = info["kv_cache_seq_len"]
    if device == "cuda":
        # on a GPU the allocator's own statistics are the ground truth; the storage tracker's numbers are kept
        measured["cuda"] = rec.cuda_peaks
        measured["tracked_peak_allocated_bytes"] = measured["peak_allocated_bytes"]
        measured["tracked_peak_phase"] = peak_phase
        cuda_phase = max(rec.cuda_peaks, key=lambda k: rec.cuda_peaks[k]["max_memory_allocated"])
        measured["peak_allocated_bytes"] = rec.cuda_peaks[cuda_phase]["max_memory_allocated"]
        measured["peak_phase"] = cuda_phase
        measured["peak_reserved_bytes"] = max(v["max_memory_reserved"] for v in rec.cuda_peaks.values())
        measured.update(cuda_footprint(measured["peak_reserved_bytes"]))
    if raw_is_moe(case):
        settings["experts_implementation"] = info.get("experts_implementation")
    raw = case.model_config or PRESETS[case.preset]
    return {
        "id": case.slug() + ("" if device == "fake" else f"@{device}"),
        "kind": case.kind,
        "model": {"name": case.preset, "config": raw},
        "settings": settings,
        "measured": measured,
        "provenance": {**_versions(), "device": dev_desc, "mode": "fake" if device == "fake" else "real",
                       "date": _dt.date.today().isoformat(),
                       "command": _command_for(case, device),
                       "adjustments": common_adj + adjustments,
                       "allocator_rounding_bytes": ROUND},
    }


def cuda_footprint(peak_reserved_bytes: int) -> dict[str, int]:
    """What the process holds on the GPU beyond the allocator, read now: context, usable total, peak footprint.

    ``non_torch_bytes = (total - free) - memory_reserved()`` (CUDA context, loaded kernels,
    library handles); ``process_peak_bytes = peak_reserved_bytes + non_torch_bytes`` is what
    the calculators' ``total_bytes`` estimates.
    """
    import torch
    free, total = torch.cuda.mem_get_info()
    non_torch = (total - free) - torch.cuda.memory_reserved()
    return {"usable_bytes": int(total), "non_torch_bytes": int(non_torch),
            "process_peak_bytes": int(peak_reserved_bytes + non_torch)}


def is_out_of_memory(error: BaseException) -> bool:
    """True for PyTorch's CUDA out-of-memory error (checked by name: importing torch is not needed)."""
    return type(error).__name__ in ("OutOfMemoryError", "OutOfMemoryException") or (
        isinstance(error, RuntimeError) and "out of memory" in str(error).lower())


def out_of_memory_record(case: Case, device: str, error: BaseException) -> dict[str, Any]:
    """The record of a case that ran out of memory: an outcome, with the error and the device's usable total."""
    measured: dict[str, Any] = {"out_of_memory": True, "error": f"{type(error).__name__}: {error}"[:2000]}
    if device == "cuda":
        import torch
        gc.collect()
        torch.cuda.empty_cache()
        measured["usable_bytes"] = int(torch.cuda.mem_get_info()[1])
    return {
        "id": case.slug() + ("" if device == "fake" else f"@{device}"),
        "kind": case.kind,
        "model": {"name": case.preset, "config": case.model_config or PRESETS[case.preset]},
        "settings": {"batch": case.batch, "seq": case.seq, "context": case.context},
        "measured": measured,
        "provenance": {**_versions(), "device": device, "mode": "real", "date": _dt.date.today().isoformat(),
                       "command": _command_for(case, device)},
    }


def run_case_or_oom(case: Case, device: str) -> dict[str, Any]:
    """:func:`run_case`, with an out-of-memory error recorded as the outcome instead of raised."""
    try:
        return run_case(case, device)
    except Exception as error:  # noqa: BLE001 - only out-of-memory is turned into a record
        if not is_out_of_memory(error):
            raise
        return out_of_memory_record(case, device, error)
    finally:
        if device == "cuda":  # as between the committed real-GPU runs: start each case with an empty cache
            import torch
            gc.collect()
            torch.cuda.empty_cache()


def largest_that_runs(runs: Any, limit: int = 1 << 16) -> tuple[int, list[tuple[int, bool]]]:
    """The largest n in [1, limit] for which ``runs(n)`` is True, assuming larger n never runs
    where a smaller one does not; 0 if ``runs(1)`` is False. Doubles, then bisects (the search
    of :func:`calculators.memory.inference.largest_fitting`).

    Returns the answer and every trial as ``(n, ran)``.

    >>> largest_that_runs(lambda n: n <= 39)[0]
    39
    """
    from calculators.memory.inference import largest_fitting

    trials: list[tuple[int, bool]] = []

    def trial(n: int) -> bool:
        ran = bool(runs(n))
        trials.append((n, ran))
        return ran

    return largest_fitting(trial, limit), trials


def search_batch(case: Case, device: str) -> dict[str, Any]:
    """Every trial of :func:`largest_that_runs` over the batch of ``case``, and the answer."""
    records: dict[int, dict[str, Any]] = {}

    def runs(batch: int) -> bool:
        trial_case = dataclasses.replace(case, batch=batch)
        records[batch] = run_case_or_oom(trial_case, device)
        print(f"batch {batch}: {'out of memory' if records[batch]['measured'].get('out_of_memory') else 'ran'}",
              file=sys.stderr, flush=True)
        return not records[batch]["measured"].get("out_of_memory")

    largest, trials = largest_that_runs(runs)
    return {"id": dataclasses.replace(case, batch=largest or case.batch).slug() + f"@{device}-search",
            "kind": "batch-search", "largest_batch_that_ran": largest, "trials": [list(t) for t in trials],
            "runs": [records[n] for n, _ in trials], "command": _command_for(case, device) + " --search-batch"}


def raw_is_moe(case: Case) -> bool:
    raw = case.model_config or PRESETS[case.preset]
    return any(k in raw for k in ("num_local_experts", "num_experts", "n_routed_experts"))


def _command_for(case: Case, device: str) -> str:
    parts = ["python", "scripts/measure_memory.py", "--preset", case.preset, "--kind", case.kind,
             "--device", device]
    if case.kind == "train":
        parts += ["--method", case.method, "--precision", case.precision, "--optimizer", case.optimizer,
                  "--batch", str(case.batch), "--seq", str(case.seq), "--attention", case.attention,
                  "--steps", str(case.steps)]
        if case.grad_checkpointing:
            parts.append("--grad-checkpointing")
        if case.method != "full":
            parts += ["--lora-rank", str(case.lora_rank), "--lora-targets", ",".join(case.lora_targets),
                      "--weights", case.weights]
    else:
        parts += ["--weights", case.weights, "--batch", str(case.batch), "--context", str(case.context),
                  "--new-tokens", str(case.new_tokens), "--attention", case.attention]
    return " ".join(shlex.quote(p) for p in parts)


def run_case(case: Case, device: str = "fake") -> dict[str, Any]:
    # gc.collect() runs at every phase boundary; freezing the (huge, long-lived) heap of torch/transformers
    # objects first makes those collections cheap without changing what they free.
    gc.collect()
    gc.freeze()
    if case.kind == "train":
        return run_train(case, device)
    return run_infer(case, device)


# --------------------------------------------------------------------------------------
# Grid
# --------------------------------------------------------------------------------------

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
    g["all"] = [c for k in ("smoke", "small", "full-ft", "lora", "infer", "large", "2025") for c in g[k]]
    return g


GRIDS = _grid()


# --------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------

def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, indent=1, sort_keys=True) + "\n"


def _safe_name(slug: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@-]+", "-", slug) + ".json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grid", help=f"run a named grid: {', '.join(GRIDS)}")
    ap.add_argument("--list", action="store_true", help="list the cases of --grid and exit")
    ap.add_argument("--out", type=Path, help="directory to write one JSON file per case")
    ap.add_argument("--model-config", type=Path, help="HF config.json to build the model from")
    ap.add_argument("--preset", choices=sorted(PRESETS), help="built-in model config")
    ap.add_argument("--kind", choices=("train", "infer"), default="train")
    ap.add_argument("--method", choices=("full", "lora", "qlora"), default="full")
    ap.add_argument("--precision", choices=("fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp16"),
                    default="bf16-mixed")
    ap.add_argument("--optimizer", choices=("adamw", "adamw-fused", "sgd", "adafactor", "adamw-8bit"),
                    default="adamw")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--grad-checkpointing", action="store_true")
    ap.add_argument("--attention", choices=("sdpa", "eager"), default="sdpa")
    ap.add_argument("--lora-rank", type=int, default=16)
    ap.add_argument("--lora-targets", default="q,v")
    ap.add_argument("--weights", choices=("bf16", "fp16", "fp32"), default="bf16")
    ap.add_argument("--kv-cache", choices=("bf16", "fp16", "fp32"), default=None)
    ap.add_argument("--context", type=int, default=1024)
    ap.add_argument("--new-tokens", type=int, default=16)
    ap.add_argument("--device", choices=("fake", "cpu", "cuda"), default="fake")
    ap.add_argument("--json", action="store_true", help="print the record(s) as JSON on stdout")
    ap.add_argument("--match", help="with --grid: only cases whose id contains this regex")
    ap.add_argument("--jobs", type=int, default=1, help="run grid cases in this many processes")
    ap.add_argument("--search-batch", action="store_true",
                    help="one case: find the largest batch that runs (doubling, then bisecting); OOM is an outcome")
    a = ap.parse_args(argv)

    if a.grid:
        if a.grid not in GRIDS:
            ap.error(f"unknown grid {a.grid}; choose from {', '.join(GRIDS)}")
        cases = GRIDS[a.grid]
        if a.match:
            cases = [c for c in cases if re.search(a.match, c.slug())]
    else:
        if not (a.preset or a.model_config):
            ap.error("give --grid, --preset or --model-config")
        raw = None
        name = a.preset
        if a.model_config:
            raw = json.loads(a.model_config.read_text())
            name = a.preset or a.model_config.stem
        cases = [Case(name, a.kind, method=a.method, precision=a.precision, optimizer=a.optimizer,
                      batch=a.batch, seq=a.seq, grad_checkpointing=a.grad_checkpointing,
                      attention=a.attention, lora_rank=a.lora_rank,
                      lora_targets=tuple(x.strip() for x in a.lora_targets.split(",") if x.strip()),
                      weights=a.weights, kv_cache=a.kv_cache, context=a.context,
                      new_tokens=a.new_tokens, steps=a.steps, model_config=raw)]
    if a.list:
        for c in cases:
            print(c.slug())
        return 0
    if a.out:
        a.out.mkdir(parents=True, exist_ok=True)
    if a.search_batch:
        if len(cases) != 1:
            ap.error("--search-batch takes exactly one case (not a grid)")
        result = search_batch(cases[0], a.device)
        print(f"largest batch that ran: {result['largest_batch_that_ran']}", file=sys.stderr)
        if a.out:
            (a.out / _safe_name(result["id"])).write_text(_dump(result))
        if a.json:
            sys.stdout.write(_dump(result))
        return 0
    status = 0
    t_all = time.time()
    if a.grid and a.jobs > 1:
        import concurrent.futures as cf
        import multiprocessing as mp
        with cf.ProcessPoolExecutor(a.jobs, mp_context=mp.get_context("spawn")) as ex:
            results = ex.map(_run_logged, cases, itertools.repeat(a.device))
            for c, (rec, msg, dt) in zip(cases, results):
                status |= _report(c, rec, msg, dt, a)
    else:
        for c in cases:
            if not a.grid:
                try:
                    rec = run_case_or_oom(c, a.device)
                except NotMeasurable as e:
                    print(f"SKIP {c.slug()}: not measurable here: {e}", file=sys.stderr)
                    continue
                status |= _report(c, rec, None, 0.0, a)
                continue
            rec, msg, dt = _run_logged(c, a.device)
            status |= _report(c, rec, msg, dt, a)
    print(f"total {time.time() - t_all:.1f}s", file=sys.stderr)
    return status


def _run_logged(case: Case, device: str) -> tuple[dict[str, Any] | None, str | None, float]:
    t0 = time.time()
    try:
        return run_case_or_oom(case, device), None, time.time() - t0
    except NotMeasurable as e:
        return None, f"SKIP {case.slug()}: not measurable here: {e}", time.time() - t0
    except Exception as e:  # keep going through a grid
        return None, f"FAIL {case.slug()}: {type(e).__name__}: {e}", time.time() - t0


def _report(case: Case, rec: dict[str, Any] | None, msg: str | None, dt: float, a: argparse.Namespace) -> int:
    if rec is None:
        print(msg, file=sys.stderr)
        return 1 if msg and msg.startswith("FAIL") else 0
    m = rec["measured"]
    if m.get("out_of_memory"):
        print(f"{dt:6.1f}s {rec['id']}: out of memory (recorded)", file=sys.stderr, flush=True)
    else:
        print(f"{dt:6.1f}s {rec['id']}: peak {m['peak_allocated_bytes'] / 2**30:.3f} GiB in {m['peak_phase']}",
              file=sys.stderr, flush=True)
    if a.out:
        (a.out / _safe_name(rec["id"])).write_text(_dump(rec))
    if a.json:
        sys.stdout.write(_dump(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
