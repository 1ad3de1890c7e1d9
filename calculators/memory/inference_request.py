"""One inference request, checked once: weights and KV-cache formats, batch, prompt, new tokens, images.

:class:`InferenceInputs` declares the raw inputs and their defaults (the faces read their
defaults from its signature); :meth:`InferenceRequest.of` checks each of them once and returns the
frozen :class:`InferenceRequest` the memory and speed functions take and trust. A bad value is an
:class:`~calculators.errors.InputError` naming the field and the accepted range.

>>> request = InferenceRequest.of(weights="q4_k_m", batch="4", context=8192, new_tokens=256)
>>> request.weights.value, request.format.id, request.batch, request.total_context
('int4', 'q4_k_m', 4, 8448)
>>> InferenceRequest.of(weights="bf16", context=1, new_tokens=1 << 24)
Traceback (most recent call last):
...
calculators.errors.InputError: new_tokens: got 16777216; expected an integer from 0 to 16777215
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.dtypes import DType
from calculators.errors import InputError
from calculators.memory.kernels import DEVICES
from calculators.memory.overhead import ALLOCATORS
from calculators.memory.weight_formats import AUTO, FORMAT_IDS, WeightFormat, weight_format
from calculators.model_vision import DEFAULT_IMAGE_SIDE_PX
from calculators.validate import nonnegative_int, one_of, positive_int

#: Weight formats (:mod:`calculators.memory.weight_formats`): ``auto`` (as the checkpoint stores them), DType
#: names, GGUF, GPTQ/AWQ, EXL2 (any exl2-<bits>), MXFP4, NVFP4.
WEIGHT_DTYPES = (AUTO, *FORMAT_IDS)
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8")
ATTENTIONS = ("sdpa", "flash", "eager")
MAX_CONTEXT = 1 << 24
MAX_BATCH = 1 << 16
MAX_MEMORY_BYTES = 1 << 50  # 1 PiB: far beyond any single accelerator
MAX_IMAGES = 1024  # images per sequence
MAX_IMAGE_SIDE_PX = 16384


@dataclass(frozen=True)
class InferenceInputs:
    """The raw inputs of an :class:`InferenceRequest`, as a user gives them, with their defaults.

    Attributes:
        weights: a format id of :data:`WEIGHT_DTYPES` or ``"auto"``: as the model's checkpoint stores
            them (its ``quantization_config``; bf16 without one), which the estimates resolve against
            the model before they check the rest
            (:func:`~calculators.memory.inference.with_stored_weights`). :meth:`InferenceRequest.of`
            knows no model, so it refuses ``"auto"`` (never reads it as bf16).
        kv_cache: one of :data:`KV_DTYPES`.
        batch: sequences decoded together.
        context: the prompt's text tokens per sequence.
        new_tokens: tokens generated per sequence.
        attention: one of :data:`ATTENTIONS` (``flash`` is read as ``sdpa``).
        device, allocator: as :mod:`calculators.memory.kernels` and :mod:`calculators.memory.overhead` name them.
        images: images per sequence, for a vision-language model; each adds the tokens its tower makes
            of a square image of ``image_side_px`` pixels
            (:meth:`~calculators.model_vision.VisionEncoderSpec.tokens_per_image`).
    """

    weights: str | WeightFormat = AUTO
    kv_cache: str = "bf16"
    batch: int = 1
    context: int = 4096
    new_tokens: int = 0
    attention: str = "sdpa"
    device: str = "cuda"
    allocator: str = "default"
    images: int = 0
    image_side_px: int = DEFAULT_IMAGE_SIDE_PX


@dataclass(frozen=True)
class InferenceRequest:
    """One inference request, checked (build it with :meth:`of`; see
    :func:`~calculators.memory.inference.inference_memory`)."""

    weights: DType
    kv_cache: DType
    batch: int
    context: int
    new_tokens: int
    attention: str
    device: str = "cuda"
    allocator: str = "default"
    weight_format: str = ""
    images: int = 0
    image_side_px: int = DEFAULT_IMAGE_SIDE_PX
    stored_format: WeightFormat | None = None  # a checkpoint's own quantisation (weights "auto")

    @property
    def format(self) -> WeightFormat:
        """The weights' format (bits per weight); ``weights`` is its DType family."""
        return self.stored_format or weight_format(self.weight_format or self.weights)

    @property
    def total_context(self) -> int:
        """Tokens the cache holds at the end: prompt plus generated tokens."""
        return self.context + self.new_tokens

    @classmethod
    def of(cls, **raw: Any) -> InferenceRequest:
        """Check every input (keywords: :class:`InferenceInputs`), once.

        Raises:
            InputError: a value out of range or not a choice, naming the field and what it accepts; weights
                ``"auto"`` (the default), which only a model resolves.
            TypeError: a keyword :class:`InferenceInputs` does not have.

        >>> InferenceRequest.of(context=8192).weights
        Traceback (most recent call last):
        ...
        calculators.errors.InputError: weights: got 'auto'; expected a format such as bf16, fp8, int4 or mxfp4 ('auto' needs a model to read its checkpoint format from: give the model, or the format its checkpoint stores)
        """
        given = InferenceInputs(**raw)
        attention = one_of("attention", given.attention, ATTENTIONS)
        # No model here to read a checkpoint's format from: "auto" is refused by name (weight_format), never
        # taken for bf16; the estimates resolve it against their model first (with_stored_weights).
        form = weight_format(given.weights, strict=True)
        prompt = positive_int("context", given.context, maximum=MAX_CONTEXT)
        # A prompt has at least 1 token, so at most MAX_CONTEXT - 1 new ones.
        new = nonnegative_int("new_tokens", given.new_tokens, maximum=MAX_CONTEXT - 1)
        if new > MAX_CONTEXT - prompt:
            raise InputError("new_tokens", given.new_tokens, f"an integer from 0 to {MAX_CONTEXT - prompt} (context + "
                             f"new_tokens at most {MAX_CONTEXT})")
        return cls(
            weights=form.family,
            weight_format=form.id,
            stored_format=form if form.checkpoint is not None else None,
            kv_cache=DType.parse(one_of("kv_cache", given.kv_cache, KV_DTYPES), "kv_cache"),
            batch=positive_int("batch", given.batch, maximum=MAX_BATCH),
            context=prompt,
            new_tokens=new,
            attention="sdpa" if attention == "flash" else attention,
            device=one_of("device", given.device, DEVICES),
            allocator=one_of("allocator", given.allocator, ALLOCATORS),
            images=nonnegative_int("images", given.images, maximum=MAX_IMAGES),
            image_side_px=positive_int("image_side_px", given.image_side_px, maximum=MAX_IMAGE_SIDE_PX, minimum=16),
        )
