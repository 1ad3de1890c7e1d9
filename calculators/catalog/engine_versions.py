"""Which catalog engine a published run used, from the engine's name and the version (or build month) it states.

An engine's kernels change between releases; where a change is a term of the speed model, the release before it is
an engine record of its own (:mod:`calculators.catalog.engines`) sharing the current record's fitted constants:

* TensorRT-LLM before v0.8 has no grouped-query decode kernel (XQA, :data:`~calculators.catalog.engine_sources.XQA_SOURCE`)
  and all-reduces with NCCL's ring: ``tensorrt-llm-0.7``;
* TensorRT-LLM before v0.10 runs a mixture of experts' expert GEMMs at the 16-bit rate whatever the weights
  (:data:`~calculators.catalog.engine_kernels.TENSORRT_LLM_MOE_GEMM_SOURCE`): v0.8 and v0.9 are ``tensorrt-llm-0.9``;
* llama.cpp builds dated before July 2024 dequantise for cuBLAS (``llama.cpp-2024``), before May 2024 also launch
  every kernel from the CPU (``llama.cpp-no-graphs``), and a run with ``-fa 1`` is ``llama.cpp-fa``
  (:mod:`calculators.catalog.engine_kernels`).

>>> engine_at_version("tensorrt-llm", "v0.9.0"), engine_at_version("tensorrt-llm", "v0.10.0")
('tensorrt-llm-0.9', 'tensorrt-llm')
"""

from __future__ import annotations

from calculators.catalog.engine_kernels import (
    LLAMA_CPP_CUDA_GRAPHS_FROM,
    LLAMA_CPP_MMQ_DEFAULT,
    TENSORRT_LLM_FP8_MOE_FROM,
    build_month,
)

#: The first TensorRT-LLM release with the XQA kernel (:data:`~calculators.catalog.engine_sources.XQA_SOURCE`).
XQA_FIRST_VERSION = (0, 8)


def _version(text: str) -> tuple[int, ...] | None:
    digits = text.strip().lower().removeprefix("v").split(".")
    try:
        return tuple(int(part) for part in digits[:2])
    except ValueError:
        return None


def engine_at_version(engine_id: str, version: str | None, *, flash_attention: bool = False) -> str:
    """The catalog engine id for an engine at a stated version (``None``: the current one).

    TensorRT-LLM before v0.8 (no XQA kernel) is ``tensorrt-llm-0.7``, v0.8 and v0.9 (no FP8 MoE GEMMs)
    ``tensorrt-llm-0.9``; llama.cpp dated (``"YYYY-MM"``) before July 2024 is ``llama.cpp-2024`` (dequantise, then
    cuBLAS), before May 2024 ``llama.cpp-no-graphs`` (also no CUDA graphs; a May 2024 build is not placed), and
    llama.cpp run with ``flash_attention`` (``-fa 1``) is ``llama.cpp-fa``; every other engine and version is
    ``engine_id`` itself.

    >>> engine_at_version("tensorrt-llm", "v0.6.1"), engine_at_version("tensorrt-llm", "v0.9.0")
    ('tensorrt-llm-0.7', 'tensorrt-llm-0.9')
    >>> engine_at_version("vllm", "v0.4.0"), engine_at_version("tensorrt-llm", None)
    ('vllm', 'tensorrt-llm')
    >>> [engine_at_version("llama.cpp", month) for month in ("2023-12", "2024-05", None)]
    ['llama.cpp-no-graphs', 'llama.cpp-2024', 'llama.cpp']
    """
    stated = None if version is None else _version(str(version))
    if engine_id == "tensorrt-llm" and stated is not None:
        if stated < XQA_FIRST_VERSION:
            return "tensorrt-llm-0.7"
        if stated < TENSORRT_LLM_FP8_MOE_FROM:
            return "tensorrt-llm-0.9"
    if engine_id == "llama.cpp":
        month = None if version is None else build_month(str(version))
        if month is not None and month < LLAMA_CPP_MMQ_DEFAULT:
            return "llama.cpp-no-graphs" if month < LLAMA_CPP_CUDA_GRAPHS_FROM else "llama.cpp-2024"
        if flash_attention:
            return "llama.cpp-fa"
    return engine_id
