"""Claims about fine-tuning memory read from the vendor's tables (VRLA Tech), and the helpers they share.

The fine-tuning guide's table gives a VRAM range and a recommended GPU per size class and
method; each row is two claims here: the range (our total_bytes in GB for the models the
row names, checkpointing off and on) and the fit (our per-GPU total on the recommended
cards, sharded with ZeRO-3 when there are several). The workstation guide's task table
follows. Figures come from :func:`calculators.memory.training.training_memory`.

>>> len(vrla_table()) == 2 * len(VRLA_ROWS)
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from calculators.catalog.gpus import get_gpu
from calculators.claims.figures import (
    F_TRAIN,
    FP16_READINGS,
    FP32,
    LORA,
    MIXED,
    PAGE_FINE_TUNING,
    PAGE_PRECISION,
    PAGE_VISION,
    PURE16,
    QLORA,
    VRLA_FT,
    VRLA_WS,
    adamw_variants,
    bytes_per_param,
    figure,
    gb,
    model_state_bytes_per_param,
    name,
    reference,
    total_gb,
    total_gib,
    training_cases,
    variant_cases,
)
from calculators.claims.record import Case, Claim, Figure
from calculators.memory.vision import vision_training_memory

PRO = "rtx-pro-6000-blackwell"
SEVEN_B = ("llama-3-8b", "mistral-7b-v0.1", "qwen2.5-7b")
#: The models each size class of the VRLA fine-tuning tables names.
SIZE_MODELS: dict[str, tuple[str, ...]] = {
    "7B": SEVEN_B,
    "13B": ("llama-2-13b", "qwen2.5-14b"),
    "30-34B": ("qwen2.5-32b", "yi-34b"),
    "70B": ("llama-3-70b", "qwen2.5-72b"),
}
_TABLE = "Exact VRAM requirements by model size and fine-tuning approach"
_METHOD_TEXT = {
    "QLoRA": "QLoRA: NF4 base, rank 16 on all linear layers, fp32 adapters, AdamW",
    "LoRA": "LoRA: bf16 base, rank 16 on all linear layers, fp32 adapters, AdamW",
    "FP16": ("full fine-tuning in 'FP16', read both ways: PyTorch mixed precision (fp32 master weights) and "
             "pure bf16 (16-bit weights, gradients and AdamW moments), foreach AdamW"),
    "FP32": "full fine-tuning in fp32 with AdamW, foreach (PyTorch's default) and fused",
}
#: A recipe: one settings dict, or ``(condition, settings)`` readings the verdict names.
Recipe = dict[str, Any] | tuple[tuple[str, dict[str, Any]], ...]
_SETTINGS: dict[str, Recipe] = {"QLoRA": QLORA, "LoRA": LORA, "FP16": FP16_READINGS, "FP32": adamw_variants(FP32)}


def _cases(models: tuple[str, ...], recipe: Recipe, value: Any, **extra: Any) -> list[Case]:
    if isinstance(recipe, dict):
        return training_cases(models, recipe, value, **extra)
    return variant_cases(models, recipe, value, **extra)

#: VRLA fine-tuning table rows: (size class, method, range quote, full-row quote, GB range, GPU, GPUs, quoted GB/GPU).
VRLA_ROWS: tuple[tuple[str, str, str, str, tuple[int, int], str, tuple[int, ...], int], ...] = (
    ("7B", "QLoRA", "QLoRA (4-bit base)8–12GB", "QLoRA (4-bit base)8–12GBSingle RTX 5090 (32GB) — comfortable",
     (8, 12), "rtx-5090", (1,), 32),
    ("7B", "LoRA", "LoRA (FP16 base)14–20GB", "LoRA (FP16 base)14–20GBSingle RTX 5090 (32GB)", (14, 20),
     "rtx-5090", (1,), 32),
    ("7B", "FP16", "Full fine-tuning (FP16)60–80GB", "Full fine-tuning (FP16)60–80GBSingle RTX PRO 6000 Blackwell (96GB)",
     (60, 80), PRO, (1,), 96),
    ("7B", "FP32", "Full fine-tuning (FP32)112–140GB", "Full fine-tuning (FP32)112–140GB2x RTX PRO 6000 (192GB combined)",
     (112, 140), PRO, (2,), 96),
    ("13B", "QLoRA", "QLoRA (4-bit base)12–18GB", "QLoRA (4-bit base)12–18GBSingle RTX 5090 (32GB)", (12, 18),
     "rtx-5090", (1,), 32),
    ("13B", "LoRA", "LoRA (FP16 base)26–36GB", "LoRA (FP16 base)26–36GBSingle RTX PRO 6000 (96GB)", (26, 36),
     PRO, (1,), 96),
    ("13B", "FP16", "Full fine-tuning (FP16)100–130GB", "Full fine-tuning (FP16)100–130GB2x RTX PRO 6000 (192GB combined)",
     (100, 130), PRO, (2,), 96),
    ("30-34B", "QLoRA", "QLoRA (4-bit base)20–32GB", "QLoRA (4-bit base)20–32GBSingle RTX PRO 6000 (96GB)", (20, 32),
     PRO, (1,), 96),
    ("30-34B", "LoRA", "LoRA (FP16 base)60–80GB", "LoRA (FP16 base)60–80GBSingle RTX PRO 6000 (96GB)", (60, 80),
     PRO, (1,), 96),
    ("30-34B", "FP16", "Full fine-tuning (FP16)240–280GB", "Full fine-tuning (FP16)240–280GB3–4x RTX PRO 6000",
     (240, 280), PRO, (3, 4), 96),
    ("70B", "QLoRA", "QLoRA (4-bit base)48–80GB", "QLoRA (4-bit base)48–80GBSingle RTX PRO 6000 (96GB)", (48, 80),
     PRO, (1,), 96),
    ("70B", "LoRA", "LoRA (FP16 base)140–180GB", "LoRA (FP16 base)140–180GB2x RTX PRO 6000 (192GB combined)",
     (140, 180), PRO, (2,), 96),
    ("70B", "FP16", "Full fine-tuning (FP16)560–640GB", "Full fine-tuning (FP16)560–640GB8x RTX PRO 6000 (768GB combined)",
     (560, 640), PRO, (8,), 96),
)


def totals(models: tuple[str, ...], recipe: Recipe) -> Figure:
    """total_bytes in GB per model, checkpointing off and on, for each reading of the recipe."""
    return figure(_cases(models, recipe, total_gb), "GB", F_TRAIN, PAGE_FINE_TUNING)


def per_gpu(models: tuple[str, ...], recipe: Recipe, gpus: tuple[int, ...]) -> Figure:
    cases: list[Case] = []
    for count in gpus:
        zero: dict[str, Any] = {"gpus": count, "zero": 3} if count > 1 else {}
        label = f"{count} GPUs ZeRO-3" if count > 1 else ""
        for case in _cases(models, recipe, total_gib, **zero):
            condition = ", ".join(part for part in (label, case.condition) if part)
            cases.append(Case(", ".join(part for part in (label, case.label) if part), case.value,
                              condition=condition))
    return figure(cases, "GiB per GPU", F_TRAIN, PAGE_FINE_TUNING)


def later(function: Callable[..., Figure], *args: Any) -> Callable[[], Figure]:
    """A zero-argument figure function that calls ``function(*args)`` when the claim is evaluated."""
    return functools.partial(function, *args)


def vrla_table() -> list[Claim]:
    out = []
    for size, method, quote, row, (low, high), gpu, counts, quoted in VRLA_ROWS:
        models = SIZE_MODELS[size]
        settings = _SETTINGS[method]
        slug = f"vrla-{size.lower()}-{method.lower()}"
        conditions = (f"{_METHOD_TEXT[method]}; {', '.join(name(m) for m in models)}; batch 1 x 2048 tokens "
                      "(not stated by the vendor); total_bytes in GB")
        out.append(Claim(
            id=slug, source=VRLA_FT, section=_TABLE, quote=quote, subject="training", conditions=conditions,
            low=low, high=high, unit="GB",
            figure=later(totals, models, settings),
            why=ROW_WHY[method], rule=slug))
        n = " or ".join(str(c) for c in counts)
        out.append(Claim(
            id=f"{slug}-fits", source=VRLA_FT, section=_TABLE, quote=row, subject="training",
            conditions=(f"the recommended {n} x {get_gpu(gpu).name} ({quoted} GB each) hold the job: per-GPU "
                        f"total_bytes, sharded with ZeRO-3 when more than one GPU; {conditions.split('; ', 1)[1]}"),
            low=quoted, high=quoted, unit="GiB per GPU", bound="at most",
            figure=later(per_gpu, models, settings, counts),
            why="A fit check: the vendor's card against our per-GPU total for the same job."))
    return out


ROW_WHY = {
    "QLoRA": ("NF4 weights are about 0.52 B per linear parameter, but embeddings and head stay 16-bit, and the "
              "fp32 logits of a 128k-152k vocabulary and the activations come on top."),
    "LoRA": ("The frozen 16-bit base is 2 B/param; activations of a 2048-token step, the fp32 logits and the "
             "runtime overhead come on top; the adapters themselves are small."),
    "FP16": ("Pure 16-bit AdamW is 2 + 2 + 4 B/param plus a 2 B/param step temporary (foreach); PyTorch "
             "mixed precision adds fp32 master weights and needs about twice as much."),
    "FP32": ("fp32 AdamW is 4 + 4 + 8 = 16 B/param of model states; the default foreach step adds a 4 B/param "
             "temporary, the fused kernel does not. 112 GB is 7B x 16 B: model states of a 7.0B model."),
}


def states_per_param(_model: str, settings: dict[str, Any]) -> float:
    return model_state_bytes_per_param(settings)



def bpp_figure(model: str, settings: dict[str, Any], *, states_read: bool = False) -> Figure:
    """total_bytes per parameter with foreach and fused AdamW, and the model states alone.

    The model states are a reading only where the claim is about them (``states_read``, e.g. a
    stated lower bound); otherwise they are a reference beside the totals.
    """
    cases = variant_cases([model], adamw_variants(settings), bytes_per_param)
    states = states_per_param(model, settings)
    cases.append(Case("model states only", states) if states_read else reference("model states only", states))
    return figure(cases, "B/param", F_TRAIN, PAGE_PRECISION)


def workstation() -> tuple[Claim, ...]:
    section = "GPU VRAM: the central constraint"
    table = "VRAM requirements by ML task in 2026"
    eight = "llama-3-8b"
    return (
        Claim(id="vrla-ws-fp32-4x", source=VRLA_WS, section=section, subject="training",
              quote="For PyTorch training in full FP32 precision, memory requirements are approximately 4x the model "
                    "parameter count in GB",
              conditions=f"read as 4 bytes per parameter; {name(eight)}, fp32 AdamW, batch 1 x 2048",
              low=4, high=4, unit="B/param",
              figure=lambda: figure([*bpp_figure(eight, FP32).cases, reference("fp32 weights alone", 4.0)],
                                    "B/param", F_TRAIN, PAGE_PRECISION),
              why=("The sentence is about training memory; 4 B/param is the fp32 weights alone (shown for "
                   "reference), and training adds gradients and two Adam moments: 16 B/param before activations.")),
        Claim(id="vrla-ws-mixed-2x", source=VRLA_WS, section=section, subject="training",
              quote="Mixed-precision training (FP16/BF16) reduces this to approximately 2x",
              conditions=f"{name(eight)}, bf16-mixed AdamW, batch 1 x 2048",
              low=2, high=2, unit="B/param",
              figure=lambda: figure([*bpp_figure(eight, MIXED).cases, reference("16-bit weights alone", 2.0)],
                                    "B/param", F_TRAIN, PAGE_PRECISION),
              why=("Mixed precision does not shrink training memory: the fp32 master weights stay, so model states "
                   "alone are 16 B/param (128 GB for an 8B model). 2 B/param is the 16-bit weights alone.")),
        Claim(id="vrla-ws-cnn-8-24gb", source=VRLA_WS, section=table, subject="training",
              quote="CNN/ResNet training (image classification) | 10-200M params | 8-24GB",
              conditions="torchvision recipes (SGD for ResNet, AdamW for ViT), bf16-mixed, 224 px; batch not stated",
              low=8, high=24, unit="GB",
              figure=lambda: figure([(f"{net}, batch {b}", gb(vision_training_memory(net, batch=b).total_bytes))
                                     for net, b in (("resnet-50", 64), ("resnet-50", 256), ("resnet-152", 128),
                                                    ("vit-b-16", 128))],
                                    "GB", "calculators.memory.vision.vision_training_memory", PAGE_VISION),
              why="Image models are small; the batch sets the activations, so the range is a batch choice."),
        Claim(id="vrla-ws-transformer-1-7b", source=VRLA_WS, section=table, subject="training",
              quote="Transformer training (medium) | 1-7B params | 24-80GB",
              conditions="full training, bf16-mixed AdamW, batch 1 x 2048, checkpointing on",
              low=24, high=80, unit="GB",
              figure=lambda: figure(training_cases(("llama-3.2-1b", "llama-3.2-3b", "qwen2.5-7b"), MIXED, total_gb,
                                                   checkpointing=(True,)), "GB", F_TRAIN, PAGE_FINE_TUNING),
              why="Model states (16 B/param) plus the step temporary: 1-3B models fit the range, 7B does not."),
        Claim(id="vrla-ws-lora-7b", source=VRLA_WS, section=table, subject="training",
              quote="LoRA fine-tuning 7B | 7B params | 14-20GB", conditions="as vrla-7b-lora",
              low=14, high=20, unit="GB", figure=lambda: totals(SEVEN_B, LORA), why=ROW_WHY["LoRA"],
              rule="vrla-7b-lora"),
        Claim(id="vrla-ws-qlora-70b", source=VRLA_WS, section=table, subject="training",
              quote="QLoRA fine-tuning 70B | 70B params | 48-80GB", conditions="as vrla-70b-qlora",
              low=48, high=80, unit="GB", figure=lambda: totals(SIZE_MODELS["70B"], QLORA), why=ROW_WHY["QLoRA"],
              rule="vrla-70b-qlora"),
        Claim(id="vrla-ws-full-7b-fp16", source=VRLA_WS, section=table, subject="training",
              quote="Full fine-tuning 7B (FP16) | 7B params | 60-80GB", conditions="as vrla-7b-fp16",
              low=60, high=80, unit="GB", figure=lambda: totals(SEVEN_B, FP16_READINGS), why=ROW_WHY["FP16"],
              rule="vrla-7b-fp16"),
    )

