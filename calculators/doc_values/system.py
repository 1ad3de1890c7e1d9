"""Numbers in the prose of the System pages: docs/system/index.md, docs/system/data-and-storage.md and
docs/system/pytorch-basics.md.

The worked example of docs/system/index.md (an 8-GPU H100 node at 3,000 images/s) and the
CPU-inference example of docs/system/pytorch-basics.md are computed here with the inputs their
``pycon`` blocks use.

>>> system_example_host_ram().text
'640 GiB'
"""

from __future__ import annotations

from calculators import system
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.prices import all_offers
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity, value
from calculators.memory.inference import inference_memory
from calculators.system import EXAMPLE_AUGMENT_MS, EXAMPLE_BYTES_PER_SAMPLE, EXAMPLE_SAMPLES_PER_S

#: The worked example on docs/system/index.md (stated in its text and code) uses
#: system.EXAMPLE_SAMPLES_PER_S, EXAMPLE_BYTES_PER_SAMPLE and EXAMPLE_AUGMENT_MS (the augmentation,
#: an assumption: footnote "aug" on the page) on this node:
EXAMPLE_GPU, EXAMPLE_GPUS = "h100-sxm", 8
EXAMPLE_OFFLOAD_MODEL = "llama-3-8b"
DECODE = ("single-thread Pillow decode of ImageNet validation JPEGs at 577 images/s "
          "(Iglovikov and Kosarevsky, arXiv:2605.08731)")
AUGMENT = f"augmentation {EXAMPLE_AUGMENT_MS:g} ms per image (assumed)"
NODES = "node specs from the price catalog (spec figures, sources there)"


def decode_ms(value_id: str) -> Value:
    """CPU milliseconds to decode one JPEG, the default of ``calculators.system`` (derived from a measurement)."""
    return quantity(value_id, system.DEFAULT_DECODE_MS_PER_SAMPLE, digits=2, unit="ms", kind="derived",
                    description="CPU time to decode one ImageNet JPEG on one core, 1000 / 577 images per second.",
                    assumptions=(DECODE,))


def _example_ms() -> float:
    return system.DEFAULT_DECODE_MS_PER_SAMPLE + EXAMPLE_AUGMENT_MS


@value("system-example-cpu-ms")
def system_example_cpu_ms(value_id: str) -> Value:
    """CPU milliseconds per image of the worked example: measured decode plus assumed augmentation."""
    return quantity(value_id, _example_ms(), digits=2, unit="ms", kind="derived",
                    description="CPU time per image of the worked example: decode plus augmentation.",
                    assumptions=(DECODE, AUGMENT))


@value("system-example-cpu-cores")
def system_example_cpu_cores(value_id: str) -> Value:
    """Loader cores of the worked example (``data_loader_need(...).cpu_cores``)."""
    need = system.data_loader_need(samples_per_s=EXAMPLE_SAMPLES_PER_S, bytes_per_sample=EXAMPLE_BYTES_PER_SAMPLE,
                                   decode_ms_per_sample=_example_ms())
    return quantity(value_id, need.cpu_cores, digits=0, unit="", kind="derived",
                    description=f"CPU cores of loader work for {EXAMPLE_SAMPLES_PER_S:,} images/s at the worked "
                                "example's CPU time per image.",
                    assumptions=("core efficiency 1", AUGMENT))


@value("system-example-host-ram")
def system_example_host_ram(value_id: str) -> Value:
    """Host RAM of the worked example (``system_balance(HostJob.of(...)).host_ram.needed_bytes``), GiB."""
    job = system.HostJob.of(samples_per_s=EXAMPLE_SAMPLES_PER_S, bytes_per_sample=EXAMPLE_BYTES_PER_SAMPLE,
                            decode_ms_per_sample=_example_ms(), gpu=EXAMPLE_GPU, gpus=EXAMPLE_GPUS, offload="optimizer",
                            offload_parameters=get_model(EXAMPLE_OFFLOAD_MODEL).parameters)
    balance = system.system_balance(job)
    return quantity(value_id, balance.host_ram.needed_bytes, digits=0, unit="GiB", kind="derived",
                    description=f"Host RAM for {EXAMPLE_GPUS} x {get_gpu(EXAMPLE_GPU).name} training with the "
                                "optimizer of Llama 3 8B offloaded (ZeRO-2): the larger of the 1 x GPU-memory rule "
                                "and the offloaded state.",
                    assumptions=balance.host_ram.assumptions)


def _node_ratios() -> list[float]:
    return sorted(offer.host_ram_bytes / (get_gpu(offer.gpu_id).memory_bytes * offer.gpus) for offer in all_offers()
                  if offer.host_ram_bytes is not None and offer.gpus == 8)


@value("system-node-ratio-min")
def node_ratio_min(value_id: str) -> Value:
    """Smallest host-RAM-to-GPU-memory ratio of the price catalog's 8-GPU nodes."""
    return quantity(value_id, _node_ratios()[0], digits=1, unit="", kind="derived",
                    description="Smallest host RAM / GPU memory ratio among the 8-GPU nodes of the price catalog.",
                    assumptions=(NODES,))


@value("system-node-ratio-max")
def node_ratio_max(value_id: str) -> Value:
    """Largest host-RAM-to-GPU-memory ratio of the price catalog's 8-GPU nodes."""
    return quantity(value_id, _node_ratios()[-1], digits=1, unit="", kind="derived",
                    description="Largest host RAM / GPU memory ratio among the 8-GPU nodes of the price catalog.",
                    assumptions=(NODES,))


def cpu_llama_3b(value_id: str, *, weights: str) -> Value:
    """Peak allocated GiB of Llama 3.2 3B inference on a CPU, 2,048-token prompt (pytorch-basics worked example)."""
    estimate = inference_memory(get_model("llama-3.2-3b"), weights=weights, kv_cache=weights, context=2048)
    return quantity(value_id, estimate.peak_allocated_bytes, digits=2, unit="GiB", kind="derived",
                    description=f"Tensors' peak of Llama 3.2 3B serving one 2,048-token prompt with {weights} "
                                "weights and cache (no runtime overhead on a CPU).",
                    assumptions=("batch 1, no new tokens, SDPA attention",))


VALUES: dict[str, ValueFunction] = declared_values(globals(), {
    "system-decode-ms": bound(decode_ms),
    "system-example-decode-ms": bound(decode_ms),
    "pytorch-cpu-llama-3b-fp32": bound(cpu_llama_3b, weights="fp32"),
})
