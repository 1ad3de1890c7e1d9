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
# # Plan a 7B full fine-tune across 8 GPUs
#
# Download: [notebook (.ipynb)](../plan-7b-full-fine-tune-8-gpus.ipynb) · [jupytext source (.py)](plan-7b-full-fine-tune-8-gpus.py)
#
# **The question.** A full fine-tune of a 7B model (Mistral 7B v0.3 here) on a few hundred million tokens, on one node of eight GPUs. Which ZeRO stage makes it fit, does the interconnect keep up, how many hours does it take, and what does it cost to rent?
#
# **Who it is for.** Whoever books the node. After reading it you know the stage to configure, whether PCIe cards will be held back by their link, and the hours and dollars of the run on each candidate GPU.
#
# Memory is *derived* from the model's shapes (`calculators.memory.training`); step times and run times are *estimates* at a utilisation and collective efficiency (`calculators.parallel`, `calculators.performance.training_time`): both take the utilisation fitted on published runs and the link model's efficiency fitted on published nccl-tests runs, so a step's compute is the same number in both: a spec-rate division gives a bound on time, never the time. Prices are the catalog's dated on-demand medians.

# %%
import matplotlib.pyplot as plt

import calculators
from calculators.catalog import prices
from calculators.cost import training_run_cost_usd
from calculators.memory.training import training_memory
from calculators.parallel.step import step_communication
from calculators.performance.training_time import training_time

GIB = 2**30
model = calculators.get_model("mistral-7b-v0.3")
gpus = 8
tokens = 500_000_000  # fine-tuning tokens (an input: set yours)
job = {"method": "full", "precision": "bf16-mixed", "optimizer": "adamw", "batch": 1, "seq": 4096,
       "grad_checkpointing": True}
candidates = ("a100-80gb-sxm", "h100-sxm", "h200", "l40s", "rtx-4090")
print(model.describe())
print(f"{tokens / 1e6:,.0f}M tokens, micro-batch {job['batch']} x {job['seq']} tokens per GPU, {gpus} GPUs")

# %% [markdown]
# ## Step 1: which ZeRO stage fits
#
# Plain data parallelism (stage 0) keeps a full copy of the weights, gradients and AdamW state on every GPU; stage 1 shards the optimizer state over the eight GPUs, stage 2 the gradients as well, stage 3 the weights too. GiB per GPU, with gradient checkpointing on:

# %%
print(f"{'GPU':<28} {'GiB':>6}" + "".join(f"{'ZeRO ' + str(z):>9}" for z in range(4)))
fits = {}
for gpu_id in candidates:
    gpu = calculators.get_gpu(gpu_id)
    per_gpu = [training_memory(model, **job, gpus=gpus, zero=z).total_bytes for z in range(4)]
    fits[gpu_id] = [z for z, need in enumerate(per_gpu) if need <= gpu.memory_bytes]
    print(f"{gpu.name:<28} {gpu.memory_gib:6.0f}" + "".join(f"{need / GIB:9.1f}" for need in per_gpu))
for gpu_id, stages in fits.items():
    print(f"{gpu_id}: lowest stage that fits = {min(stages) if stages else 'none'}")

# %% [markdown]
# A lower stage communicates less per step, so the plan takes the lowest stage that fits each GPU.
#
# ## Step 2: does the interconnect keep up
#
# Each stage moves a different volume per step: DDP and ZeRO-1/2 reduce the gradients once and (1/2) gather the updated weights; ZeRO-3 also gathers the weights in forward and again in backward. `step_communication` times those ring collectives over a link and compares them with the step's compute. On H100 SXM, over its own NVLink and over PCIe (as if the same GPUs sat in a PCIe server):

# %%
links = ("nvlink4", "pcie5", "pcie4")
rows = []
for link in links:
    for zero in range(4):
        step = step_communication(model, gpu="h100-sxm", gpus=gpus, zero=zero, interconnect=link,
                                  batch=job["batch"], seq=job["seq"], grad_checkpointing=job["grad_checkpointing"])
        rows.append((link, zero, step))
        print(f"{step.interconnect_name:<28} ZeRO {zero}: communication {step.communication_s * 1e3:7.1f} ms, "
              f"compute {step.compute_s * 1e3:6.1f} ms, scaling efficiency {step.scaling_efficiency:4.0%}")

#| fig-alt: Stacked bars of milliseconds per training step for each link (NVLink 4, PCIe 5, PCIe 4) and ZeRO stage 0 to 3: compute, plus the communication that compute cannot hide; the printed lines above give each value.
fig, ax = plt.subplots(figsize=(8, 4))
labels = [f"{link}\nZeRO {zero}" for link, zero, _ in rows]
ax.bar(labels, [s.compute_s * 1e3 for *_, s in rows], label="compute (estimate)", color="tab:blue")
ax.bar(labels, [s.exposed_communication_s * 1e3 for *_, s in rows], bottom=[s.compute_s * 1e3 for *_, s in rows],
       label="communication not hidden by compute", color="tab:red")
ax.set_ylabel("ms per step (estimate)")
ax.set_title(f"{model.name}, 8 x H100 SXM, {job['batch']} x {job['seq']} tokens per GPU per step")
ax.tick_params(axis="x", labelsize=7)
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# With one 4,096-token sequence per GPU per step the compute is short, and over PCIe the gradient traffic of seven billion parameters cannot hide behind it. Gradient accumulation (several micro-batches per optimizer step) multiplies the compute per reduction and is the usual cure on PCIe; the model above counts one micro-batch per step, so it is the pessimistic case.
#
# ## Step 3: time and cost on each GPU
#
# `training_time` divides the run's FLOPs by eight GPUs' dense BF16 rate at the utilisation fitted on published runs for each GPU (`calculators.catalog.utilisation`) and adds the communication compute cannot hide, on each GPU's own link at the chosen ZeRO stage: the same step `step_communication` times (its scaling efficiency is printed). Cost is GPU-hours times the catalog's median on-demand price.

# %%
plan = []
for gpu_id in candidates:
    gpu = calculators.get_gpu(gpu_id)
    if not fits[gpu_id]:
        print(f"{gpu.name}: does not fit at any ZeRO stage with these settings")
        continue
    zero = min(fits[gpu_id])
    run = training_time(model, gpu, tokens=tokens, gpus=gpus, zero=zero, batch=job["batch"], seq=job["seq"],
                        grad_checkpointing=job["grad_checkpointing"])
    step = step_communication(model, gpu=gpu, gpus=gpus, zero=zero, batch=job["batch"], seq=job["seq"],
                              grad_checkpointing=job["grad_checkpointing"])
    hours = run.days * 24  # the exposed communication is already in the run's time
    gpu_hours = run.gpu_hours
    price = prices.median_cloud_usd_per_gpu_hour(gpu_id)
    usd = training_run_cost_usd(gpu_hours=gpu_hours, usd_per_gpu_hour=price) if price else None
    plan.append((gpu, zero, step, hours, usd))
    print(f"{gpu.name:<28} ZeRO {zero} over {step.interconnect_name:<24} utilisation {run.utilisation:.2f}, "
          f"scaling efficiency {run.scaling_efficiency:4.0%}: {hours:5.1f} hours, "
          + (f"${usd:,.0f}" if usd is not None else "no price in the catalog"))

# %% [markdown]
# Hours against dollars, one point per GPU that fits and has a catalog price:

# %%
#| fig-alt: Scatter plot of the run's cost in USD against wall-clock hours on 8 GPUs, one labelled point per GPU and ZeRO stage with a catalogued price.
fig, ax = plt.subplots(figsize=(6.5, 4))
for gpu, zero, step, hours, usd in plan:
    if usd is None:
        continue
    ax.scatter(hours, usd, s=60)
    ax.annotate(f"{gpu.name}\nZeRO {zero}", (hours, usd), textcoords="offset points", xytext=(6, 4), fontsize=8)
ax.set_xlabel("wall-clock hours on 8 GPUs (estimate)")
ax.set_ylabel(f"USD, median on-demand (edition {prices.EDITION})")
ax.set_title(f"{model.name}: {tokens / 1e6:,.0f}M-token full fine-tune")
ax.margins(0.3)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## What to change
#
# The cell prints the plan in one line per decision, from the tables above.

# %%
priced = [p for p in plan if p[4] is not None]
cheapest = min(priced, key=lambda p: p[4])
fastest = min(plan, key=lambda p: p[3])
print(f"cheapest: {cheapest[0].name}, ZeRO {cheapest[1]}, {cheapest[3]:.1f} hours, ${cheapest[4]:,.0f}")
print(f"fastest:  {fastest[0].name}, ZeRO {fastest[1]}, {fastest[3]:.1f} hours")
bound = [p[0].name for p in plan if p[2].interconnect_bound]
print("interconnect-bound at one micro-batch per step: " + (", ".join(bound) if bound else "none"))

# %% [markdown]
# - **ZeRO stage:** take the lowest stage that fits; stage 3 only when the weights themselves must be sharded, since it gathers them twice per step.
# - **Interconnect:** on NVLink the collectives mostly hide behind compute (the scaling efficiencies above); on PCIe cards, raise the tokens per optimizer step (gradient accumulation, larger micro-batch) until the step model stops reporting exposed communication.
# - **Time and cost:** the MFU is the largest unknown; measure a few hundred steps on the real node and replace the default with `training_time(..., mfu=measured)`.
#
# The [multi-GPU page](../../multi-gpu/) explains the collectives and ZeRO stages, and `mlhw parallel` and `mlhw train-time` give the same figures on the command line.
