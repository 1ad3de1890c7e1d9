"""The rules of thumb that guides quote for GPU memory, as functions we can score.

Each rule turns one number (parameters, or the bytes of the weights) into a memory
figure in bytes. None of them looks at batch size, sequence length, attention kernel or
KV cache, which is why the "How accurate?" page scores them next to the calculator in
:mod:`calculators.memory` and the peer estimators (see :mod:`calculators.peers`).

The rules, and where the seed guides in ``shared/sources/`` state them:

* **16 bytes per parameter** for full fine-tuning with Adam in mixed precision
  (``hardware-for-ml-practitioners-2026.txt``, "Training Memory Lower Bound": 16-bit
  weights and gradients plus an fp32 master copy and two fp32 Adam moments, i.e.
  2 + 2 + 4 + 4 + 4; the same page restates it as about eight times the fp16 model
  size). This is the model-state count of the ZeRO paper (Rajbhandari et al. 2020, §3.1).
* **18 bytes per parameter** for FP16 training with Adam
  (``lyceum-gpu-selection-inference-vs-training-2026.txt``, "Standard VRAM Calculations":
  parameters times about 18 bytes, a 7B model needing roughly 126 GB).
* **LoRA = base weights + 10 % to 20 %** (same Lyceum guide and section: the base
  model's memory plus a tenth to a fifth on top for the adapters).
* **Inference = weights x 1.2**. Not in the five seed guides (Lyceum gives only
  parameters x 2 bytes for FP16 and adds the KV cache separately); it is the "add up to
  20 % for inference" note of Hugging Face's ``hf-accelerate/model-memory-usage`` Space,
  which credits EleutherAI's "Transformer Math 101" (https://blog.eleuther.ai/transformer-math/).

>>> bytes_per_param_rule(7_000_000_000, bytes_per_param=16) / 1e9  # 7B x 16 B
112.0
>>> record = {"id": "demo", "kind": "infer",
...     "model": {"name": "tiny", "config": {"model_type": "llama", "hidden_size": 64,
...         "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
...         "vocab_size": 100}},
...     "settings": {"weights": "bf16", "kv_cache": "bf16", "batch": 1, "context": 16}}
>>> rules = rule_estimates(record)
>>> rules["inference: weights x 1.2"], rules["full FT: 16 B/param"]
(228096, None)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.dtypes import DType
from calculators.memory.weights import weight_bytes as _weight_bytes
from calculators.model_config import spec_from_config

RULE_16 = "full FT: 16 B/param"
RULE_18 = "full FT: 18 B/param"
RULE_LORA_10 = "LoRA: weights + 10 %"
RULE_LORA_20 = "LoRA: weights + 20 %"
RULE_INFER = "inference: weights x 1.2"

#: Every rule :func:`rule_estimates` returns, in display order.
RULE_NAMES: tuple[str, ...] = (RULE_16, RULE_18, RULE_LORA_10, RULE_LORA_20, RULE_INFER)

#: Optimizers the bytes-per-parameter rules are stated for (Adam with two fp32 moments).
ADAM_OPTIMIZERS: tuple[str, ...] = ("adam", "adamw", "adamw-fused")


def bytes_per_param_rule(parameters: int, *, bytes_per_param: float) -> int:
    """Memory of full fine-tuning in bytes by the "N bytes per parameter" rule.

    Formula: ``parameters x bytes_per_param``. The guides use 16 (2 B 16-bit weights +
    2 B 16-bit gradients + 4 B fp32 master weights + 8 B two fp32 Adam moments) or 18
    (the same with 4 B fp32 gradients instead of 2 B). Activations, the logits and the
    optimizer step's temporaries are not in the rule.

    Args:
        parameters: parameter count of the model.
        bytes_per_param: bytes the rule charges per parameter (16 or 18).

    Returns:
        Bytes, rounded to the nearest integer.

    >>> bytes_per_param_rule(7_000_000_000, bytes_per_param=18) / 1e9  # 126 GB
    126.0
    """
    return int(round(parameters * bytes_per_param))


def lora_rule(weight_bytes: int, *, overhead_fraction: float) -> int:
    """Memory of LoRA fine-tuning in bytes by the "base weights plus a margin" rule.

    Formula: ``weight_bytes x (1 + overhead_fraction)``; the guides use 0.10 to 0.20. The
    margin is meant to cover the adapters, their gradients and Adam state, and the
    activations, whatever the batch and sequence length.

    Args:
        weight_bytes: bytes of the frozen base weights in their storage format.
        overhead_fraction: margin on top of the weights (0.1 for +10 %).

    Returns:
        Bytes, rounded to the nearest integer.

    >>> lora_rule(16_000_000_000, overhead_fraction=0.2) / 1e9  # 16 GB + 20 %
    19.2
    """
    return int(round(weight_bytes * (1.0 + overhead_fraction)))


def inference_rule(weight_bytes: int, *, factor: float = 1.2) -> int:
    """Memory of serving a model in bytes by the "weights x 1.2" rule.

    Formula: ``weight_bytes x factor``. The 20 % is meant to cover the KV cache and the
    forward pass's temporaries, whatever the batch and context.

    Args:
        weight_bytes: bytes of the weights in their storage format.
        factor: multiplier on the weights (1.2 in the rule).

    Returns:
        Bytes, rounded to the nearest integer.

    >>> inference_rule(14_000_000_000) / 1e9  # 7B in bf16: 14 GB -> 16.8 GB
    16.8
    """
    return int(round(weight_bytes * factor))


def case_group(record: Mapping[str, Any]) -> str:
    """The kind of case a measurement record is: ``"full"``, ``"lora"``, ``"inference"`` or ``"embedding"``.

    >>> case_group({"kind": "train", "settings": {"method": "qlora"}})
    'lora'
    """
    if record.get("kind") == "infer":
        return "inference"
    if record.get("kind") == "embed":  # an encoder forward: no rule of thumb or peer sizes it
        return "embedding"
    method = record.get("settings", {}).get("method") or "full"
    return "full" if method == "full" else "lora"


def _base_dtype(settings: Mapping[str, Any]) -> DType:
    """Storage format of the frozen base weights of a LoRA/QLoRA case."""
    named = settings.get("base_dtype") or settings.get("weights")
    if named:
        return DType.parse(str(named), "base_dtype")
    if settings.get("method") == "qlora":
        return DType.NF4
    precision = str(settings.get("precision") or "bf16-mixed")
    if precision == "fp32":
        return DType.FP32
    return DType.FP16 if precision.startswith("fp16") else DType.BF16


def rule_estimates(record: Mapping[str, Any]) -> dict[str, int | None]:
    """Every rule of thumb's memory, in bytes, for one measurement record.

    A rule that is not stated for the record's kind of case is ``None``: the
    bytes-per-parameter rules cover full fine-tuning with Adam (any precision, as
    they are quoted), the LoRA rules cover LoRA and QLoRA (weights of the frozen base in
    its format, e.g. NF4 for QLoRA), the inference rule covers inference (weights in
    the served format). Weights come from :func:`calculators.memory.weights.weight_bytes`.

    Args:
        record: a measurement record (``kind``, ``model.config``, ``settings``), as in
            ``tests/data/measurements/``.

    Returns:
        ``{rule name: bytes or None}`` with the keys of :data:`RULE_NAMES`.

    >>> record = {"kind": "train", "model": {"config": {"model_type": "llama",
    ...     "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    ...     "intermediate_size": 128, "vocab_size": 100}},
    ...     "settings": {"method": "full", "precision": "bf16-mixed", "optimizer": "adamw"}}
    >>> rule_estimates(record)[RULE_16]  # 95040 parameters x 16 B
    1520640
    """
    model = record["model"]
    spec = spec_from_config(model["config"], name=model.get("name"))
    settings: Mapping[str, Any] = record.get("settings", {})
    out: dict[str, int | None] = {name: None for name in RULE_NAMES}
    group = case_group(record)
    if group == "full":
        if str(settings.get("optimizer") or "adamw") in ADAM_OPTIMIZERS:
            out[RULE_16] = bytes_per_param_rule(spec.parameters, bytes_per_param=16)
            out[RULE_18] = bytes_per_param_rule(spec.parameters, bytes_per_param=18)
    elif group == "lora":
        base = _weight_bytes(spec, dtype=_base_dtype(settings))
        out[RULE_LORA_10] = lora_rule(base, overhead_fraction=0.10)
        out[RULE_LORA_20] = lora_rule(base, overhead_fraction=0.20)
    else:
        served = _weight_bytes(spec, dtype=str(settings.get("weights") or "bf16"))
        out[RULE_INFER] = inference_rule(served)
    return out
