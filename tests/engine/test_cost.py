"""Cost: local versus cloud per used GPU-hour, break-even, $ per run and per token."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calculators import cost
from calculators.cli import main
from calculators.errors import InputError


def test_rtx_4090_by_hand() -> None:
    # Derivation: 1599 / (3 x 8760 x 0.5) = 0.12169 USD depreciation per used hour;
    # 450 W x 0.15 USD/kWh = 0.0675 USD power; cloud 0.29 (OpenRelay, edition 2026-11).
    # Break-even hours = 1599 / (0.29 - 0.0675) = 7186.5; utilisation = 7186.5 / 26280 = 0.2735.
    c = cost.cost_comparison(gpu="rtx-4090")
    assert c.local_capital_usd_per_gpu_hour == pytest.approx(0.121689, rel=1e-5)
    assert c.power_usd_per_gpu_hour == pytest.approx(0.0675)
    assert c.cloud_usd_per_gpu_hour == 0.29
    assert c.breakeven_gpu_hours == pytest.approx(7186.5, rel=1e-4)
    assert c.breakeven_utilization == pytest.approx(0.27346, rel=1e-4)
    assert c.cheaper == "local"


def test_every_price_can_be_overridden() -> None:
    c = cost.cost_comparison(gpu="h100-sxm", purchase_usd=30000, cloud_usd_per_gpu_hour=2.5, kwh_usd=0.1,
                             power_watts=500, utilization=1, years=5)
    assert (c.purchase_usd, c.cloud_usd_per_gpu_hour, c.kwh_usd, c.power_watts) == (30000, 2.5, 0.1, 500)
    assert c.price_sources == ("purchase: given", "cloud: given", "electricity: given")


def test_cloud_cheaper_than_power_means_never() -> None:
    c = cost.cost_comparison(gpu="rtx-4090", cloud_usd_per_gpu_hour=0.05, kwh_usd=0.3)
    assert c.breakeven_gpu_hours is None and c.breakeven_utilization is None and c.cheaper == "cloud"


@given(low=st.floats(0.01, 0.5), factor=st.floats(1.01, 2.0))
def test_busier_gpu_never_costs_more_per_used_hour(low: float, factor: float) -> None:
    a = cost.cost_comparison(gpu="rtx-4090", utilization=low)
    b = cost.cost_comparison(gpu="rtx-4090", utilization=min(1.0, low * factor))
    assert b.local_usd_per_gpu_hour <= a.local_usd_per_gpu_hour


def test_breakeven_is_where_costs_meet() -> None:
    c = cost.cost_comparison(gpu="rtx-3090")
    assert c.breakeven_utilization is not None
    at = cost.cost_comparison(gpu="rtx-3090", utilization=c.breakeven_utilization)
    assert at.local_usd_per_gpu_hour == pytest.approx(at.cloud_usd_per_gpu_hour)


def test_run_and_token_costs() -> None:
    assert cost.training_run_cost_usd(gpu_hours=192, usd_per_gpu_hour=3.99) == pytest.approx(766.08)
    # 3.6 USD/h at 1,000 tokens/s = 3.6 M tokens per hour -> 1 USD per million tokens.
    assert cost.usd_per_million_tokens(tokens_per_s=1000, usd_per_hour=3.6) == pytest.approx(1.0)


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"gpu": "h100-sxm"}, "purchase_usd"),  # no list price: the caller must give one
    ({"gpu": "m4-max", "purchase_usd": 2000}, "cloud_usd_per_gpu_hour"),  # Apple: purchase only, no cloud offer
    ({"gpu": "rtx-4090", "utilization": 0}, "utilization"),
    ({"gpu": "rtx-4090", "utilization": 1.5}, "utilization"),
    ({"gpu": "rtx-4090", "years": -1}, "years"),
    ({"gpu": "rtx-4090", "kwh_usd": "cheap"}, "kwh_usd"),
    ({"gpu": "rtx-4090", "purchase_usd": -5}, "purchase_usd"),
    ({"gpu": "gtx-9999"}, "gpu"),
])
def test_bad_inputs_name_their_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as error:
        cost.cost_comparison(**kwargs)  # type: ignore[arg-type]
    assert error.value.field == field


def test_bad_run_inputs() -> None:
    with pytest.raises(InputError, match="gpu_hours"):
        cost.training_run_cost_usd(gpu_hours=-1, usd_per_gpu_hour=1)
    with pytest.raises(InputError, match="tokens_per_s"):
        cost.usd_per_million_tokens(tokens_per_s=0, usd_per_hour=1)


def test_cli_cost(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", "--gpu", "rtx-4090", "--gpu-hours", "100", "--tokens-per-s", "1000"]) == 0
    out = capsys.readouterr().out
    assert "Break-even utilisation" in out and "Training run" in out
    assert main(["cost", "--gpu", "h100-sxm", "--purchase-usd", "30000", "--json"]) == 0
    assert '"cheaper"' in capsys.readouterr().out
    assert main(["cost", "--gpu", "h100-sxm"]) == 2
    assert "--purchase-usd" in capsys.readouterr().err  # the flag as typed (issue #17)
