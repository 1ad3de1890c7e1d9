#!/usr/bin/env python3
"""Score our memory estimate, the peer estimators and the rules of thumb on measured cases.

Two modes:

``--record-peers``
    Needs the ``[measure]`` extra plus the peers: ``pip install -e ".[measure,peers]"``
    and ``pip install --no-deps llm-analysis==0.2.2`` (its metadata pins
    ``transformers<5`` and ``huggingface-hub<0.15`` only for fetching configs from the
    Hub, which is not used here). Runs each peer offline on every measurement record it
    covers and writes ``tests/data/peer_estimates.json`` (``{"provenance", "estimates":
    {case_id: {peer: bytes or null}}}``). No peer touches the network: models are built
    on the meta device from the record's ``config.json`` dict, and the peers' internal
    functions are called with them (see ``PEER_NOTES`` for exactly what each one counts).

default
    Standard library only: reads the records and ``peer_estimates.json`` and prints,
    per case group (full fine-tuning, LoRA, inference), each estimator's covered cases,
    median / p95 / worst absolute relative error and mean signed error
    (:func:`calculators.peers.peer_error_rows`). ``--markdown`` prints Markdown tables.

Examples::

    .venv/bin/python scripts/score_estimators.py --record-peers
    .venv/bin/python scripts/score_estimators.py --markdown
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as _dt
import io
import json
import logging
import os
import platform
import shlex
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from calculators.peers import PEER_NAMES, peer_error_rows, render_peer_table  # noqa: E402
from calculators.rules_of_thumb import ADAM_OPTIMIZERS, case_group  # noqa: E402

DEFAULT_RECORDS = REPO / "tests" / "data" / "measurements"
DEFAULT_PEERS = REPO / "tests" / "data" / "peer_estimates.json"

PEER_NOTES: dict[str, str] = {
    "accelerate": (
        "accelerate 1.15.0 `accelerate estimate-memory` internals (accelerate/commands/estimate.py), "
        "with the Hub lookup replaced by the record's config: under accelerate.init_empty_weights() "
        "build transformers.AutoModel.from_config(config, dtype=float32) exactly as create_empty_model "
        "does (AutoModel = the base model WITHOUT the LM head, so an untied lm_head is not counted), then "
        "accelerate.utils.calculate_maximum_sizes(model) -> total fp32 bytes. Training (full fine-tuning "
        "with an Adam optimizer only): max(estimate_training_usage(total, dtype).values()), the CLI's "
        "'Training using Adam' column, with dtype float32 for fp32 precision and float16 for every 16-bit "
        "precision (the CLI offers only float32/float16/int8/int4): 4 x fp32 size (16 B/param) for float32, "
        "2 x fp32 size (8 B/param) for float16. Inference: the CLI's 'Total Size' column for the weights' "
        "dtype (float16 halves, int8 quarters, int4 eighths the fp32 size); no KV cache, no activations. "
        "LoRA: not covered (null). No activations, logits or optimizer temporaries anywhere."
    ),
    "deepspeed-zero": (
        "deepspeed 0.19.8 deepspeed.runtime.zero.stage_1_and_2.estimate_zero2_model_states_mem_needs("
        "total_params, num_gpus_per_node=1, num_nodes=1, cpu_offload=False) -> per-GPU bytes (the number "
        "estimate_zero2_model_states_mem_needs_all_cold prints for offload_optimizer=none on 1 GPU): "
        "2 B 16-bit params + 18 B (16-bit and fp32 grads, fp32 master, Adam moments) = 20 B/param. "
        "total_params = unique parameters of AutoModelForCausalLM built on the meta device (tied embeddings "
        "once; deepspeed's own model_to_params dedups by data_ptr, which is 0 for every meta tensor, so it "
        "is counted directly). Model states only: no activations, no logits, no temporaries. Full fine-"
        "tuning with an Adam optimizer only (any precision: the estimator has no precision input); LoRA "
        "and inference: null."
    ),
    "deepspeed-zero3": (
        "deepspeed 0.19.8 deepspeed.runtime.zero.stage3.estimate_zero3_model_states_mem_needs("
        "total_params, largest_layer_params, num_gpus_per_node=1, num_nodes=1, cpu_offload=False, "
        "cpu_offload_params=False) -> per-GPU bytes: 18 B/param + 4 B x the largest module's own "
        "parameters (largest_layer_params computed as deepspeed's model_to_params does: max over modules of "
        "their direct parameters). Same coverage and omissions as deepspeed-zero."
    ),
    "llm-analysis": (
        "llm-analysis 0.2.2 Python API (installed with --no-deps; only its Hub config fetch needs "
        "transformers<5). llm_analysis.analysis.LLMAnalysis(ModelConfig, GPUConfig, DtypeConfig, "
        "ParallelismConfig()) with ModelConfig built from the record's config: num_layers, n_head, "
        "hidden_dim, vocab_size, num_key_value_heads, max_seq_len=max(max_position_embeddings, case "
        "length), moe_num_experts/moe_top_k from num_local_experts/num_experts_per_tok, and for the gated "
        "(SwiGLU) MLP ffn_embed_dim = 1.5 x intermediate_size (the iso-parameter width of its two-matrix MLP, "
        "the convention of its shipped Llama configs). GPUConfig = its h100-sxm-80gb entry with "
        "mem_per_GPU_in_GB raised to 1e6 so its fit checks never abort (capacity does not enter the "
        "memory figures). DtypeConfig w16a16e16; fp32 cases are null because LLMAnalysis asserts that "
        "weight_bits and activation_bits are 4, 8 or 16 (int8/int4 weights are not in the measured grid). Training (full "
        "fine-tuning, Adam optimizers): training(batch_size_per_gpu=batch, gradient_accumulation_steps=1, "
        "global_batch_size=batch, seq_len=seq, ds_zero=DSZeRO.NONE, flash_attn=(attention != eager), "
        "activation_recomputation=FULL if grad_checkpointing else NONE, mlp_gated_linear_units=True) and "
        "its '(weight+op_state+grad+act)_memory_per_gpu'. Its model: weights at weight_bits, always an "
        "fp32 master copy + two fp32 Adam moments (12 B) and fp32 gradients (4 B), so 18 B/param at 16 bit "
        "whatever the real 16-bit precision (pure bf16 included); embeddings are always treated as tied (an "
        "untied lm_head is not counted); no biases, no qk-norm; activations per Korthikanti et al. plus the "
        "output-embedding activations; no logits upcast or loss buffers, no optimizer-step temporaries. "
        "Inference: inference(batch_size_per_gpu=batch, seq_len=context, num_tokens_to_generate=new_tokens, "
        "kv_cache_dtype_bytes from the record) and weight_memory_per_gpu + kv_cache_memory_per_gpu + "
        "max(prefill_activation_memory_per_gpu, decode_activation_memory_per_gpu) (its summary has no total). "
        "LoRA: not supported (null)."
    ),
    "hf-mem": (
        "hf-mem 0.5.6 internals (hf_mem.safetensors): its CLI reads safetensors headers and config.json "
        "from the Hub; instead the header is built from AutoModelForCausalLM on the meta device: every "
        "unique parameter and persistent buffer, stored in the record's weights dtype (what save_pretrained "
        "would write), passed as {'Transformer': {name: {'dtype', 'shape'}}} to "
        "parse_safetensors_metadata -> bytes_count. KV cache as with --experimental: "
        "compute_safetensors_kv_cache_size(config with torch_dtype = weights dtype, "
        "resolve_kv_cache_dtype(...), max_model_len = context + new_tokens, batch_size = batch). Estimate = "
        "weights + KV cache (its total_memory). No activations, logits or temporaries. Inference only; "
        "training and LoRA cases are null; quantized weight formats (int8/int4/fp8) are null because hf-mem "
        "reads the real quantized checkpoint's tensors, which we do not construct."
    ),
}


# --------------------------------------------------------------------------------------
# records
# --------------------------------------------------------------------------------------

def load_records(directory: Path) -> list[dict[str, Any]]:
    """Every measurement record (``*.json``) under ``directory``, sorted by id."""
    records = []
    for path in sorted(directory.rglob("*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, dict) and "measured" in data and "id" in data:
            records.append(data)
    return sorted(records, key=lambda r: str(r["id"]))


# --------------------------------------------------------------------------------------
# peers (need torch, transformers, accelerate, deepspeed, llm-analysis, hf-mem)
# --------------------------------------------------------------------------------------

@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence the peers' prints, warnings and logging for one call."""
    sink = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        warnings.simplefilter("ignore")
        previous = logging.root.manager.disable
        logging.disable(logging.CRITICAL)
        try:
            yield
        finally:
            logging.disable(previous)


class MetaModels:
    """Meta-device transformers models per config, built once."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], Any] = {}

    def get(self, config: Mapping[str, Any], kind: str) -> Any:
        key = (json.dumps(config, sort_keys=True), kind)
        if key not in self._cache:
            import torch
            import transformers
            from accelerate import init_empty_weights

            cfg = dict(config)
            model_type = cfg.pop("model_type")
            for k in ("architectures", "torch_dtype", "dtype", "_name_or_path", "transformers_version"):
                cfg.pop(k, None)
            hf_config = transformers.AutoConfig.for_model(model_type, **cfg)
            constructor = transformers.AutoModel if kind == "base" else transformers.AutoModelForCausalLM
            with _quiet(), init_empty_weights():
                self._cache[key] = constructor.from_config(hf_config, dtype=torch.float32)
        return self._cache[key]


def _is_adam_full(record: Mapping[str, Any]) -> bool:
    settings = record.get("settings", {})
    return case_group(record) == "full" and str(settings.get("optimizer") or "adamw") in ADAM_OPTIMIZERS


def _unique_params(model: Any) -> tuple[int, int]:
    total = sum(p.numel() for p in model.parameters())  # parameters() yields a tied tensor once
    largest = 0
    for module in model.modules():
        largest = max(largest, sum(p.numel() for p in module.parameters(recurse=False)))
    return int(total), int(largest)


def accelerate_estimate(record: Mapping[str, Any], models: MetaModels) -> int | None:
    from accelerate.commands.estimate import estimate_training_usage
    from accelerate.utils import calculate_maximum_sizes

    group = case_group(record)
    settings = record["settings"]
    if group == "lora" or (group == "full" and not _is_adam_full(record)):
        return None
    model = models.get(record["model"]["config"], "base")
    with _quiet():
        total_size, _largest = calculate_maximum_sizes(model)
    if group == "full":
        dtype = "float32" if settings.get("precision") == "fp32" else "float16"
        usage = estimate_training_usage(total_size, dtype)
        return int(max(usage.values()))
    divisor = {"fp32": 1, "bf16": 2, "fp16": 2, "int8": 4, "int4": 8}.get(str(settings.get("weights", "bf16")))
    return None if divisor is None else int(total_size / divisor)


def deepspeed_estimates(record: Mapping[str, Any], models: MetaModels) -> tuple[int | None, int | None]:
    if not _is_adam_full(record):
        return None, None
    with _quiet():
        from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs
        from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs
    total, largest = _unique_params(models.get(record["model"]["config"], "causal"))
    _cpu2, gpu2 = estimate_zero2_model_states_mem_needs(total, num_gpus_per_node=1, num_nodes=1, cpu_offload=False)
    _cpu3, gpu3, _ = estimate_zero3_model_states_mem_needs(total, largest, num_gpus_per_node=1, num_nodes=1,
                                                           cpu_offload=False, cpu_offload_params=False)
    return int(gpu2), int(gpu3)


def _llm_analysis(record: Mapping[str, Any], bits: int, length: int) -> Any:
    from llm_analysis.analysis import LLMAnalysis
    from llm_analysis.config import DtypeConfig, ModelConfig, ParallelismConfig, get_gpu_config_by_name

    cfg = record["model"]["config"]
    hidden = int(cfg["hidden_size"])
    experts = int(cfg.get("num_local_experts") or cfg.get("num_experts") or 1)
    width = int(cfg.get("moe_intermediate_size") or cfg["intermediate_size"]) if experts > 1 else int(
        cfg["intermediate_size"])
    ffn = int(round(1.5 * width))  # gated MLP: 3 matrices of width w = 2 matrices of width 1.5 w
    model_config = ModelConfig(
        name=str(record["model"].get("name", "model")),
        num_layers=int(cfg["num_hidden_layers"]),
        n_head=int(cfg["num_attention_heads"]),
        hidden_dim=hidden,
        vocab_size=int(cfg["vocab_size"]),
        max_seq_len=max(int(cfg.get("max_position_embeddings") or 0), length),
        num_key_value_heads=int(cfg.get("num_key_value_heads") or cfg["num_attention_heads"]),
        ffn_embed_dim=ffn,
        expansion_ratio=ffn / hidden,
        model_type=str(cfg.get("model_type")),
        moe_num_experts=experts,
        moe_top_k=int(cfg.get("num_experts_per_tok") or 1),
    )
    gpu = dataclasses.replace(get_gpu_config_by_name("h100-sxm-80gb"), mem_per_GPU_in_GB=1e6)
    dtype = DtypeConfig(name=f"w{bits}a{bits}e{bits}", weight_bits=bits, activation_bits=bits, embedding_bits=bits)
    return LLMAnalysis(model_config, gpu, dtype_config=dtype, parallelism_config=ParallelismConfig())


def llm_analysis_estimate(record: Mapping[str, Any]) -> int | None:
    from llm_analysis.analysis import ActivationRecomputation, DSZeRO

    group = case_group(record)
    settings = record["settings"]
    if group == "full":
        if not _is_adam_full(record):
            return None
        if settings.get("precision") == "fp32":
            return None  # LLMAnalysis asserts weight_bits and activation_bits in (4, 8, 16)
        bits = 16
        batch, seq = int(settings["batch"]), int(settings["seq"])
        with _quiet():
            analysis = _llm_analysis(record, bits, seq)
            result = analysis.training(
                batch_size_per_gpu=batch, gradient_accumulation_steps=1, global_batch_size=batch, seq_len=seq,
                activation_recomputation=(ActivationRecomputation.FULL if settings.get("grad_checkpointing")
                                          else ActivationRecomputation.NONE),
                ds_zero=DSZeRO.NONE, flash_attn=settings.get("attention", "sdpa") != "eager",
                mlp_gated_linear_units=True,
            )
        return int(round(result["(weight+op_state+grad+act)_memory_per_gpu"]))
    if group == "inference":
        weight_bits = {"bf16": 16, "fp16": 16}.get(str(settings.get("weights", "bf16")))  # it rejects 32-bit
        kv_bytes = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}.get(str(settings.get("kv_cache", "bf16")))
        if weight_bits is None or kv_bytes is None:
            return None
        context, new = int(settings["context"]), int(settings.get("new_tokens") or 0)
        with _quiet():
            analysis = _llm_analysis(record, weight_bits, context + new)
            result = analysis.inference(batch_size_per_gpu=int(settings["batch"]), seq_len=context,
                                        num_tokens_to_generate=new, kv_cache_dtype_bytes=kv_bytes,
                                        ds_zero=DSZeRO.NONE)
        activations = max(result["prefill_activation_memory_per_gpu"], result["decode_activation_memory_per_gpu"])
        return int(round(result["weight_memory_per_gpu"] + result["kv_cache_memory_per_gpu"] + activations))
    return None


_ST_DTYPES = {"fp32": "F32", "bf16": "BF16", "fp16": "F16"}
_TORCH_NAMES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


def hf_mem_estimate(record: Mapping[str, Any], models: MetaModels) -> int | None:
    from hf_mem.safetensors import (
        compute_safetensors_kv_cache_size,
        parse_safetensors_metadata,
        resolve_kv_cache_dtype,
    )

    if case_group(record) != "inference":
        return None
    settings = record["settings"]
    weights = str(settings.get("weights", "bf16"))
    if weights not in _ST_DTYPES:
        return None
    model = models.get(record["model"]["config"], "causal")
    header: dict[str, dict[str, Any]] = {}
    for name, param in model.named_parameters():  # tied weights once, as save_pretrained writes them
        header[name] = {"dtype": _ST_DTYPES[weights], "shape": list(param.shape)}
    param_names = {name for name, _ in model.named_parameters(remove_duplicate=False)}
    state = model.state_dict()
    for name, tensor in state.items():  # persistent buffers only (state_dict skips the others)
        if name not in param_names:
            dtype = _ST_DTYPES[weights] if tensor.is_floating_point() else "I64"
            header[name] = {"dtype": dtype, "shape": list(tensor.shape)}
    parsed = parse_safetensors_metadata({"Transformer": header})
    config = dict(record["model"]["config"])
    config["torch_dtype"] = _TORCH_NAMES[weights]
    kv = str(settings.get("kv_cache", "bf16"))
    option = "auto" if kv == weights else {"bf16": "bfloat16", "fp8": "fp8"}.get(kv)
    if option is None:
        return None
    with _quiet():
        cache_dtype = resolve_kv_cache_dtype(config=config, kv_cache_dtype=option, metadata=parsed,
                                             model_id=str(record["model"].get("name")))
        kv_bytes = compute_safetensors_kv_cache_size(
            config=config, cache_dtype=cache_dtype,
            max_model_len=int(settings["context"]) + int(settings.get("new_tokens") or 0),
            batch_size=int(settings["batch"]))
    return int(parsed.bytes_count + kv_bytes)


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def record_peers(records: list[dict[str, Any]], out: Path, argv: list[str], records_dir: Path) -> dict[str, Any]:
    """Run every peer on every record it covers and write ``out``; returns the document."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    models = MetaModels()
    unavailable: dict[str, str] = {}
    calls: dict[str, Callable[[Mapping[str, Any]], Any]] = {}

    def probe(peer: str, module: str) -> bool:
        try:
            with _quiet():
                __import__(module)
            return True
        except Exception as exc:  # ImportError, or a peer failing at import time
            unavailable[peer] = f"could not import {module}: {type(exc).__name__}: {exc}"
            return False

    if probe("accelerate", "accelerate.commands.estimate"):
        calls["accelerate"] = lambda r: accelerate_estimate(r, models)
    if probe("deepspeed-zero", "deepspeed.runtime.zero.stage3"):
        calls["deepspeed"] = lambda r: deepspeed_estimates(r, models)
    else:
        unavailable["deepspeed-zero3"] = unavailable["deepspeed-zero"]
    if probe("llm-analysis", "llm_analysis.analysis"):
        calls["llm-analysis"] = llm_analysis_estimate
    if probe("hf-mem", "hf_mem.safetensors"):
        calls["hf-mem"] = lambda r: hf_mem_estimate(r, models)

    estimates: dict[str, dict[str, int | None]] = {}
    errors: dict[str, dict[str, str]] = {}
    for record in records:
        case_id = str(record["id"])
        row: dict[str, int | None] = {peer: None for peer in PEER_NAMES}
        for name, call in calls.items():
            try:
                value = call(record)
            except Exception as exc:  # a peer that fails on one case gives null, and says why
                errors.setdefault(name, {})[case_id] = f"{type(exc).__name__}: {exc}"
                continue
            if name == "deepspeed":
                row["deepspeed-zero"], row["deepspeed-zero3"] = value
            else:
                row[name] = value
        estimates[case_id] = row
        print(f"  {case_id}: " + ", ".join(f"{k}={v}" for k, v in row.items()), file=sys.stderr)

    try:
        records_path = str(records_dir.resolve().relative_to(REPO))
    except ValueError:
        records_path = str(records_dir)
    document = {
        "provenance": {
            "command": "python scripts/score_estimators.py " + shlex.join(argv),
            "date": _dt.date.today().isoformat(),
            "python": platform.python_version(),
            "packages": {pkg: _version(pkg) for pkg in (
                "accelerate", "deepspeed", "llm-analysis", "hf-mem", "torch", "transformers")},
            "records": {"directory": records_path, "count": len(records)},
            "units": "bytes per GPU (1 GPU); null = the peer does not cover the case (see notes)",
            "notes": {peer: (f"UNAVAILABLE, all null: {unavailable[peer]}" if peer in unavailable else note)
                      for peer, note in PEER_NOTES.items()},
            "errors": errors,
        },
        "estimates": estimates,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, sort_keys=True, indent=1) + "\n")
    return document


# --------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------

def _per_case(records: list[dict[str, Any]], peers: Mapping[str, Any]) -> str:
    from calculators.accuracy import score
    from calculators.errors import CalculatorError
    from calculators.rules_of_thumb import rule_estimates

    by_case = peers.get("estimates", {})
    lines = []
    for record in records:
        measured = int(record["measured"]["peak_allocated_bytes"])
        values: dict[str, int | None] = {}
        try:
            values["ours"] = score(record).estimated_bytes
        except CalculatorError:
            values["ours"] = None
        values.update({k: v for k, v in rule_estimates(record).items() if v is not None})
        values.update({k: v for k, v in by_case.get(str(record["id"]), {}).items() if v is not None})
        cells = ", ".join(f"{k} {(v - measured) / measured:+.1%}" for k, v in values.items() if v is not None)
        lines.append(f"{record['id']} (measured {measured / 2**30:.3f} GiB): {cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=Path, default=DEFAULT_RECORDS,
                        help="directory of measurement records (default: tests/data/measurements)")
    parser.add_argument("--peers", type=Path, default=DEFAULT_PEERS,
                        help="peer estimates file to read or write (default: tests/data/peer_estimates.json)")
    parser.add_argument("--record-peers", action="store_true",
                        help="run the peer estimators (needs the [measure,peers] extras) and write --peers")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--per-case", action="store_true", help="also print every case's signed errors")
    args = parser.parse_args(args_list)

    records = load_records(args.records)
    if not records:
        parser.error(f"no measurement records under {args.records}")
    if args.record_peers:
        peers = record_peers(records, args.peers, args_list, args.records)
        print(f"wrote {args.peers} ({len(peers['estimates'])} cases)", file=sys.stderr)
    elif args.peers.exists():
        peers = json.loads(args.peers.read_text())
    else:
        print(f"note: {args.peers} not found; peers are shown with 0 cases", file=sys.stderr)
        peers = {"estimates": {}}
    missing = [str(r["id"]) for r in records if str(r["id"]) not in peers.get("estimates", {})]
    if missing:
        print(f"note: {len(missing)} record(s) have no entry in {args.peers} (peers count them as not covered); "
              "rerun with --record-peers", file=sys.stderr)
    print(render_peer_table(peer_error_rows(records, peers), markdown=args.markdown))
    if args.per_case:
        print()
        print(_per_case(records, peers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
