"""Data checks of the price and storage catalogs: ids unique, sources present, dates parse, values positive."""

from __future__ import annotations

import datetime

import pytest

from calculators.catalog import prices
from calculators.catalog.gpus import gpu_ids
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
    assert prices.median_cloud_usd_per_gpu_hour("t4") is None


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
