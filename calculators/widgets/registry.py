"""The named calculators a page can embed: their fields, compute functions and renderers.

Each :class:`Calculator` ties form fields (declared once, with ranges and choices taken
from the engine) to a compute function over checked values and a renderer of its
result. The build, the browser (through :mod:`calculators.widgets.api`) and the tests
all go through :func:`get_calculator`.

>>> {'fit', 'inference-memory', 'kv-cache', 'training-memory'} <= set(calculator_names())
True
>>> calculator = get_calculator("kv-cache")
>>> values = calculator.values({"model": "llama-3-8b", "context": "8192"})
>>> values["context"], values["kv_dtype"]
(8192, 'bf16')
>>> "1.00" in calculator.render(calculator.compute(values))  # GiB of bf16 cache
True
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from calculators.catalog.custom_gpu import MAX_BANDWIDTH_GBPS, MAX_MEMORY_GB, MIN_FIGURE, CustomGPU, resolve_gpu
from calculators.catalog.gpus import GPU, all_gpus, get_gpu
from calculators.catalog.models import all_models
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.config_input import load_config_text
from calculators.dtype_support import UnsupportedFormatError, on_gpu, serving_notes, sixteen_bit, training_notes
from calculators.errors import InputError, UnknownNameError
from calculators.fit import FitResult, fit_inference, fit_training
from calculators.memory import inference, training, training_inputs
from calculators.memory.optimizers import OPTIMIZERS
from calculators.memory.overhead import ALLOCATORS
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.model_config import spec_from_config
from calculators.widgets.fields import (
    Field,
    Value,
    bool_field,
    choice_field,
    cli_field,
    config_field,
    default_of,
    float_field,
    int_field,
    text_field,
)
from calculators.widgets.views import (
    FitView,
    KVCacheView,
    MemoryView,
    config_echo_html,
    fit_html,
    kv_cache_html,
    memory_html,
)

#: The ``model`` choice that reads the shapes from a pasted or uploaded ``config.json``.
CUSTOM = "custom"
#: Model and GPU the widgets open with (any catalog ids work).
DEFAULT_MODEL = "llama-3-8b"
DEFAULT_GPU = "h100-sxm"
#: The GPU choices that reveal :func:`custom_gpu_fields`.
CUSTOM_GPU = "custom"
MAC_GPU = "mac"
#: Why a memory form's GPU is not an engine input (:attr:`Calculator.own_defaults`).
CHART_GPU = "the GPU the chart draws and whose formats are checked; memory does not depend on it"
#: The names of :func:`custom_gpu_fields` (a test checks the two agree).
CUSTOM_GPU_NAMES = ("gpu_memory_gb", "gpu_bandwidth_gbps", "gpu_bf16_tflops", "gpu_fp16_tflops", "gpu_fp8_tflops",
                    "gpu_compute_capability", "gpu_usable_gb", "mac_memory_gb", "mac_bandwidth_gbps")
#: Inputs that are not an engine's settings: the model, its config.json, the GPU, the fit calculator's job.
_NOT_SETTINGS = frozenset(("model", "config", "gpu", "job", *CUSTOM_GPU_NAMES))
#: Upper bound of ``grad_accumulation`` in :func:`~calculators.memory.training_inputs.training_setup`
#: (not exported there; a test checks the two agree).
MAX_GRAD_ACCUMULATION = 1 << 20

Values = Mapping[str, Value]


@dataclass(frozen=True)
class Calculator:
    """A calculator a page can embed.

    Attributes:
        name: the id used in ``<!-- widget: NAME -->`` and ``data-calculator``.
        title: heading shown above the form.
        fields: the inputs, in form order.
        compute: takes :meth:`values` (checked, engine-ready) and returns a view.
        render: turns that view into an HTML fragment.
        aliases: engine argument -> the form input that feeds it, where their names differ
            (an engine error is shown next to that input).
        engines: the engine functions whose keywords the inputs feed; an input is named after
            its keyword (or in ``aliases``) and reads its default from their signatures
            (:func:`~calculators.widgets.fields.default_of`).
        own_defaults: input -> why its default is not read from ``engines``: the engine has
            none, the form deliberately opens elsewhere, or the input feeds no engine keyword.
            ``tests/tools/test_faces_agree.py`` checks every other input against the engine.
        command: the ``mlhw`` subcommand built from these fields (:mod:`calculators.commands`);
            empty: none.
        cli_fields: options of that subcommand the form lacks (each named, with its reason, in
            :data:`calculators.commands.CLI_ONLY`); the form's inputs it lacks are in ``FORM_ONLY``.
    """

    name: str
    title: str
    fields: tuple[Field, ...]
    compute: Callable[[Values], Any]
    render: Callable[[Any], str]
    aliases: Mapping[str, str] = dataclasses.field(default_factory=dict)
    engines: tuple[Callable[..., Any], ...] = ()
    own_defaults: Mapping[str, str] = dataclasses.field(default_factory=dict)
    command: str = ""
    cli_fields: tuple[Field, ...] = ()

    def field(self, name: str) -> Field:
        """The field called ``name``; raises :class:`InputError` naming it otherwise."""
        for item in self.fields:
            if item.name == name:
                return item
        raise UnknownNameError(name, name, [item.name for item in self.fields])

    def values(self, raw: Mapping[str, object]) -> dict[str, Value]:
        """Check form values (strings) and return engine-ready values; absent ones take the default.

        Fields hidden by ``show_when`` take their default, so a bad value left in a hidden
        input does not block the visible ones.
        """
        names = [item.name for item in self.fields]
        for key in raw:
            if key not in names:
                raise InputError(str(key), raw[key], f"an input of {self.name}: {', '.join(names)}")
        chosen = {item.name: raw.get(item.name) for item in self.fields}
        values: dict[str, Value] = {}
        for item in self.fields:
            if item.show_when is not None:
                other, wanted = item.show_when
                if str(chosen.get(other, self.field(other).default)) not in wanted.split("|"):
                    values[item.name] = item.default
                    continue
            values[item.name] = item.check(chosen[item.name])
        return values

    def run(self, raw: Mapping[str, object]) -> str:
        """Check ``raw``, compute and render: the HTML of the result.

        A custom model's result opens with what was read from its config.json
        (:func:`~calculators.widgets.views.config_echo`), for every calculator alike.
        """
        values = self.values(raw)
        html = self.render(self.compute(values))
        if values.get("model") == CUSTOM and "config" in values:
            html = config_echo_html(model_spec(values)) + html
        return html


# --------------------------------------------------------------------------- shared fields
#: The command line's help of a ``--model`` option.
MODEL_HELP = "catalog id (see 'mlhw models') or path to config.json"
#: The command line's help of a ``--gpu`` option that takes any GPU.
GPU_HELP = "GPU id (see 'mlhw gpus'), custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB"


def _model_field() -> Field:
    records = all_models()
    return choice_field(
        "model", "Model", default=DEFAULT_MODEL,
        choices=[record.id for record in records] + [CUSTOM],
        labels=[record.name for record in records] + ["Custom: paste or upload a config.json"],
        help="A catalogued model, or your own Hugging Face config.json.").option(MODEL_HELP, required=True)


def _config_field() -> Field:
    return config_field(
        "config", "config.json", show_when=("model", CUSTOM),
        help="Paste the text of a Hugging Face config.json or choose the file; it stays on this computer.")


def gpu_field(help: str = "The chart draws this GPU's memory as a dashed line.", *, default: str = DEFAULT_GPU,
              custom: bool = False, mac: bool = True) -> Field:
    """The shared "GPU" field (every catalog GPU, labelled with its memory), for any calculator.

    ``custom=True`` adds a "Custom GPU" choice (and a "Mac" one unless ``mac=False``); the
    calculator then takes :func:`custom_gpu_fields` too and reads the GPU with :func:`gpu_from_values`.
    """
    gpus = all_gpus()
    choices, labels = [gpu.id for gpu in gpus], [f"{gpu.name} ({gpu.memory_gib:g} GiB)" for gpu in gpus]
    if custom:
        choices.append(CUSTOM_GPU)
        labels.append("Custom GPU: enter its memory, bandwidth and TFLOPS")
        if mac:
            choices.append(MAC_GPU)
            labels.append("Mac (Apple silicon): enter its unified memory")
    return choice_field("gpu", "GPU", default=default, choices=choices, labels=labels, help=help)


#: The catalog GPUs whose figures a "Custom GPU" and a "Mac" start from (the reader overwrites them).
CUSTOM_START, MAC_START = "rtx-4090", "m4-max"


def custom_gpu_fields(*, mac: bool = True) -> tuple[Field, ...]:
    """The numbers of a "Custom GPU" or a "Mac", shown only when that choice of the GPU field is made.

    They start from a catalog GPU's figures (:data:`CUSTOM_START`, :data:`MAC_START`), said in the help.
    """
    start, apple = get_gpu(CUSTOM_START), get_gpu(MAC_START)
    custom, mac_shown = ("gpu", CUSTOM_GPU), ("gpu", MAC_GPU)
    blank = "Leave blank if unknown."

    def tflops(value: float | None) -> str:
        return "" if value is None else f"{value / 1e12:g}"

    fields = (
        float_field("gpu_memory_gb", "GPU memory", default=start.memory_gib, minimum=MIN_FIGURE, maximum=MAX_MEMORY_GB,
                    unit="GiB", show_when=custom,
                    help=f"Starts at the {start.name}'s figures. As the vendor's 'GB' (memory chips come in GiB)."),
        float_field("gpu_bandwidth_gbps", "Memory bandwidth", default=start.memory_bandwidth_bytes_per_s / 1e9,
                    minimum=MIN_FIGURE, maximum=MAX_BANDWIDTH_GBPS, unit="GB/s", show_when=custom),
        text_field("gpu_bf16_tflops", "Dense BF16 TFLOPS", default=tflops(start.bf16_dense_flop_per_s),
                   show_when=custom, help="Dense, not the 'with sparsity' headline. " + blank),
        text_field("gpu_fp16_tflops", "Dense FP16 TFLOPS", default=tflops(start.fp16_dense_flop_per_s),
                   show_when=custom, help=blank),
        text_field("gpu_fp8_tflops", "Dense FP8 TFLOPS", default=tflops(start.fp8_dense_flop_per_s),
                   show_when=custom, help=blank),
        text_field("gpu_compute_capability", "CUDA compute capability", default=start.compute_capability or "",
                   show_when=custom, help="e.g. 8.9; decides bf16/fp8 support. " + blank),
        text_field("gpu_usable_gb", "Usable memory (GiB)", default="", show_when=custom,
                   help="torch.cuda.mem_get_info() total. Blank: the H100's measured share of the capacity."),
    )
    if not mac:
        return fields
    return fields + (
        float_field("mac_memory_gb", "Unified memory", default=64.0, minimum=MIN_FIGURE, maximum=MAX_MEMORY_GB, unit="GB",
                    show_when=mac_shown, help="The GPU gets macOS's default share: 2/3 up to 36 GB, 3/4 above."),
        text_field("mac_bandwidth_gbps", "Memory bandwidth (GB/s)",
                   default=f"{apple.memory_bandwidth_bytes_per_s / 1e9:g}", show_when=mac_shown,
                   help=f"Starts at the {apple.name}'s figure; Apple lists it per chip. Blank: memory answers only."),
    )


def gpu_from_values(values: Values) -> GPU:
    """The GPU chosen in ``values``: a catalog GPU, or the custom GPU or Mac its numbers describe.

    Errors name the form input (``gpu_bf16_tflops``), which the page shows by its label.
    """
    choice = str(values["gpu"])
    if choice not in (CUSTOM_GPU, MAC_GPU):
        return get_gpu(choice)

    def optional(name: str) -> str | None:
        text = str(values.get(name, "")).strip()
        return text or None

    if choice == MAC_GPU:
        pairs = {"memory_gb": f"{float(values['mac_memory_gb']):g}", "bandwidth_gbps": optional("mac_bandwidth_gbps")}
        prefix, form = "mac:", {"memory_gb": "mac_memory_gb", "bandwidth_gbps": "mac_bandwidth_gbps"}
    else:
        pairs = {"memory_gb": f"{float(values['gpu_memory_gb']):g}",
                 "bandwidth_gbps": f"{float(values['gpu_bandwidth_gbps']):g}",
                 **{key: optional(f"gpu_{key}") for key in ("bf16_tflops", "fp16_tflops", "fp8_tflops",
                                                            "compute_capability", "usable_gb")}}
        prefix, form = "custom:", {key: f"gpu_{key}" for key in pairs}
    for key, text in pairs.items():
        if text is not None and ("," in text or "=" in text):
            raise InputError(form[key], text, "a number")
    description = prefix + ",".join(f"{key}={text}" for key, text in pairs.items() if text is not None)
    try:
        return resolve_gpu(description)
    except InputError as error:
        raise error.renamed(form.get(error.field, "gpu")) from None




def model_field() -> Field:
    """The shared "Model" field (catalog ids plus ``custom``), for plugin calculators."""
    return _model_field()


def model_config_field() -> Field:
    """The shared config.json field shown for a ``custom`` model, for plugin calculators."""
    return _config_field()


def model_spec(values: Values) -> ModelSpec:
    """The model chosen in ``values``: a catalog entry, or the shapes of the pasted config."""
    if values["model"] == CUSTOM:
        return spec_from_config_text(str(values.get("config", "")))
    from calculators.catalog.models import get_model

    return get_model(str(values["model"]))


def spec_from_config_text(text: str) -> ModelSpec:
    """Parse the text of a ``config.json``; errors name ``config`` or ``config.<key>``.

    >>> spec_from_config_text('{"model_type": "llama"')
    Traceback (most recent call last):
    ...
    calculators.errors.ConfigError: config.json: got "line 1 column 23: Expecting ',' delimiter"; expected valid JSON ...
    """
    if not text.strip():
        raise InputError("config", "", "the text of a Hugging Face config.json (paste it or choose the file)")
    data = load_config_text(text)  # within calculators.config_input's limits; never a path
    name = data.get("_name_or_path")
    if not isinstance(name, str) or not name.strip():
        # No name in the file: say what it is (its architecture) rather than "Custom model".
        architectures = data.get("architectures")
        kind = architectures[0] if isinstance(architectures, list) and architectures and isinstance(
            architectures[0], str) else data.get("model_type")
        name = f"Custom {kind}" if isinstance(kind, str) and kind.strip() else "Custom model"
    return spec_from_config(data, name=name.strip()[:80])


# --------------------------------------------------------------------------- training
def _allocator_field(setup: Callable[..., Any], show_when: tuple[str, str] | None = None) -> Field:
    return choice_field("allocator", "PyTorch allocator", choices=ALLOCATORS, default=default_of(setup, "allocator"),
                        advanced=True, show_when=show_when,
                        help="expandable_segments (PYTORCH_CUDA_ALLOC_CONF) removes the fragmentation reserve: "
                             "modelled, not measured.").option(
        f"PyTorch caching allocator: one of {', '.join(ALLOCATORS)}")


def _attention_field(attentions: tuple[str, ...], default: str) -> Field:
    return choice_field("attention", "Attention kernel", choices=attentions, default=default, advanced=True,
                        help="eager materialises the S x S attention scores.").option(f"one of {', '.join(attentions)}")


def _training_inputs(show_when: tuple[str, str] | None = None) -> tuple[Field, ...]:
    """The settings of a training step, as :func:`~calculators.memory.training_inputs.training_setup` takes them
    (the model and the GPU aside), each shown only when ``show_when`` holds."""
    setup = training_inputs.training_setup

    def default(name: str) -> Any:
        return default_of(setup, name)

    def one_of(choices: Sequence[str]) -> str:
        return f"one of {', '.join(choices)}"

    return (
        choice_field("method", "Method", choices=training_inputs.METHODS, default=default("method"),
                     show_when=show_when,
                     help="full: every weight trains; lora: adapters on a 16-bit base; qlora: on a 4-bit base."
                     ).option(one_of(training_inputs.METHODS)),
        choice_field("precision", "Precision", choices=training_inputs.PRECISIONS, default=default("precision"),
                     show_when=show_when, help="-mixed: fp32 master weights with 16-bit autocast."
                     ).option(one_of(training_inputs.PRECISIONS)),
        choice_field("optimizer", "Optimizer", choices=list(OPTIMIZERS), default=default("optimizer"),
                     show_when=show_when).option(one_of(list(OPTIMIZERS))),
        int_field("batch", "Micro-batch", default=default("batch"), maximum=training_inputs.MAX_BATCH,
                  unit="sequences per GPU", show_when=show_when).option("micro-batch per GPU (sequences)"),
        int_field("seq", "Sequence length", default=default("seq"), maximum=training_inputs.MAX_SEQ, unit="tokens",
                  show_when=show_when).option("sequence length in tokens"),
        bool_field("grad_checkpointing", "Gradient checkpointing", default=default("grad_checkpointing"),
                   show_when=show_when, help="Keep one tensor per layer and recompute the rest in backward."
                   ).option("recompute activations in backward"),
        _attention_field(training_inputs.ATTENTIONS, default("attention")),
        int_field("lora_rank", "LoRA rank", default=default("lora_rank"), maximum=training_inputs.MAX_RANK,
                  advanced=True, show_when=show_when, help="Used by lora and qlora only.").option("LoRA rank r"),
        text_field("lora_targets", "LoRA targets", default=",".join(default("lora_targets")), advanced=True,
                   show_when=show_when,
                   help="Comma-separated projections: " + ",".join(training_inputs.DEFAULT_LORA_TARGETS) + "."
                   ).option("comma-separated: q,k,v,o,gate,up,down"),
        int_field("grad_accumulation", "Gradient accumulation", default=default("grad_accumulation"),
                  maximum=MAX_GRAD_ACCUMULATION, unit="micro-batches per step", advanced=True, show_when=show_when
                  ).option("micro-batches per optimizer step"),
        int_field("gpus", "Data-parallel GPUs", default=default("gpus"), maximum=training_inputs.MAX_GPUS,
                  advanced=True, show_when=show_when).option("data-parallel GPUs"),
        choice_field("zero", "ZeRO stage", choices=training_inputs.ZERO_STAGES, default=default("zero"), advanced=True,
                     show_when=show_when,
                     help="0 is plain DDP; 1 shards optimizer state, 2 also gradients, 3 also weights."
                     ).option("ZeRO stage 0-3 (0 = plain DDP)"),
        _allocator_field(setup),
    )


def _base_dtype_field(show_when: tuple[str, str] | None = None) -> Field:
    """``--base-dtype``: the command line's override of the frozen base (see ``CLI_ONLY``)."""
    return cli_field("base_dtype", f"frozen base for lora/qlora: {', '.join(training_inputs.BASE_DTYPES)}; "
                                   "auto: bf16, nf4 for qlora", show_when=show_when)


def _training_fields() -> tuple[Field, ...]:
    return (_model_field(), _config_field(), gpu_field(custom=True), *custom_gpu_fields(), *_training_inputs())


def engine_settings(fields: Sequence[Field], values: Values) -> dict[str, Any]:
    """The engine's keywords in checked ``values``: each field's value under the keyword it feeds,
    for every field but the model, its config and the GPU (which the compute function resolves).

    A number whose "none" choice is taken (``none_label``; it checks to 0) is ``None``: the engine
    chooses. A field in other units than its keyword (``scale`` of them per keyword unit) is converted.

    >>> calculator = get_calculator("interconnect")
    >>> settings = engine_settings(calculator.fields, calculator.values({"latency_us": "5", "mfu": "none"}))
    >>> settings["latency_s"], settings["mfu"], settings["zero"]
    (5e-06, None, '0')
    """
    settings: dict[str, Any] = {}
    for field in fields:
        if field.name in _NOT_SETTINGS:
            continue
        value: Any = values[field.name]
        if field.none_label and float(value) == 0:
            value = None
        elif field.scale != 1.0:
            value = float(value) / field.scale
        settings[field.engine_keyword] = value
    return settings


def _compute_training(values: Values) -> MemoryView:
    spec = model_spec(values)
    estimate = training.training_memory(spec, **engine_settings(_training_inputs(), values))
    gpu = gpu_from_values(values)
    notes = _format_notes(lambda: training_notes(gpu, precision=str(values["precision"]), method=str(values["method"])))
    return MemoryView(spec=spec, job="training", estimate=dataclasses.replace(estimate, notes=estimate.notes + notes),
                      gpu=gpu)


def _format_notes(check: Callable[[], tuple[str, ...]]) -> tuple[str, ...]:
    """How the chosen GPU runs the job's formats; memory is the same on any GPU, so a format it lacks is a note."""
    try:
        return check()
    except UnsupportedFormatError as error:
        return (f"the chosen GPU cannot run this job: {error.accepted.split(' runs: ', 1)[-1]}",)


# --------------------------------------------------------------------------- inference
def _inference_fields(*, show_when: tuple[str, str] | None = None) -> tuple[Field, ...]:
    """The settings of prefill + decode, as :func:`~calculators.memory.inference.inference_setup` takes them."""
    setup = inference.inference_setup

    def default(name: str) -> Any:
        return default_of(setup, name)

    return (
        choice_field("weights", "Weights", choices=inference.WEIGHT_DTYPES, default=default("weights"),
                     show_when=show_when, help="Storage format of the weights (int4/int8/fp8: quantised linears)."
                     ).option(f"one of {', '.join(inference.WEIGHT_DTYPES)}"),
        choice_field("kv_cache", "KV cache", choices=inference.KV_DTYPES, default=default("kv_cache"),
                     show_when=show_when).option(f"one of {', '.join(inference.KV_DTYPES)}"),
        int_field("batch", "Batch", default=default("batch"), maximum=inference.MAX_BATCH,
                  unit="concurrent sequences", show_when=show_when).option("concurrent sequences"),
        int_field("context", "Prompt length", default=default("context"), maximum=inference.MAX_CONTEXT,
                  unit="tokens", show_when=show_when).option("prompt tokens per sequence"),
        int_field("new_tokens", "New tokens", default=default("new_tokens"), minimum=0,
                  maximum=inference.MAX_CONTEXT - 1, unit="tokens per sequence", show_when=show_when
                  ).option("generated tokens per sequence"),
        _attention_field(inference.ATTENTIONS, default("attention")),
        _allocator_field(setup),
    )


def _compute_inference(values: Values) -> MemoryView:
    spec = model_spec(values)
    estimate = inference.inference_memory(spec, **engine_settings(_inference_fields(), values))
    gpu = gpu_from_values(values)
    notes = _format_notes(lambda: serving_notes(gpu, weights=str(values["weights"]), kv_cache=str(values["kv_cache"])))
    return MemoryView(spec=spec, job="inference", estimate=dataclasses.replace(estimate, notes=estimate.notes + notes),
                      gpu=gpu)


# --------------------------------------------------------------------------- KV cache
def _kv_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(inference.inference_setup, name)

    return (
        _model_field(), _config_field(), gpu_field(custom=True), *custom_gpu_fields(),
        choice_field("kv_dtype", "KV cache", choices=inference.KV_DTYPES,
                     default=default_of(inference.kv_cache_bytes, "kv_dtype")),
        int_field("batch", "Batch", default=default("batch"), maximum=inference.MAX_BATCH,
                  unit="concurrent sequences"),
        int_field("context", "Context", default=default("context"), maximum=inference.MAX_CONTEXT,
                  unit="tokens per sequence"),
        choice_field("weights", "Weights (for scale)", choices=inference.WEIGHT_DTYPES, default=default("weights"),
                     help="Drawn beside the cache so the chart shows what is left of the GPU."),
    )


def _compute_kv(values: Values) -> KVCacheView:
    spec = model_spec(values)
    kv_dtype, batch, context = str(values["kv_dtype"]), int(values["batch"]), int(values["context"])
    return KVCacheView(
        spec=spec, kv_dtype=kv_dtype, batch=batch, context=context,
        bytes_per_token=inference.kv_cache_bytes_per_token(spec, kv_dtype=kv_dtype),
        bytes_per_sequence=inference.kv_cache_bytes(spec, batch=1, context=context, kv_dtype=kv_dtype),
        total_bytes=inference.kv_cache_bytes(spec, batch=batch, context=context, kv_dtype=kv_dtype),
        weights_dtype=str(values["weights"]), weight_bytes=weight_bytes(spec, dtype=str(values["weights"])),
        gpu=gpu_from_values(values),
    )


# --------------------------------------------------------------------------- fit
#: The two jobs the fit calculator sizes.
FIT_JOBS = ("inference", "training")


def _fit_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(training_inputs.training_setup, name)

    shared = ("batch", "attention", "allocator")
    when = {job: ("job", job) for job in FIT_JOBS}
    return (
        _model_field(), _config_field(),
        choice_field("job", "Job", choices=FIT_JOBS, default=FIT_JOBS[0]),
        gpu_field("Highlighted in the table and drawn on the chart.", custom=True).option(
            f"{GPU_HELP}; default: every GPU in the catalog"),
        *custom_gpu_fields(),
        int_field("batch", "Batch", default=default("batch"),
                  maximum=min(training_inputs.MAX_BATCH, inference.MAX_BATCH), unit="sequences").option(
            "inference: concurrent sequences; training: micro-batch per GPU (sequences)"),
        *(field for field in _inference_fields(show_when=when["inference"]) if field.name not in shared),
        *(field for field in _training_inputs(show_when=when["training"]) if field.name not in shared),
        _attention_field(training_inputs.ATTENTIONS, default("attention")),
        _allocator_field(training_inputs.training_setup),
    )


def fit_job_fields(fields: Sequence[Field], job: str) -> tuple[Field, ...]:
    """The fields of the fit calculator's engine settings for ``job`` (``training``: what
    :func:`~calculators.fit.fit_training` takes besides the model and the GPU).

    >>> [field.name for field in fit_job_fields(get_calculator("fit").fields, "inference")]
    ['batch', 'weights', 'kv_cache', 'context', 'new_tokens', 'attention', 'allocator']
    """
    return tuple(field for field in fields if field.name not in _NOT_SETTINGS
                 and (field.show_when is None or field.show_when == ("job", job)))


def _compute_fit(values: Values) -> FitView:
    spec = model_spec(values)
    job = str(values["job"])
    settings = engine_settings(fit_job_fields(get_calculator("fit").fields, job), values)
    fit: Callable[..., FitResult] = fit_training if job == "training" else fit_inference
    # GPUs with the same usable memory and runtime give the same answer: compute once for each.
    # Each GPU runs its own 16-bit format (bf16, else fp16: same bytes); one that cannot run the job is named.
    by_memory: dict[tuple[int, bool, str], FitResult] = {}
    rows: list[tuple[GPU, FitResult]] = []
    refused: list[str] = []
    for gpu in all_gpus():
        key = (usable_memory_bytes(gpu), gpu.vendor == "Apple", sixteen_bit(gpu))
        if key not in by_memory:
            try:
                by_memory[key] = fit(spec, gpu, **on_gpu(gpu, settings))
            except UnsupportedFormatError as error:
                refused.append(f"{gpu.name} cannot run this job: {error.accepted}")
                continue
        result = by_memory[key]
        rows.append((gpu, dataclasses.replace(result, gpu_id=gpu.id)))
    chosen = gpu_from_values(values)
    if isinstance(chosen, CustomGPU):  # your own GPU is a row of its own, with the formats asked
        rows.append((chosen, fit(spec, chosen, **settings)))
    if not rows:
        raise InputError("weights" if job == "inference" else "precision", settings.get("weights", "?"),
                         "a format some GPU runs: " + "; ".join(refused))
    return FitView(spec=spec, job=job, rows=tuple(rows), gpu=chosen, refused=tuple(refused))


# --------------------------------------------------------------------------- registry
def _build() -> dict[str, Calculator]:
    calculators = [
        Calculator("training-memory", "Training memory", _training_fields(), _compute_training, memory_html,
                   engines=(training_inputs.training_setup,), own_defaults={"gpu": CHART_GPU}, command="train",
                   cli_fields=(_base_dtype_field(),)),
        Calculator("inference-memory", "Inference memory", (_model_field(), _config_field(), gpu_field(custom=True),
                                                             *custom_gpu_fields(),
                                                            *_inference_fields()), _compute_inference, memory_html,
                   engines=(inference.inference_setup,), own_defaults={"gpu": CHART_GPU}, command="infer"),
        Calculator("kv-cache", "KV cache", _kv_fields(), _compute_kv, kv_cache_html,
                   engines=(inference.inference_setup, inference.kv_cache_bytes), own_defaults={"gpu": CHART_GPU}),
        Calculator("fit", "Which GPUs does it fit?", _fit_fields(), _compute_fit, fit_html,
                   engines=(training_inputs.training_setup, inference.inference_setup, fit_training, fit_inference),
                   own_defaults={"job": "picks the engine (fit_inference or fit_training), so no engine has it",
                                 "gpu": "the GPU highlighted; the engine is run on every catalog GPU"},
                   command="fit", cli_fields=(_base_dtype_field(show_when=("job", "training")),)),
    ]
    # Calculators of other subjects live in calculators.widgets.plugins, one module each.
    from calculators.widgets import plugins

    for info in sorted(pkgutil.iter_modules(plugins.__path__), key=lambda item: item.name):
        module = importlib.import_module(f"{plugins.__name__}.{info.name}")
        calculators.extend(module.calculators())
    registry: dict[str, Calculator] = {}
    for calculator in calculators:
        if calculator.name in registry:
            raise ValueError(f"widget calculator {calculator.name!r} is defined twice")
        registry[calculator.name] = calculator
    return registry


@functools.cache
def _registry() -> dict[str, Calculator]:
    # Built on first use (importing the package does no work) and memoised: it is a
    # pure function of the engine's constants and catalogs.
    return _build()


def calculator_names() -> list[str]:
    """Names of every calculator, in registry order."""
    return list(_registry())


def get_calculator(name: str) -> Calculator:
    """The calculator called ``name``; raises :class:`UnknownNameError` (field ``calculator``)."""
    registry = _registry()
    if not isinstance(name, str) or name not in registry:
        raise UnknownNameError("calculator", str(name), list(registry))
    return registry[name]
