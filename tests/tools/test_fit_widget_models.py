"""The "Which GPUs does it fit?" widget takes every catalogued model and a pasted config of each family (#26).

Issue 26 asks that the fit widget accept every model of the catalog and a pasted ``config.json`` of
each family it reads. Picking a model runs it with the widget's default weights, ``auto`` (the
checkpoint's own quantisation): MiniMax-M2's ``quantization_config`` writes ``"fmt":
"float8_e4m3fn"`` (torch's name of E4M3) where DeepSeek-V3 writes ``"e4m3"``, and the reader
refused it, so picking MiniMax-M2 showed an error. The widget answer costs about a tenth of a
second, so every model is checked through the engine call the widget makes for ``auto``
(:func:`~calculators.memory.weight_formats.resolve_weights`), and the widget itself runs one model
per family, picked by name and pasted as its config, in both jobs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from calculators.catalog.models import all_models, get_model
from calculators.memory.weight_formats import resolve_weights
from calculators.model_config import spec_from_config
from calculators.widgets.api import compute_json


def _first_of_each_family() -> list[tuple[str, Mapping[str, Any]]]:
    first: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for record in all_models():
        first.setdefault(str(record.config.get("model_type")), (record.id, record.config))
    return sorted(first.values())


FAMILIES = _first_of_each_family()


def _plain(value: Any) -> Any:
    """A catalog config (read-only mappings, tuples) as the JSON a config.json file holds."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _answer(inputs: dict[str, str]) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(compute_json("fit", json.dumps(inputs)))
    return answer


@pytest.mark.parametrize("model_id", [record.id for record in all_models()])
def test_every_catalog_model_sizes_with_its_checkpoint_weights(model_id: str) -> None:
    # weights "auto" is the widget's default: it must resolve for every model the picker offers, to a 16-bit
    # format or to the checkpoint's quantisation (at most 16 bits a weight, scales included)
    resolved = resolve_weights(get_model(model_id), "auto")
    assert resolved == "bf16" or (not isinstance(resolved, str) and 0 < resolved.bits_per_weight <= 16)


def test_minimax_m2_fp8_checkpoint_is_read_as_e4m3() -> None:
    # MiniMaxAI/MiniMax-M2 config.json: quant_method fp8, fmt float8_e4m3fn, weight_block_size [128, 128]
    fmt = resolve_weights(get_model("minimax-m2"), "auto")
    # 8 bits per value plus one FP32 scale per 128 x 128 block (transformers FP8Linear.weight_scale_inv)
    assert not isinstance(fmt, str) and fmt.bits_per_weight == 8 + 32 / (128 * 128)


@pytest.mark.parametrize(("model_id", "config"), FAMILIES, ids=[model_id for model_id, _ in FAMILIES])
def test_fit_widget_answers_a_catalog_model_and_its_pasted_config(model_id: str, config: Mapping[str, Any]) -> None:
    # One job each way (a widget answer costs a tenth of a second): the model picked by name for training,
    # its config.json pasted for inference; the pasted config reads to the catalog model's parameters.
    picked = _answer({"model": model_id, "job": "training"})
    assert picked["ok"], picked
    pasted = _answer({"model": "custom", "config": json.dumps(_plain(config)), "job": "inference"})
    assert pasted["ok"], pasted
    spec = spec_from_config(_plain(config))
    assert spec.parameters == get_model(model_id).parameters
    # No family is sized by the Llama-style fallback, told or not.
    assert not any("llama" in warning.lower() for warning in spec.warnings), spec.warnings


def test_images_per_request_is_an_input_of_every_inference_face() -> None:
    # #26 item 3: an images-per-request input. Qwen2.5-VL makes one token per 28 x 28 px (patch 14, 2 x 2 merge:
    # its config's vision_config), so a 1,024 px square is round(1024 / 28)^2 = 37^2 = 1,369 prompt tokens.
    from calculators.cli import run
    from calculators.memory.inference import image_prompt_tokens

    assert image_prompt_tokens(get_model("qwen2.5-vl-7b"), images=4) == 4 * 37**2
    without, _ = run(["infer", "--model", "qwen2.5-vl-7b", "--gpu", "rtx-4090", "--context", "2048"])
    with_images, _ = run(["infer", "--model", "qwen2.5-vl-7b", "--gpu", "rtx-4090", "--context", "2048",
                          "--images", "4"])
    assert json.dumps(with_images) != json.dumps(without)
    for name in ("inference-memory", "fit"):
        picked = json.loads(compute_json(name, json.dumps({"model": "qwen2.5-vl-7b", "images": "4"})))
        assert picked["ok"], picked
        refused = json.loads(compute_json(name, json.dumps({"model": "llama-3-8b", "images": "1"})))
        assert not refused["ok"] and refused["field"] == "images" and "Images per request" in refused["message"]
