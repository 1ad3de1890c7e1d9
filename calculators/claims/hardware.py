"""Claims about GPU specs, bandwidth and interconnect, compute ratios, host RAM and prices.

Spec claims are checked against catalog records (:mod:`calculators.catalog.gpus`,
:mod:`calculators.catalog.interconnects`, :mod:`calculators.catalog.prices`), each with its
source and as-of date; the rest call :func:`calculators.parallel.step.step_communication`,
:func:`calculators.system.host_ram_need` and :func:`calculators.cost.cost_comparison`.

>>> [c.id for c in claims()][0]
'hfp-rtx-3090-24gb'
"""

from __future__ import annotations

from calculators.catalog import prices
from calculators.catalog.gpus import get_gpu
from calculators.catalog.interconnects import get_interconnect
from calculators.catalog.models import get_model
from calculators.claims.figures import (
    F_GPU,
    HFP,
    LORA,
    LYCEUM,
    MIXED,
    PAGE_COST,
    PAGE_FINE_TUNING,
    PAGE_HARDWARE,
    PAGE_INTERCONNECT,
    PAGE_MULTI_GPU,
    PAGE_SYSTEM,
    PURE16,
    PYTORCH,
    QLORA,
    VRLA_FT,
    VRLA_WS,
    figure,
    gib,
    name,
    training,
)
from calculators.claims.record import (
    Case,
    Claim,
    Figure,
    NotChecked,
)
from calculators.cost import cost_comparison
from calculators.errors import InputError
from calculators.parallel.step import step_communication
from calculators.system import (
    DEFAULT_DECODE_MS_PER_SAMPLE,
    EXAMPLE_AUGMENT_MS,
    EXAMPLE_BYTES_PER_SAMPLE,
    EXAMPLE_ONE_GPU_SAMPLES_PER_S,
    EXAMPLE_SAMPLES_PER_S,
    data_loader_need,
    host_ram_need,
)

F_LINK = "calculators.catalog.interconnects.get_interconnect"
F_PRICE = "calculators.catalog.prices.median_cloud_usd_per_gpu_hour"
PRO = "rtx-pro-6000-blackwell"


def _spec(gpu: str, count: int = 1) -> Figure:
    card = get_gpu(gpu)
    label = card.name if count == 1 else f"{count} x {card.name}"
    return figure([(label, count * card.memory_gib)], "GiB", F_GPU, PAGE_HARDWARE, kind="spec")


def _memory_claim(claim_id: str, source: str, section: str, quote: str, gpu: str, quoted: float,
                  count: int = 1) -> Claim:
    return Claim(id=claim_id, source=source, section=section, quote=quote, subject="system",
                 conditions=f"{count} x {get_gpu(gpu).name}; a GPU's 'GB' is GiB (DRAM densities are powers of two)",
                 low=quoted, high=quoted, unit="GiB",
                 figure=lambda: _spec(gpu, count), why="Datasheet capacity in the GPU catalog.")


def _cloud(gpus: tuple[str, ...]) -> Figure:
    cases = []
    for gpu in gpus:
        median = prices.median_cloud_usd_per_gpu_hour(gpu)
        offers = prices.offers_for(gpu)
        if median is None:
            raise NotChecked(f"no on-demand offer for {get_gpu(gpu).name} in price edition {prices.EDITION}")
        cases.append((f"{get_gpu(gpu).name}, median of {len(offers)} offers", median))
        cases.append((f"{get_gpu(gpu).name}, cheapest ({offers[0].provider})", offers[0].usd_per_gpu_hour))
    return figure(cases, "USD/GPU-hour", F_PRICE, PAGE_COST, kind="spec")


def _ratio(numerator: str, denominator: str) -> Figure:
    a, b = get_gpu(numerator), get_gpu(denominator)
    cases = []
    for label, field in (("bf16 tensor, dense", "bf16_dense_flop_per_s"), ("fp32", "fp32_flop_per_s")):
        top, bottom = getattr(a, field), getattr(b, field)
        if top and bottom:
            cases.append((label, top / bottom))
    return figure(cases, "x", F_GPU, PAGE_HARDWARE, kind="spec")


def _mixed_speedup() -> Figure:
    cases = []
    for gpu in ("rtx-4090", PRO, "a100-80gb-sxm", "h100-sxm"):
        card = get_gpu(gpu)
        if card.bf16_dense_flop_per_s and card.fp32_flop_per_s:
            cases.append((card.name, card.bf16_dense_flop_per_s / card.fp32_flop_per_s))
    return figure(cases, "x", F_GPU, PAGE_HARDWARE, kind="spec")


def _loader_cores() -> Figure:
    """Whole CPU cores (``cpu_cores``) of the System page's two example image pipelines."""
    one = data_loader_need(samples_per_s=EXAMPLE_ONE_GPU_SAMPLES_PER_S, bytes_per_sample=EXAMPLE_BYTES_PER_SAMPLE)
    node = data_loader_need(samples_per_s=EXAMPLE_SAMPLES_PER_S, bytes_per_sample=EXAMPLE_BYTES_PER_SAMPLE,
                            decode_ms_per_sample=DEFAULT_DECODE_MS_PER_SAMPLE + EXAMPLE_AUGMENT_MS)
    return figure([(f"1 GPU, {EXAMPLE_ONE_GPU_SAMPLES_PER_S:,} JPEG/s, decode only", one.cpu_cores),
                   (f"8 GPUs, {EXAMPLE_SAMPLES_PER_S:,} JPEG/s, decode + {EXAMPLE_AUGMENT_MS:g} ms augmentation",
                    node.cpu_cores)],
                  "CPU cores", "calculators.system.data_loader_need", PAGE_SYSTEM)


_LOADER_CONDITIONS = (
    "CPU cores a DataLoader needs to keep the GPUs fed with ImageNet JPEGs (Pillow decode measured at "
    f"{DEFAULT_DECODE_MS_PER_SAMPLE:g} ms per image on one core): one GPU at {EXAMPLE_ONE_GPU_SAMPLES_PER_S:,} "
    f"images/s, decode only, and an 8-GPU node at {EXAMPLE_SAMPLES_PER_S:,} images/s with "
    f"{EXAMPLE_AUGMENT_MS:g} ms of augmentation per image (our example pipelines; the guide names none); cores "
    "scale linearly")


#: The methods a "13B needs several GPUs" claim depends on: (condition, settings).
_METHODS: tuple[tuple[str, dict[str, object]], ...] = (
    ("full fine-tuning, mixed precision", MIXED), ("full fine-tuning, pure bf16", PURE16),
    ("LoRA", LORA), ("QLoRA", QLORA))


def _largest_on_one_gpu(gpu: str, settings: dict[str, object]) -> float:
    """Largest model (B params) one GPU trains at Llama 2 13B's total bytes per parameter for a method."""
    estimate = training("llama-2-13b", **settings, grad_checkpointing=True)
    return get_gpu(gpu).memory_bytes / (estimate.total_bytes / estimate.parameters) / 1e9


def _multi_gpu_threshold() -> Figure:
    gpu = "h100-sxm"  # the GPU the guide's section is about
    return figure([Case(f"{label}, one {get_gpu(gpu).name}", _largest_on_one_gpu(gpu, settings),
                        condition=label) for label, settings in _METHODS],
                  "B params", "calculators.memory.training.training_memory", PAGE_FINE_TUNING)


def _payback_weeks() -> Figure:
    """Weeks of 24/7 use before one RTX PRO 6000 costs less than renting it: at the launch price, else the quote."""
    prices_usd: list[tuple[str, float | None]] = [("launch price", prices.purchase_price_usd(PRO))]
    if prices_usd[0][1] is None:
        quote = prices.purchase_quote(PRO)
        if quote is None:
            raise NotChecked(f"price edition {prices.EDITION} has no purchase price for the {get_gpu(PRO).name}")
        prices_usd = [(f"bought at ${quote.usd_low:,.0f} (street, low)", quote.usd_low),
                      (f"bought at ${quote.usd_high:,.0f} (street, high)", quote.usd_high)]
    cases = []
    for label, usd in prices_usd:
        try:
            comparison = cost_comparison(gpu=PRO, utilization=1.0, purchase_usd=usd)
        except InputError as missing:
            raise NotChecked(f"price edition {prices.EDITION} has no on-demand offer for the {get_gpu(PRO).name} "
                             f"(field {missing.field})") from missing
        hours = comparison.breakeven_gpu_hours
        if hours is None:
            raise NotChecked("local power cost exceeds the cloud price: no break-even")
        cases.append((f"{label}, running 24/7", hours / (24 * 7)))
    return figure(cases, "weeks", "calculators.cost.cost_comparison", PAGE_COST)


def _host_ram(gpu_gib: float, count: int = 1) -> float:
    return gib(host_ram_need(gpu_memory_bytes=int(count * gpu_gib * 2**30)).needed_bytes)


def claims() -> tuple[Claim, ...]:
    """Every spec, interconnect, system and cost claim, in source order."""
    table = "Consumer GPU Comparison"
    ws_config = "Recommended ML workstation configurations in 2026"
    return (
        _memory_claim("hfp-rtx-3090-24gb", HFP, "VRAM Bottleneck", "A consumer RTX 3090 has 24 GB VRAM",
                      "rtx-3090", 24),
        _memory_claim("hfp-a100-80gb-spec", HFP, "Training Memory Lower Bound", "An A100 with 80 GB",
                      "a100-80gb-sxm", 80),
        _memory_claim("hfp-table-rtx-3090", HFP, table, "| RTX 3090 | 24 GB |", "rtx-3090", 24),
        Claim(id="hfp-table-rtx-3090-price", source=HFP, section=table, subject="cost", quote="$800 used",
              conditions="a used RTX 3090", low=None, high=None, unit="USD", figure=None, why="",
              not_checked=("The price catalog records launch MSRPs and cloud offers, not used-market prices "
                           "(the RTX 3090's MSRP is in the hardware catalog).")),
        _memory_claim("hfp-table-rtx-4090", HFP, table, "| RTX 4090 | 24 GB |", "rtx-4090", 24),
        Claim(id="hfp-table-rtx-4090-price", source=HFP, section=table, subject="cost", quote="$1600 new",
              conditions="a new RTX 4090 at its launch price", low=1600, high=1600, unit="USD",
              figure=lambda: figure([("launch MSRP", prices.purchase_price_usd("rtx-4090") or 0.0)], "USD",
                                    "calculators.catalog.prices.purchase_price_usd", PAGE_COST, kind="spec"),
              why="NVIDIA's launch price; street prices have moved since."),
        _memory_claim("hfp-table-a100-40", HFP, table, "| A100 (cloud) | 40/80 GB |", "a100-40gb-sxm", 40),
        _memory_claim("hfp-table-a100-80", HFP, table, "| A100 (cloud) | 40/80 GB |", "a100-80gb-sxm", 80),
        Claim(id="hfp-table-a100-price", source=HFP, section=table, subject="cost", quote="$1-2/hr",
              conditions="on-demand A100 per GPU-hour", low=1, high=2, unit="USD/GPU-hour",
              figure=lambda: _cloud(("a100-80gb-sxm", "a100-40gb-sxm")),
              why="Community-cloud offers sit in range; the median offer, with hyperscalers, is above it."),
        _memory_claim("hfp-table-h100", HFP, table, "| H100 (cloud) | 80 GB |", "h100-sxm", 80),
        Claim(id="hfp-table-h100-price", source=HFP, section=table, subject="cost", quote="$2-4/hr",
              conditions="on-demand H100 SXM per GPU-hour", low=2, high=4, unit="USD/GPU-hour",
              figure=lambda: _cloud(("h100-sxm",)), why="Dated on-demand offers (price edition in the caption)."),
        _memory_claim("hfp-t4-16gb", HFP, "Cloud Options", "T4 (16 GB VRAM)", "t4", 16),
        Claim(id="hfp-4090-2x-3090", source=HFP, section="Common Confusions", subject="interconnect",
              quote="The RTX 4090 is about 2x faster than the 3090 in raw FLOPS",
              conditions="dense peak rates from the architecture whitepapers (FP32 accumulation for tensor rates)",
              low=2, high=2, unit="x", figure=lambda: _ratio("rtx-4090", "rtx-3090"),
              why="Both the tensor and the fp32 peak are a little over twice the 3090's."),
        _memory_claim("hfp-4090-3090-both-24gb", HFP, "Common Confusions", "but both have 24 GB VRAM",
                      "rtx-4090", 24),
        Claim(id="lyceum-h100-3.35tbs", source=LYCEUM, section="The Standard for Heavy Training Workloads",
              subject="interconnect", quote="the H100 delivers 3.35 TB/s of memory bandwidth",
              conditions="H100 memory bandwidth; the claim names no form factor", low=3.35, high=3.35, unit="TB/s",
              figure=lambda: figure([(get_gpu(g).name, get_gpu(g).memory_bandwidth_bytes_per_s / 1e12)
                                     for g in ("h100-sxm", "h100-pcie")], "TB/s", F_GPU, PAGE_HARDWARE, kind="spec"),
              why="3.35 TB/s is the SXM module (HBM3); the PCIe card has HBM2e at 2.0 TB/s."),
        Claim(id="lyceum-13b-multi-gpu", source=LYCEUM, section="Scaling Beyond a Single Node",
              subject="training", quote="For models exceeding 13 billion parameters, multi-GPU scaling becomes mandatory",
              conditions=("read as: no single GPU trains a model above 13B, so the largest model one GPU trains is at "
                          "most 13B; per method (AdamW, batch 1 x 2048, ckpt on, at Llama 2 13B's total bytes per "
                          "parameter) on one H100 SXM 80GB, the GPU the guide's section names"),
              low=13, high=13, unit="B params", bound="at most", figure=_multi_gpu_threshold,
              why=("True for full fine-tuning: 8-16 B/param of model states put even 7-13B beyond one card. False "
                   "for LoRA and QLoRA: a frozen 16-bit or 4-bit base lets one large GPU train far above 13B.")),
        Claim(id="lyceum-pcie5-128", source=LYCEUM, section="Scaling Beyond a Single Node", subject="interconnect",
              quote="the bandwidth tops out around 128 GB/s on Gen 5", conditions="PCIe 5.0 x16",
              low=128, high=128, unit="GB/s",
              figure=lambda: figure([("both directions summed", get_interconnect("pcie5").bidirectional_bytes_per_s / 1e9),
                                     ("one direction (what a ring all-reduce uses)",
                                      get_interconnect("pcie5").per_direction_bytes_per_s / 1e9)],
                                    "GB/s", F_LINK, PAGE_INTERCONNECT, kind="spec"),
              why="PCI-SIG's 128 GB/s for a x16 link sums both directions; each way is 64 GB/s."),
        Claim(id="lyceum-nvlink-900", source=LYCEUM, section="Scaling Beyond a Single Node", subject="interconnect",
              quote="NVLink, which provides up to 900 GB/s of GPU-to-GPU bandwidth on H100 clusters",
              conditions="NVLink on H100 (SXM: NVLink 4, 18 links; PCIe: NVLink bridge)",
              low=900, high=900, unit="GB/s",
              figure=lambda: figure([
                  ("H100 SXM, both directions", get_interconnect("nvlink4").bidirectional_bytes_per_s / 1e9),
                  ("H100 SXM, one direction", get_interconnect("nvlink4").per_direction_bytes_per_s / 1e9),
                  ("H100 PCIe bridge, both directions",
                   get_interconnect("nvlink-bridge-h100-pcie").bidirectional_bytes_per_s / 1e9)],
                  "GB/s", F_LINK, PAGE_INTERCONNECT, kind="spec"),
              why="900 GB/s is the SXM total of both directions; compare it with PCIe's 128 GB/s, also both directions."),
        Claim(id="lyceum-pcie-waits-more-than-computes", source=LYCEUM, section="Scaling Beyond a Single Node",
              subject="interconnect",
              quote="Without NVLink, the GPUs spend more time waiting for data to arrive over the PCIe bus than "
                    "they do actually computing gradients",
              conditions=(f"8 x H100 over PCIe 5, {name('llama-2-13b')} data parallel, batch 1 x 4096 per GPU; "
                          "communication / compute time of one step"),
              low=1, high=1, unit="x compute", bound="at least",
              figure=lambda: figure([(f"ZeRO-{z}", step_communication(
                  get_model("llama-2-13b"), gpu="h100-sxm", gpus=8, zero=z, interconnect="pcie5",
                  seq=4096).comm_to_compute)
                  for z in (0, 3)], "x compute", "calculators.parallel.step.step_communication", PAGE_MULTI_GPU),
              why="A 13B gradient all-reduce over 64 GB/s each way takes longer than the step's compute."),
        Claim(id="vrla-ws-mixed-2-8x-throughput", source=VRLA_WS, section="GPU compute: Tensor Cores and mixed "
              "precision", subject="interconnect", quote="providing 2-8x throughput increase over full FP32 training",
              conditions="dense bf16 tensor peak over the fp32 (non-tensor) peak; PyTorch fp32 matmuls skip TF32 by default",
              low=2, high=8, unit="x", figure=_mixed_speedup,
              why="Workstation cards gain 2-4x; datacenter parts with weak fp32 gain more than 8x."),
        Claim(id="vrla-ws-4000-ai-tops", source=VRLA_WS, section="GPU compute: Tensor Cores and mixed precision",
              subject="interconnect", quote="deliver 4,000 AI TOPS", conditions="RTX PRO 6000 FP4 with sparsity",
              low=None, high=None, unit="TOPS", figure=None, why="",
              not_checked=("A sparse FP4 headline; the GPU catalog records dense BF16/FP8 rates only.")),
        _memory_claim("vrla-ws-pro6000-96gb", VRLA_WS, ws_config, "NVIDIA RTX PRO 6000 Blackwell (96GB ECC GDDR7)",
                      PRO, 96),
        Claim(id="vrla-ws-cpu-16-cores", source=VRLA_WS, section="CPU and RAM: data loading and preprocessing",
              subject="system",
              quote="16+ CPU cores ensure DataLoader workers can preprocess data fast enough for continuous GPU "
                    "utilization",
              conditions=_LOADER_CONDITIONS, low=16, high=16, unit="CPU cores", bound="at most",
              figure=_loader_cores,
              why=("Both example pipelines fit in 16 cores; the count grows with images/s and with the CPU time of "
                   "each image, so a heavier augmentation can exceed it.")),
        Claim(id="vrla-ws-ram-128gb", source=VRLA_WS, section=ws_config, subject="system", quote="RAM: 128GB DDR5 ECC",
              conditions="host RAM for one 96 GB GPU: rule 'at least the total GPU memory'",
              low=128, high=128, unit="GiB", bound="at most",
              figure=lambda: figure([("1 x 96 GiB GPU", _host_ram(get_gpu(PRO).memory_gib))], "GiB",
                                    "calculators.system.host_ram_need", PAGE_SYSTEM),
              why="Host RAM should at least stage the GPU's memory; 128 GB covers 96 GB."),
        _memory_claim("vrla-ws-2x-pro6000-192gb", VRLA_WS, ws_config,
                      "2x NVIDIA RTX PRO 6000 Blackwell (192GB combined)", PRO, 192, count=2),
        Claim(id="vrla-ws-ram-256gb", source=VRLA_WS, section=ws_config, subject="system", quote="RAM: 256GB DDR5 ECC",
              conditions="host RAM for two 96 GB GPUs: rule 'at least the total GPU memory'",
              low=256, high=256, unit="GiB", bound="at most",
              figure=lambda: figure([("2 x 96 GiB GPUs", _host_ram(get_gpu(PRO).memory_gib, 2))], "GiB",
                                    "calculators.system.host_ram_need", PAGE_SYSTEM),
              why="256 GB covers 192 GB of GPU memory."),
        Claim(id="pytorch-cpu-4-cores", source=PYTORCH, section="Central Processing Unit (CPU)", subject="system",
              quote=("a modern, multi-core CPU with at least 4 cores and 8 threads provides sufficient overhead "
                     "for most tasks"),
              conditions=_LOADER_CONDITIONS, low=4, high=4, unit="CPU cores", bound="at most",
              figure=_loader_cores,
              why=("Loader cores are images/s x CPU ms per image: one GPU's decode fits in 4 cores, a multi-GPU "
                   "node with augmentation needs several times more.")),
        Claim(id="pytorch-ram-16-32gb", source=PYTORCH, section="Random Access Memory (RAM)", subject="system",
              quote="start with 16GB of RAM, but 32GB or more is preferable",
              conditions="host RAM for the guide's own GPU tiers (6, 8 and 12 GB): rule 'at least the GPU memory'",
              low=16, high=16, unit="GiB", bound="at most",
              figure=lambda: figure([(f"{g} GiB GPU", _host_ram(g)) for g in (6, 8, 12)], "GiB",
                                    "calculators.system.host_ram_need", PAGE_SYSTEM),
              why="16 GB covers a 12 GB card; larger cards or datasets need more."),
        _memory_claim("vrla-pro6000-96gb", VRLA_FT, "Fine-tuning 7B–13B models — QLoRA and LoRA",
                      "single NVIDIA RTX PRO 6000 Blackwell (96GB VRAM)", PRO, 96),
        _memory_claim("vrla-rtx-5090-32gb", VRLA_FT, "Exact VRAM requirements by model size and fine-tuning approach",
                      "Single RTX 5090 (32GB) — comfortable", "rtx-5090", 32),
        _memory_claim("vrla-4gpu-384gb", VRLA_FT, "Fine-tuning 70B models — full LoRA",
                      "4-GPU EPYC LLM Server with 384GB of combined VRAM", PRO, 384, count=4),
        _memory_claim("vrla-8gpu-768gb", VRLA_FT, "Full parameter fine-tuning of 70B models",
                      "8-GPU EPYC Server with 768GB of combined VRAM", PRO, 768, count=8),
        Claim(id="vrla-unsloth-70pct", source=VRLA_FT, section="QLoRA fine-tuning", subject="training",
              quote="2× faster fine-tuning with 70% less VRAM than standard QLoRA",
              conditions="Unsloth's kernels against a standard QLoRA setup", low=None, high=None, unit="%",
              figure=None, why="",
              not_checked=("No calculator here models Unsloth's kernels, so the figure is its maker's alone: the "
                           "Unsloth README (github.com/unslothai/unsloth, read 2026-11-25) reports 2x speed and "
                           "'>70%' less VRAM for Llama 3.1 8B, QLoRA rank 32 on all linear layers, batch 2 x 4 "
                           "accumulation steps on Alpaca, against Hugging Face with FlashAttention 2 on an 80 GB GPU. "
                           "The guide repeats that benchmark; nobody independent has measured it here.")),
        Claim(id="vrla-payback-4-8-weeks", source=VRLA_FT, section="Cloud Cost are Insane", subject="cost",
              quote="Our workstations and servers often pay for themselves in 4–8 weeks",
              conditions="one RTX PRO 6000 bought against renting the same GPU on demand, busy 24/7",
              low=4, high=8, unit="weeks", figure=_payback_weeks,
              why="Break-even GPU-hours = purchase / (cloud price - power cost), at full utilisation."),
    )

