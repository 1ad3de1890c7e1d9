"""A training run, checked once: the model, its :class:`~calculators.parallel.cluster.Cluster`, one step, and the run.

:meth:`TrainingRun.of` takes what :func:`~calculators.performance.training_time.training_time` takes,
reads the GPU once (through :meth:`Cluster.of <calculators.parallel.cluster.Cluster.of>`), checks every
value, naming the field and its range, and returns a frozen record:

* ``cluster``: the GPUs and their layout (:class:`~calculators.parallel.cluster.Cluster`);
* ``setup``: one training step (:class:`~calculators.memory.training_inputs.TrainingSetup`: method,
  precision, micro-batch, sequence, recomputation, attention, LoRA, the micro-batches per optimizer step);
* the run: ``tokens``, the utilisation (``mfu``, ``None``: fitted), the ``goodput`` (``None``: modelled),
  FP8 matmuls, the training ``framework``, the ``global_batch_tokens`` given, whether to check memory.

The checks that need the model and the GPU together are here too: expert parallelism needs a mixture of
experts, the GPU needs a published dense rate for the precision (or FP8), and runs it
(:func:`calculators.dtype_support.training_notes`: bf16 on a V100 is refused). The engine
(:func:`~calculators.performance.training_time.training_run_time`) trusts the record.

>>> from calculators.catalog.models import get_model
>>> run = TrainingRun.of(spec=get_model("llama-3-70b"), gpu="h100-sxm", tokens=2 * 10**12, gpus=1024,
...                      tensor_parallel=4, pipeline_parallel=4, seq=8192, global_batch_tokens=16 * 10**6)
>>> run.cluster.data_parallel, run.setup.grad_accumulation, run.micro_batch_tokens
(64, 31, 8192)
>>> TrainingRun.of(spec=get_model("llama-3-8b"), gpu="h100-sxm", tokens=10**9, goodput=1.5)
Traceback (most recent call last):
...
calculators.errors.InputError: goodput: got 1.5; expected a number from 1e-09 to 1
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.attention_kernels import get_attention_kernel
from calculators.catalog.training_frameworks import DEFAULT_FRAMEWORK, get_training_framework
from calculators.dtype_support import training_notes
from calculators.dtypes import DType
from calculators.errors import InputError
from calculators.memory.qlora_kernels import DEFAULT_QLORA_WEIGHTS
from calculators.memory.training_inputs import DEFAULT_LORA_TARGETS, MAX_BATCH, TrainingSetup, lora_target_names
from calculators.model import ModelSpec
from calculators.model_flops import selective_recompute_flops
from calculators.parallel.cluster import CLUSTER_DEFAULTS, Cluster
from calculators.performance.flops import compute_rate_flop_per_s
from calculators.validate import finite_float, flag, model_spec, positive_int

MAX_TOKENS = 10**16  # 10 quadrillion: 600 x the largest published pre-training run

#: The keywords :meth:`TrainingRun.of` takes besides ``spec``, ``gpu`` and :data:`CLUSTER_DEFAULTS`, with
#: their defaults (``tokens`` has none).
RUN_DEFAULTS: dict[str, Any] = {
    "tokens": None, "mfu": None, "precision": "bf16-mixed", "grad_checkpointing": False, "seq": 2048,
    "method": "full", "lora_rank": 16, "lora_targets": DEFAULT_LORA_TARGETS, "batch": 1, "grad_accumulation": 1,
    "global_batch_tokens": None, "fp8": False, "goodput": None, "framework": DEFAULT_FRAMEWORK, "attention": "sdpa",
    "qlora_weights": DEFAULT_QLORA_WEIGHTS, "check_memory": True, "expert_overlap": False,
    "selective_recompute": "none", "attention_kernel": "auto", "fused_kernels": False,
}


def precision_dtype(precision: str) -> DType:
    """The dtype whose dense rate a precision's matmuls run at: fp32, else bf16 or fp16.

    >>> precision_dtype("fp16-mixed").value
    'fp16'
    """
    return DType.FP32 if precision == "fp32" else DType.BF16 if precision.startswith("bf16") else DType.FP16


@dataclass(frozen=True)
class TrainingRun:
    """A checked training run (module docstring).

    Attributes:
        spec: model shapes.
        cluster: the GPUs and their layout.
        setup: one training step on one GPU; its ``grad_accumulation`` is the micro-batches per optimizer step
            on each replica (from ``global_batch_tokens`` when that was given), its ``gpus`` and ``zero`` the
            cluster's, for the memory model.
        tokens: training tokens of the whole run.
        lora_targets: the projections LoRA would adapt, checked for every method (``setup.lora_targets`` is
            empty for full training).
        mfu: the utilisation given, in (0, 1]; ``None``: fitted.
        goodput: the goodput given, in (0, 1]; ``None``: modelled.
        fp8: matmuls at the FP8 rate.
        framework: training framework id (:mod:`calculators.catalog.training_frameworks`).
        global_batch_tokens: tokens per optimizer step as given (``None``: not given).
        check_memory: compute the per-GPU memory verdict.
        expert_overlap: the expert-parallel all-to-alls overlap an adjacent micro-batch's compute (Megatron-Core's
            combined 1F1B, ``--overlap-moe-expert-parallel-comm``;
            :func:`~calculators.performance.expert_parallel.exposed_all_to_all_s`); needs expert parallelism.
        selective_recompute: the selective recomputation policy whose FLOPs the step runs again
            (:data:`~calculators.model_flops.SELECTIVE_RECOMPUTES`: torchtitan's op or layer policy; ``"none"``);
            needs no full recomputation.
        attention_kernel: the fused attention kernel whose efficiency times the attention products
            (:data:`~calculators.catalog.attention_kernels.ATTENTION_KERNELS`; ``"auto"``: the framework's).
        fused_kernels: the run's elementwise operations are fused (``torch.compile``, or layers on fused kernels such
            as Transformer Engine's); a PyTorch-family run without it moves the unfused kernels' bytes
            (:func:`calculators.model_flops.unfused_bytes_per_flop`); Megatron-Core's layers are fused either way.
        notes: how the GPU runs the precision (:func:`calculators.dtype_support.training_notes`).
    """

    spec: ModelSpec
    cluster: Cluster
    setup: TrainingSetup
    tokens: int
    lora_targets: tuple[str, ...] = DEFAULT_LORA_TARGETS
    mfu: float | None = None
    goodput: float | None = None
    fp8: bool = False
    framework: str = DEFAULT_FRAMEWORK
    global_batch_tokens: int | None = None
    check_memory: bool = True
    notes: tuple[str, ...] = ()
    expert_overlap: bool = False
    selective_recompute: str = "none"
    attention_kernel: str = "auto"
    fused_kernels: bool = False

    @classmethod
    def of(cls, *, spec: ModelSpec, gpu: str | GPU, **raw: Any) -> TrainingRun:
        """Read the GPU once and check every keyword of :data:`RUN_DEFAULTS` and :data:`CLUSTER_DEFAULTS`.

        Raises:
            InputError: a value out of range, naming the field and the accepted range; an unknown keyword;
                expert parallelism on a dense model; a GPU with no published rate for the precision.
            UnknownNameError: an unknown GPU, training framework or QLoRA format.
        """
        for key in raw:
            if key not in RUN_DEFAULTS and key not in CLUSTER_DEFAULTS:
                raise InputError(key, raw[key], f"a training-run setting: {', '.join([*RUN_DEFAULTS, *CLUSTER_DEFAULTS])}")
        spec = model_spec("spec", spec)
        cluster = Cluster.of(gpu=gpu, **{k: v for k, v in raw.items() if k in CLUSTER_DEFAULTS})
        values = {**RUN_DEFAULTS, **{k: v for k, v in raw.items() if k in RUN_DEFAULTS}}
        record = cluster.gpu
        tokens = positive_int("tokens", values["tokens"], maximum=MAX_TOKENS)
        accumulation = positive_int("grad_accumulation", values["grad_accumulation"], maximum=MAX_BATCH)
        # The adapter settings are checked as `train` checks them, whether the method uses them or not.
        setup = TrainingSetup.of(method=values["method"], precision=values["precision"], lora_rank=values["lora_rank"],
                                 lora_targets=values["lora_targets"], grad_checkpointing=values["grad_checkpointing"],
                                 qlora_weights=values["qlora_weights"], batch=values["batch"], seq=values["seq"],
                                 attention=values["attention"], grad_accumulation=accumulation, gpus=cluster.gpus,
                                 zero=cluster.zero)
        notes = training_notes(record, precision=setup.precision, method=setup.method)  # bf16 on a V100: refused
        fp8 = flag("fp8", values["fp8"])
        dp, micro_tokens = cluster.data_parallel, setup.tokens
        global_tokens = values["global_batch_tokens"]
        if global_tokens is not None:
            global_tokens = positive_int("global_batch_tokens", global_tokens, maximum=MAX_TOKENS)
            if accumulation != 1:
                raise InputError("grad_accumulation", accumulation, "1 when global_batch_tokens is given (the "
                                 "accumulation follows from it)")
            if global_tokens < dp * micro_tokens:
                raise InputError("global_batch_tokens", global_tokens, f"at least one micro-batch per replica: {dp} "
                                 f"x {setup.batch} x {setup.seq} = {dp * micro_tokens:,} tokens")
            accumulation = -(-global_tokens // (dp * micro_tokens))
            if accumulation > MAX_BATCH:
                raise InputError("global_batch_tokens", global_tokens, f"at most {MAX_BATCH} micro-batches per "
                                 f"replica: {MAX_BATCH * dp * micro_tokens:,} tokens")
            setup = replace(setup, grad_accumulation=accumulation)  # in the range checked above
        expert_overlap = flag("expert_overlap", values["expert_overlap"])
        if expert_overlap and cluster.expert_parallel == 1:
            raise InputError("expert_overlap", expert_overlap, "False without expert parallelism (expert_parallel 1): "
                             "there is no all-to-all to overlap")
        if spec.moe is None and cluster.expert_parallel > 1:
            raise InputError("expert_parallel", cluster.expert_parallel,
                             f"1 for a dense model ({spec.name} has no routed experts)")
        # checks the policy, and that the model and method are ones its count covers
        selective_recompute_flops(spec, seq=setup.seq, policy=values["selective_recompute"], method=setup.method)
        selective = str(values["selective_recompute"])
        if selective != "none" and setup.grad_checkpointing:
            raise InputError("selective_recompute", selective, "'none' with full activation recomputation "
                             "(grad_checkpointing already recomputes every layer)")
        rate = compute_rate_flop_per_s(record, DType.FP8 if fp8 else precision_dtype(setup.precision))
        if rate is None or (fp8 and not record.fp8_dense_flop_per_s):
            wanted = "FP8" if fp8 else setup.precision
            raise InputError("gpu", record.id, f"a GPU with a published dense {wanted} rate ({record.name} has none)")
        mfu = values["mfu"]
        if mfu is not None:
            mfu = finite_float("mfu", mfu, minimum=0.0, maximum=1.0, allow_minimum=False)
        framework = get_training_framework(values["framework"]).id
        kernel = get_attention_kernel(values["attention_kernel"], framework=framework).id
        if values["attention_kernel"] != "auto" and setup.attention == "eager":
            raise InputError("attention_kernel", values["attention_kernel"], "'auto' with attention 'eager' (eager "
                             "attention writes the score matrix and runs no fused kernel)")
        goodput = values["goodput"]
        if goodput is not None:
            goodput = finite_float("goodput", goodput, minimum=0.0, maximum=1.0, allow_minimum=False)
        return cls(spec=spec, cluster=cluster, setup=setup, tokens=tokens,
                   lora_targets=lora_target_names(values["lora_targets"]), mfu=mfu, goodput=goodput, fp8=fp8,
                   framework=framework, global_batch_tokens=global_tokens,
                   check_memory=flag("check_memory", values["check_memory"]), notes=notes,
                   expert_overlap=expert_overlap, selective_recompute=selective, attention_kernel=kernel,
                   fused_kernels=flag("fused_kernels", values["fused_kernels"]))

    @property
    def gpu(self) -> GPU:
        """The cluster's GPU record."""
        return self.cluster.gpu

    @property
    def micro_batch_tokens(self) -> int:
        """Tokens of one micro-batch on one replica: ``batch x seq``."""
        return self.setup.tokens

    @property
    def rate_flop_per_s(self) -> float:
        """The dense rate the matmuls run at on one GPU, FLOP/s: FP8 with ``fp8``, else the precision's."""
        rate = compute_rate_flop_per_s(self.gpu, DType.FP8 if self.fp8 else precision_dtype(self.setup.precision))
        assert rate is not None  # refused by of()
        return rate

    @property
    def rate16_flop_per_s(self) -> float:
        """The dense rate of the precision's 16-bit (or FP32) matmuls, FLOP/s: what attention runs at, FP8 or not."""
        rate = compute_rate_flop_per_s(self.gpu, precision_dtype(self.setup.precision))
        assert rate is not None  # refused by of()
        return rate


__all__ = ["MAX_TOKENS", "RUN_DEFAULTS", "TrainingRun", "precision_dtype"]
