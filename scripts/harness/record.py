"""The JSON record of one run: settings, measured peaks and breakdowns, provenance."""

from __future__ import annotations

import datetime as _dt
import platform
from typing import Any

from harness.case import Case, command_for, raw_is_moe
from harness.presets import PRESETS
from harness.tracker import ROUND, Recorder, classify


def versions() -> dict[str, str]:
    import torch
    import transformers
    v = {"torch": torch.__version__, "transformers": transformers.__version__,
         "python": platform.python_version()}
    try:
        import peft
        v["peft"] = peft.__version__
    except Exception:
        v["peft"] = None  # type: ignore[assignment]
    return v


def finish_record(case: Case, device: str, rec: Recorder, sets, adjustments, info, autocast_dtype) -> dict[str, Any]:
    import torch
    t = rec.t
    peak_phase = max(rec.phase_peaks, key=lambda k: (rec.phase_peaks[k], k))
    breakdowns = {ph: classify(rec.snapshots[ph], sets) for ph in rec.phase_peaks}
    common_adj = [
        "allocations counted per storage at nbytes rounded up to 512 B (CUDA caching allocator block "
        "rounding); kernel-internal workspaces (cuBLAS, flash-attention dq_accum/softmax_d) are invisible",
        "parameters category includes registered buffers (e.g. rotary inv_freq)",
        "Python garbage collection disabled inside each phase and run at phase boundaries",
    ]
    if device != "cuda":
        common_adj.append(
            "SDPA runs aten._scaled_dot_product_flash_attention_for_cpu (flash-style: no SxS buffer, saves "
            "fp32 logsumexp batch x heads x seq), as CUDA's flash kernel does in fp16/bf16; in fp32 with "
            "grouped K/V CUDA runs the math backend instead (calculators.memory.kernels); transformers "
            "passes attn_mask=None/is_causal for unpadded batches (verified via sdpa_calls)")
    if autocast_dtype is not None and device != "cuda":
        common_adj.append(
            "autocast(device_type='cpu'): linear/matmul/bmm/baddbmm/SDPA cast to low precision as on CUDA; "
            "CPU autocast has no fp32 list for softmax/log_softmax/layer_norm/pow/rsqrt/sum, which CUDA "
            "upcasts -- the HF models measured already upcast explicitly there (RMSNorm .float(), "
            "softmax(dtype=float32), logits.float() in the loss), so allocations match")
    if case.kind == "infer":
        common_adj.append("prefill uses logits_to_keep=1 as generate() does; decode is a hand-written greedy "
                          "loop over DynamicCache (generate() cannot run on fake tensors)")
    settings: dict[str, Any]
    if case.kind == "train":
        settings = {
            "method": case.method, "precision": case.precision, "optimizer": case.optimizer,
            "batch": case.batch, "seq": case.seq, "grad_checkpointing": case.grad_checkpointing,
            "attention": case.attention, "steps": case.steps,
            "lora_rank": case.lora_rank if case.method != "full" else None,
            "lora_targets": list(case.lora_targets) if case.method != "full" else None,
            "lora_dtype": (info["trainable_dtypes"][0] if case.method != "full" and
                           len(info["trainable_dtypes"]) == 1 else
                           (info["trainable_dtypes"] if case.method != "full" else None)),
            "base_dtype": case.weights if case.method != "full" else None,
            "param_dtypes": info["param_dtypes"],
            "autocast_dtype": str(autocast_dtype).replace("torch.", "") if autocast_dtype else None,
            "optimizer_kwargs": {"adamw": "foreach=True, lr=1e-5, weight_decay=0.01",
                                 "adamw-fused": "fused=True, lr=1e-5, weight_decay=0.01",
                                 "sgd": "momentum=0.9, foreach=True",
                                 "adafactor": "torch.optim.Adafactor defaults, foreach=True (the CUDA default)",
                                 "adamw-8bit": "bitsandbytes AdamW8bit"}[case.optimizer],
        }
    elif case.kind == "embed":
        settings = {"weights": case.weights, "batch": case.batch, "seq": case.seq, "attention": case.attention,
                    "padded": True}
    else:
        settings = {"weights": case.weights, "kv_cache": case.kv_cache or case.weights,
                    "batch": case.batch, "context": case.context, "new_tokens": case.new_tokens,
                    "attention": case.attention, "logits_to_keep": 1, "cache": "DynamicCache"}
    if device == "fake":
        dev_desc = "fake-cpu (FakeTensorMode)"
    elif device == "cpu":
        dev_desc = "cpu"
    else:
        dev_desc = torch.cuda.get_device_name(0)
    measured: dict[str, Any] = {
        "peak_allocated_bytes": rec.phase_peaks[peak_phase],
        "peak_phase": peak_phase,
        "phase_peaks": dict(rec.phase_peaks),
        "phase_peaks_per_step": rec.phase_peak_steps,
        "breakdown_at_peak": breakdowns[peak_phase],
        "breakdown_at_phase_peaks": breakdowns,
        "boundaries": rec.boundaries,
        "kv_cache_bytes": None,
        "n_params": info["n_params"],
        "sdpa_calls": dict(sorted(t.sdpa_calls.items())),
        "gc_freed_bytes_at_boundaries": rec.gc_freed,
    }
    if case.kind == "train":
        measured["n_trainable_params"] = info["n_trainable_params"]
        if info.get("lora_modules"):
            measured["lora_modules"] = info["lora_modules"]
    elif case.kind == "infer":
        measured["kv_cache_bytes_after_prefill"] = info["kv_cache_bytes_after_prefill"]
        measured["kv_cache_seq_len"] = info["kv_cache_seq_len"]
    if device == "cuda":
        # on a GPU the allocator's own statistics are the ground truth; the storage tracker's numbers are kept
        measured["cuda"] = rec.cuda_peaks
        measured["tracked_peak_allocated_bytes"] = measured["peak_allocated_bytes"]
        measured["tracked_peak_phase"] = peak_phase
        cuda_phase = max(rec.cuda_peaks, key=lambda k: rec.cuda_peaks[k]["max_memory_allocated"])
        measured["peak_allocated_bytes"] = rec.cuda_peaks[cuda_phase]["max_memory_allocated"]
        measured["peak_phase"] = cuda_phase
        measured["peak_reserved_bytes"] = max(v["max_memory_reserved"] for v in rec.cuda_peaks.values())
        measured.update(cuda_footprint(measured["peak_reserved_bytes"]))
    if raw_is_moe(case):
        settings["experts_implementation"] = info.get("experts_implementation")
    raw = case.model_config or PRESETS[case.preset]
    return {
        "id": case.slug() + ("" if device == "fake" else f"@{device}"),
        "kind": case.kind,
        "model": {"name": case.preset, "config": raw},
        "settings": settings,
        "measured": measured,
        "provenance": {**versions(), "device": dev_desc, "mode": "fake" if device == "fake" else "real",
                       "date": _dt.date.today().isoformat(),
                       "command": command_for(case, device),
                       "adjustments": common_adj + adjustments,
                       "allocator_rounding_bytes": ROUND},
    }


def cuda_footprint(peak_reserved_bytes: int) -> dict[str, int]:
    """What the process holds on the GPU beyond the allocator, read now: context, usable total, peak footprint.

    ``non_torch_bytes = (total - free) - memory_reserved()`` (CUDA context, loaded kernels,
    library handles); ``process_peak_bytes = peak_reserved_bytes + non_torch_bytes`` is what
    the calculators' ``total_bytes`` estimates.
    """
    import torch
    free, total = torch.cuda.mem_get_info()
    non_torch = (total - free) - torch.cuda.memory_reserved()
    return {"usable_bytes": int(total), "non_torch_bytes": int(non_torch),
            "process_peak_bytes": int(peak_reserved_bytes + non_torch)}
