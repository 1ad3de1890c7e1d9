"""Price catalog, edition 2026-11: cloud on-demand $/GPU-hour, GPU purchase prices, electricity.

Prices move every month, so this is a dated *edition*: each record carries the date its
source was read. A later edition adds a new module constant and records; it does not
rewrite these. Every price here can be overridden by the caller (function arguments, CLI
flags, widget fields); the catalog only supplies defaults.

* Cloud offers are on-demand list prices with no commitment, as published by the provider
  (transcribed by the cited collector on the cited date). Multi-GPU instances are priced
  per instance; ``usd_per_gpu_hour`` divides by the GPU count.
* Purchase prices are the vendor's launch MSRP where one exists (``GPU.launch_price_usd``);
  datacenter GPUs have no public list price, so only a quoted *range* is recorded and the
  default is ``None`` (the caller must supply a price).
* Electricity: U.S. state averages from EIA, and one stated assumption used as the default.

>>> EDITION
'2026-11'
>>> round(get_offer("aws-p5.48xlarge").usd_per_gpu_hour, 2)
6.88
>>> purchase_price_usd("rtx-4090"), purchase_price_usd("h100-sxm") is None
(1599.0, True)
>>> default_kwh_price().usd_per_kwh
0.15

References:
    docs page "Local or cloud?"; each record's ``source``.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from calculators.catalog.gpus import get_gpu
from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError
from calculators.units import GIB

#: The edition of this catalog (year-month the prices were collected).
EDITION = "2026-11"

# --- documents -------------------------------------------------------------------------
_RUNPOD = Source("RunPod pricing page (runpod.io/pricing, Secure and Community Cloud), read 2026-11-09, "
                 "as transcribed in data-receipts 109-gpu-pricing/vendors.json",
                 "https://raw.githubusercontent.com/datareceipts/data-receipts/main/109-gpu-pricing/vendors.json",
                 "2026-11-09")
_AWS = Source("AWS EC2 on-demand prices, us-east-1, as collected in data-receipts 109-gpu-pricing/hyperscalers.json",
              "https://raw.githubusercontent.com/datareceipts/data-receipts/main/109-gpu-pricing/hyperscalers.json",
              "2026-11-09")
_LAMBDA = Source("Lambda instances pricing (lambda.ai/instances), read 2026-09-20, as transcribed in "
                 "api-evangelist lambda-labs plans",
                 "https://raw.githubusercontent.com/api-evangelist/lambda-labs/refs/heads/main/plans/"
                 "lambda-labs-plans-pricing.yml", "2026-09-20")
_RUNPOD_PODS = Source("RunPod pricing page (Pods), read 2026-10-07, as transcribed in api-evangelist runpod plans",
                      "https://raw.githubusercontent.com/api-evangelist/runpod/refs/heads/main/plans/"
                      "runpod-plans-pricing.yml", "2026-10-07")
_VERDA = Source("Verda (formerly DataCrunch) pricing page, on-demand 1x GPU, as recorded in the "
                "lantern-works gpu-cloud-prices dataset", "https://huggingface.co/datasets/lantern-works/gpu-cloud-prices",
                "2026-10-29")
_OPENRELAY = Source("OpenRelay GPU pricing calculator page, read 2026-09-20, as transcribed in api-evangelist "
                    "openrelay plans", "https://raw.githubusercontent.com/api-evangelist/openrelay/refs/heads/main/"
                    "plans/openrelay-plans-pricing.yml", "2026-09-20")
_P5_SPECS = Source("silicon.fr: EC2 Capacity Blocks for ML, P5 instance (192 vCPU, 2 TB RAM, 8 H100 80GB)",
                   "https://www.silicon.fr/aws-blocs-capacite-ec2-ml-473074.html", "2023-11-02")
_P4D_SPECS = Source("Copy of the Amazon EC2 Capacity Blocks for ML pricing page (p4d.24xlarge: 96 vCPU, "
                    "1152 GiB instance memory, 8 x A100)", "http://sibshop.uat.jiralog.com/ec2/capacityblocks/pricing",
                    "2026-11-21")

def _vantage(family: str) -> Source:
    """One AWS instance-family file of the tsaol/aws-gpu transcription of instances.vantage.sh."""
    return Source(f"AWS EC2 on-demand prices and instance specs (vCPUs, memory in GiB as AWS lists it), "
                  f"{family} family, us-east-1, as transcribed from instances.vantage.sh (AWS Price List data) "
                  f"in tsaol/aws-gpu data/{family}_instances.js, 'Last updated: 2026-01-21'",
                  f"https://github.com/tsaol/aws-gpu/blob/7412fd256c5eda04a70a17742a68e8e44824b2cb/data/"
                  f"{family}_instances.js", "2026-01-21")


_AWS_G4DN = _vantage("g4dn")
_AWS_G6 = _vantage("g6")
_AWS_G6E = _vantage("g6e")
_AWS_P3DN = _vantage("p3dn")
_P3DN_SPECS = Source("AWS Batch User Guide, GPU jobs (China-region copy): p3dn.24xlarge has 8 GPUs, 256 GiB GPU "
                     "memory (32 GiB V100 each), 96 vCPUs, 768 GiB memory",
                     "https://docs.amazonaws.cn/batch/latest/userguide/gpu-jobs.html", "2026-11-21")
_DO_GPU = Source("DigitalOcean Droplet Pricing docs, GPU Droplet Pricing table ('Validated on 28 May 2026, "
                 "Last edited on 29 May 2026'): on-demand list prices per Droplet",
                 "https://docs.digitalocean.com/products/droplets/details/pricing/", "2026-05-29")
_RUNPOD_2025 = Source("RunPod GPU Pricing, Secure Cloud and Community Cloud on-demand pod prices, as transcribed "
                      "in carsonpo/gpus costs/runpod.md (commit of 2025-07-13)",
                      "https://github.com/carsonpo/gpus/blob/5cf873449e7892a2d2c1b9c51b44614f1d925e9f/costs/"
                      "runpod.md", "2025-07-13")
_RUNPOD_2026_01 = Source("RunPod pod prices, '$/hr On-Demand' column, as transcribed by a user in "
                         "Malaeu/nanoGPT-RH docs/runpod_specs.md ('Last Updated: 2026-01-01'); 'RTX PRO 6000 WK' "
                         "is the Workstation Edition, 'RTX PRO 6000' (1.84) the Server Edition",
                         "https://github.com/Malaeu/nanoGPT-RH/blob/b72ba563139e78e89aaae220261d480619b27d5b/docs/"
                         "runpod_specs.md", "2026-01-01")
_COREWEAVE = Source("CoreWeave pricing page, read 2026-09-20, as transcribed in api-evangelist coreweave plans "
                    "('NVIDIA GB200 NVL72 (on-demand, North America) $42.00' per hour for 4 GPUs, 144 vCPUs)",
                    "https://raw.githubusercontent.com/api-evangelist/coreweave/refs/heads/main/plans/"
                    "coreweave-plans-pricing.yml", "2026-09-20")
_H100_QUOTE = Source("AI Wiki: NVIDIA H100 (per-unit prices in the $25,000 to $40,000 range)",
                     "https://aiwiki.ai/wiki/nvidia_h100", "2026-06-20")
_PRO6000_STREET = Source("NewGearHub, Nvidia GTC 2026: What Blackwell GPUs Mean for Pro Workstations (RTX PRO 6000 "
                         "Blackwell retailing between $8,000 and $9,200 as of April 2026; MSRP given as $8,565)",
                         "https://www.newgearhub.com/review/nvidia-gtc-2026-blackwell-gpus-pro-workstations",
                         "2026-04-06")
_EIA_2023 = Source("U.S. EIA Electric Power Annual 2023, average revenue per kWh by state and sector",
                   "https://www.eia.gov/electricity/annual/secrev-map.php", "2024-10-17", kind="measured")


@dataclass(frozen=True, kw_only=True)
class CloudOffer:
    """One on-demand cloud offer for one GPU type.

    Attributes:
        id: Slug, e.g. ``"runpod-secure-h100-sxm"``.
        provider: Provider name, e.g. ``"RunPod (Secure Cloud)"``.
        offering: Instance type or tier as the provider names it.
        gpu_id: Id in :mod:`calculators.catalog.gpus`.
        gpus: GPUs in one instance.
        usd_per_hour: On-demand price of one instance, USD/hour.
        host_ram_bytes: Instance (host) memory, bytes; ``None`` where the source does not say.
        vcpus: Instance vCPUs; ``None`` where the source does not say.
        source: Where the price comes from.
        spec_source: Where ``host_ram_bytes`` and ``vcpus`` come from, if not ``source``.
    """

    id: str
    provider: str
    offering: str
    gpu_id: str
    gpus: int
    usd_per_hour: float
    host_ram_bytes: int | None = None
    vcpus: int | None = None
    source: Source
    spec_source: Source | None = None

    @property
    def usd_per_gpu_hour(self) -> float:
        """Price per GPU-hour, USD: ``usd_per_hour / gpus`` (derived)."""
        return self.usd_per_hour / self.gpus


@dataclass(frozen=True, kw_only=True)
class PurchaseQuote:
    """A quoted price range for a GPU with no vendor list price (USD per GPU)."""

    gpu_id: str
    usd_low: float
    usd_high: float
    source: Source


@dataclass(frozen=True, kw_only=True)
class ElectricityPrice:
    """An electricity tariff in USD per kWh, with where it applies."""

    id: str
    region: str
    sector: str
    usd_per_kwh: float
    source: Source


_OFFERS: tuple[CloudOffer, ...] = (
    CloudOffer(id="runpod-secure-h100-sxm", provider="RunPod (Secure Cloud)", offering="H100 SXM",
               gpu_id="h100-sxm", gpus=1, usd_per_hour=3.99, source=_RUNPOD),
    CloudOffer(id="runpod-community-h100-sxm", provider="RunPod (Community Cloud)", offering="H100 SXM",
               gpu_id="h100-sxm", gpus=1, usd_per_hour=2.69, source=_RUNPOD),
    CloudOffer(id="runpod-secure-h100-pcie", provider="RunPod (Secure Cloud)", offering="H100 PCIe",
               gpu_id="h100-pcie", gpus=1, usd_per_hour=2.89, source=_RUNPOD),
    CloudOffer(id="runpod-community-h100-pcie", provider="RunPod (Community Cloud)", offering="H100 PCIe",
               gpu_id="h100-pcie", gpus=1, usd_per_hour=1.99, source=_RUNPOD),
    CloudOffer(id="runpod-secure-a100-sxm", provider="RunPod (Secure Cloud)", offering="A100 SXM 80GB",
               gpu_id="a100-80gb-sxm", gpus=1, usd_per_hour=1.79, source=_RUNPOD),
    CloudOffer(id="runpod-community-a100-sxm", provider="RunPod (Community Cloud)", offering="A100 SXM 80GB",
               gpu_id="a100-80gb-sxm", gpus=1, usd_per_hour=1.39, source=_RUNPOD),
    CloudOffer(id="runpod-h200", provider="RunPod (Pods)", offering="H200", gpu_id="h200", gpus=1,
               usd_per_hour=4.59, source=_RUNPOD_PODS),
    CloudOffer(id="aws-p5.48xlarge", provider="AWS", offering="p5.48xlarge", gpu_id="h100-sxm", gpus=8,
               usd_per_hour=55.04, host_ram_bytes=2048 * GIB, vcpus=192, source=_AWS, spec_source=_P5_SPECS),
    CloudOffer(id="aws-p4d.24xlarge", provider="AWS", offering="p4d.24xlarge", gpu_id="a100-40gb-sxm", gpus=8,
               usd_per_hour=21.957642, host_ram_bytes=1152 * GIB, vcpus=96, source=_AWS, spec_source=_P4D_SPECS),
    CloudOffer(id="aws-p4de.24xlarge", provider="AWS", offering="p4de.24xlarge", gpu_id="a100-80gb-sxm", gpus=8,
               usd_per_hour=27.44705, source=_AWS),
    CloudOffer(id="lambda-8x-h100-sxm", provider="Lambda", offering="8x NVIDIA H100 SXM", gpu_id="h100-sxm",
               gpus=8, usd_per_hour=8 * 3.99, host_ram_bytes=1800 * GIB, vcpus=208, source=_LAMBDA),
    CloudOffer(id="lambda-8x-a100-80gb", provider="Lambda", offering="8x NVIDIA A100 SXM 80 GB",
               gpu_id="a100-80gb-sxm", gpus=8, usd_per_hour=8 * 2.79, host_ram_bytes=1800 * GIB, vcpus=240,
               source=_LAMBDA),
    CloudOffer(id="lambda-8x-a100-40gb", provider="Lambda", offering="8x NVIDIA A100 SXM 40 GB",
               gpu_id="a100-40gb-sxm", gpus=8, usd_per_hour=8 * 1.99, host_ram_bytes=1800 * GIB, vcpus=124,
               source=_LAMBDA),
    CloudOffer(id="lambda-8x-b200", provider="Lambda", offering="8x NVIDIA B200 SXM6", gpu_id="b200", gpus=8,
               usd_per_hour=8 * 6.69, host_ram_bytes=2900 * GIB, vcpus=208, source=_LAMBDA),
    CloudOffer(id="verda-rtx-a6000", provider="Verda", offering="RTX A6000 on-demand (1x GPU)", gpu_id="rtx-a6000",
               gpus=1, usd_per_hour=0.82, source=_VERDA),
    CloudOffer(id="openrelay-rtx-4090", provider="OpenRelay", offering="RTX 4090 24GB", gpu_id="rtx-4090", gpus=1,
               usd_per_hour=0.29, source=_OPENRELAY),
    CloudOffer(id="openrelay-rtx-3090", provider="OpenRelay", offering="RTX 3090 24GB", gpu_id="rtx-3090", gpus=1,
               usd_per_hour=0.18, source=_OPENRELAY),
    # Gaps filled (issue #6): T4, L4, L40S, V100 32GB, MI300X, RTX 5090, RTX PRO 6000 Blackwell.
    CloudOffer(id="aws-g4dn.xlarge", provider="AWS", offering="g4dn.xlarge", gpu_id="t4", gpus=1,
               usd_per_hour=0.526, host_ram_bytes=16 * GIB, vcpus=4, source=_AWS_G4DN),
    CloudOffer(id="aws-g6.xlarge", provider="AWS", offering="g6.xlarge", gpu_id="l4", gpus=1,
               usd_per_hour=0.8048, host_ram_bytes=16 * GIB, vcpus=4, source=_AWS_G6),
    CloudOffer(id="aws-g6e.xlarge", provider="AWS", offering="g6e.xlarge", gpu_id="l40s", gpus=1,
               usd_per_hour=1.861, host_ram_bytes=32 * GIB, vcpus=4, source=_AWS_G6E),
    CloudOffer(id="aws-p3dn.24xlarge", provider="AWS", offering="p3dn.24xlarge", gpu_id="v100-sxm2-32gb", gpus=8,
               usd_per_hour=31.212, host_ram_bytes=768 * GIB, vcpus=96, source=_AWS_P3DN,
               spec_source=_P3DN_SPECS),
    CloudOffer(id="digitalocean-mi300x", provider="DigitalOcean", offering="GPU Droplet AMD MI300X", gpu_id="mi300x",
               gpus=1, usd_per_hour=1.99, source=_DO_GPU),
    CloudOffer(id="digitalocean-mi300x-8x", provider="DigitalOcean", offering="GPU Droplet AMD MI300X (8x)",
               gpu_id="mi300x", gpus=8, usd_per_hour=15.92, source=_DO_GPU),
    CloudOffer(id="digitalocean-l40s", provider="DigitalOcean", offering="GPU Droplet NVIDIA L40s", gpu_id="l40s",
               gpus=1, usd_per_hour=1.57, source=_DO_GPU),
    CloudOffer(id="runpod-secure-l40s", provider="RunPod (Secure Cloud)", offering="L40S", gpu_id="l40s", gpus=1,
               usd_per_hour=0.86, source=_RUNPOD_2025),
    CloudOffer(id="runpod-community-l40s", provider="RunPod (Community Cloud)", offering="L40S", gpu_id="l40s",
               gpus=1, usd_per_hour=0.79, source=_RUNPOD_2025),
    CloudOffer(id="runpod-secure-l4", provider="RunPod (Secure Cloud)", offering="L4", gpu_id="l4", gpus=1,
               usd_per_hour=0.43, source=_RUNPOD_2025),
    CloudOffer(id="runpod-secure-rtx-5090", provider="RunPod (Secure Cloud)", offering="RTX 5090", gpu_id="rtx-5090",
               gpus=1, usd_per_hour=0.89, source=_RUNPOD_2025),
    CloudOffer(id="runpod-community-rtx-5090", provider="RunPod (Community Cloud)", offering="RTX 5090",
               gpu_id="rtx-5090", gpus=1, usd_per_hour=0.69, source=_RUNPOD_2025),
    CloudOffer(id="runpod-rtx-pro-6000-wk", provider="RunPod (Pods)", offering="RTX PRO 6000 WK",
               gpu_id="rtx-pro-6000-blackwell", gpus=1, usd_per_hour=2.09, source=_RUNPOD_2026_01),
    CloudOffer(id="runpod-rtx-pro-6000-server", provider="RunPod (Pods)", offering="RTX PRO 6000",
               gpu_id="rtx-pro-6000-server", gpus=1, usd_per_hour=1.84, source=_RUNPOD_2026_01),
    CloudOffer(id="runpod-l40", provider="RunPod (Pods)", offering="L40", gpu_id="l40", gpus=1, usd_per_hour=0.99,
               source=_RUNPOD_2026_01),
    CloudOffer(id="runpod-community-l40", provider="RunPod (Community Cloud)", offering="L40", gpu_id="l40", gpus=1,
               usd_per_hour=0.69, source=_RUNPOD_2025),
    CloudOffer(id="runpod-secure-h100-nvl", provider="RunPod (Secure Cloud)", offering="H100 NVL", gpu_id="h100-nvl",
               gpus=1, usd_per_hour=3.19, source=_RUNPOD),
    CloudOffer(id="runpod-community-h100-nvl", provider="RunPod (Community Cloud)", offering="H100 NVL",
               gpu_id="h100-nvl", gpus=1, usd_per_hour=2.59, source=_RUNPOD),
    CloudOffer(id="runpod-secure-a100-pcie", provider="RunPod (Secure Cloud)", offering="A100 PCIe",
               gpu_id="a100-80gb-pcie", gpus=1, usd_per_hour=1.79, source=_RUNPOD),
    CloudOffer(id="runpod-community-a100-pcie", provider="RunPod (Community Cloud)", offering="A100 PCIe",
               gpu_id="a100-80gb-pcie", gpus=1, usd_per_hour=1.19, source=_RUNPOD),
    CloudOffer(id="coreweave-gb200-nvl72", provider="CoreWeave", offering="NVIDIA GB200 NVL72 (4 GPUs)",
               gpu_id="gb200", gpus=4, usd_per_hour=42.0, vcpus=144, source=_COREWEAVE),
)

#: Catalog GPUs that can be rented but for which no on-demand price was found in a citable read source, and why.
UNPRICED: dict[str, str] = {
    "mi325x": "no on-demand MI325X price in a read source that can be cited (DigitalOcean lists a 12-month reserved "
              "price only; TensorWave's is a 'starting at' quote)",
    "mi355x": "no on-demand MI355X price in a read source that can be cited (Crusoe and Hot Aisle list none; "
              "TensorWave's is a 'starting at' quote)",
    "h20": "sold for the Chinese market; no on-demand H20 price in a read source",
}

_QUOTES: tuple[PurchaseQuote, ...] = (
    PurchaseQuote(gpu_id="h100-sxm", usd_low=25000, usd_high=40000, source=_H100_QUOTE),
    # The GPU catalog holds no launch price for the RTX PRO 6000: a dated street-price range instead.
    PurchaseQuote(gpu_id="rtx-pro-6000-blackwell", usd_low=8000, usd_high=9200, source=_PRO6000_STREET),
)

_DEFAULT_KWH = ElectricityPrice(
    id="assumed-default", region="assumption", sector="any", usd_per_kwh=0.15,
    source=Source("Assumed default: 15 US cents/kWh, inside the range of 2023 U.S. state averages in EIA's "
                  "Electric Power Annual (commercial 8.82 in Texas to 23.91 in California; residential 14.46 to "
                  "29.51); set your own tariff", _EIA_2023.url, _EIA_2023.as_of, kind="assumed"))

_ELECTRICITY: tuple[ElectricityPrice, ...] = (
    _DEFAULT_KWH,
    ElectricityPrice(id="us-tx-commercial-2023", region="Texas", sector="commercial", usd_per_kwh=0.0882,
                     source=_EIA_2023),
    ElectricityPrice(id="us-ny-commercial-2023", region="New York", sector="commercial", usd_per_kwh=0.1801,
                     source=_EIA_2023),
    ElectricityPrice(id="us-ca-commercial-2023", region="California", sector="commercial", usd_per_kwh=0.2391,
                     source=_EIA_2023),
    ElectricityPrice(id="us-tx-residential-2023", region="Texas", sector="residential", usd_per_kwh=0.1446,
                     source=_EIA_2023),
    ElectricityPrice(id="us-ca-residential-2023", region="California", sector="residential", usd_per_kwh=0.2951,
                     source=_EIA_2023),
)


def all_offers() -> tuple[CloudOffer, ...]:
    """Every cloud offer of this edition, in catalog order."""
    return _OFFERS


def get_offer(offer_id: str) -> CloudOffer:
    """The cloud offer with this id; raises :class:`UnknownNameError` (field ``offer``)."""
    for offer in _OFFERS:
        if offer.id == str(offer_id).strip().lower():
            return offer
    raise UnknownNameError("offer", offer_id, [offer.id for offer in _OFFERS])


def offers_for(gpu_id: str) -> tuple[CloudOffer, ...]:
    """Offers of one GPU type, cheapest per GPU-hour first.

    >>> [o.id for o in offers_for("a100-80gb-sxm")]
    ['runpod-community-a100-sxm', 'runpod-secure-a100-sxm', 'lambda-8x-a100-80gb', 'aws-p4de.24xlarge']
    """
    gpu = get_gpu(gpu_id)
    return tuple(sorted((o for o in _OFFERS if o.gpu_id == gpu.id), key=lambda o: (o.usd_per_gpu_hour, o.id)))


def median_cloud_usd_per_gpu_hour(gpu_id: str) -> float | None:
    """Median on-demand $/GPU-hour over this edition's offers for the GPU; ``None`` when there are none.

    The median, not the cheapest: the cheapest offers (community marketplaces) come with
    weaker availability and no datacentre SLA, the dearest (hyperscalers) with networking
    and services a single-GPU job may not need.

    >>> median_cloud_usd_per_gpu_hour("h100-sxm")
    3.99
    >>> median_cloud_usd_per_gpu_hour("t4")
    0.526
    >>> median_cloud_usd_per_gpu_hour("m4-max") is None
    True
    """
    prices = [offer.usd_per_gpu_hour for offer in offers_for(gpu_id)]
    return float(statistics.median(prices)) if prices else None


@dataclass(frozen=True)
class ConfigurationPrice:
    """The on-demand price of ``count`` GPUs of one type, and what it rests on.

    Attributes:
        usd_per_hour: USD per hour of the whole configuration; ``None`` = no offer at all.
        basis: ``"offer"`` (instances of exactly ``count`` GPUs exist in the edition: the median
            of their prices), ``"per-GPU assumption"`` (no such instance: ``count x`` the
            median per-GPU-hour of the offers there are, which assumes ``count`` GPUs of this
            type can be rented together at that rate) or ``"unknown"``.
        offers: ids of the offers the price comes from.
    """

    usd_per_hour: float | None
    basis: str
    offers: tuple[str, ...] = ()

    @property
    def is_offer(self) -> bool:
        """True when an instance of exactly this many GPUs is on offer."""
        return self.basis == OFFER


OFFER = "offer"
PER_GPU_ASSUMPTION = "per-GPU assumption"
UNKNOWN = "unknown"


def configuration_price(gpu_id: str, count: int) -> ConfigurationPrice:
    """USD per hour of ``count`` GPUs of ``gpu_id``, from offers of that GPU count where the edition has them.

    Formula: median ``usd_per_hour`` of the instances with exactly ``count`` GPUs; else
    ``count x`` :func:`median_cloud_usd_per_gpu_hour` labelled a per-GPU assumption; else unknown.

    >>> configuration_price("h100-sxm", 8).basis, configuration_price("h100-sxm", 8).offers
    ('offer', ('lambda-8x-h100-sxm', 'aws-p5.48xlarge'))
    >>> configuration_price("rtx-3090", 8).basis
    'per-GPU assumption'
    >>> configuration_price("m4-max", 1).basis
    'unknown'
    """
    offers = offers_for(gpu_id)
    exact = [offer for offer in offers if offer.gpus == count]
    if exact:
        return ConfigurationPrice(float(statistics.median(o.usd_per_hour for o in exact)), OFFER,
                                  tuple(o.id for o in exact))
    per_gpu = median_cloud_usd_per_gpu_hour(gpu_id)
    if per_gpu is None:
        return ConfigurationPrice(None, UNKNOWN)
    return ConfigurationPrice(count * per_gpu, PER_GPU_ASSUMPTION, tuple(o.id for o in offers))


def purchase_price_usd(gpu_id: str) -> float | None:
    """Default purchase price of one GPU, USD: the vendor launch MSRP, else ``None`` (unknown).

    A quoted range (:func:`purchase_quote`) is *not* used as a default: the caller picks a
    point in it.
    """
    price = get_gpu(gpu_id).launch_price_usd
    return None if price is None else float(price)


def purchase_quote(gpu_id: str) -> PurchaseQuote | None:
    """A quoted purchase-price range for a GPU without a list price, if one was found."""
    gpu = get_gpu(gpu_id)
    return next((quote for quote in _QUOTES if quote.gpu_id == gpu.id), None)


def all_quotes() -> tuple[PurchaseQuote, ...]:
    """Every purchase quote of this edition."""
    return _QUOTES


def all_electricity() -> tuple[ElectricityPrice, ...]:
    """Every electricity record, the default assumption first."""
    return _ELECTRICITY


def default_kwh_price() -> ElectricityPrice:
    """The electricity price used when the caller gives none (an assumption, see its source)."""
    return _DEFAULT_KWH
