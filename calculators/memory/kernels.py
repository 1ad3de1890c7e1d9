"""Which attention kernel PyTorch runs for a ``transformers`` layer, and what that means for memory.

``attention="sdpa"`` does not name one kernel. ``torch.nn.functional.scaled_dot_product_attention``
picks a backend per call from its inputs, and ``transformers`` decides those inputs:

1. **The mask.** ``transformers`` (``masking_utils._ignore_causal_mask_sdpa``, v5) passes no
   mask and ``is_causal=True`` for an unpadded causal batch, unless the layer slides and the
   keys reach the window (``kv_length >= sliding_window``): then it materialises a
   ``(batch, 1, q, kv)`` mask.
2. **Grouped-query attention.** With no mask on CUDA it passes K and V at KV-head width with
   ``enable_gqa=True`` (``integrations/sdpa_attention.use_gqa_in_sdpa``); with a mask it first
   repeats K and V to every query head (``repeat_kv``), and SDPA saves the repeated copies.
3. **The backend** (PyTorch ``sdp_utils``, CUDA): flash attention needs fp16/bf16 and no
   explicit mask; the memory-efficient kernel takes fp32 and masks but not ``enable_gqa``;
   anything else runs the *math* backend, which materialises the ``seq x seq`` scores and
   keeps the same tensors for backward as eager attention. On CPU the fused kernel takes
   fp32, masks and GQA alike, which is why the fake-tensor traces (CPU kernels) and a real
   H100 disagree on fp32 GQA models: Llama 3.2 1B fp32, batch 1 x 2048, peaked at 31.4 GiB
   on the GPU, as with eager attention (``tests/data/measurements_cuda``).

>>> attention_path(grouped=True, compute_bytes=4, explicit_mask=False, device="cuda").backend
'math'
>>> attention_path(grouped=True, compute_bytes=2, explicit_mask=False, device="cuda").backend
'flash'
>>> path = attention_path(grouped=True, compute_bytes=2, explicit_mask=True, device="cuda")
>>> path.backend, path.kv_repeated
('efficient', True)
>>> attention_path(grouped=True, compute_bytes=4, explicit_mask=False, device="cpu").backend
'fused'
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.model import ModelSpec
from calculators.validate import model_spec, one_of

#: Where the step runs: a CUDA GPU, or PyTorch's CPU kernels (how the fake-tensor traces ran).
DEVICES = ("cuda", "cpu")


@dataclass(frozen=True)
class AttentionPath:
    """The attention computation one layer runs.

    Attributes:
        backend: ``"eager"`` (transformers' own matmul + softmax), ``"math"`` (SDPA's
            reference backend: memory as eager), ``"flash"``, ``"efficient"`` (memory-
            efficient), or ``"fused"`` (PyTorch's CPU flash kernel).
        kv_repeated: K and V are repeated to every query head before the kernel.
        explicit_mask: a ``(batch, 1, q, kv)`` mask tensor is materialised.
    """

    backend: str
    kv_repeated: bool
    explicit_mask: bool

    @property
    def materialises_scores(self) -> bool:
        """True when the ``seq x seq`` scores and softmax exist in memory (eager or math)."""
        return self.backend in ("eager", "math")


def needs_explicit_mask(spec: ModelSpec, *, kv_length: int, mixer: str | None = None) -> bool:
    """True when ``transformers`` builds a mask tensor for an unpadded causal batch.

    Formula: ``kv_length >= sliding_window`` (a sliding-window model) or ``kv_length >=
    attention_chunk_size`` (Llama 4's chunked layers; not its global layers, when ``mixer`` names
    one): ``masking_utils._ignore_causal_mask_sdpa`` keeps the mask once the keys reach the window
    or the chunk.

    >>> from calculators.catalog.models import get_model
    >>> needs_explicit_mask(get_model("mistral-7b-v0.1"), kv_length=4096)
    True
    """
    spec = model_spec("spec", spec)
    window = spec.sliding_window
    chunk = spec.attention_chunk_size if spec.count_layers(mixer="chunked_attention") else None
    chunked = chunk is not None and kv_length >= chunk and mixer != "full_attention"
    return (window is not None and kv_length >= window) or chunked


def attention_path(*, grouped: bool, compute_bytes: int, explicit_mask: bool, device: str = "cuda",
                   eager: bool = False) -> AttentionPath:
    """The kernel and the K/V layout of one SDPA (or eager) attention call.

    Args:
        grouped: the model has fewer KV heads than query heads.
        compute_bytes: bytes per element of q, k and v (4 for fp32, 2 under autocast or bf16).
        explicit_mask: ``transformers`` passes a mask tensor (see :func:`needs_explicit_mask`).
        device: ``"cuda"`` or ``"cpu"``.
        eager: ``attn_implementation="eager"`` (or a model without SDPA support).
    """
    if eager:
        return AttentionPath(backend="eager", kv_repeated=grouped, explicit_mask=True)
    # With a mask transformers repeats K/V itself; without one it asks SDPA for native GQA.
    repeated = grouped and explicit_mask
    if device == "cpu":
        return AttentionPath(backend="fused", kv_repeated=repeated, explicit_mask=explicit_mask)
    if compute_bytes == 2 and not explicit_mask:
        return AttentionPath(backend="flash", kv_repeated=False, explicit_mask=False)
    native_gqa = grouped and not explicit_mask
    if not native_gqa:
        return AttentionPath(backend="efficient", kv_repeated=repeated, explicit_mask=explicit_mask)
    return AttentionPath(backend="math", kv_repeated=False, explicit_mask=explicit_mask)


def layer_attention_path(spec: ModelSpec, *, attention: str, compute_bytes: int, seq: int,
                         device: str = "cuda", mixer: str | None = None) -> AttentionPath:
    """:func:`attention_path` for a model's layer (of the attention kind ``mixer``, if given) at ``seq`` keys.

    >>> from calculators.catalog.models import get_model
    >>> layer_attention_path(get_model("llama-3.2-1b"), attention="sdpa", compute_bytes=4, seq=2048).backend
    'math'
    """
    spec = model_spec("spec", spec)
    device = one_of("device", device, DEVICES)
    grouped = spec.num_kv_heads < spec.num_attention_heads
    return attention_path(grouped=grouped, compute_bytes=compute_bytes,
                          explicit_mask=needs_explicit_mask(spec, kv_length=seq, mixer=mixer), device=device,
                          eager=attention == "eager" or not spec.supports_sdpa)
