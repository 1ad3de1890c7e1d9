"""Training utilisation: the fraction of a GPU's dense rate the executed FLOPs reach, predicted from fitted factors.

``utilisation = framework[f] x fp8[f] x checkpointing[c] x method[m] x T / (T + T_half) x balance``

``fp8[f]`` is the framework's FP8 recipe factor (1 for 16-bit runs; :meth:`UtilisationFit.fp8_recipe`).

* ``balance = Amdahl / (1 + c x R / B)`` (:meth:`UtilisationFit.balance_factor`): the roofline
  sum over one executed FLOP. Besides its GEMMs a training step runs byte-bound kernels (norms,
  activations, residual adds, rotary, casts, the optimizer's update, copies), which take memory time,
  not FLOP time: ``time per FLOP = 1 / R + c / B``, ``R`` the dense 16-bit rate, ``B`` the memory
  bandwidth, ``c`` their bytes per executed FLOP (one fitted constant, :attr:`UtilisationFit.bytes_per_flop`).
  So the share of the peak a GPU reaches falls with its machine balance ``R / B`` (its ridge point):
  153 FLOP/byte on an A100 SXM, 295 on an H100 SXM, 206 on an H200 (the H100's chip with 1.4x the
  bandwidth; its torchtitan runs reach about 1.25x the H100's utilisation). This replaced a base factor
  fitted per GPU family (A100 0.63, H100 0.45), which gave a GPU of a family without runs the lowest
  base: held out by hardware generation, the H100 runs took the A100's base and were promised 40-90 %
  more speed than measured. With FP8 the term multiplies the Amdahl factor unchanged: the extra
  byte-bound work of an FP8 recipe (its casts) is in the framework's FP8 recipe factor (an additive
  term with the FP8 rate, ``1 / (1 / Amdahl + c x P x R / B)``, was tried: it moved Megatron-Core's
  factor from 1.3 to 1.9 and raised the leave-one-engine-out p90 of fine-tuning from 31 to 48 %).
  Williams, Waterman and Patterson 2009, "Roofline" (CACM 52(4)); Ivanov et al. 2021, "Data Movement
  Is All You Need" (MLSys, arXiv:2007.00072): in a BERT encoder layer's training step the tensor
  contractions are 99.8 % of the FLOPs and about 60 % of the time, the rest being normalisation and
  element-wise kernels bound by memory traffic.
* ``T / (T + T_half)`` with ``T_half = R / B`` (:func:`ridge_tokens`; derived, not fitted): every
  matmul of a micro-batch of ``T`` tokens does ``2 T K N`` FLOPs and reads its ``K x N`` weight, 2
  bytes an element; timed one after the other, ``2 T K N / R + 2 K N / B``, it runs at the share
  ``T / (T + R / B)`` of the dense rate ``R``, ``B`` being the memory bandwidth (the roofline's ridge
  point, in tokens: 153 on an A100, 295 on an H100 SXM). FP8 halves both the time per FLOP and the
  bytes per weight, so the ridge stays the 16-bit one.

* ``Amdahl = 1 / (s + (1 - s) x P)`` with FP8 matmuls (else 1): Amdahl over the executed FLOPs. Only
  the linear layers' GEMMs (share ``s`` of the FLOPs) run in FP8, ``P`` times faster (the FP8 to
  16-bit dense-rate ratio of the GPU, 2 on Hopper); attention's score and value products,
  softmax, norms and elementwise work stay 16-bit. The utilisation is of the FP8 rate, so a model
  whose FLOPs were all linear would reach the 16-bit utilisation of the FP8 rate (a speed-up of
  ``P``), and attention-heavy models (short, at long sequences) gain less (Micikevicius et al. 2022,
  arXiv:2209.05433, section 4: the GEMMs of linear layers in FP8, the rest in 16 bits).
* Model size has no term of its own: a width term ``1 / (1 + k x R / (B x h))`` (byte-bound
  kernels against GEMMs, hidden size ``h``) was fitted and dropped: it raised the cross-validated
  error (llm-foundry's narrow MPT-1B and 3B run as close to the peak as its 30B and 70B).

The factors are fitted on published runs (:mod:`calculators.performance.utilisation` holds
the fit and its rationale; :mod:`calculators.catalog.utilisation_fit` the fitted values and
the records behind each). They live in the catalog, beside the engines' fitted constants,
so every face that times a training step (``train-time``, ``parallel``, ``recommend``)
reads one utilisation.

>>> from calculators.catalog.gpus import get_gpu
>>> 0.3 < predicted_utilisation(get_gpu("a100-80gb-sxm")) < 0.8
True

References:
    the sources of each record in tests/data/published_speed/training.jsonl; docs page
    "Training time".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from calculators.catalog import utilisation_fit
from calculators.catalog.engines import get_engine
from calculators.catalog.gpus import GPU
from calculators.catalog.training_frameworks import DEFAULT_FRAMEWORK, get_training_framework
from calculators.model import ModelSpec
from calculators.validate import GPU_RECORD, finite_float, flag, instance_of, one_of, positive_int

#: Checkpointing settings: ``selective`` recomputes a small part of the forward and counts as none.
CHECKPOINTING: tuple[str, ...] = ("none", "selective", "full")
METHODS: tuple[str, ...] = ("full", "lora", "qlora")
#: What a published figure measures: a steady-state step, or a whole run's GPU-hours.
RUNS: tuple[str, ...] = ("steady", "whole-run")
#: A micro-batch size standing for "large" where none is given, tokens.
LARGE_MICRO_BATCH_TOKENS = 1 << 20


def gpu_family(gpu: GPU) -> str:
    """``hopper`` (GH100), ``ampere`` (GA100) or ``other``: the groups the published runs cover (a label for reports;
    the utilisation has no factor per family, :meth:`UtilisationFit.balance_factor`)."""
    gpu = instance_of("gpu", gpu, GPU, GPU_RECORD)
    if "GH100" in gpu.architecture:
        return "hopper"
    if "GA100" in gpu.architecture:
        return "ampere"
    return "other"


@dataclass(frozen=True)
class Features:
    """What a training run's utilisation depends on in this model.

    Attributes:
        family: :func:`gpu_family`.
        fp8: linear layers' matmuls in FP8.
        checkpointing: one of :data:`CHECKPOINTING`.
        method: one of :data:`METHODS`.
        micro_batch_tokens: tokens of one micro-batch (sequences x sequence length).
        run: one of :data:`RUNS`.
        framework: a :mod:`calculators.catalog.training_frameworks` id.
        linear_share: share of the executed FLOPs in linear layers (the rest is attention), in (0, 1].
        fp8_peak_ratio: the GPU's dense FP8 rate / dense 16-bit rate (2 on Hopper).
        ridge_tokens: ``T_half``, the GPU's 16-bit dense rate over its memory bandwidth (:func:`ridge_tokens`),
            tokens; 0: no small-micro-batch penalty.
        unfused_bytes_per_flop: bytes the step's elementwise operations move beyond fused kernels, per executed
            FLOP (:func:`calculators.model_flops.unfused_bytes_per_flop`; 0 for fused layers:
            Megatron-Core, ``torch.compile``), added to the fitted ``c`` in :meth:`UtilisationFit.balance_factor`.
    """

    family: str
    fp8: bool
    checkpointing: str
    method: str
    micro_batch_tokens: int = LARGE_MICRO_BATCH_TOKENS
    run: str = "steady"
    framework: str = DEFAULT_FRAMEWORK
    linear_share: float = 1.0
    fp8_peak_ratio: float = 2.0
    ridge_tokens: float = 0.0
    unfused_bytes_per_flop: float = 0.0

    @property
    def ckpt_key(self) -> str:
        """``full`` or ``none`` (selective recomputation counts as none)."""
        return "full" if self.checkpointing == "full" else "none"


@dataclass(frozen=True)
class UtilisationFit:
    """Fitted factors and, for each, the record ids it was fitted on (``group:key`` -> ids).

    ``bytes_per_flop`` is ``c`` of :meth:`balance_factor`: bytes of byte-bound kernels per executed FLOP.
    """

    bytes_per_flop: float
    checkpointing: Mapping[str, float]
    method: Mapping[str, float]
    run: Mapping[str, float]
    fitted_on: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    framework: Mapping[str, float] = field(default_factory=dict)
    fp8: Mapping[str, float] = field(default_factory=dict)

    def fp8_factor(self, features: Features) -> float:
        """``1 / (s + (1 - s) x P)`` with FP8 matmuls, else 1: Amdahl over the linear share ``s``.

        The linear GEMMs run ``P`` (the GPU's FP8 / 16-bit peak ratio, 2 on Hopper) times faster, the
        rest of the FLOPs at the 16-bit rate; the utilisation is of the FP8 rate.
        """
        if not features.fp8:
            return 1.0
        share, peak = features.linear_share, features.fp8_peak_ratio
        return 1.0 / (share + (1.0 - share) * peak)

    def fp8_recipe(self, features: Features) -> float:
        """The framework's FP8 recipe factor (fitted; 1 for 16-bit runs; no FP8 gain where no FP8 run informs it).

        Megatron-Core's Transformer Engine layers fuse the cast to FP8 into the preceding norm and keep
        the scaling in the GEMM's epilogue: the reference (1, the Amdahl formula as it stands; every fit
        holds it). The FSDP family's FP8 (torchao Float8 in torchtitan, Transformer Engine ``te.Linear``
        swapped in by llm-foundry) casts each linear layer's inputs and weights in separate byte-bound
        kernels and gathers 16-bit weights, which its factor (below 1) carries. A framework whose FP8 recipe
        no run in the fit measures (a fit with every FP8 run held out) is promised no FP8 speed-up:
        ``1 / (Amdahl x P)``, the 16-bit rate's utilisation, a lower bound rather than the reference's gain.

        >>> fit = UtilisationFit(bytes_per_flop=0.0, checkpointing={}, method={}, run={}, fp8={"megatron": 1.0})
        >>> f = Features("hopper", True, "none", "full", linear_share=0.8, fp8_peak_ratio=2.0)
        >>> round(fit.fp8_recipe(f) * fit.fp8_factor(f) * f.fp8_peak_ratio, 6)  # the FP8 rate's gain, cancelled
        1.0
        """
        if not features.fp8:
            return 1.0
        if features.framework in self.fp8:
            return self.fp8[features.framework]
        return 1.0 / (self.fp8_factor(features) * features.fp8_peak_ratio)

    @staticmethod
    def token_factor(features: Features) -> float:
        """``T / (T + T_half)``: the share of the dense rate a micro-batch of ``T`` tokens leaves its matmuls."""
        return features.micro_batch_tokens / (features.micro_batch_tokens + features.ridge_tokens)

    def balance_factor(self, features: Features, bytes_per_flop: float | None = None) -> float:
        """``Amdahl / (1 + (c + e) x R / B)``: the share of the (FP8 with ``fp8``) rate left by byte-bound kernels.

        ``c`` is :attr:`bytes_per_flop` (or the one given): the bytes per executed FLOP of a step with fused
        elementwise kernels; ``e`` the run's :attr:`Features.unfused_bytes_per_flop` (derived, 0 when fused);
        ``R / B`` the GPU's ridge point (:attr:`Features.ridge_tokens`; 0 where unknown: no term) (module docstring).

        >>> fit = UtilisationFit(bytes_per_flop=0.004, checkpointing={}, method={}, run={})
        >>> round(fit.balance_factor(Features("hopper", False, "none", "full", ridge_tokens=295.0)), 3)
        0.459
        """
        c = self.bytes_per_flop if bytes_per_flop is None else bytes_per_flop
        return self.fp8_factor(features) / (1.0 + (c + features.unfused_bytes_per_flop) * features.ridge_tokens)

    def known_factor(self, features: Features) -> float:
        """The product of the factors that are formulas of the features: tokens, and FP8 Amdahl with the balance."""
        return self.token_factor(features) * self.balance_factor(features)

    @property
    def whole_run_residual(self) -> float:
        """What published pre-training GPU-hours hold beyond the modelled goodput (fitted, ``run[whole-run]``).

        A whole-run figure measures ``utilisation x goodput x residual``: the goodput of its interruptions
        and checkpoint saves is modelled (:mod:`calculators.performance.goodput`); the residual is the rest
        (long-context and annealing stages counted in the published hours, evaluation, ablations).
        """
        return self.run.get("whole-run", 1.0)

    def predict(self, features: Features) -> float:
        """Steady-state utilisation of the executed FLOPs, in (0, 1].

        A GPU is placed by its ridge point (:meth:`balance_factor`), so every GPU with a rate and a bandwidth
        has one; a framework without runs takes the reference's factor, 1 (conservative).
        """
        ckpt = self.checkpointing.get(features.ckpt_key, 1.0)
        method = self.method.get(features.method, 1.0)
        framework = self.framework.get(features.framework, 1.0)
        return min(1.0, framework * self.fp8_recipe(features) * ckpt * method * self.known_factor(features))


#: The fit on every record of tests/data/published_speed/training.jsonl (generated module; the records behind each
#: factor are in :data:`calculators.catalog.utilisation_fit.FITTED_ON`).
DEFAULT_FIT = UtilisationFit(bytes_per_flop=utilisation_fit.BYTES_PER_FLOP, checkpointing=utilisation_fit.CHECKPOINTING,
                             method=utilisation_fit.METHOD, run=utilisation_fit.RUN,
                             fitted_on=utilisation_fit.FITTED_ON,
                             framework=utilisation_fit.FRAMEWORK,
                             fp8=utilisation_fit.FP8)


#: The inference engine whose fitted per-layer forward overhead stands for a training step's host time: eager
#: Hugging Face transformers, module code that launches one kernel per operation, as the training frameworks' do.
HOST_OVERHEAD_ENGINE = "transformers"


def host_overhead_s(spec: ModelSpec, *, grad_checkpointing: bool = False) -> float:
    """Fixed host time of one micro-batch, seconds: the Python forward passes through eager module code.

    Formula: ``layers x forward passes x per-layer overhead``, with 1 forward pass, 2 with full
    recomputation (the checkpointed layers run their Python forward again during the backward).
    The backward itself is not counted: PyTorch's autograd engine runs it from C++, without the
    per-operation Python dispatch the forward pays. The per-layer overhead is the
    ``step_overhead_s_per_layer`` of :data:`HOST_OVERHEAD_ENGINE` (eager transformers), fitted on
    published batch-1 decode figures (:mod:`calculators.catalog.engines`; the records in
    :mod:`calculators.catalog.engine_fits`), where a forward step is almost only this overhead.
    The GPU waits for it when the kernels it launches are short (small micro-batches), and it is
    added to the compute time (an upper bound where long kernels would hide it).

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("llama-2-7b")
    >>> host_overhead_s(spec, grad_checkpointing=True) == 2 * host_overhead_s(spec) > 0
    True
    """
    passes = 2 if flag("grad_checkpointing", grad_checkpointing) else 1
    return spec.num_layers * passes * get_engine(HOST_OVERHEAD_ENGINE).value("step_overhead_s_per_layer")


def fp8_peak_ratio(gpu: GPU) -> float:
    """The GPU's dense FP8 rate over its dense 16-bit rate (2 where either is not published)."""
    gpu = instance_of("gpu", gpu, GPU, GPU_RECORD)
    rate = gpu.bf16_dense_flop_per_s or gpu.fp16_dense_flop_per_s
    return gpu.fp8_dense_flop_per_s / rate if gpu.fp8_dense_flop_per_s and rate else 2.0


def ridge_tokens(gpu: GPU) -> float:
    """``T_half``: the GPU's dense 16-bit rate over its memory bandwidth, tokens (the roofline's ridge point).

    A matmul over fewer tokens than this spends longer reading its weights than multiplying them
    (module docstring). Derived from the catalog's two figures, not fitted.

    >>> from calculators.catalog.gpus import get_gpu
    >>> round(ridge_tokens(get_gpu("a100-80gb-sxm"))), round(ridge_tokens(get_gpu("h100-sxm")))
    (153, 295)
    """
    gpu = instance_of("gpu", gpu, GPU, GPU_RECORD)
    rate = gpu.bf16_dense_flop_per_s or gpu.fp16_dense_flop_per_s
    # A Mac described without its bandwidth has none (0): no ridge, as a GPU without a rate.
    return rate / gpu.memory_bandwidth_bytes_per_s if rate and gpu.memory_bandwidth_bytes_per_s else 0.0


def utilisation_features(gpu: GPU, *, fp8: bool = False, checkpointing: str = "none", method: str = "full",
                         micro_batch_tokens: int = LARGE_MICRO_BATCH_TOKENS, framework: str = DEFAULT_FRAMEWORK,
                         linear_share: float = 1.0, unfused_bytes_per_flop: float = 0.0) -> Features:
    """The :class:`Features` of a run on ``gpu``, each setting checked: what :func:`predicted_utilisation` reads, and
    what a held-out fit scores with :meth:`UtilisationFit.predict`.

    ``micro_batch_tokens`` is ``T`` (default: large); ``linear_share`` the share of the executed FLOPs in linear
    layers (:func:`calculators.model_flops.linear_flops_share`; 1: all, only read with ``fp8``);
    ``unfused_bytes_per_flop`` the unfused elementwise traffic per executed FLOP
    (:attr:`Features.unfused_bytes_per_flop`; 0: fused).
    """
    return Features(gpu_family(gpu), flag("fp8", fp8), one_of("checkpointing", checkpointing, CHECKPOINTING),
                    one_of("method", method, METHODS),
                    positive_int("micro_batch_tokens", micro_batch_tokens, maximum=1 << 40),
                    framework=get_training_framework(framework).id,
                    linear_share=finite_float("linear_share", linear_share, minimum=0.0, maximum=1.0,
                                              allow_minimum=False),
                    fp8_peak_ratio=fp8_peak_ratio(gpu), ridge_tokens=ridge_tokens(gpu),
                    unfused_bytes_per_flop=finite_float("unfused_bytes_per_flop", unfused_bytes_per_flop,
                                                        minimum=0.0, maximum=1.0))


def predicted_utilisation(gpu: GPU, *, fp8: bool = False, checkpointing: str = "none", method: str = "full",
                          micro_batch_tokens: int = LARGE_MICRO_BATCH_TOKENS, framework: str = DEFAULT_FRAMEWORK,
                          linear_share: float = 1.0, unfused_bytes_per_flop: float = 0.0) -> float:
    """Steady-state fraction of the dense rate (FP8 rate with ``fp8``) the executed FLOPs reach, in (0, 1] (fitted).

    Formula: ``framework x fp8[framework] x checkpointing x method x T / (T + T_half) x balance``
    (:class:`UtilisationFit`, module docstring), :data:`DEFAULT_FIT` at :func:`utilisation_features`; ``T_half``
    is the GPU's :func:`ridge_tokens`.
    """
    return DEFAULT_FIT.predict(utilisation_features(
        gpu, fp8=fp8, checkpointing=checkpointing, method=method, micro_batch_tokens=micro_batch_tokens,
        framework=framework, linear_share=linear_share, unfused_bytes_per_flop=unfused_bytes_per_flop))


def whole_run_residual(fit: UtilisationFit | None = None) -> float:
    """The share of published pre-training GPU-hours the modelled run explains, in (0, 1] (fitted).

    :attr:`UtilisationFit.whole_run_residual`: scoring divides a whole-run estimate by it after the modelled
    goodput (:mod:`calculators.performance.goodput`), and a whole-run train-time answer applies it the same way.
    """
    return min(1.0, (DEFAULT_FIT if fit is None else fit).whole_run_residual)
