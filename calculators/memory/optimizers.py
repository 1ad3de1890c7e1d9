"""Optimizer state and step temporaries, in bytes per trainable parameter.

PyTorch keeps Adam's two moments in the parameter's dtype (fp32 for fp32 master weights,
bf16 for a pure-bf16 model). The default ``foreach`` AdamW step on CUDA computes
``sqrt(exp_avg_sq)`` for every parameter at once (``torch._foreach_sqrt``), a temporary
as large as the parameters; the fused kernel does not. That temporary is why full
fine-tuning with fp32 master weights peaks near 20 bytes per parameter
(4 weights + 4 gradients + 8 moments + 4 temporary), not 16.

>>> state = optimizer_bytes(optimizer="adamw", param_bytes=4)
>>> state.state_bytes_per_param, state.step_temp_bytes_per_param
(8.0, 4.0)
>>> optimizer_bytes(optimizer="adamw-8bit", param_bytes=4).state_bytes_per_param
2.03125
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.validate import one_of

#: Optimizers the calculators model, with a short description each.
OPTIMIZERS: dict[str, str] = {
    "adamw": "torch.optim.AdamW, foreach implementation (PyTorch's default on CUDA)",
    "adamw-fused": "torch.optim.AdamW(fused=True): one kernel, no full-size temporary",
    "adamw-8bit": "bitsandbytes AdamW8bit: 8-bit moments, blockwise fp32 scales",
    "paged-adamw-8bit": "bitsandbytes PagedAdamW8bit: 8-bit moments in unified memory that can page to host RAM",
    "sgd": "torch.optim.SGD with momentum 0.9 (foreach): one momentum buffer",
    "adafactor": "torch.optim.Adafactor: factored second moment (row + column), no first moment",
}

#: The rule behind each optimizer's bytes, as a reader-facing formula in ``p`` (the
#: parameter's bytes per element): (state per parameter, step temporary per parameter).
#: ``tests/engine/test_optimizer_formulas.py`` checks each against :func:`optimizer_bytes`.
OPTIMIZER_FORMULAS: dict[str, tuple[str, str]] = {
    "adamw": ("2 × p (two moments)", "p (square root of every second moment at once)"),
    "adamw-fused": ("2 × p", "0"),
    "adamw-8bit": ("2 × (1 + 4/256) (8-bit moments, one fp32 scale per 256 values)", "0"),
    "paged-adamw-8bit": ("2 × (1 + 4/256), in unified memory that can page to host RAM", "0"),
    "sgd": ("p (momentum buffer)", "0"),
    "adafactor": ("a row and a column vector per matrix (adafactor_state_bytes)", "p (foreach)"),
}

# bitsandbytes quantises each moment in blocks of 256 values with one fp32 absmax
# (bitsandbytes.functional.quantize_blockwise, blocksize 256 for optimizer states).
_BNB_BLOCK = 256


@dataclass(frozen=True)
class OptimizerBytes:
    """Per-parameter bytes of one optimizer.

    Attributes:
        state_bytes_per_param: persistent state (moments, momentum) per parameter.
        step_temp_bytes_per_param: temporary bytes alive during ``optimizer.step()``.
        paged: True when the state lives in unified memory that may page to host RAM.
    """

    state_bytes_per_param: float
    step_temp_bytes_per_param: float
    paged: bool = False


def optimizer_bytes(*, optimizer: str, param_bytes: int) -> OptimizerBytes:
    """Bytes per trainable parameter of optimizer state and of the step's temporaries.

    Formula: AdamW: ``2 x param_bytes`` state, plus ``param_bytes`` temporary (foreach);
    8-bit AdamW: ``2 x (1 + 4/256)``; SGD momentum: ``param_bytes``; Adafactor:
    ``~0`` per element (rows + columns), with a ``param_bytes`` temporary (foreach).

    Args:
        optimizer: one of :data:`OPTIMIZERS`.
        param_bytes: bytes per element of the trainable parameters (4 for fp32 master
            weights or LoRA adapters, 2 for a pure 16-bit model).
    """
    name = one_of("optimizer", optimizer, list(OPTIMIZERS))
    if name == "adamw":
        return OptimizerBytes(2.0 * param_bytes, float(param_bytes))
    if name == "adamw-fused":
        return OptimizerBytes(2.0 * param_bytes, 0.0)
    if name in ("adamw-8bit", "paged-adamw-8bit"):
        return OptimizerBytes(2.0 * (1.0 + 4.0 / _BNB_BLOCK), 0.0, paged=name.startswith("paged"))
    if name == "sgd":
        return OptimizerBytes(float(param_bytes), 0.0)
    # Adafactor keeps a row and a column vector per matrix: negligible per element.
    # Its foreach step (the CUDA default) materialises the variance estimate of every
    # parameter at once (torch/optim/_adafactor.py, ``var_estimates``): one
    # parameter-sized temporary, which becomes the update in place.
    return OptimizerBytes(0.0, float(param_bytes))


def adafactor_state_bytes(*, shapes: list[tuple[int, int]], param_bytes: int) -> int:
    """Adafactor's factored state: one row and one column vector per 2-D parameter.

    >>> adafactor_state_bytes(shapes=[(4096, 4096)], param_bytes=4)
    32768
    """
    return sum((rows + cols) * param_bytes for rows, cols in shapes)
