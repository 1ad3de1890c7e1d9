"""The inputs most calculators share, declared once for every face: the model and the GPU.

The model is a catalog id or ``custom`` with a pasted config.json (:func:`model_field`,
:func:`model_config_field`); the GPU a catalog id, or a custom GPU or a Mac given by its numbers
(:func:`gpu_field`, :func:`custom_gpu_fields`). The command line takes the same two as
``--model`` (an id or a path) and ``--gpu`` (an id or a ``custom:``/``mac:`` description); both
faces read what was given through :func:`calculators.inputs.model.resolve_model` and
:func:`calculators.inputs.gpu.resolve_gpu`.

>>> [field.name for field in model_and_gpu_fields()][:3]
['model', 'config', 'gpu']
>>> {field.faces for field in custom_gpu_fields()}
{('form',)}
"""

from __future__ import annotations

import dataclasses

from calculators.catalog.custom_gpu import MAX_BANDWIDTH_GBPS, MAX_MEMORY_GB, MIN_FIGURE
from calculators.catalog.gpus import all_gpus, get_gpu
from calculators.catalog.models import all_models
from calculators.inputs.fields import Field, choice_field, config_field, float_field, text_field

#: The ``model`` choice that reads the shapes from a pasted or uploaded ``config.json``.
CUSTOM = "custom"
#: Model and GPU the widgets open with (any catalog ids work).
DEFAULT_MODEL = "llama-3-8b"
DEFAULT_GPU = "h100-sxm"
#: The GPU choices that reveal :func:`custom_gpu_fields`.
CUSTOM_GPU = "custom"
MAC_GPU = "mac"
#: Why the GPU of a form whose engine takes one without a default is not read from the engine.
ENGINE_GPU = "the engine takes a GPU without a default; the form opens on DEFAULT_GPU"
#: The names of :func:`custom_gpu_fields` (a test checks the two agree).
CUSTOM_GPU_NAMES = ("gpu_memory_gb", "gpu_bandwidth_gbps", "gpu_bf16_tflops", "gpu_fp16_tflops", "gpu_fp8_tflops",
                    "gpu_compute_capability", "gpu_usable_gb", "mac_memory_gb", "mac_bandwidth_gbps")

#: The command line's help of a ``--model`` option.
MODEL_HELP = "catalog id (see 'mlhw models') or path to config.json"
#: The command line's help of a ``--gpu`` option that takes any GPU.
GPU_HELP = "GPU id (see 'mlhw gpus'), custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB"


def model_field() -> Field:
    """The shared "Model" field (catalog ids plus ``custom``), for any calculator."""
    records = all_models()
    return choice_field(
        "model", "Model", default=DEFAULT_MODEL,
        choices=[record.id for record in records] + [CUSTOM],
        labels=[record.name for record in records] + ["Custom: paste or upload a config.json"],
        help="A catalogued model, or your own Hugging Face config.json.").option(MODEL_HELP, required=True)


def model_config_field() -> Field:
    """The shared config.json field shown for a ``custom`` model, for any calculator."""
    return config_field(
        "config", "config.json", show_when=("model", CUSTOM),
        help="Paste the text of a Hugging Face config.json or choose the file; it stays on this computer.")


def gpu_field(help: str = "The chart draws this GPU's memory as a dashed line.", *, default: str = DEFAULT_GPU,
              custom: bool = False, mac: bool = True) -> Field:
    """The shared "GPU" field (every catalog GPU, labelled with its memory), for any calculator.

    ``custom=True`` adds a "Custom GPU" choice (and a "Mac" one unless ``mac=False``); the
    calculator then takes :func:`custom_gpu_fields` too (the web face reads them with
    :func:`calculators.jobs.values.gpu_from_values`).
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
    They are the form's only: the command line spells them in one ``--gpu custom:memory_gb=N,...`` or ``mac:GB``.
    """
    start, apple = get_gpu(CUSTOM_START), get_gpu(MAC_START)
    custom, mac_shown = ("gpu", CUSTOM_GPU), ("gpu", MAC_GPU)
    blank = "Leave blank if unknown."

    def tflops(value: float | None) -> str:
        return "" if value is None else f"{value / 1e12:g}"

    fields: tuple[Field, ...] = (
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
    if mac:
        fields += (
            float_field("mac_memory_gb", "Unified memory", default=64.0, minimum=MIN_FIGURE, maximum=MAX_MEMORY_GB,
                        unit="GB", show_when=mac_shown,
                        help="The GPU gets macOS's default share: 2/3 up to 36 GB, 3/4 above."),
            text_field("mac_bandwidth_gbps", "Memory bandwidth (GB/s)",
                       default=f"{apple.memory_bandwidth_bytes_per_s / 1e9:g}", show_when=mac_shown,
                       help=f"Starts at the {apple.name}'s figure; Apple lists it per chip. Blank: memory answers only."),
        )
    return tuple(dataclasses.replace(field, faces=("form",)) for field in fields)


def model_and_gpu_fields(*, mac: bool = True) -> tuple[Field, ...]:
    """The model (or its config.json) and a GPU the engine requires (a catalog GPU, a custom GPU, a Mac
    unless ``mac=False``), with the custom GPU's numbers: the first inputs of a speed or time calculator."""
    return (model_field(), model_config_field(),
            gpu_field(help="", custom=True, mac=mac).option(GPU_HELP, required=True), *custom_gpu_fields(mac=mac))
