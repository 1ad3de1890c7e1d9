"""Every catalog GPU falls in a named hardware generation, read from its vendor's architecture name."""

from __future__ import annotations

import pytest

from calculators.catalog.generations import GENERATIONS, hardware_generation
from calculators.catalog.gpus import GPU, all_gpus, get_gpu
from calculators.inputs.gpu import resolve_gpu


@pytest.mark.parametrize("gpu", all_gpus(), ids=lambda g: g.id)
def test_every_catalog_gpu_has_a_generation(gpu: GPU) -> None:
    assert hardware_generation(gpu) in GENERATIONS[:-1]  # never "other"


def test_generations_follow_the_vendor_architecture_names() -> None:
    # NVIDIA's architecture whitepapers and AMD's CDNA 3 white paper name these parts' designs.
    assert [hardware_generation(get_gpu(g)) for g in ("v100-sxm2-32gb", "t4", "a100-40gb-sxm", "l40s", "h100-pcie",
                                                      "b200", "rtx-5090", "mi300x", "m3-max")] == [
        "volta", "turing", "ampere", "ada", "hopper", "blackwell", "blackwell", "cdna3", "apple"]
    assert hardware_generation(resolve_gpu("mac:64")) == "apple"
    assert hardware_generation(resolve_gpu("custom:memory_gb=8,bandwidth_gbps=100")) == "other"
