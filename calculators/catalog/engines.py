"""Inference engines as inputs: the efficiencies and fixed costs each one reaches, fitted on published runs.

A speed estimate divides bytes and FLOPs by a GPU's peaks; how close a run gets depends
on the software more than on the GPU. Each :class:`Engine` holds five constants:

* ``bandwidth_efficiency``: fraction of peak memory bandwidth a decode step reaches;
* ``compute_efficiency``: fraction of the dense tensor rate matrix multiplies reach,
  per compute format (``"16-bit"``, ``"fp8"``, ``"weight-only"`` for 4- and 8-bit
  integer formats dequantised in the kernel);
* ``moe_expert_efficiency``: how much slower routed-expert weights stream than dense
  ones (1 = as fast);
* ``step_overhead_s_per_layer``: fixed time of one forward pass per decoder layer
  (kernel launches, Python and scheduling), seconds: why small models on fast GPUs
  stay far below the roofline;
* ``sequence_overhead_s``: fixed time of each sequence in each step, seconds, on an engine whose host
  processes every sequence between steps while the GPU waits (``host_work_per_sequence``, a fact:
  vLLM, whose own profile found scheduling and output processing, "with the overhead increasing as
  batch sizes grew", blocking the GPU, :data:`OUTPUT_PROCESSING_SOURCE`); why it falls behind the
  roofline at large batches. SGLang overlaps that work with the GPU (its zero-overhead scheduler),
  TensorRT-LLM's runtime and the single-sequence engines have none, so for them it is not a term;
* ``request_overhead_s``: fixed time a request spends before its prefill runs
  (tokenising, scheduling, the first step's launch), seconds: part of the time to
  first token. It is the cost of a request through the engine's server, fitted only on
  figures measured that way (a closed-loop client at a stated concurrency,
  :func:`calculators.speed_accuracy.predict.served`); an engine whose published figures were
  all measured in its own process (TensorRT-LLM's gptSessionBenchmark) has none of its own and
  takes the pooled value.

* ``kv_reread_cost``: on an engine whose decode kernel reads a KV head once per query head
  (``"per-head"`` below), the cost of each repeated read relative to a read from memory
  (below 1: the L2 cache serves part of them).

The pooled fixed cost per layer is fitted on the figures of engines that replay a captured CUDA graph for
each decode step (``graph_replay``, a fact: vLLM and SGLang, :data:`GRAPH_REPLAY_SOURCE`), where it is
the GPU's own cost of a layer's kernels, not the host's; every other constant of the pooled fit is fitted
on every engine's figures. An engine that launches every operation from Python (``eager_launches``, a
fact: transformers in eager PyTorch) has no pooled fixed cost to fall back on: with no figure of its own,
its cost per layer is :data:`EAGER_HOST_S_PER_LAYER`, the host cost PyTorch's own team measured for an
eager decoder layer (:data:`EAGER_HOST_SOURCE`). Likewise an engine whose host works per sequence with no
figure informing that cost takes :data:`HOST_S_PER_SEQUENCE`, the time vLLM's developers measured between
two decode steps of 200 sequences over 200 (:data:`HOST_PER_SEQUENCE_SOURCE`), not another engine's fit.

Two facts are not fitted. ``custom_all_reduce``: vLLM, SGLang and TensorRT-LLM all-reduce a decode
step's tensor-parallel activations with their own one- or two-stage kernel (two or three cross-GPU
steps) instead of NCCL's ring (``2 (N - 1)`` steps): :mod:`calculators.parallel.custom_all_reduce`.
TensorRT-LLM's kernel was an opt-in build flag in its early build scripts, and the published tables of v0.5 and v0.6.1
were built without it (:data:`NCCL_ALL_REDUCE_SOURCE`): ``tensorrt-llm-0.7`` all-reduces with NCCL's ring
(v0.8, between the two, is taken as the current engine). Before v0.10 (``tensorrt-llm-0.7``, ``tensorrt-llm-0.9``)
its MoE layer had no FP8 GEMM (``moe_gemm_16bit``, :data:`TENSORRT_LLM_MOE_GEMM_SOURCE`). Which record a stated
version is: :func:`engine_at_version` (:mod:`calculators.catalog.engine_versions`).
And ``grouped_query_decode``, how the engine's decode attention reads the
KV heads of a grouped-query (or multi-query) model, one of :data:`KV_HEAD_READS`:
``"grouped"``, one read per KV head for all the query heads that share it; ``"per-head"``,
one read per query head (a kernel that handles one query head at a time), so a decode step
reads ``query heads / KV heads`` times the cache; ``"copied"``, the KV heads are first
copied out once per query head and the copy is read, so every step also writes and reads
that many copies. TensorRT-LLM added a grouped kernel (XQA) in v0.8 (:data:`XQA_SOURCE`);
``tensorrt-llm-0.7`` is the same engine before it, sharing the fitted constants of
``tensorrt-llm`` (``fits_as``); eager transformers copies (:data:`REPEAT_KV_SOURCE`). The other
engines are taken as ``"grouped"`` with no source read (``grouped_query_source`` is ``None``):
their fitted bandwidth efficiency carries whatever their kernels repeat.

Every value is a :class:`Fitted`: the number, the ids of the published figures in
``tests/data/published_speed`` it was fitted on (:mod:`calculators.speed_accuracy.fit`
refits them; ``tests/catalog/test_engines.py`` checks the two agree), or ``None`` where the
engine has no such figure, in which case the value fitted on every engine's figures
together (:data:`POOLED`) is used. ``generic`` is the package's earlier assumption
(0.8 of bandwidth, 0.6 of the tensor rate, no fixed costs): the naive roofline.

>>> get_engine("vllm").name
'vLLM'
>>> get_engine("generic").compute_efficiency_for("fp8")
0.6
>>> sorted(engine_ids())[:4]
['generic', 'llama.cpp', 'llama.cpp-2024', 'llama.cpp-fa']

References:
    docs page "How accurate is the speed model?"; the engines' own documents in each
    record's ``source``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from calculators.catalog.engine_kernels import (
    EAGER_ACTIVATION_BYTES,
    LLAMA_BENCH_UBATCH_TOKENS,
    LLAMA_CPP_ACTIVATION_BYTES,
    LLAMA_CPP_LAUNCH_S_PER_LAYER,
    LLAMA_CPP_METAL_S_PER_LAYER,
    LLAMA_CPP_METAL_SCORE_BYTES,
    PYTORCH_LAUNCH_S_PER_LAYER,
    TENSORRT_LLM_MOE_GEMM_SOURCE as TENSORRT_LLM_MOE_GEMM_SOURCE,
    UNFUSED_ATTENTION_SCORE_BYTES,
)
from calculators.catalog.engine_sources import EAGER_HOST_SOURCE as EAGER_HOST_SOURCE
from calculators.catalog.engine_sources import GRAPH_REPLAY_SOURCE as GRAPH_REPLAY_SOURCE
from calculators.catalog.engine_sources import HOST_PER_SEQUENCE_SOURCE as HOST_PER_SEQUENCE_SOURCE
from calculators.catalog.engine_sources import HOST_S_PER_SEQUENCE as HOST_S_PER_SEQUENCE
from calculators.catalog.engine_sources import NCCL_ALL_REDUCE_SOURCE as NCCL_ALL_REDUCE_SOURCE
from calculators.catalog.engine_sources import OUTPUT_PROCESSING_SOURCE as OUTPUT_PROCESSING_SOURCE
from calculators.catalog.engine_sources import REPEAT_KV_SOURCE as REPEAT_KV_SOURCE
from calculators.catalog.engine_sources import XQA_SOURCE as XQA_SOURCE
from calculators.catalog.engine_versions import XQA_FIRST_VERSION as XQA_FIRST_VERSION
from calculators.catalog.engine_versions import engine_at_version as engine_at_version
from calculators.catalog.sources import Source
from calculators.dtypes import DType
from calculators.errors import UnknownNameError

_READ = "2026-11-25"
#: The compute formats an engine's compute efficiency is given for.
COMPUTE_KEYS = ("16-bit", "fp8", "weight-only")


@dataclass(frozen=True)
class Fitted:
    """A constant fitted on published figures.

    Attributes:
        value: the constant (``None``: no figure of this engine informs it).
        fitted_on: ids of the dataset records it was fitted on (empty for an assumption).
        note: how it was obtained, in words.
    """

    value: float | None
    fitted_on: tuple[str, ...] = ()
    note: str = ""

    @property
    def kind(self) -> str:
        """``"fitted"``, ``"assumed"`` (a value with no records) or ``"unknown"``."""
        if self.value is None:
            return "unknown"
        return "fitted" if self.fitted_on else "assumed"


@dataclass(frozen=True)
class Engine:
    """One inference engine and the efficiencies its published runs reach.

    Attributes:
        id: short name, e.g. ``"vllm"``.
        name: the project's name, e.g. ``"vLLM"``.
        description: what runs (kernels, graphs, batching), in a sentence.
        source: the engine's own document.
        bandwidth_efficiency: fraction of peak memory bandwidth (0 to 1).
        compute_efficiency: ``(compute key, Fitted)`` pairs, keys of :data:`COMPUTE_KEYS`.
        moe_expert_efficiency: relative speed of routed-expert weight reads (0 to 1).
        step_overhead_s_per_layer: fixed seconds per decoder layer per forward pass.
        request_overhead_s: fixed seconds per request before its first token.
        sequence_overhead_s: fixed seconds per sequence per forward pass (host-side output processing).
        kv_reread_cost: cost of a repeated KV-head read relative to a read from memory (``"per-head"`` kernels).
        grouped_query_decode: how a decode step reads the KV heads of a grouped-query model, one of
            :data:`KV_HEAD_READS` (a catalog fact with ``grouped_query_source``, not fitted).
        grouped_query_source: the document that says whether and since when the engine has such a kernel.
        fits_as: id of the engine whose fitted constants these are (itself unless it is a version of another).
        family: the engine id published figures name it by, where its own id is a refitted copy's
            (``"vllm (cross-validated)"``); empty: :attr:`fit_id`.
        host_work_per_sequence: the engine's host processes each sequence between steps, blocking the GPU (a catalog
            fact, :data:`OUTPUT_PROCESSING_SOURCE`): only then does ``sequence_overhead_s`` apply.
        eager_launches: the engine launches each operation of a forward pass from Python, one kernel at a time,
            with no CUDA graph (a catalog fact); with no figure of its own, its ``step_overhead_s_per_layer`` is
            :data:`EAGER_HOST_S_PER_LAYER`, not the pooled value of graph-replaying engines.
        graph_replay: the engine replays a captured CUDA graph for each decode step in the runs it publishes (a
            catalog fact, :data:`GRAPH_REPLAY_SOURCE`): the pooled fixed cost per layer is fitted on such engines only.
        custom_all_reduce: the engine all-reduces tensor-parallel activations with its own one- or two-stage
            kernel where it takes the buffer, not NCCL's ring (a catalog fact,
            :data:`calculators.parallel.custom_all_reduce.CUSTOM_ALL_REDUCE_SOURCE`; not fitted).
        fp16_accumulate, attention_score_bytes, dequantised_gemm, prefill_chunk_tokens, activation_bytes: what the
            engine's kernels do between its matmuls, read in its code (:mod:`calculators.catalog.engine_kernels`).
        host_launch_s_per_layer: seconds per layer a CUDA decode step waits for the CPU to launch kernels one at a
            time, with no CUDA graph (measured, not fitted: :mod:`calculators.catalog.engine_kernels`).
        moe_gemm_16bit: a mixture of experts' routed-expert GEMMs run at the GPU's 16-bit rate whatever the weights'
            format (no FP8 grouped GEMM; weights read at their stored bytes): :mod:`calculators.catalog.engine_kernels`.
        metal_step_s_per_layer: the engine's measured fixed cost per layer of a decode step on an Apple GPU (Metal
            has no graph replay; a catalog fact,
            :data:`calculators.catalog.engine_kernels.LLAMA_CPP_METAL_S_PER_LAYER`): on Apple GPUs it replaces
            ``step_overhead_s_per_layer`` for decode steps, which is then fitted on the engine's other runs. ``0``:
            the fitted cost everywhere.
        ungraphed_launch_s_per_layer: the engine's published runs launch every forward pass from the host, no CUDA graph
            (a catalog fact); the measured cost per layer of doing so. Where the engine's fixed cost per layer is not
            fitted on its own runs (which carry it), it is the pooled one of graph-replaying engines and the passes add
            these launches: :func:`calculators.performance.pass_peaks.with_ungraphed_launches`.
    """

    id: str
    name: str
    description: str
    source: Source
    bandwidth_efficiency: Fitted
    compute_efficiency: tuple[tuple[str, Fitted], ...]
    moe_expert_efficiency: Fitted
    step_overhead_s_per_layer: Fitted
    request_overhead_s: Fitted
    kv_reread_cost: Fitted
    sequence_overhead_s: Fitted = Fitted(None)
    grouped_query_decode: str = "grouped"
    grouped_query_source: Source | None = None
    fits_as: str = ""
    custom_all_reduce: bool = False
    host_work_per_sequence: bool = False
    family: str = ""
    eager_launches: bool = False
    fp16_accumulate: bool = False
    attention_score_bytes: int = 0
    dequantised_gemm: bool = False
    prefill_chunk_tokens: int = 0
    activation_bytes: tuple[int, int, int, int] = (0, 0, 0, 0)
    graph_replay: bool = False
    host_launch_s_per_layer: float = 0.0
    moe_gemm_16bit: bool = False
    ungraphed_launch_s_per_layer: float = 0.0
    metal_step_s_per_layer: float = 0.0

    @property
    def family_id(self) -> str:
        """The engine the published figures name this one by (its versions and refitted copies share it)."""
        return self.family or self.fit_id

    @property
    def fit_id(self) -> str:
        """The engine id whose fitted constants (:mod:`calculators.catalog.engine_fits`) this engine uses."""
        return self.fits_as or self.id

    def compute_fitted(self, key: str) -> Fitted:
        """The :class:`Fitted` compute efficiency for ``key`` (one of :data:`COMPUTE_KEYS`)."""
        return dict(self.compute_efficiency).get(key, Fitted(None))

    def compute_efficiency_for(self, compute: str | DType) -> float:
        """Fraction of the dense tensor rate for a compute format or a weights DType family.

        ``fp8`` -> ``"fp8"``; int8, int4 and nf4 (weight-only) -> ``"weight-only"``;
        everything else -> ``"16-bit"``. ``None`` values fall back to :data:`POOLED`.
        """
        key = compute_key(compute)
        for engine in (self, POOLED, GENERIC):
            value = engine.compute_fitted(key).value
            if value is not None:
                return value
        raise AssertionError("GENERIC has every value")  # pragma: no cover

    def value(self, name: str) -> float:
        """``bandwidth_efficiency``, ``moe_expert_efficiency``, ``step_overhead_s_per_layer``,
        ``request_overhead_s``, ``kv_reread_cost`` or ``sequence_overhead_s``; a ``None`` falls back to
        :data:`POOLED`, then to :data:`GENERIC`; an eager engine's fixed cost per layer falls back to
        :data:`EAGER_HOST_S_PER_LAYER` instead, and a host-per-sequence engine's cost per sequence to
        :data:`HOST_S_PER_SEQUENCE`."""
        if name == "step_overhead_s_per_layer" and self.eager_launches and self.step_overhead_s_per_layer.value is None:
            return EAGER_HOST_S_PER_LAYER
        if name == "sequence_overhead_s" and self.host_work_per_sequence and self.sequence_overhead_s.value is None:
            return HOST_S_PER_SEQUENCE
        for engine in (self, POOLED, GENERIC):
            value: float | None = getattr(engine, name).value
            if value is not None:
                return value
        raise AssertionError("GENERIC has every value")  # pragma: no cover


def compute_key(compute: str | DType) -> str:
    """The compute-efficiency key of a weights family or compute format.

    >>> compute_key(DType.INT4), compute_key("bf16"), compute_key("fp8")
    ('weight-only', '16-bit', 'fp8')
    """
    if not isinstance(compute, DType) and compute in COMPUTE_KEYS:
        return compute
    kind = DType.parse(compute, "compute")
    if kind is DType.FP8:
        return "fp8"
    if kind in (DType.INT8, DType.INT4, DType.NF4):
        return "weight-only"
    return "16-bit"


#: How a decode step reads the KV heads of a grouped-query model (:attr:`Engine.grouped_query_decode`).
KV_HEAD_READS = ("grouped", "per-head", "copied")
#: Host cost of one decoder layer launched eagerly, from :data:`EAGER_HOST_SOURCE`: the time a token takes eagerly
#: less the time with the host cost removed, over Llama-2-7B's 32 layers: (1 / 25.5 - 1 / 107.0) / 32 = 0.934 ms.
EAGER_HOST_S_PER_LAYER = (1.0 / 25.5 - 1.0 / 107.0) / 32


def _src(title: str, url: str) -> Source:
    return Source(title, url, _READ, kind="spec")


def _assumed(value: float, note: str) -> Fitted:
    return Fitted(value, (), note)


GENERIC = Engine(
    id="generic", name="generic roofline",
    description="no particular engine: 0.8 of peak bandwidth, 0.6 of the dense tensor rate, no fixed costs "
                "(the package's assumption before engines were inputs; the naive roofline of the accuracy page)",
    source=Source("Sizing ML Hardware: the default efficiencies of calculators.performance.inference_speed",
                  "docs/performance/index.md", _READ, kind="assumed"),
    bandwidth_efficiency=_assumed(0.8, "assumed"),
    compute_efficiency=tuple((key, _assumed(0.6, "assumed")) for key in COMPUTE_KEYS),
    moe_expert_efficiency=_assumed(1.0, "assumed: experts stream like dense weights"),
    step_overhead_s_per_layer=_assumed(0.0, "assumed: none"),
    request_overhead_s=_assumed(0.0, "assumed: none"),
    kv_reread_cost=_assumed(1.0, "assumed: every repeated read from memory"),
    sequence_overhead_s=_assumed(0.0, "assumed: none"),
)

# --------------------------------------------------------------------------- fitted values
# Written from `scripts/score_speed.py --fit` (calculators.speed_accuracy.fit.fit_catalog) on
# tests/data/published_speed; tests/catalog/test_engines.py refits and compares.
from calculators.catalog.engine_fits import FITS, FitRow  # noqa: E402  (data module, generated)

#: The constants of an :class:`Engine` that are fitted, in :data:`FITS` rows.
FITTED_NAMES = ("bandwidth_efficiency", "moe_expert_efficiency", "step_overhead_s_per_layer", "request_overhead_s",
                "kv_reread_cost", "sequence_overhead_s")


def _fitted(engine_id: str) -> dict[str, Any]:
    rows: dict[str, FitRow] = FITS.get(engine_id, {})
    note = "pooled fit (every engine's figures)" if engine_id == "pooled" else f"fitted on {engine_id}'s figures"

    def one(name: str) -> Fitted:
        value, ids = rows.get(name, (None, ()))
        return Fitted(value, tuple(ids), note if value is not None else "no figure of this engine informs it")

    fields: dict[str, Any] = {name: one(name) for name in FITTED_NAMES}
    fields["compute_efficiency"] = tuple((key, one(f"compute:{key}")) for key in COMPUTE_KEYS)
    return fields


POOLED = Engine(
    id="pooled", name="all engines pooled",
    description="one set of constants fitted on every engine's published figures together: the fallback for a "
                "constant an engine has no figure for",
    source=Source("Sizing ML Hardware: fit over tests/data/published_speed (all engines)",
                  "tests/data/published_speed", _READ, kind="derived"),
    **_fitted("pooled"),
)

_TENSORRT_LLM = Engine(
    id="tensorrt-llm", name="TensorRT-LLM",
    description="compiled TensorRT engines with fused attention and GEMM plugins, in-flight or static batching",
    source=_src("NVIDIA TensorRT-LLM documentation", "https://nvidia.github.io/TensorRT-LLM/"),
    grouped_query_source=XQA_SOURCE, custom_all_reduce=True, ungraphed_launch_s_per_layer=LLAMA_CPP_LAUNCH_S_PER_LAYER,
    **_fitted("tensorrt-llm"))

#: Ollama builds its runners from a vendored copy of llama.cpp and ggml (plus a few patches), so its kernels are
#: llama.cpp's.
OLLAMA_VENDORS_SOURCE = Source(
    "ollama/ollama llama/README.md, 'Vendoring': 'Ollama currently vendors llama.cpp and ggml through a vendoring "
    "model ... we carry a small set of patches which are applied to the tracking commit'",
    "https://github.com/ollama/ollama/blob/5f0669a1a402cae7f90d928e2f2aa16c533488bc/llama/README.md", "2026-11-30")

_LLAMA_CPP = Engine(
    id="llama.cpp", name="llama.cpp",
    description="ggml kernels for GGUF block formats (CUDA, Metal), one sequence per slot, single-token matrix-vector "
                "kernels for decoding; prompts in micro-batches of 512 tokens, 16-bit GEMMs accumulating in FP16, "
                "attention unfused (llama-bench's default -fa 0)",
    source=_src("ggml-org/llama.cpp README", "https://github.com/ggml-org/llama.cpp"), fp16_accumulate=True,
    attention_score_bytes=LLAMA_CPP_METAL_SCORE_BYTES, prefill_chunk_tokens=LLAMA_BENCH_UBATCH_TOKENS,
    activation_bytes=LLAMA_CPP_ACTIVATION_BYTES, metal_step_s_per_layer=LLAMA_CPP_METAL_S_PER_LAYER,
    **_fitted("llama.cpp"))

_ENGINES: tuple[Engine, ...] = (
    GENERIC,
    Engine(id="transformers", name="Hugging Face transformers (eager)",
           description="transformers generate() in eager PyTorch: one kernel launch per operation, no CUDA graphs, "
                       "no torch.compile, static batches",
           source=_src("Hugging Face transformers documentation, 'Generation'",
                       "https://huggingface.co/docs/transformers/main_classes/text_generation"),
           grouped_query_decode="copied", grouped_query_source=REPEAT_KV_SOURCE, eager_launches=True,
           attention_score_bytes=UNFUSED_ATTENTION_SCORE_BYTES, activation_bytes=EAGER_ACTIVATION_BYTES,
           **_fitted("transformers")),
    Engine(id="vllm", name="vLLM",
           description="PagedAttention, continuous batching, CUDA graphs for decode",
           source=_src("vLLM documentation", "https://docs.vllm.ai/en/latest/"), custom_all_reduce=True,
           host_work_per_sequence=True, graph_replay=True, ungraphed_launch_s_per_layer=PYTORCH_LAUNCH_S_PER_LAYER,
           **_fitted("vllm")),
    Engine(id="sglang", name="SGLang",
           description="RadixAttention, continuous batching, CUDA graphs for decode; a constant its published runs "
                       "do not inform is the pooled fit",
           source=_src("SGLang documentation", "https://docs.sglang.ai/"), custom_all_reduce=True,
           graph_replay=True, ungraphed_launch_s_per_layer=PYTORCH_LAUNCH_S_PER_LAYER, **_fitted("sglang")),
    _TENSORRT_LLM,
    replace(_TENSORRT_LLM, id="tensorrt-llm-0.7", name="TensorRT-LLM v0.7 and earlier",
            description="TensorRT-LLM before the XQA kernel (v0.8): decode attention reads each KV head once per "
                        "query head, and tensor-parallel activations are all-reduced by NCCL's ring (the custom "
                        "all-reduce was an opt-in build flag then); every fitted constant is tensorrt-llm's",
            grouped_query_decode="per-head", fits_as="tensorrt-llm", custom_all_reduce=False, moe_gemm_16bit=True),
    replace(_TENSORRT_LLM, id="tensorrt-llm-0.9", name="TensorRT-LLM v0.8 and v0.9",
            description="TensorRT-LLM before its FP8 MoE kernels (v0.10): a mixture of experts' expert GEMMs take "
                        "16-bit activations only, so an FP8 build runs them at the GPU's 16-bit rate; every fitted "
                        "constant is tensorrt-llm's", fits_as="tensorrt-llm", moe_gemm_16bit=True),
    _LLAMA_CPP,
    replace(_LLAMA_CPP, id="llama.cpp-fa", name="llama.cpp with flash attention (-fa 1)",
            description="llama.cpp run with its fused flash-attention kernel: the attention scores stay on chip; "
                        "every fitted constant is llama.cpp's", attention_score_bytes=0, fits_as="llama.cpp"),
    replace(_LLAMA_CPP, id="llama.cpp-2024", name="llama.cpp builds before July 2024",
            description="llama.cpp before its quantised matrix kernels became the default on CUDA: a quantised "
                        "weight matrix is dequantised to FP16 and multiplied by cuBLAS for prompts; every fitted "
                        "constant is llama.cpp's", dequantised_gemm=True, fits_as="llama.cpp"),
    replace(_LLAMA_CPP, id="llama.cpp-no-graphs", name="llama.cpp builds before May 2024 (no CUDA graphs)",
            description="llama.cpp-2024 before CUDA graphs: on CUDA the CPU launches each kernel of a decode step",
            dequantised_gemm=True, fits_as="llama.cpp", host_launch_s_per_layer=LLAMA_CPP_LAUNCH_S_PER_LAYER),
    replace(_LLAMA_CPP, id="ollama", name="Ollama (llama.cpp inside)",
            description="Ollama's server runs the llama.cpp and ggml code it vendors: llama.cpp's "
                        "kernels and every fitted constant of llama.cpp, at the current llama.cpp record (an Ollama "
                        "release is not placed on llama.cpp's build dates); its reported eval rate is decode alone",
            source=OLLAMA_VENDORS_SOURCE, fits_as="llama.cpp"),
    Engine(id="mlx", name="MLX (mlx-lm)",
           description="Apple's MLX array framework on the Metal GPU of Apple silicon: lazily evaluated graphs, "
                       "quantised matrix-vector kernels for the affine formats (mlx-q4, ...), one sequence per "
                       "mlx_lm.generate call",
           source=_src("ml-explore/mlx-lm README", "https://github.com/ml-explore/mlx-lm"), **_fitted("mlx")),
)

_BY_ID = {engine.id: engine for engine in _ENGINES}
DEFAULT_ENGINE = "generic"


def engine_ids() -> tuple[str, ...]:
    """Ids of every catalogued engine, ``generic`` first."""
    return tuple(_BY_ID)


def all_engines() -> tuple[Engine, ...]:
    """Every catalogued engine."""
    return _ENGINES


def get_engine(name: str | Engine, field: str = "engine") -> Engine:
    """The engine named ``name`` (its id, case-insensitive).

    Raises:
        UnknownNameError: no such engine; the message lists the ids.
    """
    if isinstance(name, Engine):
        return name
    key = str(name).strip().lower()
    aliases = {"trt-llm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm", "llamacpp": "llama.cpp",
               "llama-cpp": "llama.cpp", "hf": "transformers"}
    key = aliases.get(key, key)
    if key not in _BY_ID:
        raise UnknownNameError(field, str(name), list(_BY_ID))
    return _BY_ID[key]
