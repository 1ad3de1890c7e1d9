"""Tables of the System pages: "System balance" (docs/system/index.md), "Feeding the GPUs"
(docs/system/data-and-storage.md) and "PyTorch basics" (docs/system/pytorch-basics.md).

Every cell comes from :mod:`calculators.system`, :mod:`calculators.catalog.storage`,
:mod:`calculators.catalog.prices` (node configurations) or the memory engine.

>>> table = TABLES["system-storage-classes"]()
>>> table.columns[:2]
('class', 'example device')
>>> TABLES["system-key-numbers"]().rows[0][0]
'CPU time to decode one ImageNet JPEG (Pillow, one core)'
"""

from __future__ import annotations

from calculators import system
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.prices import all_offers
from calculators.catalog.storage import all_storage
from calculators.columns import Column, decimal_column, gb_column, gib_column, number_column
from calculators.doc_tables.claims import AUDIT, selected_claims
from calculators.doc_tables.hardware import yes_no
from calculators.memory.inference import inference_memory
from calculators.memory.weights import weight_bytes
from calculators.system import (
    EXAMPLE_AUGMENT_MS,
    EXAMPLE_BYTES_PER_SAMPLE,
    EXAMPLE_ONE_GPU_SAMPLES_PER_S,
    EXAMPLE_SAMPLES_PER_S,
)
from calculators.tables import Table, TableFunction, declared_tables, table
from calculators.units import gb, gib, number

#: Single-thread decode rates (images/s) measured by Iglovikov and Kosarevsky (arXiv:2605.08731,
#: imread-benchmark README table, ImageNet validation, bytes pre-loaded in memory).
MEASURED_DECODE_IMG_PER_S: tuple[tuple[str, str, int], ...] = (
    ("Pillow", "Intel Xeon Platinum 8581C", 577),
    ("Pillow", "AMD EPYC 9B14 (Zen 4)", 537),
    ("Pillow", "AMD EPYC 9B45 (Zen 5)", 726),
    ("Pillow", "Arm Neoverse-N1", 360),
    ("simplejpeg", "Intel Xeon Platinum 8581C", 735),
    ("OpenCV", "Intel Xeon Platinum 8581C", 721),
    ("torchvision", "Intel Xeon Platinum 8581C", 712),
)
#: Machines for the host-RAM table: (GPU id, GPUs).
MACHINES: tuple[tuple[str, int], ...] = (("rtx-4090", 1), ("rtx-4090", 4), ("rtx-pro-6000-blackwell", 1),
                                         ("rtx-pro-6000-blackwell", 4), ("h100-sxm", 8), ("h200", 8), ("b200", 8))
OFFLOAD_MODELS = ("llama-3.2-3b", "llama-3-8b", "qwen2.5-14b", "llama-3-70b")
CPU_MODELS = ("qwen2.5-0.5b", "llama-3.2-1b", "llama-3.2-3b", "llama-3-8b", "qwen2.5-14b")


@table("system-storage-classes")
def storage_classes() -> Table:
    """Storage classes with rated sequential read and its source."""
    rows = ((s.name, s.example, s.sequential_read_bytes_per_s, s.source.kind, s.source.url) for s in all_storage())
    return Table.of(columns=(Column("class"), Column("example device"), gb_column("sequential read GB/s", 2),
                             Column("kind"), Column("source")),
                    rows=rows,
                    caption="Rated sequential read per storage class (spec: vendor rating of the example device; "
                            "derived: Ethernet line rate / 8). A ceiling: small random reads and protocol overhead "
                            "run below it.")


@table("system-decode-rates")
def decode_rates() -> Table:
    """Measured single-thread JPEG decode rates, the CPU ms per image they imply and the cores for the example rate."""
    rows = []
    for library, cpu, rate in MEASURED_DECODE_IMG_PER_S:
        ms = 1000 / rate
        need = system.data_loader_need(samples_per_s=EXAMPLE_SAMPLES_PER_S, bytes_per_sample=EXAMPLE_BYTES_PER_SAMPLE,
                                       decode_ms_per_sample=ms)
        rows.append((library, cpu, rate, ms, need.cpu_cores_needed, need.cpu_cores))
    return Table.of(columns=(Column("decoder"), Column("CPU"), number_column("measured img/s (1 thread)"),
                             decimal_column("ms per image (derived)", 2),
                             decimal_column(f"cores for {EXAMPLE_SAMPLES_PER_S:,} img/s (estimate)"),
                             Column("cores to provision", align="r")),
                    rows=rows,
                    caption="Measured: single-thread decode of the ImageNet validation JPEGs, bytes already in "
                            "memory (Iglovikov and Kosarevsky, arXiv:2605.08731). Derived: ms = 1000 / rate. "
                            "Estimate: cores = img/s x ms / 1000 at core efficiency 1.0 (data_loader_need); decode "
                            "only, so augmentation adds to it.")


@table("system-loader-examples")
def loader_examples() -> Table:
    """Read rate and cores for a grid of loader workloads."""
    rows = []
    for label, rate, size, ms in (
            ("ImageNet JPEG, 1 GPU", EXAMPLE_ONE_GPU_SAMPLES_PER_S, EXAMPLE_BYTES_PER_SAMPLE,
             system.DEFAULT_DECODE_MS_PER_SAMPLE),
            ("ImageNet JPEG, 8 GPUs", EXAMPLE_SAMPLES_PER_S, EXAMPLE_BYTES_PER_SAMPLE, system.DEFAULT_DECODE_MS_PER_SAMPLE),
            (f"ImageNet JPEG + {EXAMPLE_AUGMENT_MS:g} ms augment, 8 GPUs", EXAMPLE_SAMPLES_PER_S,
             EXAMPLE_BYTES_PER_SAMPLE, system.DEFAULT_DECODE_MS_PER_SAMPLE + EXAMPLE_AUGMENT_MS),
            ("Pre-tokenised text, 2048 tokens x 4 B", 400, 8192, 0.05),
            ("Raw 1080p frames (uint8 RGB), 8 GPUs", 2000, 1920 * 1080 * 3, 0.5)):
        need = system.data_loader_need(samples_per_s=rate, bytes_per_sample=size, decode_ms_per_sample=ms)
        fits = {fit.storage.id: fit for fit in system.storage_fits(need.read_bytes_per_s)}
        rows.append((label, rate, size, ms, need.read_bytes_per_s, need.cpu_cores,
                     *(fits[storage].devices_needed for storage in ("sata-ssd", "nvme-gen4", "net-10gbe"))))
    return Table.of(columns=(Column("workload (example inputs)"), number_column("samples/s"),
                             number_column("bytes/sample"), decimal_column("CPU ms/sample", 2),
                             number_column("read MB/s", 1, unit=1e6),
                             *(Column(name, align="r") for name in ("CPU cores", "SATA SSDs", "NVMe Gen4 SSDs",
                                                                    "10 GbE links"))),
                    rows=rows,
                    caption="data_loader_need and storage_fits on example inputs (the inputs are examples, not "
                            "measurements; the 3 ms augmentation and the text/frame costs are assumptions). Device "
                            "counts compare with rated sequential read, a best case.")


@table("system-host-ram")
def host_ram() -> Table:
    """Host RAM by the GPU-memory rule for common machines."""
    rows = []
    for gpu_id, count in MACHINES:
        gpu = get_gpu(gpu_id)
        need = system.host_ram_need(gpu_memory_bytes=gpu.memory_bytes * count)
        rows.append((f"{count} x {gpu.name}", gpu.memory_bytes * count, need.rule_bytes, gpu.ecc))
    return Table.of(columns=(Column("machine"), gib_column("GPU memory GiB", 0, grouped=True),
                             gib_column("host RAM floor GiB (rule)", 0, grouped=True), Column("GPU ECC", yes_no)),
                    rows=rows,
                    caption="host_ram_need with factor 1 and no other uses: host RAM >= total GPU memory. Add loader "
                            "buffers, a dataset cache and offloaded states on top when they exceed it. ECC from the "
                            "GPU catalog.")


@table("system-node-ratios")
def node_ratios() -> Table:
    """What cloud 8-GPU nodes ship: host RAM and vCPUs against their GPU memory."""
    rows = []
    for offer in sorted(all_offers(), key=lambda o: o.id):
        if offer.host_ram_bytes is None or offer.vcpus is None:
            continue
        gpu_bytes = get_gpu(offer.gpu_id).memory_bytes * offer.gpus
        rows.append((f"{offer.provider} {offer.offering}", offer.host_ram_bytes, gpu_bytes,
                     offer.host_ram_bytes / gpu_bytes, offer.vcpus / offer.gpus,
                     (offer.spec_source or offer.source).as_of))
    return Table.of(columns=(Column("node"), gib_column("host RAM GiB", 0, grouped=True),
                             gib_column("GPU memory GiB", 0, grouped=True), decimal_column("host RAM / GPU memory"),
                             decimal_column("vCPUs per GPU", 0), Column("as of")),
                    rows=rows,
                    caption="Spec figures of cloud nodes from the price catalog (edition 2026-11, sources there); "
                            "ratio derived. Every node clears the 1x rule; providers provision 2-6x.")


@table("system-offload")
def offload() -> Table:
    """DeepSpeed CPU-offload host RAM for catalog models."""
    rows = []
    for model_id in OFFLOAD_MODELS:
        spec = get_model(model_id)
        two = system.offload_host_bytes(parameters=spec.parameters, offload="optimizer")
        eight = system.offload_host_bytes(parameters=spec.parameters, offload="optimizer", gpus_per_node=8)
        three = system.offload_host_bytes(parameters=spec.parameters, offload="optimizer+params")
        rows.append((spec.name, spec.parameters, two, eight, three))
    return Table.of(columns=(Column("model"), number_column("params B", 2, unit=1e9),
                             *(gib_column(name, 1, grouped=True) for name in (
                                 "ZeRO-2 offload, 1 GPU: GiB", "ZeRO-2 offload, 8 GPUs: GiB",
                                 "ZeRO-3 offload (params too): GiB"))),
                    rows=rows,
                    caption="offload_host_bytes: DeepSpeed's estimators (estimate_zero2/zero3_model_states_mem_needs, "
                            "zero_init) with their 1.5 buffer factor: 16 bytes per parameter (fp32 weights, "
                            "gradients, Adam moments) or 4 per parameter per GPU if larger; 18 with the 16-bit "
                            "weights offloaded too. Host RAM of one machine.")


@table("system-cpu-inference-ram")
def cpu_inference() -> Table:
    """RAM a CPU-only inference process needs for small catalog models, fp32 and bf16 weights."""
    rows = []
    for model_id in CPU_MODELS:
        spec = get_model(model_id)
        fp32 = inference_memory(spec, weights="fp32", kv_cache="fp32", batch=1, context=2048)
        bf16 = inference_memory(spec, weights="bf16", kv_cache="bf16", batch=1, context=2048)
        rows.append((spec.name, spec.parameters, weight_bytes(spec, dtype="fp32"), fp32.peak_allocated_bytes,
                     bf16.peak_allocated_bytes))
    return Table.of(columns=(Column("model"), number_column("params B", 2, unit=1e9),
                             *(gib_column(name, grouped=True) for name in ("fp32 weights GiB", "fp32 peak GiB",
                                                                           "bf16 peak GiB"))),
                    rows=rows,
                    caption="inference_memory, batch 1, 2,048-token prompt, KV cache in the weights' dtype, sdpa "
                            "attention; peak_allocated_bytes (tensors only, no CUDA context, which a CPU process does "
                            "not have). Add the Python process and the framework (not modelled) to size RAM.")


@table("system-key-numbers")
def key_numbers() -> Table:
    """Key numbers of the system-balance page."""
    need = system.data_loader_need(samples_per_s=EXAMPLE_SAMPLES_PER_S, bytes_per_sample=EXAMPLE_BYTES_PER_SAMPLE)
    h100 = get_gpu("h100-sxm")
    rule = system.host_ram_need(gpu_memory_bytes=h100.memory_bytes * 8)
    per_billion = system.offload_host_bytes(parameters=10**9, offload="optimizer")
    gen4 = next(s for s in all_storage() if s.id == "nvme-gen4")
    rows = (
        ("CPU time to decode one ImageNet JPEG (Pillow, one core)", f"{number(system.DEFAULT_DECODE_MS_PER_SAMPLE, 2)} ms",
         "derived from measured 577 img/s"),
        (f"CPU cores to decode {EXAMPLE_SAMPLES_PER_S:,} JPEG/s", str(need.cpu_cores), "estimate, decode only"),
        (f"Storage read for {EXAMPLE_SAMPLES_PER_S:,} x {EXAMPLE_BYTES_PER_SAMPLE:,}-byte samples",
         f"{number(need.read_bytes_per_s / 1e6)} MB/s", "derived"),
        ("Host RAM floor for 8 x H100 SXM 80GB", f"{gib(rule.rule_bytes, 0)} GiB", "rule: 1 x GPU memory"),
        ("Host RAM per billion parameters, ZeRO-2 CPU offload", f"{gib(per_billion, 1)} GiB",
         "DeepSpeed estimator"),
        (f"Rated sequential read, {gen4.name}", f"{gb(gen4.sequential_read_bytes_per_s)} GB/s", "spec"),
    )
    return Table.key_numbers(rows, columns=("quantity", "value", "kind"), caption="From calculators.system "
                             "(data_loader_need, host_ram_need, offload_host_bytes) and the storage catalog.")


#: The audit's claim records about CPU cores and host RAM (calculators.claims), shown on the
#: System page with the audit's own verdicts, so the site states one verdict per claim.
SYSTEM_CLAIM_IDS: tuple[str, ...] = (
    "pytorch-cpu-4-cores", "vrla-ws-cpu-16-cores", "pytorch-ram-16-32gb", "vrla-ws-ram-128gb",
)


@table("system-claims")
def claims() -> Table:
    """The source guides' CPU and host-RAM claims, with the verdicts of the rules-of-thumb audit."""
    return selected_claims(SYSTEM_CLAIM_IDS, page="system/index.md",
        caption=(f"CPU and host-RAM claims of the source guides, as {AUDIT} records and judges them: our "
                 "figure from data_loader_need (whole cores for the data-loading page's example image pipelines: "
                 f"measured Pillow decode, {EXAMPLE_AUGMENT_MS:g} ms of augmentation assumed) or host_ram_need, and "
                 "the computed verdict."))


@table("system-pytorch-key-numbers")
def pytorch_key_numbers() -> Table:
    """Key numbers of the PyTorch basics page."""
    small = get_model("llama-3.2-3b")
    fp32 = inference_memory(small, weights="fp32", kv_cache="fp32", batch=1, context=2048)
    bf16 = inference_memory(small, weights="bf16", kv_cache="bf16", batch=1, context=2048)
    rtx = get_gpu("rtx-4090")
    rows = (
        (f"{small.name} weights in fp32 (4 bytes per parameter)", f"{gib(weight_bytes(small, dtype='fp32'))} GiB",
         "derived"),
        (f"{small.name} CPU inference peak, fp32, 2,048-token prompt", f"{gib(fp32.peak_allocated_bytes)} GiB",
         "estimate (peak_allocated_bytes)"),
        ("Same in bf16", f"{gib(bf16.peak_allocated_bytes)} GiB", "estimate (peak_allocated_bytes)"),
        (f"Host RAM floor for one {rtx.name}",
         f"{gib(system.host_ram_need(gpu_memory_bytes=rtx.memory_bytes).rule_bytes, 0)} GiB", "rule: 1 x GPU memory"),
    )
    return Table.key_numbers(rows, columns=("quantity", "value", "kind"), caption="From weight_bytes, inference_memory "
                             "(batch 1, sdpa, KV cache in the weights' dtype) and host_ram_need.")


TABLES: dict[str, TableFunction] = declared_tables(globals())
