"""System balance: CPU cores, storage read rate and host RAM a GPU job needs around the GPUs.

Three needs, each a small formula with its inputs in the open:

* data loading: ``read bytes/s = samples/s x bytes per sample`` and
  ``CPU cores = samples/s x CPU seconds per sample / core efficiency``;
* storage: the read rate against each device class's rated sequential read
  (:mod:`calculators.catalog.storage`);
* host RAM: ``max(rule factor x total GPU memory, loader buffers + dataset cache + offloaded state)``.

The per-sample CPU cost is an input. Its default, ``DEFAULT_DECODE_MS_PER_SAMPLE``, is
*derived from a measurement*: Pillow decodes ImageNet validation JPEGs at 577 images/s on
one thread of an Intel Xeon Platinum 8581C (Iglovikov and Kosarevsky, arXiv:2605.08731,
imread-benchmark), i.e. 1000/577 = 1.73 ms per image. That is decode only: random-resized
crop, flip and normalisation add CPU time that depends on the pipeline, so measure yours
(time one DataLoader worker) and pass it in.

>>> need = data_loader_need(samples_per_s=3000, bytes_per_sample=110_000)
>>> need.read_bytes_per_s / 1e6, round(need.cpu_cores_needed, 2), need.cpu_cores
(330.0, 5.19, 6)

References:
    docs page "System balance"; DeepSpeed ``estimate_zero2_model_states_mem_needs`` and
    ``estimate_zero3_model_states_mem_needs`` for the offload rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from calculators.catalog.gpus import GPU, get_gpu
from calculators.catalog.storage import StorageClass, all_storage
from calculators.errors import InputError
from calculators.validate import finite_float, nonnegative_int, one_of, positive_int

#: CPU milliseconds per sample used when none is given: single-thread Pillow JPEG decode of
#: ImageNet validation images on an Intel Xeon Platinum 8581C (577 img/s, arXiv:2605.08731).
DEFAULT_DECODE_MS_PER_SAMPLE = round(1000 / 577, 2)
#: Host RAM rule: at least this many times the total GPU memory of the machine.
DEFAULT_HOST_RAM_FACTOR = 1.0
#: DeepSpeed's estimators multiply offloaded host memory by this buffer factor.
DEEPSPEED_BUFFER_FACTOR = 1.5
#: What can be offloaded to host RAM (DeepSpeed ZeRO-Offload / ZeRO-Infinity to CPU).
OFFLOADS = ("none", "optimizer", "optimizer+params")
#: PyTorch DataLoader's default batches prefetched per worker (``prefetch_factor=2``).
DEFAULT_PREFETCH_FACTOR = 2

#: Example image pipelines of the "System balance" page, shared by its tables, its prose values
#: and the audit's CPU-core claims (examples, not measurements): one GPU consuming
#: ``EXAMPLE_ONE_GPU_SAMPLES_PER_S`` JPEGs, and an 8-GPU node consuming ``EXAMPLE_SAMPLES_PER_S``
#: with ``EXAMPLE_AUGMENT_MS`` of augmentation per image on top of the decode (an assumption).
EXAMPLE_ONE_GPU_SAMPLES_PER_S = 1000
EXAMPLE_SAMPLES_PER_S = 3000
EXAMPLE_BYTES_PER_SAMPLE = 110_000
EXAMPLE_AUGMENT_MS = 3.0

MAX_SAMPLES_PER_S = 1e8
MAX_BYTES_PER_SAMPLE = 1e11
MAX_MS_PER_SAMPLE = 1e6
MAX_GPUS = 4096
#: Most DataLoader worker processes (and CPU cores) one machine's loader may need.
MAX_LOADER_WORKERS = 4096
MAX_BYTES = 2.0**60


def whole_gpus(value: object) -> int:
    """A GPU count from a number or numeric text (``8``, ``8.0``, ``"8"``); raises InputError naming ``gpus``.

    >>> whole_gpus(8.0)
    8
    """
    return positive_int("gpus", value, maximum=MAX_GPUS)


@dataclass(frozen=True)
class DataLoaderNeed:
    """Read rate and CPU cores a data pipeline needs to deliver ``samples_per_s``.

    ``read_bytes_per_s`` is exact arithmetic on the inputs; ``cpu_cores_needed`` is an
    estimate that assumes the per-sample cost scales linearly over cores at
    ``core_efficiency`` (1.0: perfect scaling, no other work on those cores).
    """

    samples_per_s: float
    bytes_per_sample: float
    decode_ms_per_sample: float
    core_efficiency: float
    read_bytes_per_s: float
    cpu_cores_needed: float
    assumptions: tuple[str, ...] = field(default=())

    @property
    def cpu_cores(self) -> int:
        """Whole cores (DataLoader workers) to provision: ``ceil(cpu_cores_needed)``, at least 1."""
        return max(1, math.ceil(self.cpu_cores_needed - 1e-9))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields, including ``cpu_cores``."""
        return {"samples_per_s": self.samples_per_s, "bytes_per_sample": self.bytes_per_sample,
                "decode_ms_per_sample": self.decode_ms_per_sample, "core_efficiency": self.core_efficiency,
                "read_bytes_per_s": self.read_bytes_per_s, "cpu_cores_needed": self.cpu_cores_needed,
                "cpu_cores": self.cpu_cores, "assumptions": list(self.assumptions)}


def data_loader_need(*, samples_per_s: float, bytes_per_sample: float,
                     decode_ms_per_sample: float = DEFAULT_DECODE_MS_PER_SAMPLE,
                     core_efficiency: float = 1.0) -> DataLoaderNeed:
    """Storage read rate (bytes/s) and CPU cores a loader needs.

    Formula: ``read = samples_per_s x bytes_per_sample``;
    ``cores = samples_per_s x decode_ms_per_sample / 1000 / core_efficiency``.

    Args:
        samples_per_s: Samples the GPUs consume per second (all GPUs of the machine).
        bytes_per_sample: Bytes read from storage per sample (the stored, compressed size).
        decode_ms_per_sample: CPU milliseconds to turn one stored sample into a tensor
            (decode + augment), measured on one core.
        core_efficiency: Fraction of each core's time the loader gets (0 to 1].

    Returns:
        A :class:`DataLoaderNeed`.

    >>> data_loader_need(samples_per_s=1000, bytes_per_sample=1e5, decode_ms_per_sample=4).cpu_cores
    4
    """
    rate = finite_float("samples_per_s", samples_per_s, minimum=0, maximum=MAX_SAMPLES_PER_S, allow_minimum=False)
    size = finite_float("bytes_per_sample", bytes_per_sample, minimum=0, maximum=MAX_BYTES_PER_SAMPLE)
    cost = finite_float("decode_ms_per_sample", decode_ms_per_sample, minimum=0, maximum=MAX_MS_PER_SAMPLE)
    efficiency = finite_float("core_efficiency", core_efficiency, minimum=0, maximum=1, allow_minimum=False)
    assumptions = (f"{cost:g} CPU ms per sample on one core (decode + augment; default is Pillow JPEG decode "
                   f"only, {DEFAULT_DECODE_MS_PER_SAMPLE:g} ms, arXiv:2605.08731)",
                   f"cores scale linearly at efficiency {efficiency:g}")
    return DataLoaderNeed(samples_per_s=rate, bytes_per_sample=size, decode_ms_per_sample=cost,
                          core_efficiency=efficiency, read_bytes_per_s=rate * size,
                          cpu_cores_needed=rate * cost / 1000 / efficiency, assumptions=assumptions)


@dataclass(frozen=True)
class StorageFit:
    """How one storage class compares with a needed read rate (a bound from rated sequential read)."""

    storage: StorageClass
    utilization: float  # needed read rate / rated sequential read
    devices_needed: int  # ceil(utilization): devices striped (or links bonded) to reach the rate

    @property
    def enough(self) -> bool:
        """True when one device's rated sequential read covers the need."""
        return self.utilization <= 1.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"storage": self.storage.id, "name": self.storage.name,
                "sequential_read_bytes_per_s": self.storage.sequential_read_bytes_per_s,
                "utilization": self.utilization, "devices_needed": self.devices_needed, "enough": self.enough}


def storage_fits(read_bytes_per_s: float) -> tuple[StorageFit, ...]:
    """Each storage class against a needed read rate, in catalog order.

    A rated sequential read is a best case, so ``enough`` is necessary, not sufficient:
    random reads of small files run far below it.

    >>> [f.devices_needed for f in storage_fits(1e9)]
    [4, 2, 1, 1, 1, 1, 1]
    """
    need = finite_float("read_bytes_per_s", read_bytes_per_s, minimum=0, maximum=MAX_BYTES)
    fits = []
    for item in all_storage():
        share = need / item.sequential_read_bytes_per_s
        fits.append(StorageFit(storage=item, utilization=share, devices_needed=max(1, math.ceil(share - 1e-12))))
    return tuple(fits)


def loader_buffer_bytes(*, batch_bytes: float, num_workers: int,
                        prefetch_factor: int = DEFAULT_PREFETCH_FACTOR) -> int:
    """Host bytes of batches in flight in a PyTorch DataLoader with ``pin_memory=True``.

    Formula: ``(num_workers x prefetch_factor + 1) x batch_bytes``: each worker keeps
    ``prefetch_factor`` decoded batches in shared memory, plus one pinned copy.

    Args:
        batch_bytes: Bytes of one decoded batch (e.g. 256 x 3 x 224 x 224 x 4 for fp32 images).
        num_workers: DataLoader worker processes.
        prefetch_factor: Batches each worker prepares ahead (PyTorch default 2).

    >>> loader_buffer_bytes(batch_bytes=1000, num_workers=8)
    17000
    """
    size = finite_float("batch_bytes", batch_bytes, minimum=0, maximum=MAX_BYTES)
    workers = nonnegative_int("num_workers", num_workers, maximum=MAX_LOADER_WORKERS)
    prefetch = positive_int("prefetch_factor", prefetch_factor, maximum=1024)
    return int(math.ceil((workers * prefetch + 1) * size))


def offload_host_bytes(*, parameters: int, offload: str = "optimizer", gpus_per_node: int = 1,
                       buffer_factor: float = DEEPSPEED_BUFFER_FACTOR) -> int:
    """Host RAM that DeepSpeed ZeRO CPU offload needs for model states (mixed-precision Adam), bytes.

    Formula (DeepSpeed's own estimators, ``zero_init`` for ZeRO-3):
    ``optimizer``: ``parameters x max(4 x gpus_per_node, 16) x buffer_factor`` (ZeRO-2 offload:
    fp32 master weights 4 + fp32 gradients 4 + Adam moments 8 bytes per parameter);
    ``optimizer+params``: ``parameters x 18 x buffer_factor`` (ZeRO-3 offload adds the 16-bit
    weights); ``none``: 0.

    Args:
        parameters: Total (trainable) parameters.
        offload: One of :data:`OFFLOADS`.
        gpus_per_node: GPUs per machine (ZeRO-2 keeps 4 bytes per parameter per GPU process).
        buffer_factor: DeepSpeed's additional buffer factor (1.5).

    >>> offload_host_bytes(parameters=1_000_000_000) / 1e9
    24.0
    """
    count = positive_int("parameters", parameters, maximum=10**15)
    mode = one_of("offload", offload, OFFLOADS)
    gpus = positive_int("gpus_per_node", gpus_per_node, maximum=MAX_GPUS)
    factor = finite_float("buffer_factor", buffer_factor, minimum=1, maximum=10)
    if mode == "none":
        return 0
    per_param = max(4 * gpus, 16) if mode == "optimizer" else 18
    return int(count * per_param * factor)


@dataclass(frozen=True)
class HostRamNeed:
    """Host RAM a machine needs: the larger of the GPU-memory rule and the sum of its uses.

    ``needed_bytes`` is a floor for the job, not a recommendation for the OS, other
    processes or page cache beyond ``dataset_cache_bytes``.
    """

    gpu_memory_bytes: int
    factor: float
    rule_bytes: int
    breakdown: dict[str, int]
    needed_bytes: int
    binding: str  # "rule" or "components"
    assumptions: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"gpu_memory_bytes": self.gpu_memory_bytes, "factor": self.factor, "rule_bytes": self.rule_bytes,
                "breakdown": dict(self.breakdown), "components_bytes": sum(self.breakdown.values()),
                "needed_bytes": self.needed_bytes, "binding": self.binding, "assumptions": list(self.assumptions)}


def host_ram_need(*, gpu_memory_bytes: int, factor: float = DEFAULT_HOST_RAM_FACTOR,
                  loader_buffer_bytes: int = 0, dataset_cache_bytes: int = 0,
                  offload_bytes: int = 0) -> HostRamNeed:
    """Host RAM, bytes: ``max(factor x gpu_memory_bytes, loader buffers + dataset cache + offload)``.

    The rule "at least the total GPU memory" (``factor`` 1) covers staging a full copy of
    what the GPUs hold (loading a checkpoint, gathering weights to save one); the
    8-GPU cloud nodes in the price catalog ship 2-6x their GPU memory (table
    ``system-node-ratios``).

    >>> need = host_ram_need(gpu_memory_bytes=80 * 2**30, offload_bytes=200 * 2**30)
    >>> need.binding, need.needed_bytes // 2**30
    ('components', 200)
    """
    gpu_bytes = nonnegative_int("gpu_memory_bytes", gpu_memory_bytes, maximum=2**60)
    rule_factor = finite_float("factor", factor, minimum=0, maximum=64)
    parts = {"loader_buffers": nonnegative_int("loader_buffer_bytes", loader_buffer_bytes, maximum=2**60),
             "dataset_cache": nonnegative_int("dataset_cache_bytes", dataset_cache_bytes, maximum=2**60),
             "offloaded_states": nonnegative_int("offload_bytes", offload_bytes, maximum=2**60)}
    rule = int(math.ceil(rule_factor * gpu_bytes))
    components = sum(parts.values())
    return HostRamNeed(gpu_memory_bytes=gpu_bytes, factor=rule_factor, rule_bytes=rule, breakdown=parts,
                       needed_bytes=max(rule, components), binding="rule" if rule >= components else "components",
                       assumptions=(f"rule: host RAM >= {rule_factor:g} x total GPU memory",
                                    "OS, other processes and page cache beyond the dataset cache not included"))


@dataclass(frozen=True)
class SystemBalance:
    """Everything around the GPUs: loader, storage options, host RAM and ECC, for one machine."""

    gpu: GPU
    gpus: int
    loader: DataLoaderNeed
    storage: tuple[StorageFit, ...]
    host_ram: HostRamNeed

    @property
    def ecc_note(self) -> str:
        """ECC guidance from the GPU catalog's ``ecc`` field."""
        if self.gpu.ecc is None:
            return f"{self.gpu.name}: ECC unknown."
        if self.gpu.ecc:
            return f"{self.gpu.name} has ECC memory; pair it with ECC host RAM (RDIMM) for long unattended runs."
        return (f"{self.gpu.name} has no ECC: a bit flip is silent. Checkpoint often and compare loss curves "
                "across restarts; use ECC parts where a corrupted run is expensive.")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"gpu": self.gpu.id, "gpus": self.gpus, "loader": self.loader.to_dict(),
                "storage": [fit.to_dict() for fit in self.storage], "host_ram": self.host_ram.to_dict(),
                "gpu_ecc": self.gpu.ecc, "ecc_note": self.ecc_note}


@dataclass(frozen=True)
class SystemInputs:
    """The raw inputs of a :class:`HostJob`, as a user gives them, with their defaults.

    Attributes:
        samples_per_s, bytes_per_sample, decode_ms_per_sample, core_efficiency: the loader's load
            (:func:`data_loader_need`).
        gpu: a catalog GPU id; gpus: GPUs in the machine.
        host_ram_factor: the rule "host RAM >= factor x total GPU memory" (:func:`host_ram_need`).
        dataset_cache_bytes: dataset kept in host RAM.
        offload_parameters, offload: DeepSpeed CPU offload of that many parameters' states
            (:func:`offload_host_bytes`; ``offload`` one of :data:`OFFLOADS`).
        batch_bytes: one decoded batch, sizing the loader buffers; num_workers: loader processes
            (``None``: the loader's ``cpu_cores``).
    """

    samples_per_s: float
    bytes_per_sample: float
    decode_ms_per_sample: float = DEFAULT_DECODE_MS_PER_SAMPLE
    core_efficiency: float = 1.0
    gpu: str = "h100-sxm"
    gpus: int = 1
    host_ram_factor: float = DEFAULT_HOST_RAM_FACTOR
    dataset_cache_bytes: int = 0
    offload_parameters: int = 0
    offload: str = "none"
    batch_bytes: float = 0
    num_workers: int | None = None


@dataclass(frozen=True)
class HostJob:
    """One machine's job around its GPUs, checked (build it with :meth:`of`): the GPUs, the loader's need,
    and the host bytes its buffers and offloaded states take."""

    gpu: GPU
    gpus: int
    host_ram_factor: float
    dataset_cache_bytes: int
    loader: DataLoaderNeed
    buffer_bytes: int
    offload_bytes: int

    @classmethod
    def of(cls, **raw: Any) -> HostJob:
        """Check every input once (keywords: :class:`SystemInputs`); raises InputError naming the field.

        >>> HostJob.of(samples_per_s=1, bytes_per_sample=1, offload="optimizer")
        Traceback (most recent call last):
        ...
        calculators.errors.InputError: offload_parameters: got 0; expected a parameter count above 0 when offloading
        """
        given = SystemInputs(**raw)
        card = get_gpu(given.gpu)
        count = positive_int("gpus", given.gpus, maximum=MAX_GPUS)
        # Checked here, used or not, under the names the caller typed.
        factor = finite_float("host_ram_factor", given.host_ram_factor, minimum=0, maximum=64)
        parameters = nonnegative_int("offload_parameters", given.offload_parameters, maximum=10**15)
        loader = data_loader_need(samples_per_s=given.samples_per_s, bytes_per_sample=given.bytes_per_sample,
                                  decode_ms_per_sample=given.decode_ms_per_sample,
                                  core_efficiency=given.core_efficiency)
        if given.num_workers is None and loader.cpu_cores > MAX_LOADER_WORKERS:
            # The default worker count is one per core needed: past a few thousand the inputs
            # describe no machine, and the decode time is the input that sets it.
            raise InputError("decode_ms_per_sample", given.decode_ms_per_sample,
                             f"a CPU time per sample for which the loader needs at most {MAX_LOADER_WORKERS:,} cores "
                             f"(samples_per_s x decode_ms_per_sample / 1000 / core_efficiency; these need "
                             f"{loader.cpu_cores:,})")
        workers = loader.cpu_cores if given.num_workers is None else given.num_workers
        buffers = loader_buffer_bytes(batch_bytes=given.batch_bytes, num_workers=workers)
        offloaded = 0
        if one_of("offload", given.offload, OFFLOADS) != "none":
            if not parameters:
                raise InputError("offload_parameters", parameters, "a parameter count above 0 when offloading")
            offloaded = offload_host_bytes(parameters=parameters, offload=given.offload, gpus_per_node=count)
        return cls(gpu=card, gpus=count, host_ram_factor=factor, dataset_cache_bytes=given.dataset_cache_bytes,
                   loader=loader, buffer_bytes=buffers, offload_bytes=offloaded)


def system_balance(job: HostJob) -> SystemBalance:
    """Loader, storage and host-RAM needs of one machine with ``job.gpus`` GPUs of type ``job.gpu``.

    ``num_workers`` defaults to the loader's ``cpu_cores``; ``batch_bytes`` (a decoded
    batch) sizes the loader buffers; ``offload_parameters`` with ``offload`` adds DeepSpeed
    CPU-offload state (:func:`offload_host_bytes`).

    >>> balance = system_balance(HostJob.of(samples_per_s=3000, bytes_per_sample=110_000, gpu="h100-sxm", gpus=8))
    >>> balance.host_ram.needed_bytes // 2**30, balance.loader.cpu_cores
    (640, 6)
    """
    ram = host_ram_need(gpu_memory_bytes=job.gpu.memory_bytes * job.gpus, factor=job.host_ram_factor,
                        loader_buffer_bytes=job.buffer_bytes, dataset_cache_bytes=job.dataset_cache_bytes,
                        offload_bytes=job.offload_bytes)
    return SystemBalance(gpu=job.gpu, gpus=job.gpus, loader=job.loader,
                         storage=storage_fits(job.loader.read_bytes_per_s), host_ram=ram)
