"""The front door (issue #29): the one reading of a model and of a GPU, and the one declaration of an input.

Every face reads what a user typed through :func:`calculators.inputs.model.resolve_model` and
:func:`calculators.inputs.gpu.resolve_gpu`; these tests pin what each accepts and how its errors
name the field the user filled (the engine's keyword, a list, a command-line flag, a form input).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calculators.catalog.custom_gpu import CustomGPU, custom_gpu
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.errors import ConfigError, InputError, UnknownNameError
from calculators.inputs import Field, resolve_gpu, resolve_model
from calculators.inputs.fields import cli_field, int_field
from calculators.inputs.shared import custom_gpu_fields, model_and_gpu_fields
from calculators.jobs.values import gpu_from_values, spec_from_config_text

#: A two-layer Llama-style config (its shapes are what the tests compare, not a published model).
TINY = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100}


def test_a_model_is_read_from_each_form_it_comes_in(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY), encoding="utf-8")
    spec = resolve_model(TINY)
    assert resolve_model(json.dumps(TINY)) == spec  # JSON text
    assert resolve_model(str(path)) == spec and resolve_model(path) == spec  # a path, as text or a Path
    assert resolve_model(spec) is spec  # a record passes through untouched
    catalog = get_model("llama-3-8b")
    for name in ("llama-3-8b", "Llama 3 8B", "meta-llama/Meta-Llama-3-8B", " LLAMA-3-8B "):
        assert resolve_model(name) == catalog


def test_a_models_errors_name_the_field_the_user_filled() -> None:
    with pytest.raises(UnknownNameError) as unknown:
        resolve_model("llama-3-8")
    assert unknown.value.field == "model" and "llama-3-8b" in str(unknown.value)  # close ids suggested
    with pytest.raises(InputError, match=r"^spec: got 'llama-3-8'; expected one of"):
        resolve_model("llama-3-8", field="spec")
    with pytest.raises(InputError, match=r"^spec: got 7; expected a ModelSpec"):
        resolve_model(7, field="spec")  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as config:
        resolve_model({**TINY, "hidden_size": 0})
    assert config.value.field == "config.hidden_size"  # a config's own errors name its key


def test_a_pasted_config_is_named_by_its_architecture() -> None:
    # The form's reader never treats text as a path, and names a config without _name_or_path by what it is.
    spec = spec_from_config_text(json.dumps({**TINY, "architectures": ["LlamaForCausalLM"]}))
    assert spec.name == "Custom LlamaForCausalLM"
    assert spec.parameters == resolve_model(TINY).parameters
    with pytest.raises(InputError, match=r"^config: "):
        spec_from_config_text("  ")


def test_a_gpu_is_read_from_each_form_it_comes_in() -> None:
    h100 = get_gpu("h100-sxm")
    assert resolve_gpu("h100-sxm") is h100 and resolve_gpu("H100 SXM 80GB") is h100 and resolve_gpu(h100) is h100
    custom = resolve_gpu("custom:memory_gb=48,bandwidth_gbps=864,bf16_tflops=362")
    assert isinstance(custom, CustomGPU)
    assert custom == custom_gpu(memory_gb=48, bandwidth_gbps=864, bf16_tflops=362)  # the text is the builder's keywords
    assert resolve_gpu("mac:64").vendor == resolve_gpu("mac:memory_gb=64").vendor == "Apple"


@pytest.mark.parametrize(("field", "unknown", "bad_key"), [
    ("gpu", "gpu", "memory_gb"),         # the engine's keyword: a key of the description is named alone
    ("gpus", "gpus", "memory_gb"),       # a list of GPUs (recommend's Workload.gpus)
    ("--gpu", "--gpu", "--gpu memory_gb"),  # the command line: the flag, then the key
])
def test_a_gpus_errors_name_the_field_the_user_filled(field: str, unknown: str, bad_key: str) -> None:
    with pytest.raises(InputError) as raised:
        resolve_gpu("h100-sxn", field=field)
    assert raised.value.field == unknown and "h100-sxm" in str(raised.value)
    with pytest.raises(InputError) as raised:
        resolve_gpu("custom:memory_gb=abc,bandwidth_gbps=1", field=field)
    assert raised.value.field == bad_key
    with pytest.raises(InputError) as raised:
        resolve_gpu("custom:speed=fast", field=field)
    assert raised.value.field == unknown  # a pair the description does not know names the field itself


def test_the_form_names_its_own_inputs() -> None:
    # The web form gives a custom GPU's numbers as separate inputs: an error names the input, not the key.
    values = {"gpu": "custom", "gpu_memory_gb": "48", "gpu_bandwidth_gbps": "864", "gpu_bf16_tflops": "abc",
              "gpu_fp16_tflops": "", "gpu_fp8_tflops": "", "gpu_compute_capability": "", "gpu_usable_gb": ""}
    with pytest.raises(InputError) as raised:
        gpu_from_values(values)
    assert raised.value.field == "gpu_bf16_tflops"
    assert gpu_from_values({"gpu": "h100-sxm"}) is get_gpu("h100-sxm")


def test_fields_say_which_faces_offer_them() -> None:
    assert int_field("batch", "Batch", default=1, maximum=8).faces == ("form", "cli")
    assert cli_field("gpu_hours", "GPU-hours").faces == ("cli",)
    assert {field.faces for field in custom_gpu_fields()} == {("form",)}
    assert [field.name for field in model_and_gpu_fields() if "cli" not in field.faces][0] == "config"
    with pytest.raises(ValueError, match="faces"):
        Field("batch", "Batch", "int", 1, faces=("email",))
