"""One measured case: a model and the settings of its training or inference steps, its id and command line."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from harness.presets import PRESETS


@dataclass
class Case:
    preset: str
    kind: str = "train"                 # train | infer | embed
    method: str = "full"                # full | lora | qlora
    precision: str = "bf16-mixed"       # fp32 | bf16-mixed | fp16-mixed | bf16 | fp16
    optimizer: str = "adamw"            # adamw | adamw-fused | sgd | adafactor | adamw-8bit
    batch: int = 1
    seq: int = 512
    grad_checkpointing: bool = False
    attention: str = "sdpa"             # sdpa | eager
    lora_rank: int = 16
    lora_targets: tuple[str, ...] = ("q", "v")
    weights: str = "bf16"               # inference weights / LoRA frozen base
    kv_cache: str | None = None         # inference (defaults to weights)
    context: int = 1024
    new_tokens: int = 16
    steps: int = 2
    model_config: dict[str, Any] | None = field(default=None, repr=False)

    def slug(self) -> str:
        name = self.preset
        if self.kind == "train":
            parts = [name, "train", self.method, self.precision, self.optimizer,
                     f"b{self.batch}", f"s{self.seq}", self.attention]
            if self.grad_checkpointing:
                parts.append("gc")
            if self.method in ("lora", "qlora"):
                parts += [f"r{self.lora_rank}", "-".join(self.lora_targets), f"base-{self.weights}"]
        elif self.kind == "embed":
            parts = [name, "embed", self.weights, f"b{self.batch}", f"s{self.seq}", self.attention]
        else:
            parts = [name, "infer", self.weights, f"kv-{self.kv_cache or self.weights}",
                     f"b{self.batch}", f"ctx{self.context}", f"new{self.new_tokens}", self.attention]
        return "_".join(parts)



def raw_is_moe(case: Case) -> bool:
    raw = case.model_config or PRESETS[case.preset]
    return any(k in raw for k in ("num_local_experts", "num_experts", "n_routed_experts"))


def command_for(case: Case, device: str) -> str:
    parts = ["python", "scripts/measure_memory.py", "--preset", case.preset, "--kind", case.kind,
             "--device", device]
    if case.kind == "train":
        parts += ["--method", case.method, "--precision", case.precision, "--optimizer", case.optimizer,
                  "--batch", str(case.batch), "--seq", str(case.seq), "--attention", case.attention,
                  "--steps", str(case.steps)]
        if case.grad_checkpointing:
            parts.append("--grad-checkpointing")
        if case.method != "full":
            parts += ["--lora-rank", str(case.lora_rank), "--lora-targets", ",".join(case.lora_targets),
                      "--weights", case.weights]
    elif case.kind == "embed":
        parts += ["--weights", case.weights, "--batch", str(case.batch), "--seq", str(case.seq),
                  "--attention", case.attention]
    else:
        parts += ["--weights", case.weights, "--batch", str(case.batch), "--context", str(case.context),
                  "--new-tokens", str(case.new_tokens), "--attention", case.attention]
    return " ".join(shlex.quote(p) for p in parts)
