"""Bytes of a quantised checkpoint, module by module: what its ``quantization_config`` quantises, and the rest.

Each linear of the model is listed once per layer with the names a checkpoint and
transformers give it (:func:`linear_modules`); the patterns of
:class:`~calculators.quantization.config.CheckpointQuantization` decide which are
quantised and how each is stored; everything else (embeddings, norms, biases, routers, the
linears a keep list names) is counted in its 16-bit dtype.

Routers stay 16-bit under every method read here: transformers' quantizers replace
``nn.Linear`` modules and the routers of its MoE models are modules of their own, ModelOpt
leaves them out by default, and compressed-tensors configs list them in ``ignore``.

>>> from calculators.catalog.models import get_model
>>> from calculators.quantization import read_quantization_config
>>> spec = get_model("gpt-oss-20b")
>>> quant = read_quantization_config({"quant_method": "mxfp4"}, model_type="gpt_oss")
>>> round(checkpoint_weight_bytes(spec, quant) / 2**30, 2)  # OpenAI's model card: 12.8 GiB
12.82
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from calculators.dtypes import DType
from calculators.errors import ConfigError
from calculators.quantization.config import CheckpointQuantization, QuantScheme
from calculators.model import ModelSpec


@dataclass(frozen=True)
class LinearModule:
    """One linear weight of ``out x in`` (``count`` copies: the experts of a layer) and the names it answers to.

    ``names`` are module names without an expert index; ``expert_names`` hold ``{e}`` where a
    checkpoint names each expert (``model.layers.3.mlp.experts.{e}.gate_proj``).
    """

    kind: str  # attention, mixer, mlp, experts, shared_experts, residual (AltUp, LAuReL, per-layer inputs) or lm_head
    out_features: int
    in_features: int
    count: int
    names: tuple[str, ...]
    expert_names: tuple[str, ...] = ()

    @property
    def weights(self) -> int:
        """Elements of all ``count`` copies."""
        return self.out_features * self.in_features * self.count


def _attention(spec: ModelSpec, prefix: str, *, kv_shared: bool = False) -> Iterator[LinearModule]:
    h = spec.hidden_size
    if spec.mla is not None:
        m = spec.mla
        projections = ["q_proj"] if m.q_lora_rank is None else ["q_a_proj", "q_b_proj"]
        projections += ["kv_a_proj_with_mqa", "kv_b_proj", "o_proj"]
        for name, (i, o, _) in zip(projections, spec.attention_linears(), strict=True):
            yield LinearModule("attention", o, i, 1, (f"{prefix}.self_attn.{name}",))
        return
    if spec.fused_qkv:  # Phi-3 stores q, k and v as one qkv_proj
        yield LinearModule("attention", spec.q_dim + 2 * spec.kv_dim, h, 1, (f"{prefix}.self_attn.qkv_proj",))
    else:
        for name, width in (("q_proj", spec.q_dim), ("k_proj", spec.kv_dim), ("v_proj", spec.kv_dim)):
            if not (kv_shared and name != "q_proj"):  # a layer reading another's K and V has no k/v projections
                yield LinearModule("attention", width, h, 1, (f"{prefix}.self_attn.{name}",))
    yield LinearModule("attention", h, spec.q_dim, 1, (f"{prefix}.self_attn.o_proj",))


def _mlp(spec: ModelSpec, prefix: str, width: int, kind: str, count: int = 1) -> Iterator[LinearModule]:
    h = spec.hidden_size
    if spec.fused_qkv:  # Phi-3 also fuses gate and up
        yield LinearModule(kind, 2 * width, h, count, (f"{prefix}.gate_up_proj",))
    elif not spec.mlp_gated:  # up and down only (Nemotron-H's squared-ReLU MLP)
        yield LinearModule(kind, width, h, count, (f"{prefix}.up_proj",))
    else:
        yield LinearModule(kind, width, h, count, (f"{prefix}.gate_proj",))
        yield LinearModule(kind, width, h, count, (f"{prefix}.up_proj",))
    yield LinearModule(kind, h, width, count, (f"{prefix}.down_proj",))


def _experts(spec: ModelSpec, prefix: str) -> Iterator[LinearModule]:
    assert spec.moe is not None
    m, h = spec.moe, spec.hidden_size
    fused = f"{prefix}.mlp.experts"  # transformers 5 holds a layer's experts in one module
    if spec.model_type == "gpt_oss":  # stored fused: gate_up_proj (2 I x h) and down_proj (h x I)
        yield LinearModule("experts", 2 * m.expert_intermediate_size, h, m.num_experts,
                           (fused, f"{fused}.gate_up_proj"))
        yield LinearModule("experts", h, m.expert_intermediate_size, m.num_experts, (fused, f"{fused}.down_proj"))
        return
    mixtral = {"gate_proj": "w1", "up_proj": "w3", "down_proj": "w2"}
    for module in _mlp(spec, "", m.expert_intermediate_size, "experts", m.num_experts):
        proj = module.names[0].lstrip(".")
        expert_names: tuple[str, ...] = (f"{fused}.{{e}}.{proj}",)
        if spec.model_type == "mixtral":
            expert_names += (f"{prefix}.block_sparse_moe.experts.{{e}}.{mixtral[proj]}",)
        yield LinearModule("experts", module.out_features, module.in_features, module.count,
                           (fused, f"{fused}.{proj}"), expert_names)


def linear_modules(spec: ModelSpec) -> Iterator[LinearModule]:
    """Every linear weight of ``spec`` a quantiser may convert, layer by layer (each by its kind), then the head.

    Routers and Qwen2-MoE's one-wide shared-expert gate are left out: they stay 16-bit. A Mamba
    or Gated DeltaNet mixer's projections (``in_proj``, ``out_proj``; ``in_proj_qkvz``,
    ``in_proj_ba``) are linears like any other; its conv filter and scalars are not.
    """
    extras = spec.residual_augment
    if extras is not None:  # AltUp's stream projections and the per-layer inputs' projection, before the layers
        for name, fan_in, fan_out, count in extras.model_linear_shapes(hidden_size=spec.hidden_size,
                                                                       layers=spec.num_layers):
            yield LinearModule("residual", fan_out, fan_in, count, (f"model.{name}",))
    for index, layer in enumerate(spec.layers):
        prefix = f"model.layers.{index}"
        if layer.attention is not None or "cross_attention" in layer.mixers:
            yield from _attention(spec, prefix, kv_shared=layer.kv_shared)
        if extras is not None:
            for name, fan_in, fan_out in extras.layer_linear_shapes(hidden_size=spec.hidden_size):
                yield LinearModule("residual", fan_out, fan_in, 1, (f"{prefix}.{name}",))
        yield from _state_mixers(spec, prefix, layer.mixers)
        if layer.mlp == "dense":
            yield from _mlp(spec, f"{prefix}.mlp", layer.mlp_width or spec.intermediate_size, "mlp")
        elif layer.mlp == "moe" and spec.moe is not None:
            yield from _experts(spec, prefix)
            m = spec.moe
            if m.num_shared_experts:
                if spec.model_type == "qwen2_moe":
                    yield from _mlp(spec, f"{prefix}.mlp.shared_expert", m.shared_intermediate_size, "shared_experts")
                else:  # DeepSeek stores its shared experts as one MLP n_shared x wider
                    yield from _mlp(spec, f"{prefix}.mlp.shared_experts",
                                    m.shared_intermediate_size * m.num_shared_experts, "shared_experts")
    if not spec.tie_word_embeddings:
        yield LinearModule("lm_head", spec.vocab_size, spec.hidden_size, 1, ("lm_head",))


def _state_mixers(spec: ModelSpec, prefix: str, mixers: tuple[str, ...]) -> Iterator[LinearModule]:
    """The projections of a layer's Mamba (``mamba.`` / ``mixer.``) or Gated DeltaNet (``linear_attn.``) mixer."""
    h = spec.hidden_size
    if "mamba" in mixers and spec.mamba is not None:
        m = spec.mamba
        names = (f"{prefix}.mamba", f"{prefix}.mixer")
        width = 2 * m.inner_size if m.version == 1 else m.inner_size + m.conv_channels + m.num_heads
        yield LinearModule("mixer", width, h, 1, tuple(f"{n}.in_proj" for n in names))
        if m.version == 1:
            yield LinearModule("mixer", m.dt_rank + 2 * m.state_size, m.inner_size, 1,
                               tuple(f"{n}.x_proj" for n in names))
            yield LinearModule("mixer", m.inner_size, m.dt_rank, 1, tuple(f"{n}.dt_proj" for n in names))
        yield LinearModule("mixer", h, m.inner_size, 1, tuple(f"{n}.out_proj" for n in names))
    if "linear_attention" in mixers and spec.linear_attention is not None:
        g = spec.linear_attention
        name = f"{prefix}.linear_attn"
        yield LinearModule("mixer", 2 * g.key_dim + 2 * g.value_dim, h, 1, (f"{name}.in_proj_qkvz",))
        yield LinearModule("mixer", 2 * g.num_value_heads, h, 1, (f"{name}.in_proj_ba",))
        yield LinearModule("mixer", h, g.value_dim, 1, (f"{name}.out_proj",))


# --------------------------------------------------------------------------- matching
@functools.lru_cache(maxsize=512)
def _regex(pattern: str, key: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise ConfigError(key, pattern, f"a valid regular expression ({error})") from None


def _matches(quant: CheckpointQuantization, pattern: str, name: str, key: str) -> bool:
    """Whether ``pattern`` names the module ``name`` in the checkpoint's dialect."""
    if quant.dialect == "transformers":
        # transformers' should_convert_module: a regex from the start up to a module boundary, or a suffix.
        boundary = _regex(rf"(?:{pattern})(?:(?<=\.)|(?=\.|$))", key)
        return boundary.match(name) is not None or name.endswith(pattern)
    if quant.dialect == "compressed-tensors":
        if pattern.startswith("re:"):
            return _regex(pattern[3:], key).match(name) is not None
        return pattern in (name, "Linear")
    parts = name.split(".")
    return any(fnmatch.fnmatchcase(".".join(parts[:n]), pattern) for n in range(1, len(parts) + 1))


def _named(quant: CheckpointQuantization, patterns: tuple[str, ...], module: LinearModule, expert: int,
           key: str) -> bool:
    names = module.names + tuple(name.format(e=expert) for name in module.expert_names)
    for pattern in patterns:
        if pattern == "experts" and module.kind == "experts":
            return True
        if pattern == "Linear":  # the class: every linear listed
            return True
        if any(_matches(quant, pattern, name, key) for name in names):
            return True
    return False


def scheme_of(quant: CheckpointQuantization, module: LinearModule) -> QuantScheme | None:
    """The scheme that quantises ``module`` (``None``: it stays 16-bit).

    Raises:
        ConfigError: a keep or target list names some experts of a layer but not others.
    """
    experts = (0, 1) if module.count > 1 and module.expert_names else (0,)
    answers = set()
    for expert in experts:
        kept = _named(quant, quant.keep, module, expert, f"quantization_config.{quant.keep_key}")
        scheme = None if kept else next(
            (s for s in quant.schemes if _named(quant, s.targets, module, expert, "quantization_config.targets")),
            None)
        answers.add(scheme)
    if len(answers) > 1:
        raise ConfigError(f"quantization_config.{quant.keep_key}", list(quant.keep),
                          "patterns that treat every expert of a layer alike (single experts are not modelled)")
    return answers.pop()


# --------------------------------------------------------------------------- bytes
@dataclass(frozen=True)
class CheckpointBytes:
    """A quantised checkpoint's weights split by what is quantised.

    Attributes:
        quantized_weights: elements stored quantised.
        quantized_bytes: their bytes, scales, zero points and per-tensor extras included.
        expert_weights: elements of routed experts (quantised or not).
        expert_bytes: their bytes.
        kinds: the kinds of module quantised (``attention``, ``mlp``, ``experts``, ...), in order.
    """

    quantized_weights: int
    quantized_bytes: int
    expert_weights: int
    expert_bytes: int
    kinds: tuple[str, ...]


@functools.lru_cache(maxsize=256)
def checkpoint_bytes(spec: ModelSpec, quant: CheckpointQuantization, high_precision: DType = DType.BF16
                     ) -> CheckpointBytes:
    """What :func:`checkpoint_weight_bytes` adds up, module kind by module kind (computed once per spec)."""
    quantized = quantized_bytes = experts = experts_bytes = 0
    kinds: dict[str, None] = {}
    for module in linear_modules(spec):
        scheme = scheme_of(quant, module)
        if scheme is None:
            stored = int(module.weights * high_precision.bytes_per_element)
        else:
            stored = module.count * scheme.layout.linear_bytes(out_features=module.out_features,
                                                               in_features=module.in_features)
            quantized += module.weights
            quantized_bytes += stored
            kinds[module.kind] = None
        if module.kind == "experts":
            experts += module.weights
            experts_bytes += stored
    return CheckpointBytes(quantized, quantized_bytes, experts, experts_bytes, tuple(kinds))


def checkpoint_weight_bytes(spec: ModelSpec, quant: CheckpointQuantization, *,
                            high_precision: DType = DType.BF16) -> int:
    """Bytes of every weight of ``spec`` stored as ``quant`` says.

    Formula: ``sum over quantised linears of their stored bytes (values + scales + zero points
    + per-tensor extras) + (parameters - quantised elements) x bytes of high_precision``.

    Args:
        spec: model shapes.
        quant: the checkpoint's quantisation (:func:`~calculators.quantization.read_quantization_config`).
        high_precision: format of every tensor not quantised (embeddings, norms, biases, routers, kept linears).
    """
    parts = checkpoint_bytes(spec, quant, high_precision)
    return int(parts.quantized_bytes + (spec.parameters - parts.quantized_weights) * high_precision.bytes_per_element)


#: How :func:`stored_weights_note` begins (to find it among an estimate's notes).
STORED_NOTE_START = "weights as the checkpoint stores them"
_KIND_WORDS = {"attention": "attention", "mlp": "MLP", "experts": "experts", "shared_experts": "shared experts",
               "lm_head": "output head"}


def stored_weights_note(spec: ModelSpec, quant: CheckpointQuantization, *, high_precision: DType = DType.BF16) -> str:
    """The sentence a reader sees when weights are sized as the checkpoint stores them.

    >>> from calculators.catalog.models import get_model
    >>> print(stored_weights_note(get_model("gpt-oss-20b"), get_model("gpt-oss-20b").quantization))
    weights as the checkpoint stores them (its quantization_config): MXFP4 experts (32 E2M1 values + one E8M0 scale), bf16 elsewhere; set a weights format to override
    """
    parts = checkpoint_bytes(spec, quant, high_precision)
    kinds = [_KIND_WORDS[kind] for kind in parts.kinds]
    what = kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " and " + kinds[-1] if kinds else "no module"
    detail = quant.detail.removeprefix("experts ").strip()
    return (f"{STORED_NOTE_START} (its quantization_config): {quant.label} {what}"
            f"{' ' + detail if detail else ''}, {high_precision.value} elsewhere; set a weights format "
            "to override")
