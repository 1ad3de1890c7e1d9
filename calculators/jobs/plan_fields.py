"""The planner's form (``mlhw plan``, the plan widget): its jobs, the inputs it opens on, and the one rule that
turns a job into a training method. :mod:`calculators.jobs.plan` computes and words the answer.

>>> fields = {field.name: field for field in plan_fields()}
>>> fields["gpu"].default, fields["job"].default, fields["tokens"].default
('rtx-4090', 'inference', '100M')
"""

from __future__ import annotations

import functools
from typing import Any

from calculators import cost
from calculators.catalog import prices
from calculators.catalog.engines import engine_ids, get_engine
from calculators.errors import InputError
from calculators.fit import MAX_GPUS_SEARCHED
from calculators.inputs.fields import Field, bool_field, choice_field, default_of, float_field, int_field, tokens_field
from calculators.inputs.shared import GPU_HELP, custom_gpu_fields, gpu_field, model_config_field, model_field
from calculators.memory import inference, training_inputs
from calculators.performance import inference_speed as speed
from calculators.performance import training_time as train

#: The jobs the planner sizes: inference, fine-tuning by method, pre-training.
JOBS = ("inference", "full", "lora", "qlora", "pretrain")
JOB_LABELS = ("Inference", "Fine-tune: full", "Fine-tune: LoRA", "Fine-tune: QLoRA", "Pre-train")
#: The training jobs, as a ``show_when`` alternative.
TRAINING = "full|lora|qlora|pretrain"
#: The token count the form opens on (to generate, or to train on).
PLAN_TOKENS = 10**8
#: The GPU the form opens on: a card with a launch price, so both the local and the cloud side have a cost.
PLAN_GPU = "rtx-4090"
PLAN_OWN_DEFAULTS = {
    "gpu": "the engines require a GPU; the form opens on one with a launch price (PLAN_GPU), so both sides have a cost",
    "tokens": "training_time requires a token count; the form opens on PLAN_TOKENS (100M), to generate or to train on",
}


def job_method(*, job: str = "inference") -> str | None:
    """The training method of a planned job (``None``: inference; pre-training is full training).

    >>> job_method(job="pretrain"), job_method()
    ('full', None)
    """
    if job not in JOBS:
        raise InputError("job", job, f"one of {', '.join(JOBS)}")
    return None if job == "inference" else "full" if job == "pretrain" else job


@functools.cache
def plan_fields() -> tuple[Field, ...]:
    """The planner's form: the model, the GPU and count, the job, its shape, the tokens, the prices."""
    def default(engine: Any, name: str) -> Any:
        return default_of(engine, name)

    inferring = ("job", "inference")
    training = ("job", TRAINING)
    return (
        model_field(), model_config_field(),
        gpu_field(help="", default=PLAN_GPU, custom=True, mac=False).option(GPU_HELP, required=True),
        *custom_gpu_fields(mac=False),
        int_field("gpus", "GPUs", default=default(speed.SpeedInputs, "gpus"),
                  maximum=min(MAX_GPUS_SEARCHED, training_inputs.MAX_GPUS),
                  help="Inference: tensor parallel (each GPU holds its share of the weights and KV cache). "
                       "Training: data parallel (ZeRO stage under More settings).").option(
            "GPUs: tensor parallel for inference, data parallel for training"),
        choice_field("job", "Job", choices=JOBS, labels=JOB_LABELS, default=default(job_method, "job"),
                     help="Pre-training is sized as full training: the same memory and FLOPs per token.").option(
            f"one of {', '.join(JOBS)} (pretrain: sized as full training)"),
        choice_field("weights", "Weights", choices=inference.WEIGHT_DTYPES,
                     default=default(speed.SpeedInputs, "weights"), show_when=inferring,
                     help="auto: as the checkpoint stores them.").option(
            f"weight format for inference: one of {', '.join(inference.WEIGHT_DTYPES)}"),
        int_field("context", "Context", default=default(speed.SpeedInputs, "context"),
                  maximum=min(inference.MAX_CONTEXT, training_inputs.MAX_SEQ), unit="tokens",
                  help="Inference: prompt tokens per sequence. Training: sequence length.").option(
            "inference: prompt tokens per sequence; training: sequence length"),
        int_field("batch", "Batch", default=default(speed.SpeedInputs, "batch"),
                  maximum=min(inference.MAX_BATCH, training_inputs.MAX_BATCH), unit="sequences",
                  help="Inference: concurrent sequences. Training: micro-batch per GPU.").option(
            "inference: concurrent sequences; training: micro-batch per GPU"),
        int_field("new_tokens", "New tokens per request", default=default(speed.inference_speed, "new_tokens"),
                  maximum=inference.MAX_CONTEXT, unit="tokens", show_when=inferring,
                  help="Tokens each sequence generates; batches run back to back.").option(
            "tokens generated per sequence (inference)"),
        tokens_field("tokens", "Tokens", default=PLAN_TOKENS, maximum=train.MAX_TOKENS,
                     help="Inference: tokens to generate in all. Training: tokens to train on. 1B, 500M, 2T.").option(
            "tokens to generate (inference) or to train on: 1B, 500M, 2T; default 100M"),
        bool_field("grad_checkpointing", "Gradient checkpointing", default=default(train.training_time,
                                                                                   "grad_checkpointing"),
                   show_when=training, help="Recompute activations in the backward: less memory, one more "
                                            "forward pass.").option("full activation recomputation (training)"),
        float_field("cloud_usd_per_gpu_hour", "Cloud price", default=0, minimum=0, maximum=cost.MAX_USD_PER_HOUR,
                    unit="USD per GPU-hour", none_label=f"Median of the {prices.EDITION} catalog's on-demand offers"
                    ).option(f"on-demand USD per GPU-hour; auto: median of the {prices.EDITION} catalog offers",
                             flag="--cloud-usd-per-hour"),
        float_field("purchase_usd", "Purchase price per GPU", default=0, minimum=0, maximum=cost.MAX_USD, unit="USD",
                    none_label="The catalog's launch MSRP",
                    help="Prices the local side; datacenter GPUs have none in the catalog: enter one.").option(
            "price of one GPU for the local cost; auto: launch MSRP, if any"),
        choice_field("zero", "ZeRO stage", choices=training_inputs.ZERO_STAGES,
                     default=default(train.training_time, "zero"), show_when=training, advanced=True,
                     help="Data-parallel sharding of the model states (3 = FSDP full shard).").option(
            "ZeRO stage 0-3 (training)"),
        choice_field("engine", "Inference engine", choices=engine_ids(), default=default(speed.SpeedInputs, "engine"),
                     labels=tuple(get_engine(e).name for e in engine_ids()), show_when=inferring, advanced=True,
                     help="Its fitted efficiencies and fixed costs time the decode step.").option(
            f"inference engine: one of {', '.join(engine_ids())}"),
        choice_field("kv_cache", "KV cache", choices=inference.KV_DTYPES, default=default(speed.SpeedInputs, "kv_cache"),
                     show_when=inferring, advanced=True).option(f"one of {', '.join(inference.KV_DTYPES)}"),
        float_field("utilization", "Local utilisation", default=default(cost.cost_comparison, "utilization"),
                    minimum=0.001, maximum=1, unit="fraction of all hours", advanced=True,
                    help="How much of the time a bought GPU works: spreads its price over the hours used.").option(
            "fraction of all hours a bought GPU works"),
        float_field("years", "Depreciation period", default=default(cost.cost_comparison, "years"), minimum=0.1,
                    maximum=50, unit="years", advanced=True).option("depreciation period in years"),
    )
