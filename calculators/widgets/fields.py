"""The web face's part of the inputs: the readable text of each choice in a form's ``<select>``.

Inputs are declared once, for every face, as :class:`~calculators.inputs.fields.Field`
records (:mod:`calculators.inputs.fields`); the command line shows their ids, and the form
shows each id in words where the field gives no labels of its own (:func:`choice_texts`).

>>> from calculators.inputs.fields import choice_field
>>> choice_texts(choice_field("precision", "Precision", choices=["bf16-mixed", "fp32"], default="fp32"))
('bf16 mixed precision (fp32 master weights)', 'fp32 (32-bit everywhere)')
"""

from __future__ import annotations

from calculators.inputs.fields import Field

#: What a reader sees for the engine's ids where a field gives no labels of its own, by field
#: name then choice (``bf16-mixed`` reads "bf16 mixed precision (fp32 master weights)").
#: The value sent to the engine stays the id; an id not listed here is shown as it is.
_DTYPES = {"fp32": "fp32 (32-bit float)", "bf16": "bf16 (16-bit brain float)", "fp16": "fp16 (16-bit float)",
           "fp8": "fp8 (8-bit float)", "int8": "int8 (8-bit integer)", "int4": "int4 (4-bit integer)",
           "nf4": "nf4 (4-bit NormalFloat, QLoRA)"}
READABLE_CHOICES: dict[str, dict[str, str]] = {
    "method": {"full": "Full fine-tuning (every weight trains)", "lora": "LoRA (adapters on a 16-bit base)",
               "qlora": "QLoRA (adapters on a 4-bit base)"},
    "precision": {"fp32": "fp32 (32-bit everywhere)", "bf16-mixed": "bf16 mixed precision (fp32 master weights)",
                  "fp16-mixed": "fp16 mixed precision (fp32 master weights)", "bf16": "bf16 (pure 16-bit)",
                  "fp16": "fp16 (pure 16-bit)"},
    "attention": {"sdpa": "PyTorch SDPA (default)", "flash": "FlashAttention 2", "eager": "Eager (materialises S x S)"},
    "zero": {"0": "None: plain DDP (ZeRO-0)", "1": "ZeRO-1: shard optimizer states",
             "2": "ZeRO-2: also gradients", "3": "ZeRO-3 / FSDP: also weights"},
    "allocator": {"default": "Default caching allocator", "expandable_segments": "Expandable segments"},
    "weights": {"auto": "As the checkpoint stores them (quantization_config; bf16 without one)", **_DTYPES},
    "kv_cache": _DTYPES,
    "kv_dtype": _DTYPES,
    "grad_dtype": _DTYPES,
    "param_dtype": _DTYPES,
    "job": {"inference": "Inference (serving)", "training": "Training"},
    "optimizer": {"adamw": "AdamW (foreach, PyTorch default)", "adamw-fused": "AdamW (fused)",
                  "adamw-8bit": "AdamW 8-bit (bitsandbytes)", "paged-adamw-8bit": "Paged AdamW 8-bit (bitsandbytes)",
                  "sgd": "SGD with momentum", "adafactor": "Adafactor"},
    "interconnect": {"auto": "Automatic: the GPU's own link"},
}


def readable_choice(field_name: str, choice: str) -> str:
    """The text shown for ``choice`` of a field called ``field_name`` (the id itself when none is known).

    Interconnects (a link, a node's NIC) read their names from the catalog.

    >>> readable_choice("precision", "bf16-mixed")
    'bf16 mixed precision (fp32 master weights)'
    >>> readable_choice("interconnect", "pcie4"), readable_choice("colour", "red")
    ('PCI Express 4.0 x16', 'red')
    """
    known = READABLE_CHOICES.get(field_name, {})
    if choice in known:
        return known[choice]
    if field_name in ("interconnect", "nic"):
        from calculators.catalog.interconnects import all_interconnects

        for record in all_interconnects():
            if record.id == choice:
                return record.name
    if field_name == "weights":
        from calculators.errors import CalculatorError
        from calculators.memory.weight_formats import weight_format

        try:
            found = weight_format(choice)
        except CalculatorError:
            return choice
        kind = "GGUF" if found.is_gguf else choice.split("-")[0].upper()
        return f"{choice} ({kind}, {found.bits_per_weight:.3g} bits per weight)"
    return choice


def choice_texts(field: Field) -> tuple[str, ...]:
    """The text of each of ``field``'s choices: its own labels, else :func:`readable_choice` of each id."""
    return field.choice_labels or tuple(readable_choice(field.name, choice) for choice in field.choices)
