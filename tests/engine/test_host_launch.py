"""llama.cpp builds without CUDA graphs: the CPU launches each kernel of a decode step (engine_kernels, engines).

Expected values are hand arithmetic from NVIDIA's own measurement in llama.cpp issue #6763 (llama-2-7b Q4_K_M on an
H100 PCIe: 143.35 tok/s launching each kernel, 163.83 tok/s as one CUDA graph) and the pull requests' dates, not from
the code under test.
"""

from __future__ import annotations

import pytest

from calculators.catalog.engines import engine_at_version, get_engine
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.performance.inference_speed import SpeedSetup, decode_step, prefill

#: (1 / 143.35 - 1 / 163.83) s per token over Llama-2-7B's 32 layers, rounded to 0.1 us by hand: 27.3 us.
MEASURED_S_PER_LAYER = 27.3e-6


@pytest.mark.parametrize(("month", "engine"), [("2023-12", "llama.cpp-no-graphs"), ("2024-04", "llama.cpp-no-graphs"),
                                               ("2024-05", "llama.cpp-2024"), ("2024-06", "llama.cpp-2024"),
                                               ("2025-03", "llama.cpp")])
def test_builds_are_placed_by_the_month_graphs_were_merged(month: str, engine: str) -> None:
    # The pull request was a draft on 2024-04-19 and its fix-up (#7302) is dated 2024-05-15: a May build is either side,
    # taken as the later engine with no launch cost, never given one it may not have had.
    assert engine_at_version("llama.cpp", month) == engine


def test_a_build_without_graphs_waits_for_the_cpu_on_cuda_only() -> None:
    spec = get_model("llama-2-7b")
    assert get_engine("llama.cpp-no-graphs").host_launch_s_per_layer == pytest.approx(MEASURED_S_PER_LAYER, abs=5e-8)
    for gpu_id, layers_launched in (("h100-pcie", 32), ("rtx-4090", 32), ("m3-max", 0)):  # Metal has no CUDA launches
        gpu = get_gpu(gpu_id)
        without = decode_step(spec, gpu, engine="llama.cpp-no-graphs", weights="q4_0", context=64)
        graphs = decode_step(spec, gpu, engine="llama.cpp-2024", weights="q4_0", context=64)
        assert without.time_s - graphs.time_s == pytest.approx(layers_launched * MEASURED_S_PER_LAYER, abs=32 * 5e-8)
    def assumes(engine: str) -> bool:
        return any("no CUDA graphs" in line for line in SpeedSetup.of(engine=engine, weights="q4_0").assumptions())

    assert assumes("llama.cpp-no-graphs")
    assert not assumes("llama.cpp-2024")


def test_a_prefill_hides_the_launches_behind_its_long_kernels() -> None:
    spec, gpu = get_model("llama-2-7b"), get_gpu("rtx-4090")
    without = prefill(spec, gpu, engine="llama.cpp-no-graphs", weights="q4_0", context=512)
    graphs = prefill(spec, gpu, engine="llama.cpp-2024", weights="q4_0", context=512)
    assert without.time_s == graphs.time_s
