"""Checkpoint size on disk, bytes, and the time to read one back from a storage class.

A training checkpoint that can resume a run holds the trainable weights in the dtype the
optimizer updates (fp32 master weights for mixed precision and fp32, 16-bit for a pure
16-bit model, the fp32 adapters alone for LoRA and QLoRA) and the optimizer state of those
weights. Gradients and activations are not saved. The file a server loads is the model in
16 bits (or the adapters beside an unchanged base).

Formula: ``checkpoint = trainable x (p + optimizer state per param)``, ``p`` = bytes per
trainable weight; read time = bytes / sequential read rate (a bound: a best-case rate).

Assumptions: no compression, no sharding overhead; the RNG and data-loader state of a
resumable checkpoint are a few kilobytes and are left out.

>>> from calculators.catalog.models import get_model
>>> size = checkpoint_bytes(get_model("llama-3-8b"), method="full", precision="bf16-mixed")
>>> round(size.weights_bytes / 1e9, 1), round(size.optimizer_bytes / 1e9, 1), round(size.total_bytes / 1e9, 1)
(32.1, 64.2, 96.4)
>>> round(read_seconds(size.total_bytes, storage="nvme-gen4"), 1)
12.9

References:
    docs page "System balance" (section "Checkpoints on disk"); PyTorch, "Saving and loading a
    general checkpoint" (model and optimizer ``state_dict``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from calculators.catalog.storage import get_storage
from calculators.memory.lora import lora_parameters
from calculators.memory.optimizers import optimizer_bytes
from calculators.memory.training_inputs import DEFAULT_LORA_TARGETS, METHODS, PRECISIONS
from calculators.model import ModelSpec
from calculators.validate import model_spec, one_of, positive_int

#: Largest checkpoint the read-time function accepts, bytes (100 PB: far beyond any model).
MAX_CHECKPOINT_BYTES = 10**17


@dataclass(frozen=True)
class CheckpointSize:
    """Bytes of a resumable checkpoint, split into weights and optimizer state, and of the served model.

    Attributes:
        trainable_parameters: parameters the optimizer updates (all, or the adapters).
        weights_bytes: the trainable weights as the optimizer keeps them.
        optimizer_bytes: the optimizer's state for those weights.
        serving_bytes: the model a server loads: every parameter in 16 bits (full), or the
            adapters alone in 16 bits (LoRA, QLoRA; the base is the published one).
    """

    trainable_parameters: int
    weights_bytes: int
    optimizer_bytes: int
    serving_bytes: int

    @property
    def total_bytes(self) -> int:
        """Weights + optimizer state: what resuming the run reads back."""
        return self.weights_bytes + self.optimizer_bytes


def checkpoint_bytes(spec: ModelSpec, *, method: str = "full", precision: str = "bf16-mixed",
                     optimizer: str = "adamw", lora_rank: int = 16,
                     lora_targets: Iterable[str] = DEFAULT_LORA_TARGETS) -> CheckpointSize:
    """Bytes of a resumable training checkpoint and of the model a server loads.

    Formula: ``trainable x (p + state(p))`` with ``p`` = 4 for fp32 master weights (fp32,
    bf16-mixed, fp16-mixed) and for LoRA adapters, 2 for pure bf16/fp16; ``state`` from
    :func:`calculators.memory.optimizers.optimizer_bytes` (AdamW: ``2 p``).

    Args:
        spec: model shapes (:func:`calculators.catalog.models.get_model`).
        method: ``"full"``, ``"lora"`` or ``"qlora"``.
        precision: one of ``fp32``, ``bf16-mixed``, ``fp16-mixed``, ``bf16``, ``fp16``.
        optimizer: an optimizer name of :mod:`calculators.memory.optimizers`.
        lora_rank: adapter rank (LoRA, QLoRA).
        lora_targets: adapted linears (LoRA, QLoRA).

    Returns:
        A :class:`CheckpointSize`.

    >>> from calculators.catalog.models import get_model
    >>> lora = checkpoint_bytes(get_model("llama-3-8b"), method="lora")
    >>> lora.trainable_parameters, round(lora.total_bytes / 1e6)  # rank 16 on every linear: 42M x 12 B
    (41943040, 503)
    """
    spec = model_spec("spec", spec)
    method = one_of("method", method, METHODS)
    precision = one_of("precision", precision, PRECISIONS)
    if method == "full":
        trainable = spec.parameters
        param_bytes = 2 if precision in ("bf16", "fp16") else 4
        serving = 2 * spec.parameters
    else:
        trainable = lora_parameters(spec, rank=positive_int("lora_rank", lora_rank, maximum=4096),
                                    targets=tuple(lora_targets))
        param_bytes = 4  # PEFT keeps adapters in fp32 under autocast
        serving = 2 * trainable
    state = optimizer_bytes(optimizer=optimizer, param_bytes=param_bytes).state_bytes_per_param
    return CheckpointSize(trainable_parameters=trainable, weights_bytes=trainable * param_bytes,
                          optimizer_bytes=round(trainable * state), serving_bytes=serving)


def read_seconds(size_bytes: int, *, storage: str) -> float:
    """Seconds to read ``size_bytes`` at a storage class's rated sequential read: a lower bound.

    Formula: ``size_bytes / sequential_read_bytes_per_s``.

    >>> round(read_seconds(16 * 10**9, storage="hdd"))  # a 16 GB model from one hard drive
    60
    """
    size = positive_int("size_bytes", size_bytes, maximum=MAX_CHECKPOINT_BYTES)
    return size / get_storage(storage).sequential_read_bytes_per_s
