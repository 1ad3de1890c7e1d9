"""One job, one answer, on a checkpoint that is not bf16: the speed and plan faces size their headline, every line
of their fit advice and the efficiencies they display on the weights the checkpoint stores (weights ``auto``).

Found in review (main 63288df): both faces rebuilt the speed settings from the form values without the model, so
``auto`` became bf16 for the advice and the displayed efficiencies while the headline used the checkpoint's format:
gpt-oss-120b on an RTX 4090 opened with "4 fit" (MXFP4) and advised 12 GPUs (sized as bf16).

The oracle is the memory engine on the checkpoint's format: its weights are first checked against bytes derived by
hand from each model's config (the derivations of tests/engine/test_checkpoint_quantization.py, repeated here),
then every number a face shows must be that oracle's.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from calculators.catalog.engines import get_engine
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.dtypes import DType
from calculators.fit import share_verdict
from calculators.jobs.registry import get_calculator
from calculators.memory.inference import inference_memory
from calculators.model import ModelSpec
from calculators.model_config import spec_from_config
from calculators.performance.inference_speed import decode_step

#: gpt-oss-120b (MXFP4 experts): 36 layers x 128 experts, each gate_up 5760 x 2880 and down 2880 x 2880 as
#: 4-bit E2M1 values plus one E8M0 byte per 32 inputs: 8,294,400 + 518,400 + 4,147,200 + 259,200 = 13,219,200
#: bytes; the other 116,829,156,672 - 4608 x 24,883,200 parameters in bf16 (model card: 60.8 GiB).
GPT_OSS_120B_BYTES = 4608 * 13_219_200 + (116_829_156_672 - 4608 * 24_883_200) * 2

#: DeepSeek-V3 (FP8 E4M3, one FP32 scale per 128 x 128 block; lm_head and embeddings bf16): attention linears
#: 187,105,280 weights in 11,448 blocks per layer (61 layers), dense MLP 396,361,728 in 24,192 (3 layers), an
#: expert 44,040,192 in 2,688 (58 layers x 257 experts); everything else bf16.
_DEEPSEEK_FP8 = 61 * 187_105_280 + 3 * 396_361_728 + 58 * 257 * 44_040_192
_DEEPSEEK_SCALES = 61 * 11_448 + 3 * 24_192 + 58 * 257 * 2_688
DEEPSEEK_V3_BYTES = _DEEPSEEK_FP8 + 4 * _DEEPSEEK_SCALES + 2 * (671_026_419_200 - _DEEPSEEK_FP8)

#: Llama-3-8B's shapes with an AutoAWQ GEMM config (4 bits, FP16 scale and 4-bit zero per 128 inputs): every
#: decoder linear at 66.5 / 128 bytes per weight, 32 x (2 x 4096 x 4096 + 2 x 1024 x 4096 + 3 x 14336 x 4096) =
#: 6,979,321,856 of them; the other 8,030,261,248 - 6,979,321,856 parameters (Meta's count) in bf16.
LLAMA_AWQ_CONFIG = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                    "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
                    "tie_word_embeddings": False,
                    "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None,
                                            "quant_method": "awq", "version": "gemm", "zero_point": True}}
LLAMA_AWQ_BYTES = int(6_979_321_856 * 66.5 / 128 + (8_030_261_248 - 6_979_321_856) * 2)

#: (form values, the model as the engine reads it, checkpoint weight bytes, the DType its matmuls are fitted
#: under: MXFP4 and AWQ dequantise to 16-bit matmuls (weight-only, int4 family), FP8 runs FP8 matmuls).
CASES = [
    pytest.param({"model": "gpt-oss-120b", "gpu": "rtx-4090", "engine": "vllm"}, lambda: get_model("gpt-oss-120b"),
                 GPT_OSS_120B_BYTES, DType.INT4, id="gpt-oss-120b-mxfp4"),
    pytest.param({"model": "deepseek-v3", "gpu": "h100-sxm", "engine": "vllm"}, lambda: get_model("deepseek-v3"),
                 DEEPSEEK_V3_BYTES, DType.FP8, id="deepseek-v3-fp8"),
    pytest.param({"model": "custom", "config": json.dumps(LLAMA_AWQ_CONFIG), "gpu": "rtx-4090", "engine": "vllm",
                  "context": "65536", "batch": "2"}, lambda: spec_from_config(LLAMA_AWQ_CONFIG),
                 LLAMA_AWQ_BYTES, DType.INT4, id="llama-3-8b-awq"),
]


def _speed_data(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """The engine's speed result as the face gives it (the plan nests it under ``speed``)."""
    return data["speed"] if name == "plan" else data


@pytest.mark.parametrize("name", ["plan", "inference-speed"])
@pytest.mark.parametrize(("values", "model", "weight_bytes", "matmuls"), CASES)
def test_the_advice_and_the_efficiencies_are_sized_on_the_checkpoints_weights(
        name: str, values: dict[str, str], model: Any, weight_bytes: int, matmuls: DType) -> None:
    spec: ModelSpec = model()
    gpu, engine = get_gpu(values["gpu"]), values["engine"]
    answer = get_calculator(name).answer(values)
    timed = _speed_data(name, answer.data)
    job = {"weights": "auto", "kv_cache": "bf16", "batch": timed["batch"], "context": timed["context"],
           "new_tokens": timed["new_tokens"]}
    # The oracle holds the checkpoint's weights, derived from its config, not 2 bytes per parameter.
    assert inference_memory(spec, **job).breakdown["weights"] == weight_bytes
    assert weight_bytes < 0.6 * 2 * spec.parameters

    def oracle(gpus: int = 1, **change: Any) -> Any:
        return share_verdict(inference_memory(spec, **{**job, **change}), gpu, gpus=gpus)

    # The headline: the job's bytes and the fewest GPUs that hold it (brute force, not the engine's search).
    said = answer.data["answer"]
    assert said["total_bytes"] == oracle().total_bytes
    fewest = next(n for n in range(1, 65) if oracle(n).fits)
    assert said["gpus_needed"] == fewest

    # Every advice line: its margin and its modelled speed are the same job's, on the same weights.
    changes = said["changes"]
    assert changes, "the job does not fit: the advice lists changes"
    speed_job = {key: job[key] for key in ("weights", "kv_cache", "batch", "context")}
    for change in changes:
        settings = dict(change["settings"])
        gpus = int(settings.pop("gpus", 1))
        assert change["margin_bytes"] == oracle(gpus, **settings).margin_bytes, change["change"]
        if "GPUs" in change["change"]:
            assert gpus == fewest, change["change"]  # the headline's count
        changed = decode_step(spec, gpu, engine=engine, **{**speed_job, **settings, "gpus": gpus})
        assert change["changed_tokens_per_s"] == changed.aggregate_tokens_per_s, change["change"]
        if change["original_tokens_per_s"] is not None:  # the job as set, timed: the face's own speed
            assert change["original_tokens_per_s"] == timed["decode_tokens_per_s"], change["change"]
    assert any("GPUs" in change["change"] for change in changes)

    # The efficiencies a face displays are the ones that timed its headline: the engine's fit for these matmuls.
    compute = get_engine(engine).compute_efficiency_for(matmuls)
    assert f"compute efficiency {compute:.3g} " in timed["assumptions"][0]
    if name == "inference-speed":
        assert answer.used["compute_efficiency"] == f"{compute:.3g} (fitted)"
