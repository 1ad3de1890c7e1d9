"""The one reading of a GPU as a user names it: a record, a catalog id or name, or a ``custom:``/``mac:`` description.

Every face and every engine entry point turns its ``gpu`` into a
:class:`~calculators.catalog.gpus.GPU` here, once per call (:func:`resolve_gpu`); below that
the engine takes the record and trusts it. A description gives your own hardware by its
numbers (the records are built and checked by :func:`~calculators.catalog.custom_gpu.custom_gpu`
and :func:`~calculators.catalog.custom_gpu.mac_gpu`, which say what each number means):

* ``custom:memory_gb=64,bandwidth_gbps=400,bf16_tflops=100`` with any of ``fp16_tflops``,
  ``fp8_tflops``, ``fp32_tflops``, ``usable_gb``, ``compute_capability``, ``pcie_gen`` and ``name``;
* ``mac:64`` or ``mac:memory_gb=64,chip=m4-max`` (or ``bandwidth_gbps=``, ``gpu_cores=``, ``fp32_tflops=``):
  Apple silicon with that much unified memory.

>>> resolve_gpu("h100-sxm").id, resolve_gpu("mac:64").vendor
('h100-sxm', 'Apple')
>>> gpu = resolve_gpu("custom:memory_gb=48, bandwidth_gbps=864, bf16_tflops=362.05, compute_capability=8.9")
>>> gpu.name, gpu.memory_gib, gpu.memory_bandwidth_bytes_per_s
('Custom GPU (48 GiB)', 48.0, 864000000000.0)
>>> resolve_gpu("custom:memory_gb=0,bandwidth_gbps=1")
Traceback (most recent call last):
...
calculators.errors.InputError: memory_gb: got 0.0; expected a number from 0.001 to 65536 (GiB)
>>> resolve_gpu("custom:memory_gb=abc,bandwidth_gbps=1", field="--gpu")
Traceback (most recent call last):
...
calculators.errors.InputError: --gpu memory_gb: got 'abc'; expected a number from 0.001 to 65536 (GiB)
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.custom_gpu import (
    MAX_BANDWIDTH_GBPS,
    MAX_MEMORY_GB,
    MAX_TFLOPS,
    custom_gpu,
    figure,
    mac_gpu,
)
from calculators.catalog.gpus import GPU, get_gpu, gpu_ids
from calculators.errors import InputError, UnknownNameError

CUSTOM_PREFIX = "custom:"
MAC_PREFIX = "mac:"
_KEYS = ("memory_gb", "bandwidth_gbps", "bf16_tflops", "fp16_tflops", "fp8_tflops", "fp32_tflops", "usable_gb",
         "compute_capability", "pcie_gen", "name")
_MAC_KEYS = ("memory_gb", "bandwidth_gbps", "chip", "gpu_cores", "fp32_tflops", "name")


def resolve_gpu(text: str | GPU, *, field: str = "gpu") -> GPU:
    """The :class:`~calculators.catalog.gpus.GPU` that ``text`` names; a record is returned as it is.

    Accepts a catalog id or vendor name (any case), ``custom:KEY=VALUE,...`` or ``mac:GB`` /
    ``mac:KEY=VALUE,...`` (module docstring), or a GPU record.

    Args:
        text: what the user gave (a record passes through).
        field: the input it came from, named in errors: ``gpu`` (the engine's keyword), ``gpus``
            (a list of them), or a flag such as ``--gpu``, which also prefixes the key of a bad
            description (``--gpu memory_gb``).

    Raises:
        UnknownNameError: an unknown catalog id (suggesting close ids), or a value of another type.
        InputError: a bad description, naming the key and its range.
    """
    if isinstance(text, GPU):
        return text
    if not isinstance(text, str):
        raise UnknownNameError(field, text, gpu_ids())
    try:
        return _from_text(text)
    except InputError as error:
        if field == "gpu":
            raise
        if error.field == "gpu":
            raise error.renamed(field) from None
        if field.startswith("--"):
            raise error.renamed(f"{field} {error.field}") from None
        raise


def _pairs(text: str, keys: tuple[str, ...], *, kind: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in keys:
            raise InputError("gpu", part.strip(), f"KEY=VALUE pairs of a {kind} GPU, keys: {', '.join(keys)}")
        if key in pairs:
            raise InputError(key, value.strip(), "one value (the key is given twice)")
        pairs[key] = value.strip()
    return pairs


def _from_text(text: str) -> GPU:
    raw = text.strip()
    lower = raw.lower()
    if lower.startswith(CUSTOM_PREFIX):
        return _custom(raw[len(CUSTOM_PREFIX):], text)
    if lower.startswith(MAC_PREFIX):
        return _mac(raw[len(MAC_PREFIX):].strip())
    return get_gpu(raw)


def _custom(body: str, text: str) -> GPU:
    pairs = _pairs(body, _KEYS, kind="custom")
    numbers: dict[str, Any] = {
        k: float(figure(k, v, maximum=MAX_MEMORY_GB if k.endswith("_gb") else MAX_TFLOPS,
                        unit="GiB" if k.endswith("_gb") else "GB/s" if k == "bandwidth_gbps" else "dense TFLOPS"))
        for k, v in pairs.items() if k not in ("compute_capability", "name", "pcie_gen")}
    for required in ("memory_gb", "bandwidth_gbps"):
        if required not in pairs:
            raise InputError(required, None, f"a number for a custom GPU ({text!r} has none)")
    pcie = pairs.get("pcie_gen")
    generation = None if pcie is None else (int(pcie) if pcie.strip().isdigit() else -1)
    if generation == -1:
        raise InputError("pcie_gen", pcie, "a PCIe generation: 3, 4, 5 or 6")
    return custom_gpu(**numbers, compute_capability=pairs.get("compute_capability"), pcie_gen=generation,
                      name=pairs.get("name"))


def _mac(body: str) -> GPU:
    if "=" not in body:
        body = f"memory_gb={body.lower().removesuffix('gb').strip()}"
    pairs = _pairs(body, _MAC_KEYS, kind="Mac")
    if "memory_gb" not in pairs:
        raise InputError("memory_gb", None, "the Mac's unified memory in GB, e.g. mac:64")
    bandwidth, cores, tflops = pairs.get("bandwidth_gbps"), pairs.get("gpu_cores"), pairs.get("fp32_tflops")
    if cores is not None and not cores.isdigit():
        raise InputError("gpu_cores", cores, "a whole number of GPU cores, e.g. gpu_cores=32")
    return mac_gpu(memory_gb=figure("memory_gb", pairs["memory_gb"], maximum=MAX_MEMORY_GB, unit="GiB"),
                   bandwidth_gbps=None if bandwidth is None else figure(
                       "bandwidth_gbps", bandwidth, maximum=MAX_BANDWIDTH_GBPS, unit="GB/s"),
                   name=pairs.get("name"), chip=pairs.get("chip"), gpu_cores=None if cores is None else int(cores),
                   fp32_tflops=None if tflops is None else figure("fp32_tflops", tflops, maximum=MAX_TFLOPS,
                                                                  unit="dense TFLOPS"))
