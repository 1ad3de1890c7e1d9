"""The inputs of a training step and of an inference request, declared once for the calculators that size them.

The memory calculators (:mod:`calculators.jobs.memory`) and the fit calculator
(:mod:`calculators.jobs.fit`) take the same settings, read from the engine's signatures
(:func:`~calculators.memory.training_inputs.training_setup`,
:class:`~calculators.memory.inference.InferenceInputs`) with its ranges and choices; the GPU count
is the reader's hardware (data parallel for training, an even split for inference:
:mod:`calculators.fit.placement`).

>>> [field.name for field in inference_fields()][:3]
['weights', 'kv_cache', 'batch']
>>> training_gpus_field(1).advanced, inference_gpus_field().cli_flag
(False, '--gpus')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from calculators.fit import MAX_GPUS_SEARCHED, fit_inference
from calculators.inputs.fields import Field, bool_field, choice_field, cli_field, default_of, int_field, text_field
from calculators.memory import inference, training_inputs
from calculators.memory.optimizers import OPTIMIZERS
from calculators.memory.overhead import ALLOCATORS
from calculators.model_vision import DEFAULT_IMAGE_SIDE_PX

#: Help of a training job's GPU count.
TRAINING_GPUS_HELP = ("Data parallel: every GPU runs the micro-batch; with ZeRO (below) they share the optimizer "
                      "states, gradients and weights, so each holds less.")
#: Help of an inference job's GPU count.
INFERENCE_GPUS_HELP = ("The job split evenly over them by tensor or pipeline parallelism: each GPU holds its share "
                       "of the weights, KV cache and activations, and its own CUDA context and workspaces.")


def training_gpus_field(default: int, *, show_when: tuple[str, str] | None = None) -> Field:
    """A training step's data-parallel GPU count (:func:`~calculators.memory.training_inputs.training_setup`'s
    ``gpus``), shown beside the GPU."""
    return int_field("gpus", "GPUs", default=default, maximum=training_inputs.MAX_GPUS, unit="data parallel",
                     show_when=show_when, help=TRAINING_GPUS_HELP).option("data-parallel GPUs")


def inference_gpus_field(*, show_when: tuple[str, str] | None = None) -> Field:
    """An inference job's GPU count (:func:`~calculators.fit.fit_inference`'s ``gpus``), shown beside the GPU."""
    return int_field("gpus", "GPUs", default=default_of(fit_inference, "gpus"), maximum=MAX_GPUS_SEARCHED,
                     unit="tensor or pipeline parallel", show_when=show_when, help=INFERENCE_GPUS_HELP).option(
        "GPUs the job is split over evenly (tensor or pipeline parallel)")


#: Upper bound of ``grad_accumulation`` in :func:`~calculators.memory.training_inputs.training_setup`
#: (not exported there; a test checks the two agree).
MAX_GRAD_ACCUMULATION = 1 << 20


# --------------------------------------------------------------------------- training
def allocator_field(setup: Callable[..., Any], show_when: tuple[str, str] | None = None) -> Field:
    return choice_field("allocator", "PyTorch allocator", choices=ALLOCATORS, default=default_of(setup, "allocator"),
                        advanced=True, show_when=show_when,
                        help="expandable_segments (PYTORCH_CUDA_ALLOC_CONF) removes the fragmentation reserve: "
                             "modelled, not measured.").option(
        f"PyTorch caching allocator: one of {', '.join(ALLOCATORS)}")


def attention_field(attentions: tuple[str, ...], default: str) -> Field:
    return choice_field("attention", "Attention kernel", choices=attentions, default=default, advanced=True,
                        help="eager materialises the S x S attention scores.").option(f"one of {', '.join(attentions)}")


def training_fields(show_when: tuple[str, str] | None = None) -> tuple[Field, ...]:
    """The settings of a training step, as :func:`~calculators.memory.training_inputs.training_setup` takes them
    (the model, the GPU and its count aside: a calculator puts :func:`training_gpus_field` beside its GPU),
    each shown only when ``show_when`` holds."""
    setup = training_inputs.training_setup

    def default(name: str) -> Any:
        return default_of(setup, name)

    def one_of(choices: Sequence[str]) -> str:
        return f"one of {', '.join(choices)}"

    return (
        choice_field("method", "Method", choices=training_inputs.METHODS, default=default("method"),
                     show_when=show_when,
                     help="full: every weight trains; lora: adapters on a 16-bit base; qlora: on a 4-bit base."
                     ).option(one_of(training_inputs.METHODS)),
        choice_field("precision", "Precision", choices=training_inputs.PRECISIONS, default=default("precision"),
                     show_when=show_when, help="-mixed: fp32 master weights with 16-bit autocast."
                     ).option(one_of(training_inputs.PRECISIONS)),
        choice_field("optimizer", "Optimizer", choices=list(OPTIMIZERS), default=default("optimizer"),
                     show_when=show_when).option(one_of(list(OPTIMIZERS))),
        int_field("batch", "Micro-batch", default=default("batch"), maximum=training_inputs.MAX_BATCH,
                  unit="sequences per GPU", show_when=show_when).option("micro-batch per GPU (sequences)"),
        int_field("seq", "Sequence length", default=default("seq"), maximum=training_inputs.MAX_SEQ, unit="tokens",
                  show_when=show_when).option("sequence length in tokens"),
        bool_field("grad_checkpointing", "Gradient checkpointing", default=default("grad_checkpointing"),
                   show_when=show_when, help="Keep one tensor per layer and recompute the rest in backward."
                   ).option("recompute activations in backward"),
        choice_field("zero", "ZeRO stage", choices=training_inputs.ZERO_STAGES, default=default("zero"),
                     show_when=show_when,
                     help="Data-parallel sharding: 0 is plain DDP; 1 shards the optimizer states, 2 also the "
                          "gradients, 3 (FSDP full shard) also the weights."
                     ).option("ZeRO stage 0-3 (0 = plain DDP)"),
        attention_field(training_inputs.ATTENTIONS, default("attention")),
        int_field("lora_rank", "LoRA rank", default=default("lora_rank"), maximum=training_inputs.MAX_RANK,
                  advanced=True, show_when=show_when, help="Used by lora and qlora only.").option("LoRA rank r"),
        text_field("lora_targets", "LoRA targets", default=",".join(default("lora_targets")), advanced=True,
                   show_when=show_when,
                   help="Comma-separated projections: " + ",".join(training_inputs.DEFAULT_LORA_TARGETS) + "."
                   ).option("comma-separated: q,k,v,o,gate,up,down"),
        int_field("grad_accumulation", "Gradient accumulation", default=default("grad_accumulation"),
                  maximum=MAX_GRAD_ACCUMULATION, unit="micro-batches per step", advanced=True, show_when=show_when
                  ).option("micro-batches per optimizer step"),
        allocator_field(setup),
    )


def base_dtype_field(show_when: tuple[str, str] | None = None) -> Field:
    """``--base-dtype``: the command line's override of the frozen base (see ``CLI_ONLY``)."""
    return cli_field("base_dtype", f"frozen base for lora/qlora: {', '.join(training_inputs.BASE_DTYPES)}; "
                                   "auto: bf16, nf4 for qlora", show_when=show_when)


def inference_fields(*, show_when: tuple[str, str] | None = None) -> tuple[Field, ...]:
    """The settings of prefill + decode, as :class:`~calculators.memory.inference.InferenceInputs` declares them."""
    setup = inference.InferenceInputs

    def default(name: str) -> Any:
        return default_of(setup, name)

    return (
        choice_field("weights", "Weights", choices=inference.WEIGHT_DTYPES, default=default("weights"),
                     show_when=show_when, help="Storage format of the weights (int4/int8/fp8/mxfp4/nvfp4: quantised linears); auto: "
                                                 "as the checkpoint's quantization_config stores them, else bf16."
                     ).option(f"one of {', '.join(inference.WEIGHT_DTYPES)}"),
        choice_field("kv_cache", "KV cache", choices=inference.KV_DTYPES, default=default("kv_cache"),
                     show_when=show_when).option(f"one of {', '.join(inference.KV_DTYPES)}"),
        int_field("batch", "Batch", default=default("batch"), maximum=inference.MAX_BATCH,
                  unit="concurrent sequences", show_when=show_when).option("concurrent sequences"),
        int_field("context", "Prompt length", default=default("context"), maximum=inference.MAX_CONTEXT,
                  unit="tokens", show_when=show_when).option("prompt tokens per sequence"),
        int_field("new_tokens", "New tokens", default=default("new_tokens"), minimum=0,
                  maximum=inference.MAX_CONTEXT - 1, unit="tokens per sequence", show_when=show_when
                  ).option("generated tokens per sequence"),
        int_field("images", "Images per request", default=default("images"), minimum=0, maximum=inference.MAX_IMAGES,
                  unit="images per sequence", show_when=show_when,
                  help="Vision-language models only: the images in each prompt, each adding the tokens its vision "
                       "tower makes of a square image of " f"{DEFAULT_IMAGE_SIDE_PX} px to the prompt "
                       "(and to the cross-attention cache of Llama 3.2 Vision)."
                  ).option(f"images per sequence (vision-language models; {DEFAULT_IMAGE_SIDE_PX} px "
                           "squares)"),
        attention_field(inference.ATTENTIONS, default("attention")),
        allocator_field(setup),
    )
