"""The best job that fits the reader's GPUs: the longest prompt or sequence, the largest batch, the best format.

Each is searched with every other setting as given, against the one verdict on the reader's GPU
count (:func:`~calculators.fit.placement.share_verdict` for inference, the per-GPU
:func:`~calculators.fit.verdict.fit_verdict` for training), and only a *fits* verdict counts
(a tight job is not promised):

* inference (:func:`best_inference_fit`): the longest prompt at the batch (the new tokens kept),
  the largest batch at the prompt, and the best weights format, in the order of quality
  (:func:`weights_by_quality`): bf16 > fp8 > int8 > int4 (fp8 only where the GPU multiplies in it) for a
  checkpoint stored in 16 or 32 bits; for one stored quantised (its ``quantization_config``: DeepSeek-V3's
  FP8 blocks, gpt-oss's MXFP4 experts), its own format first, then only the formats of fewer bits (bf16 or
  fp8 made from an FP8 or MXFP4 checkpoint is an upcast: more memory, no precision the file does not hold);
* training (:func:`best_training_fit`): the longest sequence at the micro-batch, the largest
  micro-batch at the sequence, and the method that trains the most weights, full > LoRA > QLoRA.

A :class:`BestFit` whose ``verdict`` is ``None`` found nothing that fits.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> for best in best_inference_fit(get_model("llama-3-8b"), get_gpu("rtx-4090"), context=8192):
...     print(best.what, best.value, best.verdict.verdict)
longest prompt 21641 fits
largest batch 2 fits
best weights bf16 fits
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.dtype_support import runs_natively
from calculators.dtypes import DType
from calculators.fit.placement import share_verdict
from calculators.fit.verdict import MAX_GPUS_SEARCHED, FitVerdict, fit_verdict
from calculators.memory.inference import MAX_BATCH, MAX_CONTEXT, inference_memory, largest_fitting, with_stored_weights
from calculators.memory.lora import has_lora_targets
from calculators.memory.training import training_memory
from calculators.memory.training_inputs import MAX_SEQ
from calculators.memory.weight_formats import AUTO, stored_format
from calculators.model import ModelSpec
from calculators.validate import GPU_RECORD, instance_of, positive_int

#: Weight formats in the order of quality, best first (the first that fits is the best), for a checkpoint
#: stored in 16 or 32 bits.
WEIGHTS_BY_QUALITY = ("bf16", "fp8", "int8", "int4")


def weights_by_quality(spec: ModelSpec, gpu: GPU) -> tuple[str, ...]:
    """The weights formats to try for ``spec`` on ``gpu``, best first (each a ``weights`` keyword).

    :data:`WEIGHTS_BY_QUALITY` without fp8 where the GPU does not multiply in it; for a checkpoint stored
    quantised, :data:`~calculators.memory.weight_formats.AUTO` (its own format) first, then only the formats
    whose elements are smaller than its kernels' type: converting its weights to a wider type adds memory and
    no precision (the file holds none).

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> weights_by_quality(get_model("llama-3-8b"), get_gpu("a100-80gb-sxm"))
    ('bf16', 'int8', 'int4')
    >>> weights_by_quality(get_model("deepseek-v3"), get_gpu("h100-sxm"))  # FP8 blocks of 128 x 128
    ('auto', 'int4')
    >>> weights_by_quality(get_model("gpt-oss-20b"), get_gpu("h100-sxm"))  # MXFP4 experts: nothing smaller
    ('auto',)
    """
    forms = tuple(form for form in WEIGHTS_BY_QUALITY if form != "fp8" or runs_natively(gpu, "fp8"))
    if spec.quantization is None or spec.quantization.refused is not None:
        return forms  # 16-bit, or a quantization_config this package cannot read (sized only with a stated format)
    stored = stored_format(spec)
    if stored.checkpoint is None:
        return forms
    return (AUTO, *(form for form in forms
                    if DType.parse(form).bytes_per_element < stored.family.bytes_per_element))


def weights_name(spec: ModelSpec, weights: str) -> str:
    """How a format of :func:`weights_by_quality` reads: its id, or the checkpoint's own named ``as stored``.

    >>> from calculators.catalog.models import get_model
    >>> weights_name(get_model("gpt-oss-20b"), "auto"), weights_name(get_model("gpt-oss-20b"), "int4")
    ('mxfp4 as stored', 'int4')
    """
    return f"{stored_format(spec).id} as stored" if weights == AUTO else weights
#: Training methods, the most weights trained first.
METHODS_BY_REACH = ("full", "lora", "qlora")


@dataclass(frozen=True)
class BestFit:
    """The best value of one setting that fits, and its verdict.

    Attributes:
        what: ``"longest prompt"``, ``"largest batch"``, ``"best weights"``, ``"longest sequence"``,
            ``"largest micro-batch"`` or ``"best method"``.
        value: the value found (tokens, sequences, a format or method id); ``0`` or ``""`` when none fits.
        change: the engine keyword and its value (``{"context": 51490}``).
        verdict: its verdict on the reader's GPUs (``None``: nothing fits).
    """

    what: str
    value: int | str
    change: Mapping[str, Any] = field(hash=False)
    verdict: FitVerdict | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (bytes)."""
        return {"what": self.what, "value": self.value,
                **({"verdict": None} if self.verdict is None else self.verdict.to_dict())}


def _largest(what: str, keyword: str, upper: int, verdict: Callable[..., FitVerdict]) -> BestFit:
    """The largest value of ``keyword`` up to ``upper`` whose verdict fits."""
    value = largest_fitting(lambda n: verdict(**{keyword: n}).fits, upper)
    return BestFit(what, value, {keyword: value}, verdict(**{keyword: value}) if value else None)


def _first(what: str, keyword: str, choices: tuple[str, ...], verdict: Callable[..., FitVerdict],
           name: Callable[[str], str] = str) -> BestFit:
    """The first of ``choices`` for ``keyword`` whose verdict fits (its value read by ``name``)."""
    for choice in choices:
        found = verdict(**{keyword: choice})
        if found.fits:
            return BestFit(what, name(choice), {keyword: choice}, found)
    return BestFit(what, "", {}, None)


def best_inference_fit(spec: ModelSpec, gpu: GPU, *, gpus: int = 1, **settings: Any) -> tuple[BestFit, ...]:
    """The longest prompt, the largest batch and the best weights format of an inference job (settings as
    :func:`~calculators.memory.inference.inference_memory`) that fit ``gpus`` GPUs of ``gpu``
    (see the module docstring)."""
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    gpus = positive_int("gpus", gpus, maximum=MAX_GPUS_SEARCHED)
    settings = with_stored_weights(spec, settings)

    def verdict(**change: Any) -> FitVerdict:
        return share_verdict(inference_memory(spec, **{**settings, **change}), record, gpus=gpus)

    room = MAX_CONTEXT - int(settings.get("new_tokens", 0))
    return (_largest("longest prompt", "context", room, verdict),
            _largest("largest batch", "batch", MAX_BATCH, verdict),
            _first("best weights", "weights", weights_by_quality(spec, record), verdict,
                   lambda form: weights_name(spec, form)))


def best_training_fit(spec: ModelSpec, gpu: GPU, **settings: Any) -> tuple[BestFit, ...]:
    """The longest sequence, the largest micro-batch and the method training the most weights of a training step
    (settings as :func:`~calculators.memory.training.training_memory`) that fit each of its GPUs of ``gpu``
    (see the module docstring).

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> [best.value for best in best_training_fit(get_model("llama-3-8b"), get_gpu("h100-sxm"), method="lora")]
    [7189, 3, 'lora']
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)

    def verdict(**change: Any) -> FitVerdict:
        if "method" in change:
            change = {**change, "base_dtype": None}  # each method's own base (16-bit for LoRA, NF4 for QLoRA)
        return fit_verdict(training_memory(spec, **{**settings, **change}), record)

    methods = METHODS_BY_REACH if has_lora_targets(spec) else ("full",)
    return (_largest("longest sequence", "seq", MAX_SEQ, verdict),
            _largest("largest micro-batch", "batch", MAX_BATCH, verdict),
            _first("best method", "method", methods, verdict))
