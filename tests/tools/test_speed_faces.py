"""One speed question, one answer: the CLI, the Python API and the widget agree; weight formats by bits.

Bits per weight are checked against their documents: llama.cpp tools/quantize/README.md
(Llama-3.1-8B: Q4_K_M 4.8944, Q8_0 8.5008 bits per weight, 4.58 and 7.95 GiB), ggml-common.h
(block_q4_0: 2-byte scale + 16 bytes per 32 weights), GPTQ group layout (fp16 scale and
4-bit zero per group), exllamav2 README (EXL2 from 2 to 8 bits per weight).
"""

from __future__ import annotations

import json
import re

import pytest

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.cli import main
from calculators.errors import InputError
from calculators.memory.inference import inference_memory
from calculators.memory.weight_formats import weight_format
from calculators.memory.weights import weight_bytes
from calculators.performance.forward_pass import weight_bytes_read
from calculators.performance.inference_speed import inference_speed
from calculators.jobs.registry import get_calculator

QUESTION = {"model": "llama-3-8b", "gpu": "rtx-4090", "engine": "llama.cpp", "weights": "q4_k_m", "batch": 4,
            "context": 1024, "new_tokens": 64}


def _cli(capsys: pytest.CaptureFixture[str], **question: object) -> dict[str, object]:
    argv = ["speed", "--json"]
    for key, value in question.items():
        argv += [f"--{key.replace('_', '-')}", str(value)]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_cli_api_and_widget_give_one_answer(capsys: pytest.CaptureFixture[str]) -> None:
    q = dict(QUESTION)
    api = inference_speed(get_model(str(q.pop("model"))), get_gpu(str(q.pop("gpu"))), **q)
    cli = _cli(capsys, **QUESTION)
    assert cli["decode_tokens_per_s"] == pytest.approx(api.first_step.aggregate_tokens_per_s)
    assert cli["time_to_first_token_s"] == pytest.approx(api.time_to_first_token_s)
    assert cli["engine"] == "llama.cpp"
    html = get_calculator("inference-speed").run({key: str(value) for key, value in QUESTION.items()})
    shown = f"{api.first_step.aggregate_tokens_per_s:,.1f} tokens/s for the batch"
    assert shown in html and "llama.cpp" in html
    assert f"{api.time_to_first_token_s * 1000:,.1f}" in html


def test_engine_changes_the_answer_and_generic_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    generic = _cli(capsys, model="llama-3-8b", gpu="h100-sxm")
    explicit = _cli(capsys, model="llama-3-8b", gpu="h100-sxm", engine="generic")
    eager = _cli(capsys, model="llama-3-8b", gpu="h100-sxm", engine="transformers")
    assert generic["decode_tokens_per_s"] == explicit["decode_tokens_per_s"]
    assert eager["decode_tokens_per_s"] < generic["decode_tokens_per_s"]  # type: ignore[operator]


@pytest.mark.parametrize("flag", ["--engine", "--weights"])
def test_bad_engine_or_format_is_one_line_naming_the_flag(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["speed", "--model", "llama-3-8b", "--gpu", "h100-sxm", flag, "q3_zz"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flag in err


def test_widget_rejects_an_unknown_engine_naming_the_field() -> None:
    from calculators.widgets.api import compute_json

    reply = json.loads(compute_json("inference-speed", json.dumps({"engine": "nope"})))
    assert reply["ok"] is False and reply["field"] == "engine"


# --------------------------------------------------------------------------- weight formats
@pytest.mark.parametrize(("fmt", "bits"), [("q4_0", 18 * 8 / 32), ("q8_0", 8.5008), ("q4_k_m", 4.8944),
                                           ("q5_k_m", 5.7036), ("q6_k", 6.5633), ("gptq-int4-g128", 4 + 20 / 128),
                                           ("gptq-int4-g32", 4 + 20 / 32), ("awq-int4-g64", 4 + 20 / 64),
                                           ("exl2-3.5", 3.5), ("fp8", 8), ("int4", 4 + 20 / 128)])
def test_bits_per_weight_follow_the_documents(fmt: str, bits: float) -> None:
    assert weight_format(fmt).bits_per_weight == pytest.approx(bits)


def test_gguf_sizes_match_llama_cpp_table() -> None:
    # llama.cpp tools/quantize/README.md, meta-llama/Llama-3.1-8B: Q4_K_M 4.58 GiB, Q8_0 7.95 GiB, F16 14.96 GiB.
    spec = get_model("llama-3.1-8b")
    for fmt, gib in (("q4_k_m", 4.58), ("q8_0", 7.95), ("fp16", 14.96)):
        assert weight_bytes(spec, dtype=fmt) / 2**30 == pytest.approx(gib, abs=0.01)


def test_memory_and_speed_read_the_same_bytes() -> None:
    spec = get_model("llama-3-8b")
    for fmt in ("q4_0", "q6_k", "gptq-int4-g32", "exl2-4.0", "nf4", "fp8"):
        memory = inference_memory(spec, weights=fmt, context=128)
        assert memory.breakdown["weights"] == weight_bytes_read(spec, dtype=fmt) == weight_bytes(spec, dtype=fmt)


def test_fewer_bytes_read_decode_faster() -> None:
    # Memory-bound decoding: the order of speeds is the reverse order of bytes read. (EXL2 and GPTQ keep the
    # embedding and head 16-bit, GGUF quantises them, so fewer bits per linear weight is not always fewer bytes.)
    spec, gpu = get_model("llama-3-8b"), get_gpu("rtx-4090")
    formats = ("fp16", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "exl2-3.0", "gptq-int4-g32", "nf4")
    by_bytes = sorted(formats, key=lambda f: -weight_bytes(spec, dtype=f))
    speeds = [inference_speed(spec, gpu, weights=f, context=256, new_tokens=1).first_step.tokens_per_s
              for f in by_bytes]
    assert speeds == sorted(speeds)


@pytest.mark.parametrize("bad", ["exl2-1.5", "exl2-9", "q3_zz", "gptq-int4-g100", ""])
def test_unknown_or_out_of_range_format_is_an_input_error(bad: str) -> None:
    with pytest.raises(InputError, match=re.escape("weights")):
        inference_memory(get_model("llama-3-8b"), weights=bad)
