"""Checked settings of a speed estimate: weights format, batch, context, GPUs, engine and efficiencies.

:meth:`SpeedSetup.of` validates every input once (the memory calculator's serving inputs
through :meth:`calculators.memory.inference.InferenceRequest.of`, so the two never disagree)
and resolves the engine (:mod:`calculators.catalog.engines`) into numbers: the
bandwidth and compute efficiencies (overridable), the routed-expert efficiency and the
fixed costs per layer and per request.

>>> setup = SpeedSetup.of(engine="generic", weights="q4_k_m")
>>> setup.bandwidth_efficiency, setup.compute_efficiency, setup.weights.value
(0.8, 0.6, 'int4')
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from calculators.catalog.engines import DEFAULT_ENGINE, Engine, get_engine
from calculators.catalog.gpus import GPU
from calculators.catalog.interconnects import Interconnect, get_interconnect
from calculators.dtypes import DType
from calculators.memory.inference_request import InferenceRequest
from calculators.memory.training_inputs import MAX_GPUS
from calculators.memory.weight_formats import AUTO as STORED, WeightFormat, weight_format
from calculators.parallel.step import AUTO
from calculators.parallel.tensor import tensor_parallel_link
from calculators.validate import finite_float, positive_int


#: Assumed fraction of peak memory bandwidth a decode step achieves.
DEFAULT_BANDWIDTH_EFFICIENCY = 0.8
#: Assumed fraction of the dense tensor rate matrix multiplies achieve (prefill, large batches).
DEFAULT_COMPUTE_EFFICIENCY = 0.6


def _efficiency(field: str, value: Any) -> float:
    return finite_float(field, value, minimum=0.0, maximum=1.0, allow_minimum=False)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


@dataclass(frozen=True, kw_only=True)
class ServerInputs:
    """The raw inputs of how a model is served on its GPUs, with their defaults: declared once, for
    :class:`SpeedInputs` and :class:`~calculators.performance.served.ServedInputs`.

    ``weights`` ``"auto"`` is the model's checkpoint format, resolved by the speed functions, which know the model
    (:func:`~calculators.memory.inference.with_stored_weights`); :meth:`SpeedSetup.of`, which knows none, refuses it.
    ``weights`` and ``kv_cache`` are checked as the memory calculator checks them
    (:meth:`~calculators.memory.inference.InferenceRequest.of`), so the two never disagree. ``gpus`` in tensor
    parallel. ``engine`` is an id of :mod:`calculators.catalog.engines` (``"generic"``, ``"vllm"``, ``"sglang"``,
    ``"tensorrt-llm"``, ``"llama.cpp"``, ``"transformers"``): it gives the efficiencies and fixed costs;
    ``bandwidth_efficiency`` and ``compute_efficiency`` (0 to 1, ``None`` or blank: the engine's) override its two
    efficiencies.
    ``interconnect`` is a link id of :mod:`calculators.catalog.interconnects` or ``"auto"``
    (the GPU's own link); ``collective_efficiency`` the fraction of its per-direction
    bandwidth the all-reduces reach (``None``: :func:`calculators.parallel.tensor.link_efficiency`).
    Keyword-only, so that a record adding its own fields keeps them first.
    """

    weights: str | WeightFormat = STORED
    kv_cache: str = "bf16"
    gpus: int = 1
    engine: str | Engine = DEFAULT_ENGINE
    bandwidth_efficiency: float | None = None
    compute_efficiency: float | None = None
    interconnect: str = AUTO
    collective_efficiency: float | None = None

    def server_settings(self) -> dict[str, Any]:
        """These eight inputs by name, as :meth:`SpeedSetup.of` takes them.

        >>> SpeedInputs(batch=8, engine="vllm").server_settings()["engine"]
        'vllm'
        """
        return {field.name: getattr(self, field.name) for field in fields(ServerInputs)}


@dataclass(frozen=True)
class SpeedInputs(ServerInputs):
    """The raw inputs of a :class:`SpeedSetup`, as a user gives them, with their defaults: the batch and the
    context, then the server's (:class:`ServerInputs`: the weights and KV cache formats, GPUs, engine and link).

    ``batch`` and ``context`` are checked as the memory calculator checks them
    (:meth:`~calculators.memory.inference.InferenceRequest.of`), so the two never disagree.
    """

    batch: int = 1
    context: int = 4096


@dataclass(frozen=True)
class SpeedSetup:
    """Validated settings shared by the speed functions (build it with :meth:`of`)."""

    weights: DType
    kv_cache: DType
    batch: int
    context: int
    gpus: int
    bandwidth_efficiency: float
    compute_efficiency: float
    interconnect: str = AUTO
    collective_efficiency: float | None = None
    engine: str = DEFAULT_ENGINE
    weight_format: str = ""
    moe_expert_efficiency: float = 1.0
    step_overhead_s_per_layer: float = 0.0
    request_overhead_s: float = 0.0
    grouped_query_decode: str = "grouped"
    kv_reread_cost: float = 1.0
    stored_format: WeightFormat | None = None  # a checkpoint's own quantisation (weights "auto")
    custom_all_reduce: bool = False
    sequence_overhead_s: float = 0.0
    host_work_per_sequence: bool = False
    engine_family: str = DEFAULT_ENGINE
    #: The engine record whose kernel facts time the passes (FP16 accumulation, unfused attention scores and
    #: elementwise traffic, dequantisation before GEMMs, prompt micro-batches, CPU launches per layer): read there,
    #: not copied field by field into this record.
    kernels: Engine = field(default_factory=lambda: get_engine(DEFAULT_ENGINE), compare=False, repr=False)

    @property
    def format(self) -> WeightFormat:
        """The weights' format (bits per weight); ``weights`` is its DType family."""
        return self.stored_format or weight_format(self.weight_format or self.weights)

    def serving_request(self, *, new_tokens: int) -> InferenceRequest:
        """The memory calculator's request for this batch generating ``new_tokens`` tokens per sequence (SDPA, CUDA,
        no images): the fields :meth:`of` checked through :meth:`InferenceRequest.of`; ``new_tokens`` is checked
        by the caller (``context + new_tokens`` at most ``MAX_CONTEXT``)."""
        return InferenceRequest(weights=self.weights, kv_cache=self.kv_cache, batch=self.batch, context=self.context,
                                new_tokens=new_tokens, attention="sdpa", weight_format=self.weight_format,
                                stored_format=self.stored_format)

    def link(self, gpu: GPU) -> Interconnect:
        """The tensor-parallel link for this GPU (``interconnect``, or the GPU's own when ``"auto"``)."""
        return tensor_parallel_link(gpu, gpus=self.gpus, interconnect=self.interconnect)

    def assumptions(self) -> tuple[str, ...]:
        """The efficiencies and layout, as sentences for a result."""
        kind = "assumed" if self.engine == DEFAULT_ENGINE else "fitted on published runs"
        lines: tuple[str, ...] = (
            f"engine {self.engine}: bandwidth efficiency {self.bandwidth_efficiency:.3g} and compute efficiency "
            f"{self.compute_efficiency:.3g} of the spec-sheet peaks ({kind})",
            f"{self.gpus} GPUs in tensor parallel: bytes and FLOPs split evenly" if self.gpus > 1 else "one GPU",
            f"weights {self.format.id} ({self.format.bits_per_weight:.4g} bits per weight), KV cache "
            f"{self.kv_cache.value}",
        )
        if self.grouped_query_decode == "per-head":
            lines += ((f"engine {self.engine}: no grouped-query decode kernel, so a decode step reads the KV cache "
                       "once per query head (query heads / KV heads times), each repeated read at "
                       f"{self.kv_reread_cost:.3g} of a read from memory ({kind})"),)
        kernels = self.kernels
        if kernels.attention_score_bytes:
            lines += ((f"engine {self.engine}: attention not fused, so every attention score is written to memory and "
                       f"read back ({kernels.attention_score_bytes} bytes per score, query x key x head"
                       f"{', 8 more on CUDA GPUs: its conversions around cuBLAS' if kernels.fp16_accumulate else ''}), "
                       "added to each pass as memory-bound kernels of their own"),)
        if any(kernels.activation_bytes):
            lines += ((f"engine {self.engine}: every elementwise operation (norms, rotary embedding, activation, "
                       "residual adds" + (", on CUDA GPUs the conversions around each cuBLAS call" if kernels.fp16_accumulate
                                          else "") + ") is a kernel of its own, so each token's activations go "
                       "through memory between the matrix multiplies, added to each pass"),)
        if kernels.dequantised_gemm:
            lines += ((f"engine {self.engine}: on CUDA GPUs, quantised weights are dequantised to FP16 before each "
                       "matrix multiply of more than 32 tokens (read, and written at 2 bytes per weight, per chunk)"),)
        if kernels.fp16_accumulate:
            lines += ((f"engine {self.engine}: 16-bit matrix multiplies accumulate in FP16 (cuBLAS), at the GPU's "
                       "FP16-accumulate rate where it has a faster one (GeForce)"),)
        if kernels.host_launch_s_per_layer:
            lines += ((f"engine {self.engine}: no CUDA graphs, so on a CUDA GPU a decode step waits "
                       f"{kernels.host_launch_s_per_layer * 1e6:,.1f} us per layer for the CPU to launch its kernels one at "
                       "a time (measured by NVIDIA on llama.cpp, not fitted)"),)
        if kernels.metal_step_s_per_layer:
            lines += ((f"engine {self.engine}: on an Apple GPU (Metal, no graph replay) a decode step's fixed cost is "
                       f"{kernels.metal_step_s_per_layer * 1e6:,.1f} us per layer, measured on a 1.1B model, "
                       "not fitted, in place of the fitted cost per layer below (a prefill keeps that)"),)
        launch = f"{kernels.ungraphed_launch_s_per_layer * 1e6:,.1f} us per layer of launches"
        if kernels.ungraphed_launch_s_per_layer and kernels.graph_replay:
            lines += ((f"engine {self.engine}: CUDA graphs replay decode steps only, so on a CUDA GPU a prefill is "
                       f"launched from the CPU and adds {launch}, in full for short prompts and less for long ones "
                       "(measured, not fitted)"),)
        elif kernels.ungraphed_launch_s_per_layer and not kernels.step_overhead_s_per_layer.fitted_on:
            lines += ((f"engine {self.engine}: its runs launch every pass from the CPU (no CUDA graph) and its fixed cost "
                       f"per layer is not fitted on them, so on a CUDA GPU a pass adds {launch}, in full in short "
                       "passes and less in long ones (measured, not fitted)"),)
        if kernels.moe_gemm_16bit and self.weights is DType.FP8:
            lines += ((f"engine {self.engine}: a mixture of experts' routed-expert GEMMs have no FP8 kernel in this "
                       "release, so they run at the GPU's 16-bit rate (their weights read at the bytes stored)"),)
        if kernels.moe_gemm_16bit:
            lines += ((f"engine {self.engine}: a mixture of experts' routed-expert GEMMs are Ampere (mma.sync) kernels, "
                       "which reach two thirds of the tensor rate on a Hopper GPU"),)
        if self.grouped_query_decode == "copied":
            lines += ((f"engine {self.engine}: a decode step copies the KV cache once per query head before "
                       "attention reads it (query heads / KV heads copies written and read)"),)
        if self.step_overhead_s_per_layer or self.request_overhead_s or self.sequence_overhead_s:
            per_sequence = (f"{self.sequence_overhead_s * 1e6:,.1f} us per sequence per step (the host's scheduling and "
                            "output processing of each sequence, which blocks the GPU), "
                            if self.host_work_per_sequence else "")
            lines += (f"fixed costs: {self.step_overhead_s_per_layer * 1e6:,.1f} us per layer per forward pass, "
                      f"{per_sequence}{self.request_overhead_s * 1e3:,.2f} ms per request ({kind})",)
        return lines

    @classmethod
    def of(cls, **raw: Any) -> SpeedSetup:
        """Check every speed input once (keywords: :class:`SpeedInputs`); raises
        :class:`~calculators.errors.InputError` naming the field, or TypeError for a keyword it does not have.

        Weights ``"auto"`` (the default) is refused: no model is known here to read its checkpoint format from
        (:func:`~calculators.memory.inference.with_stored_weights` resolves it against one first).

        >>> SpeedSetup.of(engine="vllm")
        Traceback (most recent call last):
        ...
        calculators.errors.InputError: weights: got 'auto'; expected a format such as bf16, fp8, int4 or mxfp4 ('auto' needs a model to read its checkpoint format from: give the model, or the format its checkpoint stores)
        """
        given = SpeedInputs(**raw)
        link = str(given.interconnect).strip().lower()
        if link != AUTO:
            link = get_interconnect(link).id
        # The serving inputs the memory calculator also takes get its checks, so the two never disagree.
        serving = InferenceRequest.of(weights=given.weights, kv_cache=given.kv_cache, batch=given.batch,
                                      context=given.context)
        chosen = get_engine(given.engine)
        bandwidth, compute = given.bandwidth_efficiency, given.compute_efficiency
        collective = given.collective_efficiency
        return cls(
            weights=serving.weights,
            weight_format=serving.weight_format,
            stored_format=serving.stored_format,
            kv_cache=serving.kv_cache,
            batch=serving.batch,
            context=serving.context,
            gpus=positive_int("gpus", given.gpus, maximum=MAX_GPUS),
            bandwidth_efficiency=(chosen.value("bandwidth_efficiency") if _blank(bandwidth)
                                  else _efficiency("bandwidth_efficiency", bandwidth)),
            compute_efficiency=(chosen.compute_efficiency_for(serving.weights)
                                if _blank(compute) else _efficiency("compute_efficiency", compute)),
            interconnect=link,
            collective_efficiency=None if _blank(collective) else _efficiency("collective_efficiency", collective),
            engine=chosen.id,
            moe_expert_efficiency=chosen.value("moe_expert_efficiency"),
            step_overhead_s_per_layer=chosen.value("step_overhead_s_per_layer"),
            request_overhead_s=chosen.value("request_overhead_s"),
            grouped_query_decode=chosen.grouped_query_decode,
            kv_reread_cost=chosen.value("kv_reread_cost"),
            custom_all_reduce=chosen.custom_all_reduce,
            sequence_overhead_s=chosen.value("sequence_overhead_s") if chosen.host_work_per_sequence else 0.0,
            host_work_per_sequence=chosen.host_work_per_sequence,
            engine_family=chosen.family_id,
            kernels=chosen,
        )


def compute_dtype(weights: DType) -> DType:
    """The format the matmuls run in for a weights family: fp32 and fp8 as stored, everything else 16-bit."""
    # fp8 checkpoints run fp8 matmuls; weight-only int8/int4/nf4 dequantise to 16 bits.
    if weights in (DType.FP32, DType.FP8):
        return weights
    return DType.BF16
