"""Data checks of the price and storage catalogs: ids unique, sources present, dates parse, values positive."""

from __future__ import annotations

import datetime

import pytest

from calculators.catalog import prices
from calculators.catalog.gpus import all_gpus, gpu_ids
from calculators.catalog.sources import Source
from calculators.catalog.storage import all_storage, get_storage
from calculators.errors import UnknownNameError


def _check_source(source: Source) -> None:
    assert source.title.strip() and source.url.startswith("http")
    datetime.date.fromisoformat(source.as_of)
    assert source.kind in ("spec", "measured", "derived", "assumed")


def test_edition_is_a_year_month() -> None:
    datetime.date.fromisoformat(prices.EDITION + "-01")


def test_offer_ids_unique_and_records_complete() -> None:
    offers = prices.all_offers()
    assert len({o.id for o in offers}) == len(offers)
    for offer in offers:
        assert offer.gpu_id in gpu_ids(), offer.id
        assert offer.gpus >= 1 and offer.usd_per_hour > 0 and offer.usd_per_gpu_hour > 0
        assert offer.host_ram_bytes is None or offer.host_ram_bytes > 0
        assert offer.vcpus is None or offer.vcpus > 0
        _check_source(offer.source)
        if offer.spec_source is not None:
            _check_source(offer.spec_source)
        # A price read after the edition's month would belong to a later edition.
        assert offer.source.as_of[:7] <= prices.EDITION


def test_quotes_and_electricity_are_positive_and_sourced() -> None:
    for quote in prices.all_quotes():
        assert quote.gpu_id in gpu_ids() and 0 < quote.usd_low <= quote.usd_high
        _check_source(quote.source)
    records = prices.all_electricity()
    assert len({e.id for e in records}) == len(records)
    for record in records:
        assert 0 < record.usd_per_kwh < 1
        _check_source(record.source)
    assert prices.default_kwh_price().source.kind == "assumed"


def test_aws_per_gpu_price_divides_by_eight() -> None:
    # hyperscalers.json: p5.48xlarge 55.04 USD/h for 8 GPUs -> 6.88 USD per GPU-hour.
    assert prices.get_offer("aws-p5.48xlarge").usd_per_gpu_hour == pytest.approx(6.88)


def test_unknown_purchase_price_is_none_never_a_guess() -> None:
    assert prices.purchase_price_usd("h100-sxm") is None
    assert prices.purchase_price_usd("rtx-4090") == 1599
    # Apple parts are purchase-only: no cloud offer, so no default $/GPU-hour.
    assert prices.median_cloud_usd_per_gpu_hour("m4-max") is None


def test_unknown_ids_raise() -> None:
    with pytest.raises(UnknownNameError):
        prices.get_offer("nope")
    with pytest.raises(UnknownNameError):
        get_storage("floppy")


def test_storage_catalog_data() -> None:
    items = all_storage()
    assert len({s.id for s in items}) == len(items)
    for item in items:
        assert item.sequential_read_bytes_per_s > 0 and item.kind in ("local", "network")
        _check_source(item.source)
    # 10 Gb/s line rate / 8 bits per byte = 1.25 GB/s (a definition).
    assert get_storage("net-10gbe").sequential_read_bytes_per_s == 1.25e9


def test_every_non_apple_gpu_has_a_cloud_offer() -> None:
    # Issue #6: no catalog GPU that can be rented is left "unpriced" without a reason; Apple parts are purchase-only.
    priced = {offer.gpu_id for offer in prices.all_offers()}
    missing = sorted(g.id for g in all_gpus() if g.vendor != "Apple" and g.id not in priced)
    assert missing == sorted(prices.UNPRICED)
    assert all(len(reason) > 40 and "price" in reason for reason in prices.UNPRICED.values())
    assert not set(prices.UNPRICED) & priced  # a GPU with an offer is not also listed as unpriced


# Each expected value is quoted from the cited page, read on the source's as_of date.
@pytest.mark.parametrize(("offer_id", "usd_per_hour", "gpus", "url_part"), [
    # tsaol/aws-gpu data/g4dn_instances.js (instances.vantage.sh, 2026-01-21): g4dn.xlarge us-east-1 onDemand 0.526.
    ("aws-g4dn.xlarge", 0.526, 1, "tsaol/aws-gpu"),
    # same collection, g6_instances.js: g6.xlarge us-east-1 onDemand 0.8048.
    ("aws-g6.xlarge", 0.8048, 1, "g6_instances.js"),
    # same collection, g6e_instances.js: g6e.xlarge us-east-1 onDemand 1.861.
    ("aws-g6e.xlarge", 1.861, 1, "g6e_instances.js"),
    # same collection, p3dn_instances.js: p3dn.24xlarge (8x V100 32GB) us-east-1 onDemand 31.212.
    ("aws-p3dn.24xlarge", 31.212, 8, "p3dn_instances.js"),
    # docs.digitalocean.com Droplet Pricing (validated 2026-05-28): "AMD MI300X | $1.99 per hour".
    ("digitalocean-mi300x", 1.99, 1, "docs.digitalocean.com"),
    # same page: "AMD MI300X (8x) | $15.92 per hour".
    ("digitalocean-mi300x-8x", 15.92, 8, "docs.digitalocean.com"),
    # same page: "NVIDIA L40s | $1.57 per hour".
    ("digitalocean-l40s", 1.57, 1, "docs.digitalocean.com"),
    # carsonpo/gpus costs/runpod.md (2025-07-13), Secure Cloud table: "L40S | 48GB | $0.86".
    ("runpod-secure-l40s", 0.86, 1, "carsonpo/gpus"),
    # same file, Community Cloud table: "L40S | 48GB | $0.79".
    ("runpod-community-l40s", 0.79, 1, "carsonpo/gpus"),
    # same file, Secure Cloud table: "L4 | 24GB | $0.43".
    ("runpod-secure-l4", 0.43, 1, "carsonpo/gpus"),
    # same file, Secure Cloud table: "RTX 5090 | 32GB | $0.89".
    ("runpod-secure-rtx-5090", 0.89, 1, "carsonpo/gpus"),
    # same file, Community Cloud table: "RTX 5090 | 32GB | $0.69".
    ("runpod-community-rtx-5090", 0.69, 1, "carsonpo/gpus"),
    # Malaeu/nanoGPT-RH docs/runpod_specs.md (2026-01-01): "RTX PRO 6000 WK | $2.09" on-demand.
    ("runpod-rtx-pro-6000-wk", 2.09, 1, "nanoGPT-RH"),
])
def test_gap_filling_offers_match_their_sources(offer_id: str, usd_per_hour: float, gpus: int,
                                                url_part: str) -> None:
    offer = prices.get_offer(offer_id)
    assert offer.usd_per_hour == pytest.approx(usd_per_hour)
    assert offer.gpus == gpus
    assert url_part in offer.source.url
    datetime.date.fromisoformat(offer.source.as_of)


def test_multi_gpu_instances_divide_by_gpu_count() -> None:
    # p3dn.24xlarge: 31.212 USD/h for 8 V100 32GB -> 3.9015 USD per GPU-hour.
    assert prices.get_offer("aws-p3dn.24xlarge").usd_per_gpu_hour == pytest.approx(3.9015)
    # DigitalOcean's 8x MI300X Droplet is eight times the 1x price.
    assert prices.get_offer("digitalocean-mi300x-8x").usd_per_gpu_hour == pytest.approx(1.99)


def test_aws_instance_specs_are_gib() -> None:
    # AWS lists instance memory in GiB (p3dn.24xlarge: 768 GiB in the AWS Batch GPU-jobs table).
    p3dn = prices.get_offer("aws-p3dn.24xlarge")
    assert p3dn.host_ram_bytes == 768 * 2**30 and p3dn.vcpus == 96 and p3dn.spec_source is not None
    assert prices.get_offer("aws-g6e.xlarge").host_ram_bytes == 32 * 2**30


def test_gap_medians() -> None:
    # Medians over the offers above (derived): L40S over 0.79, 0.86, 1.57, 1.861; L4 over 0.43, 0.8048.
    assert prices.median_cloud_usd_per_gpu_hour("l40s") == pytest.approx((0.86 + 1.57) / 2)
    assert prices.median_cloud_usd_per_gpu_hour("l4") == pytest.approx((0.43 + 0.8048) / 2)
    assert prices.median_cloud_usd_per_gpu_hour("mi300x") == pytest.approx(1.99)
