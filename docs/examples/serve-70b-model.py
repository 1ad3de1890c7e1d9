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
# # Serve a 70B model: which GPUs, what context, how many users?
#
# Download: [notebook (.ipynb)](../serve-70b-model.ipynb) · [jupytext source (.py)](serve-70b-model.py)
#
# **The question.** A team wants to serve Llama 3.1 70B to its own users. Which GPUs, and how many of them, hold the model; how long a context can each user have; and how many users can be served at once at a speed that still feels interactive?
#
# **Who it is for.** Whoever sizes an inference server or a cloud reservation. After reading it you can pick a weight format and a GPU count, and you know the trade between context length and concurrent users on it.
#
# Memory figures are *derived* from the model's shapes (`calculators.memory.inference`); speeds are *estimates* from a roofline at assumed efficiencies (`calculators.performance.inference_speed`), bounds rather than measurements; prices are the catalog's dated on-demand medians. A "user" here is one sequence in the batch with its whole context held in the KV cache.

# %%
import matplotlib.pyplot as plt

import calculators
from calculators.catalog import prices
from calculators.cost import usd_per_million_tokens
from calculators.dtype_support import runs_natively
from calculators.fit import fit_inference
from calculators.jobs.recommend import recommendation_text
from calculators.memory.inference import inference_memory, kv_cache_bytes, largest_fitting
from calculators.performance.inference_speed import inference_speed
from calculators.recommend import Workload, recommend

GIB = 2**30
model = calculators.get_model("llama-3.1-70b")
context = 8192  # tokens per user: prompt plus answer
print(model.describe())
print(f"KV cache: {kv_cache_bytes(model, batch=1, context=context) / GIB:.2f} GiB per user at {context} tokens (bf16)")

# %% [markdown]
# ## Step 1: how many GPUs just to hold the weights
#
# The weight format decides the floor. For one user at 8,192 tokens, `fit_inference` gives the smallest tensor-parallel group of each GPU that holds the whole request (weights, KV cache, activations and the runtime's own overhead on every GPU). A GPU without an fp8 path (`calculators.dtype_support`: compute capability below 8.9, such as the A100) cannot run fp8 weights at all:

# %%
formats = ("bf16", "fp8", "int4")
gpus = ("rtx-4090", "l40s", "a100-80gb-sxm", "h100-sxm", "h200", "b200", "mi300x")
weights_gib = {w: inference_memory(model, weights=w, batch=1, context=context).breakdown["weights"] / GIB
               for w in formats}
print("weights alone: " + ", ".join(f"{w} {gib:.0f} GiB" for w, gib in weights_gib.items()))
print(f"\n{'GPU':<40}" + "".join(f"{w:>8}" for w in formats))
for gpu_id in gpus:
    gpu = calculators.get_gpu(gpu_id)
    # fp8 weights need an fp8 path (compute capability 8.9 or later): the A100 has none.
    counts = [fit_inference(model, gpu, weights=w, batch=1, context=context).gpus_needed
              if w != "fp8" or runs_natively(gpu, "fp8") else "no fp8" for w in formats]
    print(f"{gpu.name:<40}" + "".join(f"{n if n else '-':>8}" for n in counts))

# %% [markdown]
# ## Step 2: the cheapest configurations for a concrete load
#
# Say 16 users at once, 8,192 tokens each, fp8 weights. `recommend` tries every catalog GPU at 1, 2, 4 and 8 per node, keeps those that fit, and sorts by the cost of a million generated tokens at the median on-demand price:

# %%
plan = recommend(Workload(model=model, job="serve", method="fp8", context=context, batch=16))
print(recommendation_text(plan))

# %% [markdown]
# ## Step 3: context against users
#
# On a fixed set of GPUs, every token of context one user holds is memory another user cannot have. For a few configurations, the largest batch whose memory fits (per GPU: the total split evenly over the tensor-parallel group, as `recommend` does) at each context length:

# %%
configs = [("h100-sxm", 2, "fp8"), ("h100-sxm", 4, "bf16"), ("h200", 2, "fp8"), ("h200", 1, "int4"),
           ("a100-80gb-sxm", 4, "int4")]
contexts = [2048, 4096, 8192, 16384, 32768, 65536, 131072]


def max_users(gpu_id, count, weights, ctx, kv_cache="bf16"):
    """Largest batch at ``ctx`` tokens each whose per-GPU memory fits (0 if none)."""
    capacity = calculators.get_gpu(gpu_id).memory_bytes
    return largest_fitting(
        lambda b: inference_memory(model, weights=weights, kv_cache=kv_cache, batch=b, context=ctx).total_bytes
        / count <= capacity, 4096)


#| fig-alt: Line chart, log scales, of how many users fit at once against context per user from 2k to 128k tokens, for five GPU and weight-format configurations and for 2 x H100 with an fp8 KV cache; fewer users fit as the context grows.
fig, ax = plt.subplots(figsize=(8, 4.5))
for gpu_id, count, weights in configs:
    users = [max_users(gpu_id, count, weights, c) for c in contexts]
    ax.plot(contexts, users, marker="o", label=f"{count} x {calculators.get_gpu(gpu_id).name}, {weights}")
users_fp8_kv = [max_users("h100-sxm", 2, "fp8", c, kv_cache="fp8") for c in contexts]
ax.plot(contexts, users_fp8_kv, marker="x", linestyle="--", label="2 x H100 SXM 80GB, fp8, fp8 KV cache")
ax.set_xscale("log", base=2)
ax.set_yscale("symlog", linthresh=1)
ax.set_ylim(bottom=0)  # a count of users is never negative: symlog's autoscale mirrored the axis below 0
ax.set_xticks(contexts, [f"{c // 1024}k" for c in contexts])
ax.set_xlabel("context per user, tokens")
ax.set_ylabel("users that fit at once (derived)")
ax.set_title(f"{model.name}: memory-bound number of users")
ax.legend(fontsize=7)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Step 4: users at an interactive speed
#
# Memory caps the batch; speed caps it too, because each decode step reads the weights once for the whole batch but the KV cache of every user. Take 30 tokens/s per user as the floor (an input: set the speed your users need) and find the largest batch that both fits and keeps it, at 8,192 tokens each:

# %%
floor_tokens_per_s = 30.0


def keeps_up(gpu_id, count, weights, batch):
    speed = inference_speed(model, calculators.get_gpu(gpu_id), new_tokens=1, weights=weights, batch=batch,
                            context=context, gpus=count)
    return speed.fits and speed.first_step.tokens_per_s >= floor_tokens_per_s


print(f"{'configuration':<36} {'fit':>5} {'fast':>5} {'tok/s/user':>10} {'USD/h':>7} {'USD/Mtok':>9}")
for gpu_id, count, weights in configs:
    gpu = calculators.get_gpu(gpu_id)
    fit_users = max_users(gpu_id, count, weights, context)
    fast_users = largest_fitting(lambda b: keeps_up(gpu_id, count, weights, b), max(fit_users, 1))
    label = f"{count} x {gpu.name}, {weights}"
    if not fast_users:
        print(f"{label:<36} {fit_users:>5} {0:>5}   below {floor_tokens_per_s:g} tokens/s even alone")
        continue
    step = inference_speed(model, gpu, new_tokens=1, weights=weights, batch=fast_users, context=context,
                           gpus=count).first_step
    price = prices.median_cloud_usd_per_gpu_hour(gpu_id)
    hourly = f"{price * count:7.2f}" if price else f"{'-':>7}"
    per_mtok = (f"{usd_per_million_tokens(tokens_per_s=step.aggregate_tokens_per_s, usd_per_hour=price * count):9.2f}"
                if price else f"{'-':>9}")
    print(f"{label:<36} {fit_users:>5} {fast_users:>5} {step.tokens_per_s:>10.1f} {hourly} {per_mtok}")

# %% [markdown]
# `fit` is the memory limit, `fast` the users that still get the floor speed each; the price columns are at that batch, always full (a static batch; real traffic leaves gaps, so the cost per token is a floor).
#
# ## What to change
#
# - **Fewer GPUs:** quantised weights halve (fp8) or quarter (int4) the floor from step 1, at some loss of quality that you should measure on your own task before committing.
# - **More users or longer contexts:** an fp8 KV cache halves the bytes per cached token, so more users fit (dashed line); beyond that, add GPUs to the tensor-parallel group or serve several replicas.
# - **Interactive speed:** when `fast` is far below `fit`, the memory is there but the bandwidth is not; a faster GPU (H200, B200) or more GPUs per replica helps more than more memory.
# - **Long contexts:** at 128k tokens a single user's KV cache is a large share of a GPU; the chart shows how few users remain.
#
# The same figures come from the [inference calculator](../../inference/) and `mlhw fit --model llama-3.1-70b infer --weights fp8 --context 8192`.
