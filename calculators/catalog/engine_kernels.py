"""What an engine's kernels do at prefill, as documented facts: GEMM accumulation, attention, dequantisation.

Three facts of :class:`calculators.catalog.engines.Engine` come from reading the engines' code, not from
fitting; each is a term of the speed model (:mod:`calculators.performance.forward_pass`):

* ``fp16_accumulate``: llama.cpp's CUDA backend multiplies 16-bit matrices with cuBLAS at
  ``CUBLAS_COMPUTE_16F`` (FP16 accumulation) at its default precision (:data:`LLAMA_CPP_CUBLAS_SOURCE`). A
  GeForce card runs that at twice its FP32-accumulate tensor rate
  (:attr:`calculators.catalog.gpus.GPU.fp16_accumulate_dense_flop_per_s`); a data-centre GPU at the same rate.
* ``attention_score_bytes``: an engine without a fused attention kernel writes the attention scores to memory
  and reads them back in separate kernels. Bytes moved per score element (one query, one key, one head):

  - eager transformers (:data:`EAGER_ATTENTION_SOURCE`), 16-bit activations: the ``QK^T`` matmul writes 2,
    ``* scaling`` reads 2 and writes 2, ``+ attention_mask`` reads 2 and writes 2, ``softmax(dtype=float32)``
    reads 2 and writes 4, ``.to(query.dtype)`` reads 4 and writes 2, the ``PV`` matmul reads 2 (dropout is the
    identity in eval): **24**;
  - llama.cpp without flash attention (llama-bench's ``-fa 0``, its default; :data:`LLAMA_BENCH_SOURCE`): on
    CUDA (:data:`LLAMA_CPP_CUBLAS_SOURCE`) the batched cuBLAS ``KQ`` writes FP16 (2) which is converted to FP32
    (reads 2, writes 4), ``soft_max_ext`` reads 4 and writes 4, the ``KQV`` matmul converts the FP32 scores to
    FP16 (reads 4, writes 2) and reads them (2): **24**; on Metal (:data:`LLAMA_CPP_METAL_SOURCE`: ``kernel_mul_mm``
    takes F32 ``src1`` and writes F32 ``dst``) ``KQ`` writes 4, the softmax reads and writes 4 each, ``KQV``
    reads 4: **16**, the engine's value, to which CUDA adds 8.

  The mask is one matrix shared by every head (not counted). A fused (flash) attention kernel keeps the
  scores on chip: 0.
* ``activation_bytes``: an engine that runs every elementwise operation as a kernel of its own moves each token's
  activations through memory between the matrix multiplies. Bytes per token per decoder layer, per element of
  the hidden size ``h``, the query width ``q``, the KV width ``k`` and the MLP width ``I``:

  - llama.cpp (ggml graph of a Llama layer, F32 activations): each RMS norm and its weight multiply 16 h (two),
    RoPE 8 (q + k), the K and V copies into the F16 cache 12 k, the attention output's permute 8 q, the two
    residual adds 24 h, SiLU 8 I and its product with the up projection 12 I: **56 h + 16 q + 20 k + 20 I**, as
    on Metal, whose matrix kernels read and write F32. On CUDA (:data:`LLAMA_CPP_CUBLAS_SOURCE`) every cuBLAS call
    converts its F32 input to F16 (6 per element: Q, K, V 18 h; output 6 q; gate, up 12 h; down 6 I) and its F16
    result to F32 (6 per element: 6 q + 12 k, 6 h, 12 I, 6 h; the attention output 6 q): **+ 42 h + 18 q + 12 k
    + 18 I** (:data:`LLAMA_CPP_CUBLAS_CONVERSION_BYTES`);
  - eager transformers (:data:`EAGER_ATTENTION_SOURCE`'s module, 16-bit activations): each LlamaRMSNorm (upcast
    to FP32, square, mean, scale, downcast, weight) 36 h (two: 72 h), the residual adds 12 h, rotary embedding
    (``q * cos + rotate_half(q) * sin``) 20 (q + k), the attention output's ``transpose().contiguous()`` 4 q, SiLU
    and the product 10 I: **84 h + 24 q + 20 k + 10 I**, and on a grouped-query model ``repeat_kv``'s copies of K
    and V, 4 (q + k) (:data:`REPEAT_KV_ACTIVATION_BYTES`; an engine that copies, ``grouped_query_decode``
    ``"copied"``).

  Engines with fused kernels (TensorRT-LLM, vLLM, SGLang, MLX) carry none: what they move is small and in their
  fitted efficiencies.
* ``dequantised_gemm``: llama.cpp's CUDA backend before mid-2024 multiplies a quantised weight matrix by more
  than :data:`LLAMA_CPP_MMQ_MAX_BATCH` tokens by first dequantising it to an FP16 buffer (reading the
  quantised matrix, writing two bytes per weight) and then calling cuBLAS on that buffer, once per matrix per
  micro-batch of :data:`LLAMA_BENCH_UBATCH_TOKENS` tokens (:data:`LLAMA_CPP_CUBLAS_SOURCE`); its later builds
  multiply the quantised blocks directly (MMQ), as Metal always did.

One fact is of decoding, not of prefill: ``host_launch_s_per_layer``. llama.cpp's CUDA backend before its CUDA graphs
(builds before May 2024, :data:`LLAMA_CPP_CUDA_GRAPHS_SOURCE`) launched every kernel of a decode step from the CPU;
a step's kernels are short, so the GPU waits for the launches. NVIDIA measured what replaying them as one graph saves:
:data:`LLAMA_CPP_LAUNCH_S_PER_LAYER` per layer, a decode step's fixed cost on a CUDA GPU (not on Metal; a prefill's
long kernels hide the launches). On Metal the backend has no graph to replay at all, and a decode step's fixed cost
is measured whole, on a 1.1B model whose weights take under a millisecond to read: ``metal_step_s_per_layer``,
:data:`LLAMA_CPP_METAL_S_PER_LAYER` (149.5 us, about twice what the graph-replaying CUDA engines' fit gives), in
place of the fitted cost per layer on Apple GPUs.

One fact is of a mixture of experts: ``moe_gemm_16bit``. TensorRT-LLM before v0.10 ran the routed experts through its
MoE plugin, whose grouped GEMM takes 16-bit (or FP32) activations only, with weights of the same type or weight-only
int8/int4, and on Hopper dispatches the Ampere (SM80) kernels (:data:`TENSORRT_LLM_MOE_GEMM_SOURCE`); FP8 for Mixtral
came in v0.10 (:data:`TENSORRT_LLM_FP8_MOE_FROM`). An "FP8" build of a mixture of experts therefore ran its expert
GEMMs at the GPU's 16-bit rate, their weights read at the bytes stored (8 bits: NVIDIA's H100 first token of Mixtral
8x7B at 128 tokens, 13.4 ms, is below the 13.9 ms that reading 16-bit weights at the peak bandwidth takes). And on
Hopper those are Ampere kernels: the same source's dispatcher sends compute capability 9.0 to the ``cutlass::arch::Sm80``
kernels, which multiply with the warp-level ``mma.sync`` instruction, not Hopper's warpgroup ``wgmma``; ``mma.sync``
reaches about two thirds of Hopper's tensor-core peak (:data:`MMA_SYNC_ON_HOPPER_SOURCE`), so the expert GEMMs run at
:data:`MMA_SYNC_HOPPER_FRACTION` of the 16-bit rate there (on Ampere and Ada the Sm80 kernels are the native ones).

>>> LLAMA_CPP_MMQ_MAX_BATCH, LLAMA_BENCH_UBATCH_TOKENS, UNFUSED_ATTENTION_SCORE_BYTES
(32, 512, 24)
"""

from __future__ import annotations

from calculators.catalog.sources import Source

LLAMA_CPP_CUBLAS_SOURCE = Source(
    "ggml-org/llama.cpp, ggml-cuda.cu at 005de593 (early 2024): 'on modern hardware, using cuBLAS is recommended as "
    "it utilizes F16 tensor cores'; MMQ_MAX_BATCH_SIZE 32 'max batch size to use MMQ kernels when tensor cores are "
    "available'; ggml_cuda_op_mul_mat_cublas: 'convert src0 and src1 to fp16, multiply as fp16' (to_fp16_cuda into a "
    "pool buffer, then cublasGemmEx with CUBLAS_COMPUTE_16F at GGML_PREC_DEFAULT); ggml_cuda_mul_mat_batched_cublas "
    "(attention KQ, KQV): CUBLAS_COMPUTE_16F into an F16 dst, then converted to F32",
    "https://github.com/ggerganov/llama.cpp/blob/005de593ad4aa2c8db115cbb41a37bda2fb20b77/ggml-cuda.cu",
    "2026-11-29", kind="spec")
EAGER_ATTENTION_SOURCE = Source(
    "Hugging Face transformers 5.23, models/llama/modeling_llama.py, eager_attention_forward: matmul(query, key^T) * "
    "scaling; + attention_mask; softmax(dim=-1, dtype=torch.float32).to(query.dtype); dropout; matmul(weights, value)",
    "https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama/modeling_llama.py",
    "2026-11-29", kind="spec")
LLAMA_CPP_METAL_SOURCE = Source(
    "ggml-org/llama.cpp, ggml-metal.metal (2024 versions): kernel_mul_mm(device const uchar * src0, device const "
    "float * src1, device float * dst, ...), the quantised blocks dequantised in threadgroup memory by dequantize_func",
    "https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-metal/ggml-metal.metal", "2026-11-29", kind="spec")
LLAMA_BENCH_SOURCE = Source(
    "ggml-org/llama.cpp, tools/llama-bench README: -ub (n_ubatch) default 512, -fa (flash attention) default 0 in "
    "the 2024 builds",
    "https://github.com/ggml-org/llama.cpp/blob/master/tools/llama-bench/README.md", "2026-11-29", kind="spec")

#: Bytes each token moves per decoder layer in the elementwise kernels between the matrix multiplies, per element of
#: (hidden, q_dim, kv_dim, MLP intermediate), counted from the engine's graph (module docstring).
LLAMA_CPP_ACTIVATION_BYTES = (56, 16, 20, 20)
#: What llama.cpp's CUDA backend adds to them: the F32 <-> F16 conversions around each cuBLAS call (module docstring).
LLAMA_CPP_CUBLAS_CONVERSION_BYTES = (42, 18, 12, 18)
#: What those conversions add per attention score on CUDA (the F16 KQ result to F32, the F32 scores to F16 for KQV).
LLAMA_CPP_CUBLAS_SCORE_CONVERSION_BYTES = 8
EAGER_ACTIVATION_BYTES = (84, 24, 20, 10)
#: Bytes per token per layer per element of (q_dim + kv_dim) that ``repeat_kv`` copies on a grouped-query model (eager
#: transformers: K and V each read at the KV width and written at the query width; nothing when every head has its own
#: KV head, where repeat_kv returns its input).
REPEAT_KV_ACTIVATION_BYTES = 4
#: Bytes moved per attention-score element by an unfused attention: eager transformers; llama.cpp on Metal (module
#: docstring).
UNFUSED_ATTENTION_SCORE_BYTES = 24
LLAMA_CPP_METAL_SCORE_BYTES = 16
#: llama.cpp's CUDA backend uses its quantised MMQ kernels up to this many tokens when tensor cores are available.
LLAMA_CPP_MMQ_MAX_BATCH = 32
#: llama-bench processes a prompt in micro-batches of this many tokens (``-ub``'s default).
LLAMA_BENCH_UBATCH_TOKENS = 512
#: Builds of llama.cpp before this (year, month) dequantise for cuBLAS and run without flash attention by default.
LLAMA_CPP_MMQ_DEFAULT = (2024, 7)


def build_month(text: str) -> tuple[int, int] | None:
    """``(year, month)`` of a ``"YYYY-MM"`` build date, else ``None``.

    >>> build_month("2024-05"), build_month("v0.8.0")
    ((2024, 5), None)
    """
    year, _, month = text.strip().partition("-")
    return (int(year), int(month)) if len(year) == 4 and year.isdigit() and month.isdigit() else None


#: llama.cpp's CUDA graphs: before them, the CUDA backend launched every kernel of a token's graph from the CPU, one
#: at a time; since, a decode step's kernels are captured once and replayed as one graph launch.
LLAMA_CPP_CUDA_GRAPHS_SOURCE = Source(
    "A. Gray (NVIDIA), ggml-org/llama.cpp issue #6763 'New optimization from NVIDIA to use CUDA Graphs in llama.cpp' "
    "(2024-04-19): llama-2-7b Q4_K_M on an H100 PCIe, -n 128, 143.35 tok/s launching each kernel, 163.83 with the "
    "token's kernels as one CUDA graph; pull request #6766 (draft 2024-04-19; J. Gaessler's ./main tg, LLaMA 2 7B "
    "q4_0: RTX 3090 116.31 -> 128.27, RTX 4090 138.31 -> 146.81 tok/s); pull request #7302 (2024-05-15) already "
    "fixes the merged graphs, so builds from June 2024 have them",
    "https://github.com/ggml-org/llama.cpp/issues/6763", "2026-11-29", kind="measured")
#: Host time per decoder layer that a decode step of llama.cpp's CUDA backend spends launching its kernels one at a
#: time, from :data:`LLAMA_CPP_CUDA_GRAPHS_SOURCE`'s H100 PCIe measurement: the time per token launching each kernel
#: less the time with one graph launch, over Llama-2-7B's 32 layers: (1 / 143.35 - 1 / 163.83) / 32 = 27.3 us. (The
#: pull request's own pairs give 25.1 us on an RTX 3090 and 13.1 us on an RTX 4090: the launch is hidden wherever a
#: kernel runs longer than it takes the CPU to launch the next, so the saving depends on the GPU and the host CPU.)
LLAMA_CPP_LAUNCH_S_PER_LAYER = (1.0 / 143.35 - 1.0 / 163.83) / 32
#: llama.cpp's Metal backend has no counterpart of a CUDA graph replay: every decode step encodes its kernels into
#: command buffers and the GPU runs them one after another, each dependent dispatch draining before the next starts.
LLAMA_CPP_METAL_STEP_SOURCE = Source(
    "geerlingguy/ai-benchmarks issue #48 'Benchmark M1 Ultra Mac Studio (64 core 128Gb)' (2026-02-07): llama-bench, "
    "llama.cpp build e9fd8dc (7825), Metal, tinyllama-1.1b-1t-openorca Q4_K_M (636.18 MiB, 22 layers) tg128 "
    "242.56 +/- 3.63 t/s on the 800 GB/s M1 Ultra",
    "https://github.com/geerlingguy/ai-benchmarks/issues/48", "2026-11-30", kind="measured")
#: Fixed time per decoder layer of a llama.cpp decode step on Metal, from :data:`LLAMA_CPP_METAL_STEP_SOURCE`: a
#: 1.1B model's step less its weights read at the full 800 GB/s, over its 22 layers:
#: (1 / 242.56 - 636.18 MiB / 800 GB/s) / 22 = 149.5 us, an upper bound (at a lower share of the bandwidth less of the
#: step is fixed: 143.6 us at 0.87). Other tiny-model runs agree: about 138 us on an M3 Max and 124-149 us on an M2
#: Ultra (ggml-org/llama.cpp pull request #9698's TinyLlama F16/Q8_0/Q4_0 sweep); the CUDA engines' fitted cost, with
#: the step replayed as one graph, is about half. It is the whole fixed cost of such a step, in place of the fitted one.
LLAMA_CPP_METAL_S_PER_LAYER = (1.0 / 242.56 - 636.18 * 2**20 / 800e9) / 22
#: Builds dated before this (year, month) launch each kernel from the CPU (the graphs were a draft in April 2024);
#: builds from June 2024 replay CUDA graphs; a build dated May 2024 (the month the pull request was merged) cannot be
#: placed by its month, and is taken without the launch cost (its setting is unknown).
LLAMA_CPP_CUDA_GRAPHS_FROM = (2024, 5)


#: TensorRT-LLM's MoE grouped GEMM before its FP8 MoE kernels (the tree whose performance tables say "All data was
#: generated using version 0.9.0").
TENSORRT_LLM_MOE_GEMM_SOURCE = Source(
    "NVIDIA/TensorRT-LLM at 250d9c29 (docs/source/performance.md: 'All data was generated using version 0.9.0'): "
    "cpp/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_gemm_kernels_template.h, genericMoeGemmKernelLauncher "
    "static_asserts activations of bfloat16, half or float and weights of the same type, uint8_t or uint4b_t; "
    "MoeGemmRunner::dispatchToArch sends sm_ >= 90 to the cutlass::arch::Sm80 kernels ('TODO Update the arch to Sm90 "
    "once CUTLASS hopper specialisations are available'); plugins/mixtureOfExperts/mixtureOfExpertsPlugin.cpp init() "
    "builds a CutlassMoeFCRunner for half/half, float/float, half/int8, half/int4, bf16/bf16, bf16/int8 and bf16/int4 "
    "only. Release notes, TensorRT-LLM 0.10.0: 'Added FP8 quantization support for Mixtral'; issue #1229 (2024-04-16): "
    "an FP8 Mixtral checkpoint could not be exported with v0.9.0",
    "https://github.com/NVIDIA/TensorRT-LLM/blob/250d9c293d5edbc2a45c20775b3150b1eb68b364/cpp/tensorrt_llm/kernels/"
    "cutlass_kernels/moe_gemm/moe_gemm_kernels_template.h", "2026-11-29", kind="spec")
#: The first TensorRT-LLM release whose MoE layer runs FP8 GEMMs (release notes 0.10.0).
TENSORRT_LLM_FP8_MOE_FROM = (0, 10)

#: Hopper's tensor cores reach their peak only through the warpgroup ``wgmma`` instruction; Ampere's ``mma.sync``, which
#: the Sm80 kernels issue, reaches about two thirds of it.
MMA_SYNC_ON_HOPPER_SOURCE = Source(
    "J. Shah, G. Bikshandi, Y. Zhang, V. Thakkar, P. Ramani, T. Dao, 'FlashAttention-3: Fast and Accurate Attention "
    "with Asynchrony and Low-precision' (arXiv:2407.08608, 2024), section 2.2: the Hopper WGMMA instruction is needed "
    "to reach the maximum throughput of H100's tensor cores; the older mma.sync instruction reaches only about 2/3 of "
    "that peak",
    "https://arxiv.org/abs/2407.08608", "2026-11-29", kind="measured")
#: The fraction of a Hopper GPU's dense tensor rate that ``mma.sync`` (Ampere, Sm80) GEMM kernels reach there.
MMA_SYNC_HOPPER_FRACTION = 2.0 / 3.0
#: The compute capability (major) whose tensor cores need ``wgmma`` for their peak: Hopper.
WGMMA_MAJOR = 9


#: A second measurement of what the host's launches cost a decode step, in PyTorch: SGLang with and without its CUDA
#: graph, Llama 3 8B at batch 1. It agrees with :data:`LLAMA_CPP_LAUNCH_S_PER_LAYER` (C++) per layer.
PYTORCH_CUDA_GRAPHS_SOURCE = Source(
    "L. Zheng (merrymercy), sgl-project/sglang pull request #1401 'Support cuda graph in the triton attention backend' "
    "(2024-09-12): python3 -m sglang.bench_latency --model meta-llama/Meta-Llama-3-8B --batch-size 1 --input 128 "
    "--output 8, median decode latency flashinfer 0.00735 s with CUDA graph, 0.00823 s with --disable-cuda-graph; "
    "triton 0.00706 s and 0.00928 s",
    "https://github.com/sgl-project/sglang/pull/1401", "2026-11-29", kind="measured")
#: The same saving per layer in PyTorch (SGLang with flashinfer attention, its default then): (8.23 - 7.35) ms over
#: Llama 3 8B's 32 layers = 27.5 us, within 1 % of llama.cpp's 27.3 us launched from C++.
PYTORCH_LAUNCH_S_PER_LAYER = (0.00823 - 0.00735) / 32

#: TensorRT-LLM's gptSessionBenchmark, the benchmark of its published performance tables up to v0.9, replays a CUDA graph
#: only when run with ``--enable_cuda_graph``; the tables' commands do not pass it, and the context phase is never
#: replayed (the in-flight batching runtime had no CUDA graph at all then).
TENSORRT_LLM_NO_GRAPH_SOURCE = Source(
    "NVIDIA/TensorRT-LLM benchmarks/cpp/gptSessionBenchmark.cpp: option 'enable_cuda_graph' ('Execute GPT session with "
    "CUDA graph'), a flag that is off unless given, passed to GptSession::setCudaGraphMode; docs/source/performance.md at "
    "138f96d4 (v0.5/v0.6.1 tables) and at v0.9.0: every gptSessionBenchmark command line, first-token ones included, runs "
    "without it; issue #402 (2023-11-16, NVIDIA): 'We don't support CUDA graph with in-flight batching'",
    "https://github.com/NVIDIA/TensorRT-LLM/blob/v0.9.0/docs/source/performance.md", "2026-11-29", kind="spec")
#: The time per layer, at the GPU's peak bandwidth, of the decode step :data:`LLAMA_CPP_LAUNCH_S_PER_LAYER` was measured
#: on: Llama-2-7B Q4_K_M (3.80 GiB of weights, the size llama.cpp reports) over an H100 PCIe's 2.0 TB/s, over 32 layers.
LAUNCH_REFERENCE_S_PER_LAYER = 3.80 * 2**30 / 2.0e12 / 32


def exposed_launch_s(launch_s_per_layer: float, *, layers: int, peak_s: float) -> float:
    """Seconds a pass not replayed from a CUDA graph waits for the host to launch its kernels (0 with no launches).

    The host launches a pass's kernels one at a time while the GPU runs those already launched; the GPU waits only where
    a kernel ends before the next one is launched, so the cost is exposed in passes of short kernels (a decode step at
    batch 1, a short prompt) and hidden in long ones (llama.cpp pull request #6766: CUDA graphs gained nothing on
    512-token prompts, :data:`LLAMA_CPP_CUDA_GRAPHS_SOURCE`). Taken as the measured cost per layer in full up to the
    layer time of the measured decode step (at the peaks, :data:`LAUNCH_REFERENCE_S_PER_LAYER`), and falling as that
    time over the pass's layer time (``peak_s / layers``, at the GPU's peaks) beyond it (an assumption: one measured
    point, and no launches hidden at all in a pass longer than the measured one is ruled out only by pull request
    #6766's prompts):

    ``exposed = layers x launch x min(1, reference / (peak_s / layers))``.

    >>> round(exposed_launch_s(27e-6, layers=32, peak_s=32 * LAUNCH_REFERENCE_S_PER_LAYER) * 1e6)  # us: all of it
    864
    >>> round(exposed_launch_s(27e-6, layers=32, peak_s=320 * LAUNCH_REFERENCE_S_PER_LAYER) * 1e6)  # 10x longer kernels
    86
    """
    if launch_s_per_layer <= 0.0 or layers <= 0:
        return 0.0
    per_layer = peak_s / layers
    share = 1.0 if per_layer <= LAUNCH_REFERENCE_S_PER_LAYER else LAUNCH_REFERENCE_S_PER_LAYER / per_layer
    return layers * launch_s_per_layer * share
