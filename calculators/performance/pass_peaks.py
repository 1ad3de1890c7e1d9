"""The peaks a forward pass's bytes and FLOPs are divided by: bandwidth, GEMM rates and all-reduces of all the GPUs.

:func:`pass_peaks` gathers, for one pass over ``tokens`` tokens, what no count of bytes or FLOPs changes: the GPUs'
peak bandwidth, the rate their GEMMs run at (:func:`~calculators.performance.unfused.gemm_rate_flop_per_s`; the
routed experts' own rate where the engine runs them slower, :func:`~calculators.performance.unfused.
expert_gemm_rate_flop_per_s`), and the tensor-parallel all-reduces (:mod:`calculators.parallel.tensor`).
:meth:`PassPeaks.work` turns a pass's counts into a :class:`~calculators.performance.roofline.Work` (seconds at 100 %),
which :func:`~calculators.performance.roofline.step_times` times with an engine's constants.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> from calculators.performance.speed_setup import SpeedSetup
>>> peaks = pass_peaks(get_model("llama-3-8b"), get_gpu("h100-sxm"), SpeedSetup.of(weights="bf16"), tokens=1,
...                    compute_dtype=DType.BF16)
>>> round(peaks.work(bytes_read=3_350_000_000, expert_bytes=0, flops=0.0).memory_s * 1e3, 3)  # ms: 3.35 GB at 3.35 TB/s
1.0
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from calculators.catalog.custom_gpu import memory_bandwidth_bytes_per_s
from calculators.catalog.engine_kernels import exposed_launch_s
from calculators.catalog.gpus import GPU
from calculators.dtypes import DType
from calculators.model import ModelSpec
from calculators.parallel.tensor import tensor_parallel_communication
from calculators.performance.roofline import Work
from calculators.performance.speed_setup import SpeedSetup
from calculators.performance.unfused import expert_gemm_rate_flop_per_s, gemm_rate_flop_per_s


@dataclass(frozen=True)
class PassPeaks:
    """What turns a pass's bytes and FLOPs into a :class:`Work`: the peaks of all the GPUs and the all-reduces."""

    bandwidth_bytes_per_s: float
    rate_flop_per_s: float | None
    communication_s: float
    communication_bound_s: float
    #: Layers that pay the fitted fixed cost per layer (0 where a measured cost in ``host_launch_s`` stands in for it).
    layers: int
    #: Measured launch cost of the pass: the CPU launching kernels one at a time (a build without CUDA graphs), or a
    #: decode step's whole fixed cost on Metal (:class:`~calculators.performance.roofline.Work`).
    host_launch_s: float = 0.0
    #: The rate of the routed experts' GEMMs where it is not ``rate_flop_per_s`` (:func:`expert_gemm_rate_flop_per_s`).
    expert_rate_flop_per_s: float | None = None
    #: The sequences the engine's host works through one by one each step (the batch where the engine has a cost
    #: per sequence, :attr:`~calculators.catalog.engines.Engine.host_work_per_sequence`; else 0).
    sequences: int = 0

    def work(self, *, bytes_read: int, expert_bytes: int, flops: float, attention_bytes: int = 0,
             attention_flops: float = 0.0, reread_bytes: int = 0, unfused_bytes: int = 0,
             expert_flops: float = 0.0) -> Work:
        bandwidth, rate, slow = self.bandwidth_bytes_per_s, self.rate_flop_per_s, self.expert_rate_flop_per_s
        compute = None if rate is None else flops / rate + (expert_flops * (1 / slow - 1 / rate) if slow else 0.0)
        return Work(memory_s=bytes_read / bandwidth, expert_s=expert_bytes / bandwidth,
                    compute_s=compute, communication_s=self.communication_s,
                    communication_bound_s=self.communication_bound_s, layers=self.layers,
                    attention_memory_s=attention_bytes / bandwidth,
                    attention_compute_s=0.0 if rate is None else attention_flops / rate,
                    kv_reread_s=reread_bytes / bandwidth, sequences=self.sequences,
                    unfused_s=unfused_bytes / bandwidth, host_launch_s=self.host_launch_s)


def pass_peaks(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, *, tokens: int, compute_dtype: DType) -> PassPeaks:
    """The :class:`PassPeaks` of a pass over ``tokens`` tokens (the all-reduces carry their activations)."""
    n = setup.gpus
    rate = gemm_rate_flop_per_s(gpu, dtype=compute_dtype, setup=setup, tokens=tokens)
    slow = expert_gemm_rate_flop_per_s(gpu, dtype=compute_dtype, setup=setup, tokens=tokens)
    comm_time = comm_bound = 0.0
    if n > 1:
        comm = tensor_parallel_communication(spec, tokens=tokens, gpus=n, link=setup.link(gpu),
                                             activation_bytes=4 if compute_dtype is DType.FP32 else 2,
                                             efficiency=setup.collective_efficiency,
                                             custom_kernel=setup.custom_all_reduce)
        comm_time, comm_bound = comm.time_s, comm.bound_time_s
    return PassPeaks(bandwidth_bytes_per_s=memory_bandwidth_bytes_per_s(gpu) * n,
                  rate_flop_per_s=None if rate is None else rate * n, communication_s=comm_time,
                  communication_bound_s=comm_bound, layers=spec.num_layers,
                  expert_rate_flop_per_s=None if slow is None or rate is None else slow * n,
                  sequences=setup.batch if setup.host_work_per_sequence else 0)


def with_ungraphed_launches(work: Work, gpu: GPU, setup: SpeedSetup, *, decode: bool) -> Work:
    """``work`` plus the host's launches of a pass no CUDA graph replays, where no fitted constant carries them.

    An engine that replays a CUDA graph for decode steps only (vLLM, SGLang: :attr:`~calculators.catalog.engines.Engine.
    graph_replay`) launches each prefill from the host; its fitted cost per layer, fitted on graph-replayed decode steps,
    holds none of it, so every prefill adds the launches. An engine whose published runs launch every pass from the host
    (TensorRT-LLM's gptSessionBenchmark without ``--enable_cuda_graph``,
    :data:`~calculators.catalog.engine_kernels.TENSORRT_LLM_NO_GRAPH_SOURCE`) pays them in every pass; its own fitted
    cost per layer, fitted on those runs, already holds them; with none (held out, or never measured) its cost per layer
    is the pooled one of engines that replay graphs, the GPU's alone, and the launches are added. The cost is the
    engine's measured launch cost per layer (:attr:`~calculators.catalog.engines.Engine.ungraphed_launch_s_per_layer`),
    exposed as :func:`~calculators.catalog.engine_kernels.exposed_launch_s` says on the pass's time at the peaks, in
    ``host_launch_s``. Only on NVIDIA GPUs, where it was measured.
    """
    engine = setup.kernels
    if gpu.vendor != "NVIDIA" or not engine.ungraphed_launch_s_per_layer:
        return work
    replayed = engine.graph_replay and decode  # a decode step replayed from a graph launches nothing from the host
    carried = not engine.graph_replay and bool(engine.step_overhead_s_per_layer.fitted_on)  # in its own fitted cost
    if replayed or carried:
        return work
    peak_s = max(work.memory_s, work.compute_s or 0.0) + work.unfused_s + work.communication_s
    launches = exposed_launch_s(engine.ungraphed_launch_s_per_layer, layers=work.layers, peak_s=peak_s)
    return replace(work, host_launch_s=work.host_launch_s + launches)
