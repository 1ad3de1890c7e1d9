"""The records of a served model and its load check every value once, in ``of(**raw)`` (issue #29 stage 2).

Each bad value is refused with an InputError naming the field and the accepted range; the ranges are the
module's constants (MAX_CONTEXT = 2^24 tokens, MAX_CONCURRENCY = 2^16 requests, efficiencies in (0, 1]).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from calculators.errors import InputError
from calculators.performance.served import Load, ServedModel


@pytest.mark.parametrize(("raw", "field", "accepted"), [
    ({"concurrency": 0}, "concurrency", "from 1 to 65536"),
    ({"concurrency": 1 << 17}, "concurrency", "from 1 to 65536"),
    ({"request_rate_per_s": 0}, "request_rate_per_s", "from 1e-09 to 1e+06"),
    ({"request_rate_per_s": "fast"}, "request_rate_per_s", "number"),
    ({"concurrency": 4, "prompt_tokens": 0}, "prompt_tokens", "from 1 to 16777214"),
    ({"concurrency": 4, "output_tokens": 1}, "output_tokens", "from 2 to"),
    ({"concurrency": 4, "prompt_tokens": (1 << 24) - 2, "output_tokens": 3}, "output_tokens", "from 2 to 2"),
    ({"concurrency": 4, "prefill": "chunky"}, "prefill", "separate, fused"),
    ({}, "concurrency", "either a concurrency or a request_rate_per_s"),
])
def test_a_bad_load_is_refused_naming_the_field(raw: dict[str, Any], field: str, accepted: str) -> None:
    with pytest.raises(InputError) as info:
        Load.of(**raw)
    assert info.value.field == field
    assert accepted in str(info.value)


@pytest.mark.parametrize(("raw", "field"), [
    ({"engine": "nope"}, "engine"),
    ({"weights": "int3"}, "weights"),
    ({"kv_cache": "int2"}, "kv_cache"),
    ({"gpus": 0}, "gpus"),
    ({"bandwidth_efficiency": 1.5}, "bandwidth_efficiency"),
    ({"compute_efficiency": -0.1}, "compute_efficiency"),
    ({"collective_efficiency": 2}, "collective_efficiency"),
    ({"interconnect": "carrier-pigeon"}, "interconnect"),
    ({"gpu": "no-such-gpu"}, "gpu"),
    ({"model": "no-such-model"}, "spec"),
])
def test_a_bad_served_model_is_refused_naming_the_field(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as info:
        ServedModel.of(**{"model": "llama-3-8b", "gpu": "h100-sxm", **raw})
    assert info.value.field == field


def test_an_unknown_keyword_is_a_type_error_as_a_signature_would_raise() -> None:
    with pytest.raises(TypeError, match="concurency"):
        Load.of(concurency=4)
    with pytest.raises(TypeError, match="engin"):
        ServedModel.of(model="llama-3-8b", gpu="h100-sxm", engin="vllm")


def test_the_records_are_frozen_and_hold_checked_values() -> None:
    load = Load.of(concurrency="8", prompt_tokens="512")  # text from a form is read as numbers
    assert (load.concurrency, load.prompt_tokens) == (8, 512)
    with pytest.raises(dataclasses.FrozenInstanceError):
        load.concurrency = 9  # type: ignore[misc]
    served = ServedModel.of(model="gpt-oss-20b", gpu="h100-sxm")
    assert served.setup.format.id == "mxfp4"  # weights "auto": as the checkpoint stores them (its config)
