"""The documents behind the inference engines' stated facts (:mod:`calculators.catalog.engines`).

Each engine fact that is not fitted (how its decode attention reads grouped KV heads, how it all-reduces
tensor-parallel activations, whether it replays CUDA graphs, whether its host works per sequence, the host cost
of eager launches and of that per-sequence work) is
taken from a document; the documents are here, one :class:`~calculators.catalog.sources.Source` each,
so that the engine records stay short. :mod:`calculators.catalog.engines` re-exports every name.

>>> XQA_SOURCE.kind, NCCL_ALL_REDUCE_SOURCE.kind
('spec', 'spec')
>>> round(HOST_S_PER_SEQUENCE * 1e6)  # us per sequence per step
100
"""

from __future__ import annotations

from calculators.catalog.sources import Source

#: TensorRT-LLM's XQA kernel: decode attention for MQA/GQA on tensor cores, one KV load per group, from v0.8.
XQA_SOURCE = Source("NVIDIA TensorRT-LLM, docs/source/blogs/XQA-kernel.md ('XQA kernel provides optimization for MQA "
                    "and GQA during generation phase'; to be included in the v0.8 releases; Llama-70B on one H200, "
                    "128/2048: 1,227 tok/s/GPU without XQA, 2,941 with)",
                    "https://github.com/NVIDIA/TensorRT-LLM/blob/main/docs/source/blogs/XQA-kernel.md", "2026-11-25",
                    kind="spec")
#: transformers' eager attention copies each KV head once per query head of its group before the matmuls.
REPEAT_KV_SOURCE = Source("Hugging Face transformers, src/transformers/models/llama/modeling_llama.py: eager_attention_forward "
                          "calls repeat_kv, 'the equivalent of torch.repeat_interleave(x, dim=1, repeats=n_rep)', on the "
                          "cached keys and values",
                          "https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama/"
                          "modeling_llama.py", "2026-11-25", kind="spec")
#: vLLM's profile of its own host-side work: output processing ("de-tokenizing the generated token IDs and performing
#: string matching, with the overhead increasing as batch sizes grew") and scheduling blocked the GPU.
OUTPUT_PROCESSING_SOURCE = Source(
    "vLLM Team, 'vLLM v0.6.0: 2.7x Throughput Improvement and 5x Latency Reduction' (2024-09-05): for Llama 3 8B on one "
    "H100, 29 % of the time in scheduling and 33 % in the HTTP server, 38 % on the GPU; output processing 'with the "
    "overhead increasing as batch sizes grew'",
    "https://github.com/vllm-project/vllm-project.github.io/blob/0dd37adf406d4bc9e780a6605548bb84a378f5f9/_posts/"
    "2024-09-05-perf-update.md", "2026-11-29", kind="measured")
#: PyTorch's team on a plain eager Llama-2-7B (fp16, batch 1, A100-80GB): 25.5 tok/s, 'heavily CPU overhead bound'
#: (the trace shows the GPU waiting for the Python host to launch each operation); the same model with the host
#: cost removed (torch.compile mode="reduce-overhead", CUDA graphs, static KV cache) 107.0 tok/s.
EAGER_HOST_SOURCE = Source(
    "PyTorch Team, 'Accelerating Generative AI with PyTorch II: GPT, Fast' (2023-11-30): Llama-2-7B, batch 1, "
    "A100-80GB: eager 'Starting Point (25.5 tok/s)', 'heavily CPU overhead bound'; 'Reducing CPU overhead through "
    "torch.compile and a static kv-cache (107.0 tok/s)'",
    "https://github.com/pytorch/pytorch.github.io/blob/d119d840c32c0f302ebff9a18042da05f72753bf/_posts/"
    "2023-11-30-accelerating-generative-ai-2.md", "2026-11-29", kind="measured")
#: TensorRT-LLM's early releases all-reduced tensor-parallel activations with NCCL unless the engine was built with
#: ``--use_custom_all_reduce`` (a store_true flag of examples/llama/build.py, 'Activates latency-optimized algorithm
#: for all-reduce instead of NCCL'); the published performance tables of v0.5 and v0.6.1 were built with commands that
#: do not pass it. A later unified build's PluginConfig turns the custom all-reduce on by default, and release 0.12
#: removed the build argument.
NCCL_ALL_REDUCE_SOURCE = Source(
    "NVIDIA TensorRT-LLM v0.6.1: docs/source/performance.md, 'Benchmarking per Model' (the Llama2-70b build command: "
    "--world_size 4 --tp_size 4 ... --enable_fp8 --fp8_kv_cache, no --use_custom_all_reduce); examples/llama/build.py "
    "('--use_custom_all_reduce', action='store_true', 'Activates latency-optimized algorithm for all-reduce instead of "
    "NCCL'); a later tensorrt_llm/plugin/plugin.py (PluginConfig.use_custom_all_reduce: bool = True); release notes "
    "0.12.0 ('The use_custom_all_reduce argument is removed from trtllm-build')",
    "https://github.com/NVIDIA/TensorRT-LLM/blob/v0.6.1/docs/source/performance.md", "2026-11-29", kind="spec")

#: Which engines replay a captured CUDA graph for each decode step in the runs they publish: vLLM (CUDA graphs unless
#: ``--enforce-eager``) and SGLang (unless ``--disable-cuda-graph``); not TensorRT-LLM's gptSessionBenchmark (an opt-in
#: ``--enable_cuda_graph`` its published tables do not pass), nor MLX (Metal), nor eager transformers, nor llama.cpp
#: (its CUDA graphs, PR #6766 'Introduction of CUDA Graphs to LLama.cpp', are not in its Metal runs nor in that PR's
#: 'master' column the figures quote).
GRAPH_REPLAY_SOURCE = Source(
    "vLLM engine arguments, --enforce-eager (default False: 'If False, we will use CUDA graph and eager execution in "
    "hybrid for maximal performance and flexibility'); SGLang server arguments (--disable-cuda-graph); TensorRT-LLM "
    "benchmarks/cpp/gptSessionBenchmark.cpp (the 'enable_cuda_graph' option, 'Execute GPT session with CUDA graph', "
    "off unless given) and docs/source/performance.md v0.6.1 (its benchmark commands do not give it)",
    "https://github.com/NVIDIA/TensorRT-LLM/blob/v0.6.1/benchmarks/cpp/gptSessionBenchmark.cpp", "2026-11-29",
    kind="spec")
#: vLLM's performance roadmap thread: the host time between two decode steps (sampling, input preparation, model
#: output processing and scheduling) 'When BS is 200, all this together can be 20ms'; a maintainer: 'We agree the time
#: is too long between steps'.
HOST_PER_SEQUENCE_SOURCE = Source(
    "vLLM issue #6801, '[RFC]: Performance Roadmap', comment of 2024-08-08: 'the time between two step is long. This "
    "includes sampling time, prepare input time, process_model_output time, and scheduler time. When BS is 200, all "
    "this together can be 20ms'",
    "https://github.com/vllm-project/vllm/issues/6801", "2026-11-29", kind="measured")
#: Host seconds per sequence per decode step of an engine whose host works per sequence (``host_work_per_sequence``),
#: from :data:`HOST_PER_SEQUENCE_SOURCE`: 20 ms between steps at 200 sequences, 20e-3 / 200 = 100 us.
HOST_S_PER_SEQUENCE = 20e-3 / 200

__all__ = ["EAGER_HOST_SOURCE", "GRAPH_REPLAY_SOURCE", "HOST_PER_SEQUENCE_SOURCE", "HOST_S_PER_SEQUENCE",
           "NCCL_ALL_REDUCE_SOURCE", "OUTPUT_PROCESSING_SOURCE", "REPEAT_KV_SOURCE", "XQA_SOURCE"]
