"""Apple GPU rates (cores x 256 FLOP x clock) against published figures, and the ``mac:`` descriptions that use them."""

from __future__ import annotations

import pytest

from calculators.catalog.apple_chips import CHIPS, apple_rate_flop_per_s, get_apple_chip, mac_rates
from calculators.catalog.custom_gpu import memory_bandwidth_bytes_per_s
from calculators.inputs.gpu import resolve_gpu
from calculators.catalog.gpus import get_gpu
from calculators.errors import InputError, UnknownNameError


@pytest.mark.parametrize(("chip", "gflops"), [
    # Philip Turner, metal-benchmarks README, 'Overview of Apple-designed GPUs' (GFLOPS F32 column): measured clocks
    # that reproduce Apple's own 2.6 (M1) and 10.4 (M1 Max) teraflops.
    ("m1", 2617), ("m1-max", 10620), ("m1-ultra", 21230), ("m2", 3579),
    # hmc-tech GPU database: 40-Core M3 Max 14.32 TFLOPS FP32 at 1398 MHz.
    ("m3-max", 14320),
    # hmc-tech GPU database: 32-Core M4 Max 13.74 TFLOPS FP32 at 1678 MHz, so 40 cores: 13.74 x 40 / 32.
    ("m4-max", 13740 * 40 / 32),
])
def test_derived_rate_matches_the_published_table(chip: str, gflops: float) -> None:
    assert apple_rate_flop_per_s(get_apple_chip(chip)) / 1e9 == pytest.approx(gflops, rel=2e-3)


def test_a_smaller_configuration_scales_with_its_cores() -> None:
    # hmc-tech: 16-Core M4 Pro, 1470 MHz, 6.02 TFLOPS (16 x 256 x 1.47 GHz).
    assert apple_rate_flop_per_s(get_apple_chip("M4 Pro"), gpu_cores=16) / 1e12 == pytest.approx(6.02, rel=1e-3)
    with pytest.raises(InputError) as error:
        apple_rate_flop_per_s(get_apple_chip("m4-pro"), gpu_cores=24)  # Apple: up to a 20-core GPU
    assert error.value.field == "gpu_cores"


def test_catalog_apple_records_take_the_chip_table() -> None:
    for chip_id in ("m4-max", "m4-pro", "m3-max", "m3-ultra"):
        gpu, chip = get_gpu(chip_id), get_apple_chip(chip_id)
        assert gpu.memory_bandwidth_bytes_per_s == chip.bandwidth_bytes_per_s
        assert gpu.fp32_flop_per_s == apple_rate_flop_per_s(chip)
    # Apple Newsroom: M3 Ultra, 80-core GPU, 819 GB/s, up to 512 GB; M4 Pro, 20-core GPU, 273 GB/s, up to 64 GB.
    assert (get_gpu("m3-ultra").memory_gib, get_gpu("m3-ultra").memory_bandwidth_bytes_per_s) == (512, 819e9)
    assert (get_gpu("m4-pro").memory_gib, get_gpu("m4-pro").memory_bandwidth_bytes_per_s) == (64, 273e9)


def test_mac_description_carries_chip_rate_and_bandwidth() -> None:
    mac = resolve_gpu("mac:memory_gb=96,chip=m3-ultra")
    assert mac.memory_bandwidth_bytes_per_s == 819e9 and mac.fp32_flop_per_s == get_gpu("m3-ultra").fp32_flop_per_s
    assert mac.bf16_dense_flop_per_s == mac.fp32_flop_per_s  # M3 runs bf16 natively
    m2 = resolve_gpu("mac:memory_gb=96,chip=m2-max")
    assert m2.bf16_dense_flop_per_s is None and m2.fp16_dense_flop_per_s == m2.fp32_flop_per_s  # emulated bf16
    # A 32-core M4 Max: the rate scales, and its (lower) bandwidth must be given for a speed answer.
    binned = resolve_gpu("mac:memory_gb=36,chip=m4-max,gpu_cores=32")
    assert binned.fp32_flop_per_s == pytest.approx(13.74e12, rel=1e-3)  # hmc-tech: 32-Core M4 Max 13.74 TFLOPS
    with pytest.raises(InputError, match="bandwidth"):
        memory_bandwidth_bytes_per_s(binned)
    assert resolve_gpu("mac:memory_gb=36,fp32_tflops=13.5,bandwidth_gbps=410").fp32_flop_per_s == 13.5e12
    assert mac_rates().warning is not None and mac_rates(chip="m4").warning is None


@pytest.mark.parametrize(("text", "field"), [
    ("mac:memory_gb=64,gpu_cores=32", "gpu_cores"),  # cores without a chip: no clock
    ("mac:memory_gb=64,chip=m9-max", "chip"),
    ("mac:memory_gb=64,chip=m4-max,gpu_cores=41", "gpu_cores"),
    ("mac:memory_gb=64,chip=m4-max,gpu_cores=3.5", "gpu_cores"),
    ("mac:memory_gb=64,fp32_tflops=0", "fp32_tflops"),
])
def test_bad_mac_descriptions_are_refused_naming_the_key(text: str, field: str) -> None:
    with pytest.raises((InputError, UnknownNameError)) as error:
        resolve_gpu(text)
    assert error.value.field == field


def test_chip_ids_are_unique_and_named() -> None:
    ids = [chip.id for chip in CHIPS]
    assert len(ids) == len(set(ids)) and all(get_apple_chip(chip.name) is chip for chip in CHIPS)
