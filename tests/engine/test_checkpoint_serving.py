"""Checkpoint size on disk (calculators.checkpoint) and serving-engine features (calculators.serving).

Expected values are derived here from published parameter counts and the formulas the
modules document, never copied from the code under test.
"""

from __future__ import annotations

import math

import pytest

from calculators.catalog.models import get_model
from calculators.catalog.storage import get_storage
from calculators.checkpoint import checkpoint_bytes, read_seconds
from calculators.errors import InputError, UnknownNameError
from calculators.serving import chunked_prefill, offload_seconds, prefix_sharing

# Meta Llama 3.1 8B: 8,030,261,248 parameters (Hugging Face safetensors total of its config).
LLAMA_31_8B = 8_030_261_248
# Llama 3.1 8B per token of KV cache in bf16: 2 (K and V) x 32 layers x 8 KV heads x 128 dims x 2 bytes.
KV_PER_TOKEN = 2 * 32 * 8 * 128 * 2


def test_mixed_precision_checkpoint_is_twelve_bytes_per_parameter() -> None:
    # PyTorch's AMP keeps fp32 master weights (4 B) and AdamW keeps two fp32 moments (8 B); gradients
    # are not saved (PyTorch tutorial "Saving and loading a general checkpoint": model + optimizer state_dict).
    size = checkpoint_bytes(get_model("llama-3.1-8b"), method="full", precision="bf16-mixed")
    assert size.trainable_parameters == LLAMA_31_8B
    assert size.total_bytes == 12 * LLAMA_31_8B
    assert size.serving_bytes == 2 * LLAMA_31_8B  # the served model: every weight once, in 16 bits


def test_pure_bf16_checkpoint_is_half_of_mixed() -> None:
    mixed = checkpoint_bytes(get_model("llama-3.1-8b"), precision="bf16-mixed")
    pure = checkpoint_bytes(get_model("llama-3.1-8b"), precision="bf16")
    assert pure.total_bytes * 2 == mixed.total_bytes == 12 * LLAMA_31_8B


def test_lora_checkpoint_holds_only_the_adapters() -> None:
    # Rank 16 on q, k, v, o, gate, up, down of Llama 3.1 8B (hidden 4096, KV 1024, MLP 14336), 32 layers:
    # 16 x (4096+4096 + 4096+1024 + 4096+1024 + 4096+4096 + 3 x (4096+14336)) x 32 = 41,943,040 adapters,
    # each 4 B in fp32 plus 8 B of AdamW moments.
    adapters = 16 * (8192 + 5120 + 5120 + 8192 + 3 * 18432) * 32
    size = checkpoint_bytes(get_model("llama-3.1-8b"), method="lora")
    assert size.trainable_parameters == adapters == 41_943_040
    assert size.total_bytes == 12 * adapters


def test_read_time_is_bytes_over_rated_read() -> None:
    # 265 MB/s for the hard drive (Seagate Exos X20, Hardwareluxx): 26.5 GB take 100 s.
    assert read_seconds(26_500_000_000, storage="hdd") == pytest.approx(100.0)
    assert get_storage("hdd").sequential_read_bytes_per_s < get_storage("sata-ssd").sequential_read_bytes_per_s


@pytest.mark.parametrize(("call", "field"), [
    (lambda: read_seconds(-1, storage="hdd"), "size_bytes"),
    (lambda: read_seconds(10, storage="tape"), "storage"),
    (lambda: checkpoint_bytes(get_model("llama-3.1-8b"), method="adapters"), "method"),
    (lambda: checkpoint_bytes(get_model("llama-3.1-8b"), precision="fp8"), "precision"),
    (lambda: prefix_sharing(get_model("llama-3.1-8b"), sequences=0, shared_tokens=1, unique_tokens=1), "sequences"),
    (lambda: prefix_sharing(get_model("llama-3.1-8b"), sequences=1, shared_tokens=0, unique_tokens=0),
     "unique_tokens"),
    (lambda: chunked_prefill(get_model("llama-3.1-8b"), context=4096, chunk=float("nan")), "chunk"),
    (lambda: offload_seconds(10, link="carrier-pigeon"), "link"),
])
def test_bad_input_names_the_field(call: object, field: str) -> None:
    with pytest.raises((InputError, UnknownNameError)) as caught:
        call()  # type: ignore[operator]
    assert caught.value.field == field


def test_prefix_sharing_counts_whole_blocks() -> None:
    # 32 requests, 4,000 shared + 500 own tokens, 16-token blocks. Without sharing: 32 x ceil(4500/16)
    # = 32 x 282 blocks. With it: 4000 // 16 = 250 shared blocks once, and each request keeps
    # ceil((4000 mod 16 + 500)/16) = ceil(500/16) = 32 blocks.
    shared = prefix_sharing(get_model("llama-3.1-8b"), sequences=32, shared_tokens=4000, unique_tokens=500)
    assert (shared.blocks_without, shared.blocks_with) == (32 * 282, 250 + 32 * 32)
    assert shared.without_bytes == 32 * 282 * 16 * KV_PER_TOKEN


def test_a_partial_prefix_block_is_not_shared() -> None:
    # A 20-token prefix fills one 16-token block; its last 4 tokens sit in each request's own block.
    shared = prefix_sharing(get_model("llama-3.1-8b"), sequences=3, shared_tokens=20, unique_tokens=12)
    assert shared.blocks_with == 1 + 3 * math.ceil((4 + 12) / 16)


def test_sharing_never_costs_more_and_one_request_saves_nothing() -> None:
    spec = get_model("llama-3.1-8b")
    for n, p, u in ((1, 4000, 500), (8, 15, 3), (64, 8000, 1000), (2, 0, 100)):
        s = prefix_sharing(spec, sequences=n, shared_tokens=p, unique_tokens=u)
        assert s.with_bytes <= s.without_bytes
    single = prefix_sharing(spec, sequences=1, shared_tokens=4096, unique_tokens=0)
    assert single.with_bytes == single.without_bytes


def test_chunked_prefill_keeps_the_cache_and_shrinks_the_temporaries() -> None:
    spec = get_model("llama-3.1-8b")
    c = chunked_prefill(spec, context=32768, chunk=2048)
    assert c.chunked_bytes < c.whole_bytes
    # The whole prompt's KV cache is still there: 32,768 x 131,072 B = 4 GiB.
    assert c.whole.breakdown["kv_cache"] == 32768 * KV_PER_TOKEN == 4 * 2**30
    # A chunk as long as the prompt changes nothing.
    same = chunked_prefill(spec, context=4096, chunk=8192)
    assert same.chunked_bytes == same.whole_bytes


def test_offload_time_is_bytes_over_one_direction() -> None:
    # PCI-SIG: PCIe 5.0 x16 carries 64 GB/s each way (128 GB/s both directions summed).
    assert offload_seconds(64 * 10**9, link="pcie5") == pytest.approx(1.0)
