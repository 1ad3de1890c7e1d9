"""System balance: loader cores and read rate, storage fits, host RAM and the offload rule."""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculators import system
from calculators.cli import main
from calculators.errors import InputError

GIB = 2**30


def test_read_rate_and_cores_by_hand() -> None:
    # 3,000 img/s x 110,000 B = 330 MB/s; 3,000 x 1.73 ms = 5.19 core-seconds per second -> 6 cores.
    need = system.data_loader_need(samples_per_s=3000, bytes_per_sample=110_000)
    assert need.read_bytes_per_s == 330e6
    assert need.cpu_cores_needed == pytest.approx(5.19)
    assert need.cpu_cores == 6


def test_default_decode_cost_is_the_measured_pillow_rate() -> None:
    # arXiv:2605.08731 / imread-benchmark: Pillow, Intel Xeon Platinum 8581C, 577 img/s single thread.
    assert system.DEFAULT_DECODE_MS_PER_SAMPLE == round(1000 / 577, 2)


def test_core_efficiency_divides() -> None:
    full = system.data_loader_need(samples_per_s=1000, bytes_per_sample=1, decode_ms_per_sample=2)
    half = system.data_loader_need(samples_per_s=1000, bytes_per_sample=1, decode_ms_per_sample=2, core_efficiency=0.5)
    assert half.cpu_cores_needed == 2 * full.cpu_cores_needed == 4


@given(rate=st.floats(1, 1e6), size=st.floats(0, 1e8), ms=st.floats(0, 100))
def test_more_samples_never_need_less(rate: float, size: float, ms: float) -> None:
    low = system.data_loader_need(samples_per_s=rate, bytes_per_sample=size, decode_ms_per_sample=ms)
    high = system.data_loader_need(samples_per_s=rate * 2, bytes_per_sample=size, decode_ms_per_sample=ms)
    assert high.read_bytes_per_s >= low.read_bytes_per_s and high.cpu_cores >= low.cpu_cores


def test_storage_fits_sata_needs_two_for_a_gigabyte() -> None:
    # 1 GB/s against 560 MB/s rated SATA read: 1.79x -> 2 drives; Gen4 NVMe 7.45 GB/s covers it.
    fits = {f.storage.id: f for f in system.storage_fits(1e9)}
    assert fits["sata-ssd"].devices_needed == 2 and not fits["sata-ssd"].enough
    assert fits["nvme-gen4"].enough


def test_host_ram_rule_and_components() -> None:
    # 8 x 80 GiB = 640 GiB floor; components below it -> the rule binds.
    need = system.host_ram_need(gpu_memory_bytes=8 * 80 * GIB, loader_buffer_bytes=GIB)
    assert need.needed_bytes == 640 * GIB and need.binding == "rule"
    need = system.host_ram_need(gpu_memory_bytes=24 * GIB, dataset_cache_bytes=100 * GIB)
    assert need.needed_bytes == 100 * GIB and need.binding == "components"


def test_loader_buffers_count_prefetched_batches_plus_pinned_copy() -> None:
    # 8 workers x prefetch_factor 2 + 1 pinned batch = 17 batches.
    assert system.loader_buffer_bytes(batch_bytes=256 * 3 * 224 * 224 * 4, num_workers=8) == 17 * 256 * 3 * 224 * 224 * 4


@pytest.mark.parametrize(("params", "offload", "gpus", "expected"), [
    (10**9, "optimizer", 1, 24 * 10**9),       # 16 B/param x 1.5
    (10**9, "optimizer", 8, 48 * 10**9),       # max(4 x 8, 16) = 32 B/param x 1.5
    (10**9, "optimizer+params", 1, 27 * 10**9),  # 18 B/param x 1.5
    (10**9, "none", 1, 0),
])
def test_offload_matches_deepspeed_formula(params: int, offload: str, gpus: int, expected: int) -> None:
    assert system.offload_host_bytes(parameters=params, offload=offload, gpus_per_node=gpus) == expected


@pytest.mark.skipif(importlib.util.find_spec("deepspeed") is None, reason="deepspeed (peers extra) not installed")
def test_offload_equals_deepspeed_estimators() -> None:
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs

    for gpus in (1, 4, 8):
        cpu, _ = estimate_zero2_model_states_mem_needs(8_030_261_248, num_gpus_per_node=gpus, cpu_offload=True)
        assert system.offload_host_bytes(parameters=8_030_261_248, gpus_per_node=gpus) == cpu
    cpu = estimate_zero3_model_states_mem_needs(8_030_261_248, 10**8, cpu_offload=True, cpu_offload_params=True)[0]
    assert system.offload_host_bytes(parameters=8_030_261_248, offload="optimizer+params") == cpu


def test_system_balance_ecc_note_follows_catalog() -> None:
    geforce = system.system_balance(system.HostJob.of(samples_per_s=100, bytes_per_sample=1, gpu="rtx-4090"))
    assert "no ECC" in geforce.ecc_note
    assert "has ECC" in system.system_balance(system.HostJob.of(samples_per_s=100, bytes_per_sample=1)).ecc_note


@pytest.mark.parametrize(("call", "field"), [
    (lambda: system.data_loader_need(samples_per_s=0, bytes_per_sample=1), "samples_per_s"),
    (lambda: system.data_loader_need(samples_per_s=1, bytes_per_sample=-1), "bytes_per_sample"),
    (lambda: system.data_loader_need(samples_per_s=1, bytes_per_sample=1, decode_ms_per_sample="x"),
     "decode_ms_per_sample"),
    (lambda: system.data_loader_need(samples_per_s=1, bytes_per_sample=1, core_efficiency=1.5), "core_efficiency"),
    (lambda: system.host_ram_need(gpu_memory_bytes=-1), "gpu_memory_bytes"),
    (lambda: system.offload_host_bytes(parameters=10, offload="disk"), "offload"),
    (lambda: system.HostJob.of(samples_per_s=1, bytes_per_sample=1, gpus=0), "gpus"),
    (lambda: system.HostJob.of(samples_per_s=1, bytes_per_sample=1, offload="optimizer"), "offload_parameters"),
    (lambda: system.storage_fits(float("nan")), "read_bytes_per_s"),
])
def test_bad_inputs_name_their_field(call: object, field: str) -> None:
    with pytest.raises(InputError) as error:
        call()  # type: ignore[operator]
    assert error.value.field == field


def test_cli_system(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["system", "--samples-per-s", "3000", "--bytes-per-sample", "110000", "--gpus", "8"]) == 0
    assert "330.0 MB/s" in capsys.readouterr().out
    assert main(["system", "--samples-per-s", "3000", "--bytes-per-sample", "1", "--json"]) == 0
    assert '"cpu_cores": 6' in capsys.readouterr().out
    assert main(["system", "--samples-per-s", "-1", "--bytes-per-sample", "1"]) == 2
    assert "--samples-per-s" in capsys.readouterr().err  # the flag as typed (issue #17)
