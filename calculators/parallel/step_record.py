"""One data-parallel training step, checked once: a :class:`DataParallelStep` (what ``mlhw parallel`` times).

:meth:`DataParallelStep.of` takes the keywords of :func:`calculators.parallel.step.step_communication`
(:data:`STEP_DEFAULTS`), reads the GPU once (through :meth:`Cluster.of
<calculators.parallel.cluster.Cluster.of>`), checks every value naming the field and its range, and
returns a frozen record that :func:`calculators.parallel.step.step_communication_of` trusts.

>>> step = DataParallelStep.of(gpu="a100-80gb-sxm", gpus=16, zero=3, batch=2, grad_dtype="bf16")
>>> step.cluster.cross_node, step.setup.tokens, step.grad_dtype
(True, 4096, 'bf16')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.training_frameworks import DEFAULT_FRAMEWORK, get_training_framework
from calculators.errors import InputError
from calculators.memory.training_inputs import TrainingSetup
from calculators.parallel.cluster import CROSS_NODE_NIC, NICS_PER_NODE, Cluster
from calculators.parallel.links import check_efficiency
from calculators.validate import AUTO, finite_float, flag, one_of

#: Gradient and gathered-parameter dtypes the step model accepts.
COMM_DTYPES: tuple[str, ...] = ("fp32", "bf16", "fp16")

#: The keywords :meth:`DataParallelStep.of` (and :func:`step_communication`) take besides the model, with their
#: defaults.
STEP_DEFAULTS: dict[str, Any] = {
    "gpu": "h100-sxm", "gpus": 8, "zero": 0, "interconnect": AUTO, "batch": 1, "seq": 2048, "mfu": None,
    "efficiency": None, "latency_s": None, "grad_dtype": "fp32", "param_dtype": "bf16", "overlap": True,
    "precision": "bf16-mixed", "grad_checkpointing": False, "nic": CROSS_NODE_NIC, "nics_per_node": NICS_PER_NODE,
    "framework": DEFAULT_FRAMEWORK,
}


@dataclass(frozen=True)
class DataParallelStep:
    """One full-fine-tuning data-parallel step, checked: its cluster, its step and how its collectives run.

    Attributes:
        cluster: the GPUs (data parallel only: one GPU per replica) and their link.
        setup: the step on one GPU (full training; ``gpus`` and ``zero`` the cluster's, for its memory).
        mfu: the utilisation given, in (0, 1]; ``None``: fitted on published runs, as ``train-time``.
        framework: the training framework id whose fitted utilisation factor applies.
        efficiency: the collective efficiency given, in (0, 1]; ``None``: the link model's per collective.
        latency_s: the fixed cost per ring step given, seconds; ``None``: the link's measured one.
        grad_dtype, param_dtype: dtypes of reduced gradients and gathered parameters (fp32, bf16 or fp16).
        overlap: collectives hide behind the compute of their own phase.
    """

    cluster: Cluster
    setup: TrainingSetup
    mfu: float | None = None
    framework: str = DEFAULT_FRAMEWORK
    efficiency: float | None = None
    latency_s: float | None = None
    grad_dtype: str = "fp32"
    param_dtype: str = "bf16"
    overlap: bool = True

    @classmethod
    def of(cls, **raw: Any) -> DataParallelStep:
        """Read the GPU once and check every keyword of :data:`STEP_DEFAULTS`, naming the field and its range.

        >>> DataParallelStep.of(gpus=16, zero=3, latency_s=2)
        Traceback (most recent call last):
        ...
        calculators.errors.InputError: latency_s: got 2; expected a number from 0 to 1

        Raises:
            InputError: a value out of range (an unknown keyword too), or a GPU with no published BF16 rate.
        """
        for key in raw:
            if key not in STEP_DEFAULTS:
                raise InputError(key, raw[key], f"a data-parallel step setting: {', '.join(STEP_DEFAULTS)}")
        values = {**STEP_DEFAULTS, **raw}
        cluster = Cluster.of(gpu=values["gpu"], gpus=values["gpus"], zero=values["zero"],
                             interconnect=values["interconnect"], nic=values["nic"], nics_per_node=values["nics_per_node"])
        setup = TrainingSetup.of(method="full", precision=values["precision"], batch=values["batch"],
                                 seq=values["seq"], gpus=cluster.gpus, zero=cluster.zero,
                                 grad_checkpointing=values["grad_checkpointing"])
        mfu = values["mfu"]
        given_mfu = mfu is not None and not (isinstance(mfu, str) and not mfu.strip())
        efficiency, latency = values["efficiency"], values["latency_s"]
        step = cls(
            cluster=cluster,
            setup=setup,
            mfu=finite_float("mfu", mfu, minimum=0.0, maximum=1.0, allow_minimum=False) if given_mfu else None,
            framework=get_training_framework(values["framework"]).id,
            efficiency=None if efficiency is None else check_efficiency("efficiency", efficiency),
            latency_s=None if latency is None else finite_float("latency_s", latency, minimum=0.0, maximum=1.0),
            grad_dtype=one_of("grad_dtype", values["grad_dtype"], COMM_DTYPES),
            param_dtype=one_of("param_dtype", values["param_dtype"], COMM_DTYPES),
            overlap=flag("overlap", values["overlap"]))
        if cluster.gpu.bf16_dense_flop_per_s is None:
            raise InputError("gpu", cluster.gpu.id, "a GPU with a published dense BF16 rate (the catalog has none "
                             f"for {cluster.gpu.name})")
        return step



__all__ = ["COMM_DTYPES", "DataParallelStep", "STEP_DEFAULTS"]
