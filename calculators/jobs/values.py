"""How a calculator's checked values become the model, the GPU and the engine's keywords, on either face.

The inputs are declared once for every face (:mod:`calculators.inputs.shared`); a form gives
the model as a catalog id or a pasted config.json, and a custom GPU or a Mac as separate
numbers, which :func:`gpu_from_values` writes as the ``custom:``/``mac:`` description the
command line takes; the command line gives an id or a path, and that description. Both end in
the one reading of each (:mod:`calculators.inputs`).

>>> spec = model_spec({"model": "llama-3-8b"})
>>> spec.name, gpu_from_values({"gpu": "h100-sxm"}).id
('Llama 3 8B', 'h100-sxm')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.config_input import load_config_text
from calculators.errors import InputError
from calculators.inputs.fields import Field
from calculators.inputs.gpu import resolve_gpu
from calculators.inputs.model import resolve_model
from calculators.inputs.shared import CUSTOM, CUSTOM_GPU, CUSTOM_GPU_NAMES, DEFAULT_GPU, MAC_GPU
from calculators.model import ModelSpec
from calculators.validate import AUTO as AUTO

#: A calculator's checked values by input name, as :meth:`calculators.jobs.calculator.Calculator.values` returns
#: them: a :data:`~calculators.inputs.fields.Value` each, :data:`OMITTED` for an option the command line left to the
#: engine, a tuple of texts for a repeated option.
Values = Mapping[str, Any]


class Omitted:
    """The value of an option the command line left out: the engine's own choice (never a value typed)."""

    def __repr__(self) -> str:
        return "OMITTED"


#: The one :class:`Omitted`.
OMITTED = Omitted()
#: The inputs the front door reads as the user wrote them (an id, a path, ``custom:...``), not as a form's choice.
FRONT_DOOR = ("model", "gpu")
#: Inputs that are not an engine's settings: the model, its config.json, the GPU, the fit calculator's job.
NOT_SETTINGS = frozenset(("model", "config", "gpu", "job", *CUSTOM_GPU_NAMES))


def engine_settings(fields: Sequence[Field], values: Values) -> dict[str, Any]:
    """The engine's keywords in checked ``values``: each field's value under the keyword it feeds,
    for every field but the model, its config and the GPU (which the compute function resolves).

    A number whose "none" choice is taken (``none_label``; it checks to 0) is ``None``: the engine
    chooses; so is an option the command line left out (:data:`OMITTED`). A field in other units than its keyword (``scale`` of them per keyword unit) is
    converted.

    >>> from calculators.jobs.registry import get_calculator
    >>> calculator = get_calculator("interconnect")
    >>> settings = engine_settings(calculator.fields, calculator.values({"latency_us": "5", "mfu": "none"}))
    >>> settings["latency_s"], settings["mfu"], settings["gpus"]
    (5e-06, None, 8)
    """
    settings: dict[str, Any] = {}
    for field in fields:
        if field.name in NOT_SETTINGS or field.name not in values:  # an input of the other face is absent
            continue
        value: Any = values[field.name]
        if value is OMITTED:
            value = None
        elif field.none_label and not isinstance(value, str) and float(value) == 0:
            value = None  # the "none" choice (a zero the command line typed stays text: the engine judges it)
        elif field.scale != 1.0:
            value = float(value) / field.scale
        settings[field.engine_keyword] = value
    return settings


def given(values: Values, name: str) -> Any:
    """The value of input ``name``, or ``None`` where it is absent (an input of the other face) or left to the
    engine (:data:`OMITTED`).

    >>> given({"tokens": 10**9, "gpu_hours": OMITTED}, "gpu_hours"), given({}, "tokens"), given({"tokens": 5}, "tokens")
    (None, None, 5)
    """
    value = values.get(name)
    return None if value is None or value is OMITTED else value


def gpus_named(texts: Sequence[str], *, field: str = "gpus") -> tuple[GPU, ...]:
    """The GPUs a repeated option names (``mlhw recommend --gpu a --gpu custom:...``), each read by the front door.

    >>> [gpu.id for gpu in gpus_named(["h100-sxm", "rtx-4090"])]
    ['h100-sxm', 'rtx-4090']
    """
    return tuple(resolve_gpu(text, field=field) for text in texts)


def gpu_from_values(values: Values) -> GPU:
    """The GPU chosen in ``values``: a catalog GPU, or the custom GPU or Mac its numbers describe; the form's
    default (:data:`~calculators.inputs.shared.DEFAULT_GPU`) where the command line names none.

    Errors name the form input (``gpu_bf16_tflops``), which the page shows by its label.
    """
    choice = str(values["gpu"]) if given(values, "gpu") is not None else DEFAULT_GPU
    if choice not in (CUSTOM_GPU, MAC_GPU):
        try:
            return resolve_gpu(choice)
        except InputError as error:  # a key of a description the command line gave: "gpu memory_gb"
            if error.field == "gpu":
                raise
            raise error.renamed(f"gpu {error.field}") from None

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


def model_spec(values: Values) -> ModelSpec:
    """The model chosen in ``values``: a catalog entry, or the shapes of the pasted config."""
    if values["model"] == CUSTOM:
        return spec_from_config_text(str(values.get("config", "")))
    return resolve_model(str(values["model"]))


def spec_from_config_text(text: str) -> ModelSpec:
    """Read the pasted text of a ``config.json`` (never a path); errors name ``config`` or ``config.<key>``.

    A config without ``_name_or_path`` is named by its architecture (``Custom LlamaForCausalLM``).

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
    return resolve_model(data, field="config", name=name.strip()[:80])
