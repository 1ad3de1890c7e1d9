"""Bad input raises a :class:`CalculatorError` (a ``ValueError``) naming the field and what it accepts.

The contract is in ``calculators/errors.py``: every public function validates its inputs
and raises a subclass of ``CalculatorError`` whose message is
``"<field>: got <value>; expected <accepted>"``; the CLI prints it and the browser widget
shows it next to the field. Integer fields come from the CLI as strings, so a numeric
string such as ``"4"`` is valid input.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calculators import (
    CalculatorError,
    InputError,
    UnknownNameError,
    fit_inference,
    fit_training,
    get_gpu,
    get_model,
    inference_memory,
    kv_cache_bytes,
    lora_parameters,
    max_batch_for_memory,
    max_context_for_memory,
    training_memory,
)
from calculators.dtypes import DType
from calculators.model_config import spec_from_config

GIB = 2**30
PROPERTY = settings(max_examples=40, deadline=None, database=None)

SPEC = spec_from_config({
    "model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8,
    "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100,
})
GPU = get_gpu("h100-sxm")
ABSURD = 10**12  # a trillion sequences/tokens/GPUs: far beyond any real job


def test_calculator_error_is_value_error() -> None:
    assert issubclass(CalculatorError, ValueError)
    assert issubclass(InputError, CalculatorError)
    assert issubclass(UnknownNameError, InputError)


# ------------------------------------------------------------------ numeric garbage
def _valid_int_text(text: str, minimum: int) -> bool:
    try:
        value = int(text.strip())
    except ValueError:
        return False
    return minimum <= value < ABSURD


def _bad_float(x: float, minimum: int) -> bool:
    return not math.isfinite(x) or x != int(x) or x < minimum or x >= ABSURD


def int_garbage(minimum: int) -> st.SearchStrategy[Any]:
    """Values no integer field with this minimum may accept."""
    return st.one_of(
        st.integers(max_value=minimum - 1),  # negative, zero (when minimum is 1)
        st.integers(min_value=ABSURD, max_value=10**30),  # absurd
        st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: _bad_float(x, minimum)),
        st.sampled_from([math.nan, math.inf, -math.inf, 0.5]),
        st.booleans(),  # True == 1 in Python, but a bool is never a count
        st.none(),
        st.text(max_size=8).filter(lambda s: not _valid_int_text(s, minimum)),
        st.sampled_from(["abc", "", "four", "1e3", "4.5", "nan", "inf", "0x10"]),
        st.integers(max_value=minimum - 1).map(str),
        st.integers(min_value=ABSURD).map(str),
        st.lists(st.integers(), max_size=2),
    )


def _assert_names_int_field(call: Callable[[], object], field: str, minimum: int) -> None:
    with pytest.raises(CalculatorError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{field}: got "), message
    assert re.search(rf"expected an integer from {minimum} to \d+", message), message
    assert isinstance(info.value, InputError) and info.value.field == field


def _train(**kwargs: Any) -> Callable[[], object]:
    return lambda: training_memory(SPEC, method="lora", **kwargs)


def _infer(**kwargs: Any) -> Callable[[], object]:
    return lambda: inference_memory(SPEC, **kwargs)


# (id, function taking the bad value, field named in the message, minimum)
INT_FIELDS: list[tuple[str, Callable[[Any], Callable[[], object]], str, int]] = [
    ("training.batch", lambda v: _train(batch=v), "batch", 1),
    ("training.seq", lambda v: _train(seq=v), "seq", 1),
    ("training.lora_rank", lambda v: _train(lora_rank=v), "lora_rank", 1),
    ("training.grad_accumulation", lambda v: _train(grad_accumulation=v), "grad_accumulation", 1),
    ("training.gpus", lambda v: _train(gpus=v), "gpus", 1),
    ("training.zero", lambda v: _train(gpus=2, zero=v), "zero", 0),
    ("inference.batch", lambda v: _infer(batch=v), "batch", 1),
    ("inference.context", lambda v: _infer(context=v), "context", 1),
    ("inference.new_tokens", lambda v: _infer(new_tokens=v), "new_tokens", 0),
    ("kv_cache_bytes.batch", lambda v: lambda: kv_cache_bytes(SPEC, batch=v, context=16), "batch", 1),
    # context >= 1 as in every other calculator (issue #17: context=0 returned 0 bytes).
    ("kv_cache_bytes.context", lambda v: lambda: kv_cache_bytes(SPEC, batch=1, context=v), "context", 1),
    ("max_context.batch", lambda v: lambda: max_context_for_memory(SPEC, memory_bytes=8 * GIB, batch=v),
     "batch", 1),
    ("max_batch.context", lambda v: lambda: max_batch_for_memory(SPEC, memory_bytes=8 * GIB, context=v),
     "context", 1),
    ("max_batch.new_tokens",
     lambda v: lambda: max_batch_for_memory(SPEC, memory_bytes=8 * GIB, context=16, new_tokens=v), "new_tokens", 0),
    ("fit_training.seq", lambda v: lambda: fit_training(SPEC, GPU, seq=v), "seq", 1),
    ("fit_training.gpus", lambda v: lambda: fit_training(SPEC, GPU, gpus=v), "gpus", 1),
    ("fit_inference.batch", lambda v: lambda: fit_inference(SPEC, GPU, batch=v), "batch", 1),
    ("fit_inference.context", lambda v: lambda: fit_inference(SPEC, GPU, context=v), "context", 1),
]


@pytest.mark.parametrize(("make", "field", "minimum"), [pytest.param(*row[1:], id=row[0]) for row in INT_FIELDS])
@PROPERTY
@given(data=st.data())
def test_integer_garbage_names_field_and_range(make: Callable[[Any], Callable[[], object]], field: str,
                                               minimum: int, data: st.DataObject) -> None:
    value = data.draw(int_garbage(minimum), label=field)
    _assert_names_int_field(make(value), field, minimum)


NAMED_GARBAGE = [("negative", -1), ("zero", 0), ("nan", math.nan), ("inf", math.inf), ("bool", True),
                 ("absurd", ABSURD), ("string", "abc")]


@pytest.mark.parametrize(
    ("make", "field", "minimum", "value"),
    [pytest.param(*row[1:], value, id=f"{row[0]}-{name}")
     for row in INT_FIELDS for name, value in NAMED_GARBAGE
     if not (name == "zero" and row[3] == 0)],  # 0 is valid where the minimum is 0
)
def test_named_garbage_cases(make: Callable[[Any], Callable[[], object]], field: str, minimum: int,
                             value: Any) -> None:
    # The cases the brief lists, explicitly, so each one shows up by name.
    _assert_names_int_field(make(value), field, minimum)


def test_zero_stage_4_rejected() -> None:
    # ZeRO has stages 1-3 (Rajbhandari et al. 2020, section 5); 0 here means plain DDP.
    _assert_names_int_field(_train(gpus=2, zero=4), "zero", 0)


# ------------------------------------------------------------------ numeric strings
def test_training_accepts_numeric_strings() -> None:
    # The CLI passes every number as the string the user typed.
    as_ints = training_memory(SPEC, method="lora", batch=4, seq=16, lora_rank=8, grad_accumulation=2, gpus=2, zero=3)
    as_text = training_memory(SPEC, method="lora", batch="4", seq="16", lora_rank="8", grad_accumulation="2",
                              gpus="2", zero="3")
    assert as_text == as_ints


def test_inference_accepts_numeric_strings() -> None:
    assert inference_memory(SPEC, batch="2", context="128", new_tokens="16") == inference_memory(
        SPEC, batch=2, context=128, new_tokens=16)
    assert kv_cache_bytes(SPEC, batch="2", context="128") == kv_cache_bytes(SPEC, batch=2, context=128)  # type: ignore[arg-type]
    assert max_batch_for_memory(SPEC, memory_bytes=GIB, context="128") == max_batch_for_memory(  # type: ignore[arg-type]
        SPEC, memory_bytes=GIB, context=128)


def test_integral_float_accepted() -> None:
    assert inference_memory(SPEC, batch=2.0, context=128) == inference_memory(SPEC, batch=2, context=128)


# ------------------------------------------------------------------ memory_bytes
def _context_kwarg(function: Callable[..., int]) -> dict[str, int]:
    return {"context": 16} if function is max_batch_for_memory else {}


@pytest.mark.parametrize("function", [max_context_for_memory, max_batch_for_memory])
@pytest.mark.parametrize(
    "value",
    [pytest.param(-1, id="negative"), pytest.param(0, id="zero"), pytest.param(-GIB, id="minus-1GiB"),
     pytest.param(math.nan, id="nan"), pytest.param(math.inf, id="inf"), pytest.param(True, id="bool"),
     pytest.param("abc", id="string"), pytest.param(10**30, id="absurd")],
)
def test_memory_bytes_garbage_rejected(function: Callable[..., int], value: Any) -> None:
    # Regression: memory_bytes was checked only with `memory_bytes <= 0`, so NaN and True
    # gave 0, inf gave the search limit and a string raised TypeError.
    with pytest.raises(CalculatorError, match=r"^memory_bytes: got .*; expected "):
        function(SPEC, memory_bytes=value, **_context_kwarg(function))


@pytest.mark.parametrize("function", [max_context_for_memory, max_batch_for_memory])
@PROPERTY
@given(data=st.data())
def test_memory_bytes_numeric_garbage(function: Callable[..., int], data: st.DataObject) -> None:
    value = data.draw(st.one_of(
        st.integers(max_value=0),
        # Non-finite, fractional or below one byte (10**12 bytes is a valid, if large, memory).
        st.floats(allow_nan=True, allow_infinity=True).filter(
            lambda x: not math.isfinite(x) or x != int(x) or x < 1),
        st.booleans(),
        st.none(),
        st.text(max_size=8).filter(lambda s: not _valid_int_text(s, 1)),
    ), label="memory_bytes")
    with pytest.raises(CalculatorError, match=r"^memory_bytes: got "):
        function(SPEC, memory_bytes=value, **_context_kwarg(function))


def test_memory_bytes_numeric_string_accepted() -> None:
    # The CLI and the widget pass numbers as text.
    expected = max_context_for_memory(SPEC, memory_bytes=8 * GIB)
    assert max_context_for_memory(SPEC, memory_bytes=str(8 * GIB)) == expected  # type: ignore[arg-type]
    assert max_batch_for_memory(SPEC, memory_bytes=str(8 * GIB), context=16) == max_batch_for_memory(  # type: ignore[arg-type]
        SPEC, memory_bytes=8 * GIB, context=16)


# ------------------------------------------------------------------ unknown choices
def _assert_names_choice(call: Callable[[], object], field: str, choices: list[str]) -> None:
    with pytest.raises(CalculatorError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{field}: got "), message
    assert "expected" in message
    for choice in choices:
        assert choice in message, (choice, message)


TRAIN_CHOICES = [
    # Documented choices: calculators/cli.py help texts and training_setup's docstring.
    ("method", "sft", ["full", "lora", "qlora"]),
    ("precision", "fp64", ["fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp16"]),
    ("optimizer", "adam", ["adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "sgd", "adafactor"]),
    ("attention", "xformers", ["sdpa", "flash", "eager"]),
    ("base_dtype", "fp64", ["bf16", "fp16", "fp32", "nf4"]),
]


@pytest.mark.parametrize(("field", "bad", "choices"), TRAIN_CHOICES, ids=[row[0] for row in TRAIN_CHOICES])
def test_training_unknown_choice(field: str, bad: str, choices: list[str]) -> None:
    settings = {"method": "lora", field: bad}
    _assert_names_choice(lambda: training_memory(SPEC, **settings), field, choices)
    _assert_names_choice(lambda: fit_training(SPEC, GPU, **settings), field, choices)


INFER_CHOICES = [
    ("weights", "fp64", ["fp32", "bf16", "fp16", "fp8", "int8", "int4"]),
    ("weights", "fp64", ["fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4"]),
    ("kv_cache", "int4", ["fp32", "bf16", "fp16", "fp8"]),
    ("attention", "xformers", ["sdpa", "flash", "eager"]),
]


@pytest.mark.parametrize(("field", "bad", "choices"), INFER_CHOICES, ids=[f"{r[0]}={r[1]}" for r in INFER_CHOICES])
def test_inference_unknown_choice(field: str, bad: str, choices: list[str]) -> None:
    _assert_names_choice(_infer(**{field: bad}), field, choices)
    _assert_names_choice(lambda: fit_inference(SPEC, GPU, **{field: bad}), field, choices)
    _assert_names_choice(lambda: max_context_for_memory(SPEC, memory_bytes=GIB, **{field: bad}), field, choices)  # type: ignore[arg-type]
    _assert_names_choice(lambda: max_batch_for_memory(SPEC, memory_bytes=GIB, context=16, **{field: bad}),  # type: ignore[arg-type]
                         field, choices)


def test_kv_cache_bytes_unknown_dtype() -> None:
    # The error names the argument as the caller typed it (issue #17), kv_dtype.
    _assert_names_choice(lambda: kv_cache_bytes(SPEC, batch=1, context=16, kv_dtype="fp64"), "kv_dtype",
                         ["fp32", "bf16", "fp16", "fp8"])


@pytest.mark.parametrize("kv_dtype", ["nf4", "int4", "int8"])
def test_kv_cache_bytes_accepts_only_kv_dtypes(kv_dtype: str) -> None:
    # Regression: kv_cache_bytes parsed kv_dtype with DType.parse only and accepted formats
    # that inference_memory rejects for kv_cache.
    with pytest.raises(CalculatorError, match=r"^kv_dtype: got "):
        kv_cache_bytes(SPEC, batch=1, context=16, kv_dtype=kv_dtype)


@pytest.mark.parametrize(
    "targets",
    [pytest.param(["qq"], id="unknown"), pytest.param("q,zz", id="unknown-in-string"),
     pytest.param(["q", "lm_head"], id="lm_head")],
)
def test_unknown_lora_target(targets: Any) -> None:
    _assert_names_choice(_train(lora_targets=targets), "lora_targets", ["q", "k", "v", "o", "gate", "up", "down"])


@pytest.mark.parametrize("targets", [[], ""])
def test_empty_lora_targets_rejected_for_lora(targets: Any) -> None:
    with pytest.raises(CalculatorError, match=r"^lora_targets: got "):
        training_memory(SPEC, method="lora", lora_targets=targets)


def test_lora_target_aliases_accepted() -> None:
    # PEFT's module names (q_proj, ...) mean the same as the short names.
    short = training_memory(SPEC, method="lora", lora_targets=["q", "v"])
    peft_names = training_memory(SPEC, method="lora", lora_targets=["q_proj", "v_proj"])
    assert short.trainable_parameters == peft_names.trainable_parameters


def test_nf4_base_needs_qlora() -> None:
    with pytest.raises(CalculatorError, match=r"^base_dtype: got 'nf4'"):
        training_memory(SPEC, method="lora", base_dtype="nf4")
    with pytest.raises(CalculatorError, match=r"^base_dtype: got 'bf16'"):
        training_memory(SPEC, method="qlora", base_dtype="bf16")


@pytest.mark.parametrize(("rank", "targets"), [(-1, ["q"]), (0, ["q"]), (8, ["qq"]), (True, ["q"])])
def test_lora_parameters_validates_directly(rank: Any, targets: list[str]) -> None:
    # Regression: lora_parameters is public but did not validate (rank -1 gave a negative
    # count, an unknown target was ignored).
    field = "rank" if targets == ["q"] else "targets"  # the arguments as the caller typed them (issue #17)
    with pytest.raises(CalculatorError, match=rf"^{field}: got "):
        lora_parameters(SPEC, rank=rank, targets=targets)


def test_grad_checkpointing_string_false_is_not_true() -> None:
    # Regression: bool("false") is True, so the string turned checkpointing on.
    off = training_memory(SPEC, method="full", grad_checkpointing=False)
    on = training_memory(SPEC, method="full", grad_checkpointing=True)
    assert off != on
    assert training_memory(SPEC, method="full", grad_checkpointing="false") == off
    assert training_memory(SPEC, method="full", grad_checkpointing="true") == on


@pytest.mark.parametrize("value", ["maybe", 2, -1, math.nan, None, [True]])
def test_grad_checkpointing_garbage_rejected(value: Any) -> None:
    with pytest.raises(CalculatorError, match=r"^grad_checkpointing: got .*; expected true or false"):
        training_memory(SPEC, method="full", grad_checkpointing=value)


# ------------------------------------------------------------------ catalog names
@pytest.mark.parametrize("name", ["nope", "", "llama-3-8", "gpt-5"])
def test_get_model_unknown(name: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        get_model(name)
    message = str(info.value)
    assert message.startswith("model: got "), message
    assert "llama-3-8b" in message  # lists the catalog ids


@pytest.mark.parametrize("value", [5, None, 1.5])
def test_get_model_non_string(value: Any) -> None:
    with pytest.raises(CalculatorError, match=r"^model: got "):
        get_model(value)


@pytest.mark.parametrize("name", ["nope", "", "h100", 5, None])
def test_get_gpu_unknown(name: Any) -> None:
    with pytest.raises(UnknownNameError) as info:
        get_gpu(name)
    message = str(info.value)
    assert message.startswith("gpu: got "), message
    assert "h100-sxm" in message


def test_get_gpu_suggests_close_ids() -> None:
    with pytest.raises(UnknownNameError, match="did you mean"):
        get_gpu("h100-sx")


@pytest.mark.parametrize("name", ["fp64", "int2", "", "bfloat8"])
def test_dtype_parse_unknown(name: str) -> None:
    _assert_names_choice(lambda: DType.parse(name), "dtype", ["fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4"])
    _assert_names_choice(lambda: DType.parse(name, "weights"), "weights", ["fp32", "bf16"])


def test_dtype_parse_pytorch_spellings() -> None:
    # torch.bfloat16 / torch.float16 / torch.float32 as written in config.json's torch_dtype.
    assert DType.parse("torch.bfloat16") is DType.BF16
    assert DType.parse("float16") is DType.FP16
    assert DType.parse("float32") is DType.FP32


@pytest.mark.parametrize(
    ("config", "field"),
    [
        pytest.param({"model_type": "llama"}, "config.hidden_size", id="missing-keys"),
        pytest.param("{broken", "config.json", id="invalid-json"),
        pytest.param(42, "config", id="wrong-type"),
    ],
)
def test_from_config_errors(config: Any, field: str) -> None:
    with pytest.raises(CalculatorError) as info:
        spec_from_config(config)
    assert str(info.value).startswith(f"{field}: got "), str(info.value)
