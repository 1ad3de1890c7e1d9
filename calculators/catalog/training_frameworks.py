"""Training frameworks as inputs: the software a training run uses, and the utilisation it reaches.

How close a training step gets to a GPU's dense rate depends on the software as much as on
the GPU. The published runs fall in two groups:

* ``megatron``: Megatron-Core with Transformer Engine (Megatron-LM, NeMo, NeMo
  Megatron-Bridge): fused kernels (attention, layer norm with the next matmul, bias with the
  activation), and tensor- and data-parallel communication overlapped with compute by design;
* ``pytorch``: PyTorch FSDP-family frameworks built from stock PyTorch modules
  (torchtitan, llm-foundry/Composer, torchtune, NeMo AutoModel, Hugging Face Trainer + PEFT,
  DeepSpeed), with less fusion and, in eager mode, one kernel launch per operation.

The utilisation factor of each is fitted on published runs
(:mod:`calculators.performance.utilisation`; the values and the records behind them in
:mod:`calculators.catalog.utilisation_fit`). ``pytorch`` is the default and the reference (factor
1): it is what most published runs use, and the lower of the two, so a user who names no
framework is not promised Megatron's speed.

>>> get_training_framework("megatron").name
'Megatron-Core + Transformer Engine (Megatron-LM, NeMo, Megatron-Bridge)'
>>> training_framework_ids()
('pytorch', 'megatron')

References:
    Megatron-Core documentation (https://docs.nvidia.com/megatron-core/developer-guide/latest/);
    torchtitan (Liang et al. 2024, arXiv:2410.06511); the sources of each record in
    tests/data/published_speed/training.jsonl.
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError

_READ = "2026-11-25"


@dataclass(frozen=True)
class TrainingFramework:
    """One group of training frameworks whose published runs share a utilisation factor.

    Attributes:
        id: short name, the ``framework`` input (``"pytorch"``, ``"megatron"``).
        name: the frameworks it stands for, in words.
        description: what makes its steps fast or slow, in a sentence.
        source: the framework's own document.
    """

    id: str
    name: str
    description: str
    source: Source


_FRAMEWORKS: tuple[TrainingFramework, ...] = (
    TrainingFramework(
        id="pytorch",
        name="PyTorch FSDP family (torchtitan, llm-foundry, torchtune, NeMo AutoModel, Hugging Face Trainer)",
        description="stock PyTorch modules sharded with FSDP (or DeepSpeed ZeRO), FlashAttention, optionally "
                    "torch.compile; the reference the utilisation is fitted for",
        source=Source("torchtitan: One-stop PyTorch native solution for production ready LLM pre-training "
                      "(Liang et al. 2024)", "https://arxiv.org/abs/2410.06511", _READ)),
    TrainingFramework(
        id="megatron",
        name="Megatron-Core + Transformer Engine (Megatron-LM, NeMo, Megatron-Bridge)",
        description="Megatron-Core's fused transformer layers on Transformer Engine kernels, with tensor-, "
                    "pipeline- and data-parallel communication overlapped with compute",
        source=Source("NVIDIA Megatron-Core developer guide", "https://docs.nvidia.com/megatron-core/"
                      "developer-guide/latest/", _READ)),
)

#: The framework assumed when none is named: the reference of the fit, and the slower of the two.
DEFAULT_FRAMEWORK = "pytorch"


def training_framework_ids() -> tuple[str, ...]:
    """Ids of every training framework group, the default first."""
    return tuple(f.id for f in _FRAMEWORKS)


def get_training_framework(framework_id: str) -> TrainingFramework:
    """The :class:`TrainingFramework` with this id (case and surrounding spaces ignored).

    Raises:
        UnknownNameError: no such framework (the message lists them).
    """
    key = str(framework_id).strip().lower()
    for framework in _FRAMEWORKS:
        if framework.id == key:
            return framework
    raise UnknownNameError("framework", str(framework_id), list(training_framework_ids()))
