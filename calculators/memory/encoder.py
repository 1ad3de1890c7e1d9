"""Peak GPU memory of one encoder forward (embedding, reranking): weights + the temporaries of one layer, no cache.

An encoder reads a batch of ``batch`` sequences padded to the longest (``seq`` tokens each;
every padded token is computed) in one forward pass and keeps nothing for later: memory is
the weights, the inputs and masks of the pass, and the tensors one layer holds at its
busiest moment. Which moment that is follows ``transformers`` 5.23 tensor by tensor
(``modeling_bert.py``, ``modeling_xlm_roberta.py``, ``modeling_modernbert.py``), as traced
(``tests/data/measurements``, kind ``embed``):

* **BERT-style, SDPA**: the MLP. Alive: the embedding output (``BertModel.forward`` holds
  it through the encoder), the layer's input, the attention output, and the GELU's input and
  output (``2 x intermediate``). The padded batch's mask is ``batch x seq x seq`` booleans.
* **BERT-style, eager**: the scores. ``matmul(q, k) * scale`` and each later step hold two
  ``batch x heads x seq x seq`` tensors in the activation dtype (the softmax stays in it),
  beside q, k, v and the two residual streams; the probabilities outlive the attention
  (``BertLayer`` keeps them as ``_``) into the MLP; the mask is additive, in the activation dtype.
* **ModernBERT, SDPA**: rotary embeddings, in FP32 (``q.float()``): while k rotates, q's
  result, k's FP32 copy, ``k x cos`` and ``rotate_half``'s half and concatenation are alive
  with the fused ``Wqkv`` output and three streams (the embedding output stays referenced by
  the mask arguments); or, for wide MLPs, the GeGLU (``Wi``'s ``2 x intermediate`` output,
  the GELU and the product) beside five streams (the attention output is still referenced).
  Two masks (global and local), each ``batch x seq x seq``.
* **ModernBERT, eager**: the scores, masked in the activation dtype, cast to FP32 and
  softmaxed in FP32 (10 bytes per score in bf16).

>>> from calculators.catalog.encoder_models import get_encoder
>>> estimate = encoder_inference_memory(get_encoder("bge-m3"), batch=32, seq=512)
>>> round(estimate.breakdown["weights"] / 2**30, 2), estimate.peak_phase
(1.06, 'forward')
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.dtypes import DType
from calculators.encoder import EncoderSpec
from calculators.errors import InputError
from calculators.memory.kernels import DEVICES
from calculators.memory.overhead import (
    ALLOCATORS,
    CUDA_WORKSPACE_BYTES,
    overhead_assumptions,
    runtime_overhead_bytes,
    uncertainty_above_total,
)
from calculators.memory.result import MemoryEstimate
from calculators.validate import instance_of, one_of, positive_int

#: Formats the weights (and so the activations) are loaded in.
WEIGHTS = ("bf16", "fp16", "fp32")
#: ``attn_implementation``: SDPA (fused, no scores in memory) or eager (scores materialised).
ATTENTIONS = ("sdpa", "eager")
MAX_BATCH = 1 << 16
MAX_SEQ = 1 << 20
#: Bytes of the caller's inputs per token: ``input_ids`` and ``attention_mask``, int64 each.
INPUT_BYTES_PER_TOKEN = 16
SPEC = "an EncoderSpec (calculators.encoder.encoder_from_config or calculators.catalog.encoder_models)"


@dataclass(frozen=True)
class EncoderSetup:
    """Checked settings of one encoder forward (see :func:`encoder_inference_memory`)."""

    batch: int
    seq: int
    weights: DType
    attention: str
    device: str = "cuda"
    allocator: str = "default"

    @property
    def tokens(self) -> int:
        """Tokens computed: every sequence padded to ``seq``."""
        return self.batch * self.seq


def encoder_setup(*, batch: int = 32, seq: int = 512, weights: str = "bf16", attention: str = "sdpa",
                  device: str = "cuda", allocator: str = "default") -> EncoderSetup:
    """Check every input of an encoder forward; raises :class:`~calculators.errors.InputError` naming it.

    Args:
        batch: sequences per forward pass.
        seq: tokens per sequence after padding to the longest in the batch.
        weights: ``bf16``, ``fp16`` or ``fp32`` (activations follow).
        attention: ``sdpa`` or ``eager``.
        device: ``cuda`` or ``cpu`` (the traces' kernels: no cuBLAS workspaces, no runtime overhead).
        allocator: PyTorch's caching allocator (``default`` or ``expandable_segments``).
    """
    return EncoderSetup(
        batch=positive_int("batch", batch, maximum=MAX_BATCH),
        seq=positive_int("seq", seq, maximum=MAX_SEQ),
        weights=DType.parse(one_of("weights", weights, WEIGHTS), "weights"),
        attention=one_of("attention", attention, ATTENTIONS),
        device=one_of("device", device, DEVICES),
        allocator=one_of("allocator", allocator, ALLOCATORS),
    )


def longest_input(spec: EncoderSpec) -> int | None:
    """The most tokens the position table covers (``None``: rotary, any length runs).

    RoBERTa-style models number positions from ``pad_token_id + 1`` (2), so two rows are never used.
    """
    if spec.modern:
        return None
    return spec.max_position_embeddings - (2 if spec.model_type in ("roberta", "xlm-roberta") else 0)


def _phases(spec: EncoderSpec, setup: EncoderSetup) -> tuple[int, int, int]:
    """(busiest layer moment, masks and tables, largest single temporary), bytes."""
    a = int(setup.weights.bytes_per_element)
    tokens, h, width = setup.tokens, spec.hidden_size, spec.intermediate_size
    scores = setup.batch * spec.num_attention_heads * setup.seq ** 2
    eager = setup.attention == "eager"
    mask = setup.batch * setup.seq ** 2 * (a if eager else 1)
    if not spec.modern:
        streams = 2 if spec.num_layers > 1 else 1  # embedding output + the layer's input
        mlp = tokens * a * ((streams + 1) * h + 2 * width) + (scores * a if eager else 0)
        if eager:
            attention = tokens * a * (streams + 3) * h + 2 * scores * a
        else:
            attention = tokens * a * (streams + 5) * h  # q, k, v, the output and its contiguous copy
        block = max(tokens * width * a, scores * a if eager else 0)
        return max(mlp, attention), mask, block
    streams = 3 if spec.num_layers > 1 else 1  # embedding output, the layer's input, attn_norm's output
    upcast = 4 if a != 4 else 0  # q.float() and k.float() copy unless already FP32
    rope = tokens * (streams * h * a + 3 * h * a + (4 + upcast + 4 + 2 + 4) * h)
    mlp = tokens * a * ((streams + 2) * h + 4 * width) + (scores * a if eager else 0)
    phases = [rope, mlp]
    if eager:  # masked scores, their FP32 cast and the FP32 softmax
        phases.append(tokens * a * (streams + 5) * h + scores * (a + upcast + 4))
    masks = (2 if spec.local_layers else 1) * mask
    types = 2 if spec.local_layers else 1
    tables = types * 2 * setup.seq * spec.head_dim * a + setup.seq * 8  # cos, sin; position ids
    block = max(tokens * 2 * width * a, tokens * h * 4, scores * 4 if eager else 0)
    return max(phases), masks + tables, block


def encoder_inference_memory(spec: EncoderSpec, **settings: object) -> MemoryEstimate:
    """Peak memory of one forward of ``batch`` sequences padded to ``seq`` tokens, bytes.

    Formula: ``peak = served parameters x bytes + buffers + 16 x tokens (ids, mask) + masks
    (+ rotary tables) + the busiest moment of one layer`` (module docstring), plus 64 MiB of
    cuBLAS workspaces on CUDA; ``total_bytes`` adds the CUDA context and the allocator's
    reserve (:mod:`calculators.memory.overhead`).

    Args:
        spec: the encoder (:func:`calculators.encoder.encoder_from_config`).
        **settings: keyword arguments of :func:`encoder_setup`.

    Raises:
        InputError: a setting out of range, or ``seq`` beyond the position table.
    """
    spec = instance_of("spec", spec, EncoderSpec, SPEC)
    setup = encoder_setup(**settings)  # type: ignore[arg-type]
    longest = longest_input(spec)
    if longest is not None and setup.seq > longest:
        raise InputError("seq", setup.seq, f"an integer from 1 to {longest} ({spec.name}'s position table has "
                         f"{spec.max_position_embeddings} rows)")
    a = setup.weights.bytes_per_element
    weights = int(spec.served_parameters * a) + spec.buffer_bytes
    layer, fixed, block = _phases(spec, setup)
    inputs = INPUT_BYTES_PER_TOKEN * setup.tokens
    workspaces = CUDA_WORKSPACE_BYTES if setup.device == "cuda" else 0
    peak = weights + inputs + fixed + layer + workspaces
    overhead = runtime_overhead_bytes(transient_block_bytes=block, prefill=True, allocator=setup.allocator)
    if setup.device != "cuda":
        overhead = {}
    breakdown = {"weights": weights, "forward_temporaries": inputs + fixed + layer}
    if workspaces:
        breakdown["cuda_workspaces"] = workspaces
    notes = list(spec.notes)
    if spec.head == "masked-lm":
        notes.append("a masked-LM checkpoint loaded as its bare encoder (AutoModel, as sentence-transformers "
                     "does): its MLM head is not loaded")
    if longest is None and setup.seq > spec.max_position_embeddings:
        notes.append(f"seq {setup.seq} exceeds the model's max_position_embeddings {spec.max_position_embeddings}: "
                     "quality is not guaranteed beyond it")
    if setup.attention == "sdpa" and setup.device == "cuda":
        notes.append("SDPA with a padding mask runs PyTorch's memory-efficient kernel on CUDA (no seq x seq scores); "
                     "the traces ran its CPU counterpart")
    return MemoryEstimate(
        parameters=spec.served_parameters,
        trainable_parameters=0,
        active_parameters=spec.served_parameters,
        peak_allocated_bytes=int(peak),
        total_bytes=int(peak + sum(overhead.values())),
        peak_phase="forward",
        breakdown=breakdown,
        phase_peaks={"forward": int(peak)},
        assumptions=(
            f"weights {setup.weights.value}, batch {setup.batch} x {setup.seq} tokens (padded to the longest), "
            f"attention {setup.attention}, one forward without cache under torch.no_grad()",
            "the attention mask of a padded batch is materialised (global and local masks for ModernBERT); "
            "pooling and normalising the output vectors not counted (a few batch x hidden tensors)",
        ) + overhead_assumptions(setup.allocator),
        notes=tuple(notes),
        overhead=overhead,
        uncertainty_bytes=uncertainty_above_total(overhead, transient_block_bytes=block, prefill=True),
        transient_block_bytes=block,
    )
