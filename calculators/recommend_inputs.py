"""What :func:`calculators.recommend.recommend` is asked: the :class:`Workload` (model, job, method, context,
batch, targets, objective, GPUs), its defaults per job and the ranges its values are checked against.

:mod:`calculators.recommend` re-exports these names, where the faces and the pages import them.

>>> Workload(model="llama-3-8b", job="finetune").context is None  # DEFAULT_CONTEXT["finetune"] at recommend()
True
>>> DEFAULT_CONTEXT["finetune"], DEFAULT_METHOD["finetune"]
(2048, 'lora')
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators import cost
from calculators.catalog.engines import DEFAULT_ENGINE
from calculators.catalog.gpus import GPU
from calculators.memory.weight_formats import AUTO
from calculators.model import ModelSpec

JOBS = ("serve", "finetune", "train")
#: What the ranking optimises; stated above the list (:attr:`~calculators.recommend_result.Recommendation.objective_text`).
OBJECTIVES = ("cost", "latency", "fewest-gpus")
#: GPU counts tried for every GPU (one node of up to eight).
GPU_COUNTS = (1, 2, 4, 8)
#: Method when none is given: serving weights format, or training method.
DEFAULT_METHOD = {"serve": AUTO, "finetune": "lora", "train": "full"}
DEFAULT_CONTEXT = {"serve": 4096, "finetune": 2048, "train": 2048}
#: KV-cache dtype when serving and none is given.
DEFAULT_KV_CACHE = "bf16"
DEFAULT_TOKENS = 10**9
MAX_TOKENS_PER_S = cost.MAX_TOKENS_PER_S
MAX_BUDGET_USD_PER_HOUR = cost.MAX_USD_PER_HOUR
MAX_CANDIDATES = 64
APPLE_REASON = ("Apple silicon skipped: one device per machine (no 2-8 GPU layouts), dense rates derived from core "
                "counts rather than published, and no cloud price in the catalog; "
                "pass include_apple=True to list them at count 1")


@dataclass(frozen=True)
class Workload:
    """What the user wants to run; every field is checked by :func:`recommend`.

    Attributes:
        model: a :class:`~calculators.model.ModelSpec`, a catalog model id, or a config.json (anything
            :func:`~calculators.inputs.model.resolve_model` reads).
        job: ``"serve"``, ``"finetune"`` or ``"train"``.
        method: serving: weights format (one of ``WEIGHT_DTYPES``, e.g. ``"int4"``);
            training/fine-tuning: ``"full"``, ``"lora"`` or ``"qlora"``. ``None`` = :data:`DEFAULT_METHOD`.
        context: serving: tokens cached per sequence (prompt plus generated);
            training: sequence length. ``None`` = :data:`DEFAULT_CONTEXT`.
        kv_cache: serving: the KV cache's dtype (one of ``KV_DTYPES``; ``"fp8"`` halves the cache
            of ``"bf16"`` and the bytes each decode step reads from it). Not used in training.
        batch: serving: concurrent sequences; training: micro-batch per GPU.
        tokens: training tokens of the run (training and fine-tuning only; checked, not used, when serving).
        target_tokens_per_s: required throughput, tokens/s (serving: aggregate decode;
            training: cluster); ``None`` = no target.
        budget_usd_per_hour: most the whole configuration may cost per hour (cloud on-demand); ``None`` = no budget.
        grad_checkpointing: full activation recomputation in training (memory down, 4/3 the FLOPs).
        include_apple: list Apple silicon too (count 1 only).
        mfu: training utilisation; ``None`` = the fitted one of :func:`~calculators.performance.training_time.training_time`.
        objective: one of :data:`OBJECTIVES`: what the ranking optimises.
        gpus: the GPUs to consider (catalog ids, GPU records, or ``custom:``/``mac:`` descriptions of
            :func:`~calculators.inputs.gpu.resolve_gpu`, tried at one GPU: their link is
            unknown); ``None`` = the whole catalog.
        engine: serving: the inference engine whose efficiencies and fixed costs time the decode step
            (an id of :mod:`calculators.catalog.engines`, the ``engine`` of
            :meth:`~calculators.performance.speed_setup.SpeedSetup.of`, so ``recommend`` and ``speed`` give one
            tokens/s for one configuration); checked, not used, when training.
    """

    model: ModelSpec | str
    job: str = "serve"
    method: str | None = None
    context: int | None = None
    batch: int = 1
    kv_cache: str = DEFAULT_KV_CACHE
    tokens: int = DEFAULT_TOKENS
    target_tokens_per_s: float | None = None
    budget_usd_per_hour: float | None = None
    grad_checkpointing: bool = True
    include_apple: bool = False
    mfu: float | None = None
    objective: str = "cost"
    gpus: tuple[GPU | str, ...] | None = None
    engine: str = DEFAULT_ENGINE
