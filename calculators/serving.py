"""What a serving engine's cache features do to "does it fit": prefix caching, chunked prefill, KV offload.

Three features of engines such as vLLM change the memory answer of
:func:`calculators.memory.inference.inference_memory`, which sizes one static batch of
equal-length sequences with the whole prompt prefilled at once:

* **Prefix caching** stores the KV blocks of a shared prompt prefix (a system prompt, a
  document several questions ask about) once for every sequence that starts with it. vLLM
  hashes each *full* block by its tokens and the tokens before it, so only whole blocks are
  shared; the partial last block of the prefix is stored per sequence.
* **Chunked prefill** runs a long prompt in chunks of at most ``chunk`` tokens (vLLM's
  ``max_num_batched_tokens``), so the prefill's temporaries are those of a chunk, while the
  KV cache of the whole prompt is still written.
* **KV offload** keeps blocks that do not fit the GPU in host RAM and copies them back over
  PCIe when a request needs them: the cache then fits, and each return trip costs
  ``bytes / link rate``.

A continuously batched server holds many requests in flight and prefills one arriving
prompt at a time beside them: :func:`continuous_batch_memory` sizes that (the speed side is
:mod:`calculators.performance.serving_load`).

Formula: shared: ``blocks = floor(P / b) + n x ceil((P mod b + U) / b)`` against
``n x ceil((P + U) / b)`` blocks without sharing (``P`` shared and ``U`` unique tokens, ``n``
sequences, ``b`` tokens per block), times the KV bytes per token x ``b``; chunked prefill:
``weights + KV(context) + prefill temporaries(chunk)``; offload: ``seconds = bytes /
one-direction link rate`` (a lower bound).

>>> from calculators.catalog.models import get_model
>>> shared = prefix_sharing(get_model("llama-3.1-8b"), sequences=32, shared_tokens=4000, unique_tokens=500)
>>> round(shared.without_bytes / 2**30, 2), round(shared.with_bytes / 2**30, 2)
(17.62, 2.49)

References:
    docs page "How much GPU memory does serving a model need?" (section "Engine features that change
    the answer"); vLLM, "Automatic Prefix Caching" (design doc).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from calculators.catalog.interconnects import all_interconnects, get_interconnect
from calculators.errors import UnknownNameError
from calculators.memory.inference import (
    MAX_BATCH,
    MAX_CONTEXT,
    inference_memory,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
)
from calculators.memory.weight_formats import WeightFormat
from calculators.memory.result import MemoryEstimate
from calculators.model import ModelSpec
from calculators.validate import model_spec, positive_int

#: Longest prompt, prefix or chunk accepted, tokens (10M: far beyond any model's context).
MAX_TOKENS = 10_000_000
#: Most sequences sharing a prefix.
MAX_SEQUENCES = 1_000_000
#: Largest cache block, tokens.
MAX_BLOCK_TOKENS = 4096


@dataclass(frozen=True)
class PrefixSharing:
    """KV cache bytes of ``sequences`` requests that share a prefix, without and with prefix caching."""

    without_bytes: int
    with_bytes: int
    blocks_without: int
    blocks_with: int

    @property
    def saved_fraction(self) -> float:
        """Share of the cache that sharing saves, 0 to 1."""
        return 1 - self.with_bytes / self.without_bytes


def prefix_sharing(spec: ModelSpec, *, sequences: int, shared_tokens: int, unique_tokens: int,
                   block_tokens: int = 16, kv_dtype: str = "bf16") -> PrefixSharing:
    """KV cache bytes with and without a shared prefix stored once (whole blocks only).

    Args:
        spec: model shapes.
        sequences: requests in flight that start with the same prefix.
        shared_tokens: length of the shared prefix, tokens.
        unique_tokens: tokens per request after the prefix (its question and its answer).
        block_tokens: tokens per cache block (vLLM's ``--block-size``).
        kv_dtype: KV cache dtype.

    >>> from calculators.catalog.models import get_model
    >>> s = prefix_sharing(get_model("llama-3.1-8b"), sequences=2, shared_tokens=20, unique_tokens=4, block_tokens=16)
    >>> s.blocks_without, s.blocks_with  # 2 x ceil(24/16); 1 shared + 2 x ceil((4 + 4)/16)
    (4, 3)
    """
    spec = model_spec("spec", spec)
    n = positive_int("sequences", sequences, maximum=MAX_SEQUENCES)
    shared = positive_int("shared_tokens", shared_tokens, maximum=MAX_TOKENS, minimum=0)
    unique = positive_int("unique_tokens", unique_tokens, maximum=MAX_TOKENS, minimum=0)
    block = positive_int("block_tokens", block_tokens, maximum=MAX_BLOCK_TOKENS)
    if shared + unique == 0:
        unique = positive_int("unique_tokens", unique, maximum=MAX_TOKENS)  # one of the two must be positive
    per_block = kv_cache_bytes_per_token(spec, kv_dtype=kv_dtype) * block
    without = n * math.ceil((shared + unique) / block)
    with_sharing = shared // block + n * math.ceil((shared % block + unique) / block)
    return PrefixSharing(without_bytes=without * per_block, with_bytes=with_sharing * per_block,
                         blocks_without=without, blocks_with=with_sharing)


@dataclass(frozen=True)
class ChunkedPrefill:
    """Peak allocated bytes of one long prompt prefilled at once and in chunks."""

    whole_bytes: int
    chunked_bytes: int
    whole: MemoryEstimate
    chunk: MemoryEstimate


def chunked_prefill(spec: ModelSpec, *, context: int, chunk: int, weights: str = "auto",
                    kv_cache: str = "bf16") -> ChunkedPrefill:
    """Peak allocated bytes of a ``context``-token prompt prefilled at once and in ``chunk``-token pieces.

    Formula: ``chunked = whole - temporaries(context) + temporaries(chunk)``, the temporaries
    being :func:`~calculators.memory.inference.inference_memory`'s ``activations_and_logits``
    (SDPA attention: linear in the tokens of one forward pass). Derived, not measured: the
    engines' own kernels differ from Hugging Face's.

    >>> from calculators.catalog.models import get_model
    >>> c = chunked_prefill(get_model("llama-3.1-8b"), context=32768, chunk=2048)
    >>> round(c.whole_bytes / 2**30, 2), round(c.chunked_bytes / 2**30, 2)
    (22.66, 19.25)
    """
    spec = model_spec("spec", spec)
    context = positive_int("context", context, maximum=MAX_TOKENS)
    chunk = min(positive_int("chunk", chunk, maximum=MAX_TOKENS), context)
    whole = inference_memory(spec, context=context, weights=weights, kv_cache=kv_cache)
    piece = inference_memory(spec, context=chunk, weights=weights, kv_cache=kv_cache)
    temporaries = "activations_and_logits"
    chunked = whole.peak_allocated_bytes - whole.breakdown[temporaries] + piece.breakdown[temporaries]
    return ChunkedPrefill(whole_bytes=whole.peak_allocated_bytes, chunked_bytes=chunked, whole=whole, chunk=piece)


def offload_seconds(size_bytes: int, *, link: str = "pcie5") -> float:
    """Seconds to copy ``size_bytes`` of KV cache between host RAM and the GPU: a lower bound.

    Formula: ``size_bytes / per_direction_bytes_per_s`` of the link
    (:mod:`calculators.catalog.interconnects`).

    >>> round(offload_seconds(4 * 2**30, link="pcie4"), 3)  # a 4 GiB cache over PCIe 4.0 x16
    0.134
    """
    size = positive_int("size_bytes", size_bytes, maximum=10**15)
    try:
        record = get_interconnect(link)
    except UnknownNameError:
        raise UnknownNameError("link", link, [item.id for item in all_interconnects()]) from None
    return size / record.per_direction_bytes_per_s


def continuous_batch_memory(spec: ModelSpec, *, sequences: int, prompt_tokens: int, output_tokens: int,
                            weights: str | WeightFormat = "auto", kv_cache: str = "bf16") -> MemoryEstimate:
    """Peak GPU memory of a continuously batched server holding ``sequences`` requests in flight, bytes.

    Formula: ``peak = decode peak of sequences x (prompt + output) tokens + prefill temporaries
    of one prompt``: the decode phase of
    :func:`~calculators.memory.inference.inference_memory` at ``batch=sequences`` (every
    sequence at its full length, a conservative bound: in steady state they are spread over
    their lengths, and an engine that runs out of cache blocks preempts a request instead of
    failing), plus the ``activations_and_logits`` of prefilling one ``prompt_tokens`` prompt,
    because a continuous-batching engine prefills arriving requests one step at a time
    beside the decoding ones, never all ``sequences`` prompts in one forward. The runtime
    overhead and measured uncertainty follow that one prompt's largest temporary.

    Args:
        spec: model shapes.
        sequences: requests in flight, each holding its KV cache.
        prompt_tokens: prompt tokens per request.
        output_tokens: generated tokens per request (at least 1).
        weights: weight format id.
        kv_cache: KV cache dtype.

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("llama-3-8b")
    >>> served = continuous_batch_memory(spec, sequences=64, prompt_tokens=1024, output_tokens=256)
    >>> static = inference_memory(spec, batch=64, context=1024, new_tokens=256)
    >>> served.total_bytes < static.total_bytes  # one prompt's prefill temporaries, not 64
    True
    """
    spec = model_spec("spec", spec)
    count = positive_int("sequences", sequences, maximum=MAX_BATCH)
    prompt = positive_int("prompt_tokens", prompt_tokens, maximum=MAX_CONTEXT - 1)
    output = positive_int("output_tokens", output_tokens, maximum=MAX_CONTEXT - prompt)
    served = inference_memory(spec, weights=weights, kv_cache=kv_cache, batch=count, context=prompt, new_tokens=output)
    one = inference_memory(spec, weights=weights, kv_cache=kv_cache, batch=1, context=prompt)
    peak = served.phase_peaks["decode"] + one.breakdown["activations_and_logits"]
    cache = kv_cache_bytes(spec, batch=count, context=prompt + output, kv_dtype=kv_cache)
    state = served.breakdown.get("recurrent_state", 0)
    workspaces = served.breakdown.get("cuda_workspaces", 0)
    breakdown = {"weights": served.breakdown["weights"], "kv_cache": cache,
                 "activations_and_logits": peak - served.breakdown["weights"] - cache - state - workspaces}
    if state:
        breakdown["recurrent_state"] = state
    if workspaces:
        breakdown["cuda_workspaces"] = workspaces
    return replace(
        served, peak_allocated_bytes=peak, total_bytes=peak + sum(one.overhead.values()), peak_phase="decode",
        breakdown=breakdown, phase_peaks={"decode": peak}, overhead=dict(one.overhead),
        uncertainty_bytes=one.uncertainty_bytes, transient_block_bytes=one.transient_block_bytes,
        assumptions=(f"continuous batching: {count} requests in flight, each holding the KV cache of {prompt} prompt "
                     f"+ {output} generated tokens; one prompt prefilled at a time beside them", *served.assumptions))
