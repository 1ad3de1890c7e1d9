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
# # Size memory for a model we only have a config.json for
#
# Download: [notebook (.ipynb)](../size-from-config-json.ipynb) · [jupytext source (.py)](size-from-config-json.py)
#
# **The question.** A model is not in the guide's catalog; all you have is its Hugging Face `config.json`. How much GPU memory does it need to serve and to fine-tune, and how do you know the calculator read the config correctly?
#
# **Who it is for.** Anyone sizing a new or private model. After reading it you can feed any Llama-style config to the calculators, check the parameter count they derive against your own arithmetic, and read the error when a config is broken.
#
# The config below holds the architecture values of Mistral NeMo Base 2407 (12B class), from its public `config.json` (model card: <https://huggingface.co/mistralai/Mistral-Nemo-Base-2407>; values as published with `transformers_version` 4.43.3 and transcribed in the public repository kevinstephano/thunder_model_blocks, file `thunder_model_blocks/mistral/mistral_config.py`; read 2026-11-21). Nothing is downloaded: the JSON is pasted here. Memory figures are *derived* from these shapes.

# %%
import json

import matplotlib.pyplot as plt

import calculators
from calculators.errors import ConfigError
from calculators.fit import fit_inference, fit_training
from calculators.model_config import spec_from_config

GIB = 2**30
CONFIG_JSON = """
{
  "architectures": ["MistralForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 1,
  "eos_token_id": 2,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 5120,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 128000,
  "model_type": "mistral",
  "num_attention_heads": 32,
  "num_hidden_layers": 40,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05,
  "rope_theta": 1000000.0,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.3",
  "use_cache": true,
  "vocab_size": 131072
}
"""
spec = spec_from_config(CONFIG_JSON, name="Mistral NeMo Base 2407 (from config.json)")
print(spec.describe())
for note in spec.notes:
    print("note:", note)

# %% [markdown]
# ## Check the reading before trusting it
#
# One detail makes this config a good test: `head_dim` is 128, not `hidden_size / num_attention_heads` (which would be 160). A reader that derives the head size from the hidden size gets the attention projections and the KV cache wrong. Count the parameters by hand from the raw values, the way the `transformers` Mistral model lays them out (embeddings; per layer: q, k, v, o projections without bias, the gated MLP's three matrices, two RMSNorm weights; a final norm; an untied output head), and compare:

# %%
raw = json.loads(CONFIG_JSON)
hidden, layers, vocab = raw["hidden_size"], raw["num_hidden_layers"], raw["vocab_size"]
q_out = raw["num_attention_heads"] * raw["head_dim"]
kv_out = raw["num_key_value_heads"] * raw["head_dim"]
attention = hidden * q_out + 2 * hidden * kv_out + q_out * hidden
mlp = 3 * hidden * raw["intermediate_size"]
norms = 2 * hidden
by_hand = vocab * hidden + layers * (attention + mlp + norms) + hidden + vocab * hidden
print(f"by hand:          {by_hand:,} parameters")
print(f"ModelSpec:        {spec.parameters:,} parameters")
assert by_hand == spec.parameters, "the calculator read the config differently from the hand count"
print(f"KV cache per token (bf16): {calculators.kv_cache_bytes(spec, batch=1, context=1):,} bytes "
      f"= 2 (K and V) x {layers} layers x {kv_out} x 2 bytes = {2 * layers * kv_out * 2:,}")

# %% [markdown]
# ## Serving and fine-tuning memory
#
# With the spec in hand, every calculator takes it like a catalog model. Serving at 8,192 tokens for one user in three weight formats, and fine-tuning with LoRA and QLoRA (gradient checkpointing on, one 2,048-token sequence), on a 24 GB, a 48 GB and an 80 GB card:

# %%
cards = ("rtx-4090", "l40s", "h100-sxm")
jobs = {
    "serve bf16": ("infer", {"weights": "bf16", "context": 8192}),
    "serve fp8": ("infer", {"weights": "fp8", "context": 8192}),
    "serve int4": ("infer", {"weights": "int4", "context": 8192}),
    "LoRA + ckpt": ("train", {"method": "lora", "grad_checkpointing": True, "seq": 2048}),
    "QLoRA + ckpt": ("train", {"method": "qlora", "grad_checkpointing": True, "seq": 2048}),
    "full, AdamW": ("train", {"method": "full", "seq": 2048}),
}
needs_gib = {}
print(f"{'job':<14} {'GiB':>7}" + "".join(f"{calculators.get_gpu(c).name:>22}" for c in cards))
for name, (kind, settings) in jobs.items():
    fits = [(fit_inference if kind == "infer" else fit_training)(spec, card, **settings) for card in cards]
    needs_gib[name] = fits[0].estimate.total_gib
    cells = ["fits" if f.fits else f"needs {f.gpus_needed} GPUs" if f.gpus_needed else "not even sharded"
             for f in fits]
    print(f"{name:<14} {needs_gib[name]:7.1f}" + "".join(f"{c:>22}" for c in cells))

#| fig-alt: Bar chart, log scale, of GPU memory needed by each job (serving in bf16, fp8 and int4; LoRA, QLoRA and full fine-tuning) against dashed lines at the memory of an RTX 4090, an L40S and an H100.
fig, ax = plt.subplots(figsize=(7.5, 4))
ax.bar(list(needs_gib), list(needs_gib.values()), color="tab:blue")
for card in cards:
    gpu = calculators.get_gpu(card)
    ax.axhline(gpu.memory_gib, linestyle="--", color="grey")
    ax.annotate(f"{gpu.name} ({gpu.memory_gib:.0f} GiB)", (len(needs_gib) - 0.5, gpu.memory_gib),
                ha="right", va="bottom", fontsize=7)
ax.set_yscale("log")
ax.set_ylabel("GiB on one GPU (derived)")
ax.set_title(spec.name)
ax.tick_params(axis="x", labelsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## When the config is wrong
#
# A truncated download, a hand-edited value or a config of another kind of model should stop the calculation with a message that names the key and what was expected, never return a plausible number. Three broken variants of the same config:

# %%
broken = {
    "a required key is missing": {k: v for k, v in raw.items() if k != "num_hidden_layers"},
    "a value has the wrong type": {**raw, "hidden_size": "5120"},
    "a value is out of range": {**raw, "num_key_value_heads": 0},
}
for what, config in broken.items():
    try:
        spec_from_config(config)
        print(f"{what}: accepted (unexpected)")
    except ConfigError as error:
        print(f"{what}: ConfigError: {error}")
try:
    spec_from_config(CONFIG_JSON.replace('"vocab_size": 131072', '"vocab_size": 131072,'))
except ConfigError as error:
    print(f"invalid JSON: ConfigError: {error}")

# %% [markdown]
# ## What to change
#
# - **Serving on one card:** the table shows which weight format fits each card; quantised formats trade quality you should measure for memory.
# - **Fine-tuning:** adapters with checkpointing are the recipe that fits a single card; full fine-tuning with AdamW needs the multi-GPU plan of the [8-GPU notebook](../plan-7b-full-fine-tune-8-gpus/).
# - **Your own config:** replace `CONFIG_JSON` with yours (or pass a path: `spec_from_config("path/to/config.json")`), keep the hand count as a check, and read any note the reader prints: a `model_type` it does not know is treated as Llama-style and says so.
#
# The same works from the command line, `mlhw train --model path/to/config.json --method qlora --grad-checkpointing`, and in the browser: the [memory calculators](../../calculators/memory/) accept an uploaded config.json.
