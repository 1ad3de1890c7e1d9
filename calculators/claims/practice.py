"""Claims without a number, and a batch-size claim: what PyTorch does at out-of-memory, what a larger batch buys.

A statement without a number is audited like the numeric ones: quoted verbatim, read as a
reader would, and given a verdict, here from :class:`~calculators.claims.record.Evidence`
(a finding in our words and the published source it rests on) instead of a calculator.
The batch-doubling claim has a number and is computed with
:func:`calculators.memory.training.training_memory`.

>>> [c.id for c in claims()]
['vrla-ws-oom-fallback', 'pytorch-larger-batch-converges-faster', 'vrla-doubling-batch-not-double', 'vrla-accumulation-micro-batch-vram']
"""

from __future__ import annotations

from calculators.claims.figures import (
    F_TRAIN,
    LORA,
    MIXED,
    PAGE_ACTIVATIONS,
    PAGE_MEMORY,
    PURE16,
    PYTORCH,
    QLORA,
    VRLA_FT,
    VRLA_WS,
    figure,
    name,
    training,
)
from calculators.claims.record import VERDICT_ONLY_WHEN, VERDICT_WRONG, Case, Claim, Evidence, Figure

#: When the evidence was read.
READ_ON = "2026-11-25"


def _doubling() -> Figure:
    """total_bytes at batch 2 over batch 1 for Llama 3 8B LoRA, checkpointing off and on (x)."""
    model = "llama-3-8b"
    cases = []
    for on in (False, True):
        one = training(model, **LORA, batch=1, grad_checkpointing=on).total_bytes
        two = training(model, **LORA, batch=2, grad_checkpointing=on).total_bytes
        cases.append(Case(f"{name(model)} LoRA, 2048 tokens, ckpt {'on' if on else 'off'}", two / one))
    return figure(cases, "x batch 1", F_TRAIN, PAGE_MEMORY)


def _accumulation() -> Figure:
    """total_bytes with 4 accumulated micro-batches of 2 over one micro-batch of 2, Llama 3 8B, 2048 tokens (x)."""
    model = "llama-3-8b"
    cases = []
    for method, settings in (("full, mixed precision", MIXED), ("full, pure bf16", PURE16), ("LoRA", LORA),
                             ("QLoRA", QLORA)):
        for on in (False, True):
            alone = training(model, **settings, batch=2, grad_checkpointing=on).total_bytes
            accumulated = training(model, **settings, batch=2, grad_accumulation=4, grad_checkpointing=on).total_bytes
            label = f"{method}, ckpt {'on' if on else 'off'}"
            cases.append(Case(label, accumulated / alone, condition=method))
    return figure(cases, "x the micro-batch alone", F_TRAIN, PAGE_ACTIVATIONS)


def claims() -> tuple[Claim, ...]:
    """The qualitative claims and the batch-doubling claim, in source order."""
    return (
        Claim(id="vrla-ws-oom-fallback", source=VRLA_WS, section="GPU VRAM: the central constraint",
              subject="practice",
              quote=("PyTorch either raises an out-of-memory error or falls back to gradient checkpointing and CPU "
                     "offloading"),
              conditions="what PyTorch itself does when an allocation on the GPU fails", low=None, high=None,
              unit="", figure=None,
              evidence=Evidence(
                  verdict=VERDICT_WRONG,
                  finding=("PyTorch raises torch.cuda.OutOfMemoryError and the step stops; it never switches a "
                           "job to checkpointing or offload. Both exist (torch.utils.checkpoint, FSDP's "
                           "CPUOffload, DeepSpeed ZeRO-Offload) but only when the training code turns them on "
                           "before the run, and they cost time whether or not memory runs short."),
                  source_title="PyTorch documentation, torch.cuda.OutOfMemoryError",
                  url="https://pytorch.org/docs/stable/generated/torch.cuda.OutOfMemoryError.html",
                  as_of=READ_ON),
              why="An out-of-memory error ends the step; falling back is the user's decision, made in the code."),
        Claim(id="pytorch-larger-batch-converges-faster", source=PYTORCH,
              section="2. Code Examples with Commentary", subject="practice",
              quote="Higher VRAM allows for larger batch sizes, leading to faster convergence and improved efficiency.",
              conditions=("'faster' read as fewer optimizer steps (wall-clock time with the batch spread over more "
                          "hardware) and as fewer samples or FLOPs"),
              low=None, high=None, unit="", figure=None,
              evidence=Evidence(
                  verdict=VERDICT_ONLY_WHEN,
                  finding=("McCandlish et al. (2018) model the trade: below the critical batch size (set by the "
                           "gradient noise scale) a larger batch cuts the optimizer steps almost proportionally; "
                           "above it the steps barely fall and the samples and FLOPs to reach the same loss rise. "
                           "A larger batch never reaches a loss with fewer samples, and on one GPU more memory "
                           "does not make each sample cheaper once the GPU is busy."),
                  source_title="S. McCandlish, J. Kaplan, D. Amodei et al., An Empirical Model of Large-Batch "
                               "Training (2018), arXiv:1812.06162",
                  url="https://huggingface.co/papers/1812.06162", as_of=READ_ON,
                  holds_when="the batch is below the critical batch size and speed is counted in optimizer steps",
                  wrong_when="above the critical batch size, or counted in samples or compute"),
              why="More batch is more parallel work per step, not less work: it pays only up to the critical batch."),
        Claim(id="vrla-doubling-batch-not-double", source=VRLA_FT, section="Batch size", subject="training",
              quote="Doubling batch size does not double VRAM usage",
              conditions=f"{name('llama-3-8b')}, LoRA rank 16 all-linear, 2048 tokens: total at batch 2 over batch 1",
              low=2, high=2, unit="x batch 1", bound="at most", figure=_doubling,
              why="The base weights and the runtime overhead do not grow with the batch; activations and logits do."),
        Claim(id="vrla-accumulation-micro-batch-vram", source=VRLA_FT, section="Batch size", subject="training",
              quote="This achieves the same effective batch size with the VRAM requirements of the smaller micro-batch.",
              conditions=(f"{name('llama-3-8b')}, 2048 tokens: total with 4 accumulated micro-batches of 2 over the "
                          "total of one micro-batch of 2, per method, checkpointing off and on"),
              low=1, high=1, unit="x the micro-batch alone", figure=_accumulation,
              why=("Accumulating keeps every weight's gradient alive through the next micro-batches' forward and "
                   "backward: free for adapters, and for full fine-tuning hidden only when the optimizer step "
                   "already decides the peak (checkpointing on).")),
    )
