# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Fine-tune a 3B model with Adam on a 24 GB card?
#
# Download: [notebook (.ipynb)](../fine-tune-3b-on-24gb.ipynb) · [jupytext source (.py)](fine-tune-3b-on-24gb.py)
#
# **The question.** You have one 24 GB card (a GeForce RTX 4090 here) and want to fine-tune a model of about three billion parameters (Llama 3.2 3B) with AdamW in bf16 mixed precision, the PyTorch default recipe: fp32 master weights, bf16 autocast for the matmuls. Does it fit, and if not, what is the smallest change that makes it fit: gradient checkpointing, an 8-bit optimizer, LoRA or QLoRA?
#
# **Who it is for.** Anyone about to rent or buy a consumer card for fine-tuning. After reading it you know which recipe fits, how much room each leaves for batch and sequence length, and how many cards full fine-tuning would need instead.
#
# Every number below is printed by the `calculators` package (nothing is typed in by hand). They are *derived* from the model's shapes, not measured; the [validation page](../../validation/) shows how far such estimates land from measured PyTorch peaks. To try other inputs, download the notebook and change the first code cell.

# %%
import matplotlib.pyplot as plt

import calculators
from calculators.fit import fit_training
from calculators.jobs.memory import estimate_text
from calculators.memory.training import training_memory

GIB = 2**30
model = calculators.get_model("llama-3.2-3b")
gpu = calculators.get_gpu("rtx-4090")
job = {"precision": "bf16-mixed", "optimizer": "adamw", "batch": 1, "seq": 2048}  # the recipe in the question

print(model.describe())
print(f"{gpu.name}: {gpu.memory_gib:.1f} GiB (catalog spec, {gpu.source.url})")
print(f"calculators {calculators.__version__}")

# %% [markdown]
# ## The answer for the recipe as asked
#
# Full fine-tuning with AdamW in mixed precision, one sequence of 2,048 tokens per step:

# %%
full = training_memory(model, method="full", **job)
print(estimate_text(full))
verdict = "fits" if full.total_bytes <= gpu.memory_bytes else "does not fit"
print(f"\nNeeds {full.total_gib:.1f} GiB on the GPU; the card has {gpu.memory_gib:.1f} GiB: it {verdict}.")

# %% [markdown]
# ## How we got it
#
# The peak is in the optimizer step, and it has nothing to do with the batch: it is the per-parameter state that mixed-precision AdamW keeps. Divide each component at the peak by the parameter count to see the bytes each parameter costs:

# %%
for component, size_bytes in full.breakdown.items():
    if size_bytes:
        print(f"{component:<28} {size_bytes / full.parameters:5.1f} bytes per parameter")
print(f"{'peak allocated':<28} {full.peak_allocated_bytes / full.parameters:5.1f} bytes per parameter")

# %% [markdown]
# fp32 weights (4 bytes), fp32 gradients (4), AdamW's two fp32 moments (8) and the temporary that the `foreach` AdamW step allocates (4) are all alive at once. That is a property of the parameter count alone, so no batch size, sequence length or checkpointing setting can bring a 3B model under 24 GB with this optimizer and these master weights. The `Total on each GPU` line adds what PyTorch itself holds (CUDA context, cuBLAS workspace, allocator slack: assumed values, listed below).

# %%
for line in full.assumptions:
    print("-", line)

# %% [markdown]
# ## The variants
#
# Each variant changes one or two things: gradient checkpointing (recompute activations in backward), an 8-bit AdamW (bitsandbytes), pure bf16 weights instead of fp32 masters, LoRA (rank 16 adapters on every linear layer, frozen bf16 base) and QLoRA (the same adapters on a 4-bit NF4 base). `fit_training` also reports the largest batch and sequence length that still fit, and how many cards a ZeRO-3 sharded run would need.

# %%
variants = {
    "full, AdamW (as asked)": {"method": "full"},
    "full + checkpointing": {"method": "full", "grad_checkpointing": True},
    "full + 8-bit AdamW + ckpt": {"method": "full", "optimizer": "adamw-8bit", "grad_checkpointing": True},
    "full bf16 + 8-bit AdamW + ckpt": {"method": "full", "precision": "bf16", "optimizer": "adamw-8bit",
                                       "grad_checkpointing": True},
    "LoRA r16": {"method": "lora"},
    "LoRA r16 + ckpt": {"method": "lora", "grad_checkpointing": True},
    "QLoRA r16": {"method": "qlora"},
    "QLoRA r16 + ckpt": {"method": "qlora", "grad_checkpointing": True},
}
results = {name: fit_training(model, gpu, **{**job, **change}) for name, change in variants.items()}

print(f"{'variant':<32} {'GiB':>6} {'fits':>5} {'max batch':>9} {'max seq':>8} {'cards (ZeRO-3)':>14}")
for name, fit in results.items():
    print(f"{name:<32} {fit.estimate.total_gib:6.1f} {'yes' if fit.fits else 'no':>5} "
          f"{fit.max_batch:>9} {fit.max_context:>8} {fit.gpus_needed if fit.gpus_needed else '-':>14}")

# %% [markdown]
# The chart puts the components at each variant's peak side by side, with the card's capacity as a line. Activations and the logits-sized tensors of the loss (`transient_at_peak`) grow with batch × sequence; the rest is fixed by the model and the recipe.

# %%
components = sorted({c for fit in results.values() for c, v in fit.estimate.breakdown.items() if v})
#| fig-alt: Horizontal stacked bars, one per fine-tuning recipe, splitting peak GPU memory into its components plus the assumed runtime overhead, against a dashed line at the 24 GiB card's memory.
fig, ax = plt.subplots(figsize=(8, 4.5))
names = list(results)
left = [0.0] * len(names)
for component in components:
    sizes = [results[n].estimate.breakdown.get(component, 0) / GIB for n in names]
    ax.barh(names, sizes, left=left, label=component)
    left = [a + b for a, b in zip(left, sizes)]
overheads = [(results[n].estimate.total_bytes - results[n].estimate.peak_allocated_bytes) / GIB for n in names]
ax.barh(names, overheads, left=left, label="runtime overhead (assumed)", color="lightgrey")
ax.axvline(gpu.memory_gib, color="black", linestyle="--", label=f"{gpu.name} ({gpu.memory_gib:.0f} GiB)")
ax.invert_yaxis()
ax.set_xlabel("GiB at the peak (derived, batch 1 x 2,048 tokens)")
ax.set_title(f"{model.name}: fine-tuning memory by recipe")
ax.legend(fontsize=7, loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown]
# With the adapters fitting, the next question is how long a sequence they can take. The curve below sweeps the sequence length at batch 1 for the two LoRA recipes with checkpointing:

# %%
seqs = [512, 1024, 2048, 4096, 8192, 16384]
#| fig-alt: Line chart of GPU memory against sequence length from 512 to 16,384 tokens for LoRA and QLoRA with checkpointing, against a dashed line at the card's memory; QLoRA stays lower at every length.
fig, ax = plt.subplots(figsize=(7, 3.8))
for name in ("LoRA r16 + ckpt", "QLoRA r16 + ckpt"):
    change = variants[name]
    totals = [training_memory(model, **{**job, **change, "seq": s}).total_bytes / GIB for s in seqs]
    ax.plot(seqs, totals, marker="o", label=name)
ax.axhline(gpu.memory_gib, color="black", linestyle="--", label=gpu.name)
ax.set_xscale("log", base=2)
ax.set_xticks(seqs, [str(s) for s in seqs])
ax.set_xlabel("sequence length, tokens (batch 1)")
ax.set_ylabel("GiB on the GPU (derived)")
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# ## What to change
#
# The cell below turns the table into advice: the recipes that fit, the one with the most room, and what full fine-tuning would take instead.

# %%
fitting = [name for name, fit in results.items() if fit.fits]
print("Fits on one card:", ", ".join(fitting))
roomiest = max(fitting, key=lambda n: results[n].headroom_bytes)
print(f"Most headroom: {roomiest}, {results[roomiest].headroom_bytes / GIB:.1f} GiB free, "
      f"batch up to {results[roomiest].max_batch} at {job['seq']} tokens.")
as_asked = results["full, AdamW (as asked)"]
print(f"Full fine-tuning as asked needs {as_asked.gpus_needed} of these cards with ZeRO-3 sharding "
      f"(or {results['full + checkpointing'].gpus_needed} with checkpointing as well).")
pure = results["full bf16 + 8-bit AdamW + ckpt"]
print(f"Keeping every weight trainable on one card needs pure bf16 weights and 8-bit AdamW: "
      f"{pure.estimate.total_gib:.1f} GiB, {pure.headroom_bytes / GIB:.1f} GiB to spare.")

# %% [markdown]
# - **Keep full fine-tuning in mixed precision:** it needs more cards, not a smaller batch; the count above assumes ZeRO-3 (FSDP full shard) over the PCIe link of consumer cards, which is slow (see the [multi-GPU notebook](../plan-7b-full-fine-tune-8-gpus/)).
# - **Stay on one card with every weight trainable:** pure bf16 weights with an 8-bit optimizer fit, at the cost of bf16 rounding in the weight update (no fp32 master copy), which can stall small updates late in training.
# - **Adapters:** LoRA with gradient checkpointing fits with room for a batch of several sequences; QLoRA frees more memory for longer sequences at the cost of a dequantisation on every matmul and a 4-bit base.
# - **Checkpointing** costs about a third more compute (one extra forward pass) and is what makes the LoRA recipes roomy: without it the saved activations of a 2,048-token sequence take most of the card.
#
# The same answers come from the command line: `mlhw fit --model llama-3.2-3b train --method lora --grad-checkpointing`, and from the [fine-tuning calculator](../../fine-tuning/).
