"""Settings of one training job, checked: method, precision, batch, sequence, LoRA, ZeRO.

:meth:`TrainingSetup.of` (and its alias :func:`training_setup`) validates every keyword that :func:`calculators.memory.training.training_memory`
accepts and returns a frozen :class:`TrainingSetup`; the accepted values and upper bounds are
module constants so that the CLI, widgets and other calculators share them.

>>> setup = training_setup(method="qlora", precision="bf16", batch=4, seq=1024)
>>> setup.base_dtype.value, setup.tokens
('nf4', 4096)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from calculators.dtypes import DType
from calculators.errors import InputError
from calculators.memory.activations import LORA_TARGETS
from calculators.memory.kernels import DEVICES
from calculators.memory.optimizers import OPTIMIZERS
from calculators.memory.overhead import ALLOCATORS
from calculators.memory.qlora_kernels import DEFAULT_QLORA_WEIGHTS, get_qlora_kernel
from calculators.validate import flag, one_of, positive_int, settings_signature

METHODS = ("full", "lora", "qlora")
PRECISIONS = ("fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp16")
#: Precisions whose trainable weights (and so their gradients and residual stream) are fp32: fp32 itself and
#: autocast over fp32 master weights; pure bf16 and fp16 keep 16-bit weights.
FP32_WEIGHT_PRECISIONS = ("fp32", "bf16-mixed", "fp16-mixed")
ATTENTIONS = ("sdpa", "flash", "eager")
BASE_DTYPES = ("bf16", "fp16", "fp32", "nf4")
ZERO_STAGES = (0, 1, 2, 3)

MAX_BATCH = 1 << 16
MAX_SEQ = 1 << 22
MAX_RANK = 1 << 14
MAX_GPUS = 1 << 16
DEFAULT_LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")  # "all-linear"
#: The keywords :meth:`TrainingSetup.of` takes and their defaults (``base_dtype`` None: follows method and precision).
SETUP_DEFAULTS: dict[str, Any] = {
    "method": "full", "precision": "bf16-mixed", "base_dtype": None, "optimizer": "adamw", "batch": 1, "seq": 2048,
    "grad_checkpointing": False, "attention": "sdpa", "lora_rank": 16, "lora_targets": DEFAULT_LORA_TARGETS,
    "grad_accumulation": 1, "gpus": 1, "zero": 0, "device": "cuda", "allocator": "default",
    "qlora_weights": DEFAULT_QLORA_WEIGHTS,
}


@dataclass(frozen=True)
class TrainingSetup:
    """Validated settings of one training step (see :func:`training_memory`)."""

    method: str
    precision: str
    base_dtype: DType
    optimizer: str
    batch: int
    seq: int
    grad_checkpointing: bool
    attention: str
    lora_rank: int
    lora_targets: tuple[str, ...]
    grad_accumulation: int
    gpus: int
    zero: int
    device: str = "cuda"
    allocator: str = "default"
    qlora_weights: str = DEFAULT_QLORA_WEIGHTS

    @classmethod
    def of(cls, **raw: Any) -> TrainingSetup:
        """Check every training-step input once and return them as a :class:`TrainingSetup`.

        Keywords and defaults: :data:`SETUP_DEFAULTS` (method ``"full"``, precision ``"bf16-mixed"``, base dtype
        following the method and precision, optimizer ``"adamw"``, batch 1, seq 2048, LoRA rank 16 on every
        projection, one GPU, ZeRO 0, CUDA, the default allocator, QLoRA base ``"nf4"``).

        >>> TrainingSetup.of(method="qlora", batch=2, seq=512).base_dtype.value
        'nf4'
        >>> TrainingSetup.of(batch=0)
        Traceback (most recent call last):
        ...
        calculators.errors.InputError: batch: got 0; expected an integer from 1 to 65536
        >>> TrainingSetup.of(sequence=512)
        Traceback (most recent call last):
        ...
        calculators.errors.InputError: sequence: got 512; expected a training-step setting: method, precision, ...

        Raises:
            InputError: naming the field and the accepted range (an unknown keyword too).
        """
        for key in raw:
            if key not in SETUP_DEFAULTS:
                raise InputError(key, raw[key], f"a training-step setting: {', '.join(SETUP_DEFAULTS)}")
        values = {**SETUP_DEFAULTS, **raw}
        method: str = values["method"]
        precision: str = values["precision"]
        base_dtype: str | None = values["base_dtype"]
        optimizer: str = values["optimizer"]
        attention: str = values["attention"]
        method = one_of("method", method, METHODS)
        precision = one_of("precision", precision, PRECISIONS)
        optimizer = one_of("optimizer", optimizer, list(OPTIMIZERS))
        attention = one_of("attention", attention, ATTENTIONS)
        if attention == "flash":
            attention = "sdpa"
        if base_dtype is None:
            base = {"full": None, "lora": None, "qlora": DType.NF4}[method]
            if base is None:
                base = DType.FP32 if precision in FP32_WEIGHT_PRECISIONS and method == "full" else (
                    DType.FP16 if precision.startswith("fp16") else DType.BF16)
                if method == "lora" and precision == "fp32":
                    base = DType.FP32
        else:
            base = DType.parse(one_of("base_dtype", base_dtype, BASE_DTYPES), "base_dtype")
        if method == "qlora" and base is not DType.NF4:
            raise InputError("base_dtype", base.value, "nf4 for method qlora (use method lora for a 16-bit base)")
        if method != "qlora" and base is DType.NF4:
            raise InputError("base_dtype", base.value, "bf16, fp16 or fp32 (nf4 needs method qlora)")
        if method == "full" and base_dtype is not None:
            expected = DType.FP32 if precision in FP32_WEIGHT_PRECISIONS else DType.parse(precision)
            if base is not expected:
                raise InputError("base_dtype", base.value, f"{expected.value} for full fine-tuning at precision "
                                 f"{precision} (it follows the precision)")
        targets = lora_target_names(values["lora_targets"])
        zero_stage = positive_int("zero", values["zero"], maximum=3, minimum=0)
        gpu_count = positive_int("gpus", values["gpus"], maximum=MAX_GPUS)
        return cls(
            method=method,
            precision=precision,
            base_dtype=base,
            optimizer=optimizer,
            batch=positive_int("batch", values["batch"], maximum=MAX_BATCH),
            seq=positive_int("seq", values["seq"], maximum=MAX_SEQ),
            grad_checkpointing=flag("grad_checkpointing", values["grad_checkpointing"]),
            attention=attention,
            lora_rank=positive_int("lora_rank", values["lora_rank"], maximum=MAX_RANK),
            lora_targets=targets if method != "full" else (),
            grad_accumulation=positive_int("grad_accumulation", values["grad_accumulation"], maximum=1 << 20),
            gpus=gpu_count,
            zero=zero_stage,
            device=one_of("device", values["device"], DEVICES),
            allocator=one_of("allocator", values["allocator"], ALLOCATORS),
            qlora_weights=get_qlora_kernel(values["qlora_weights"]).id,  # checked whether the method uses it or not
        )

    @property
    def base_format(self) -> str:
        """The frozen base's storage format id: ``qlora_weights`` under QLoRA, else :attr:`base_dtype`."""
        return self.qlora_weights if self.method == "qlora" else self.base_dtype.value

    @property
    def tokens(self) -> int:
        """Tokens per micro-batch per GPU: batch x seq."""
        return self.batch * self.seq

    @property
    def weight_bytes(self) -> int:
        """Bytes per trainable weight of full training, and per element of its gradient: 4 under
        :data:`FP32_WEIGHT_PRECISIONS`, else 2."""
        return 4 if self.precision in FP32_WEIGHT_PRECISIONS else 2

    @property
    def mixed(self) -> bool:
        """True when autocast runs matmuls in 16-bit over fp32 trainable weights."""
        return self.precision.endswith("-mixed")

    @property
    def compute_bytes(self) -> int:
        """Bytes per element of matmul activations."""
        return 4 if self.precision == "fp32" else 2


def lora_target_names(lora_targets: Iterable[str] | str) -> tuple[str, ...]:
    """The projections LoRA adapts, checked, in :data:`~calculators.memory.activations.LORA_TARGETS` order.

    Accepts a comma-separated string or a collection of short names (``q``, ``gate``), PEFT module names
    (``q_proj``) or ``all-linear``; refuses an unknown name and an empty list, for every method (issue #17).

    >>> lora_target_names("v_proj, q")
    ('q', 'v')
    """
    if not isinstance(lora_targets, (str, list, tuple, set, frozenset)):
        raise InputError("lora_targets", lora_targets, f"comma-separated names from {', '.join(LORA_TARGETS)}")
    if isinstance(lora_targets, str):
        lora_targets = [t for t in lora_targets.replace(" ", "").split(",") if t]
    targets = tuple(dict.fromkeys(str(t).strip() for t in lora_targets))
    aliases = {"q_proj": "q", "k_proj": "k", "v_proj": "v", "o_proj": "o", "gate_proj": "gate",
               "up_proj": "up", "down_proj": "down"}
    targets = tuple(dict.fromkeys(aliases.get(t, t) for t in targets))
    if targets == ("all-linear",):
        targets = DEFAULT_LORA_TARGETS
    for target in targets:
        one_of("lora_targets", target, (*LORA_TARGETS, "all-linear"))
    if not targets:
        raise InputError("lora_targets", "", f"at least one of {', '.join(LORA_TARGETS)}")
    return tuple(t for t in LORA_TARGETS if t in targets)


@settings_signature(SETUP_DEFAULTS, records=(TrainingSetup,),
                    types={"base_dtype": "str | None", "lora_targets": "str | tuple[str, ...]"})
def training_setup(**raw: Any) -> TrainingSetup:
    """The checked settings of one training step: :meth:`TrainingSetup.of`; its signature lists
    :data:`SETUP_DEFAULTS`, which the CLI and the forms read (:func:`calculators.validate.default_of`).

    >>> training_setup(method="lora", lora_targets="q_proj,v_proj").lora_targets
    ('q', 'v')
    """
    return TrainingSetup.of(**raw)
