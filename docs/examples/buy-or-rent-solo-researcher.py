# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Buy or rent, for a few GPU jobs a week?
#
# Download: [notebook (.ipynb)](../buy-or-rent-solo-researcher.ipynb) · [jupytext source (.py)](buy-or-rent-solo-researcher.py)
#
# **The question.** A solo researcher runs two or three jobs a week, each taking four to six hours on one A100 80GB. Should they keep renting by the hour, or buy a card of their own?
#
# **Who it is for.** Anyone with a steady but small GPU habit weighing a purchase. After reading it you know the yearly bill of each option at your usage, the usage at which buying starts to pay, and which of the inputs (price, tariff, depreciation period) moves that line most.
#
# Prices come from the dated price catalog (`calculators.catalog.prices`, edition printed below); every one can be overridden, and the last section shows how. Costs are *derived* from those prices with stated assumptions (straight-line depreciation, no resale, power only while busy); none is a quote.

# %%
import matplotlib.pyplot as plt

from calculators import get_gpu
from calculators.catalog import prices
from calculators.cost import HOURS_PER_YEAR, cost_comparison, training_run_cost_usd
from calculators.errors import InputError

HOURS_PER_WEEK = 24 * 7
WEEKS_PER_YEAR = HOURS_PER_YEAR / HOURS_PER_WEEK  # 8,760 hours a year, as calculators.cost counts them
jobs_per_week = (2, 3)
hours_per_job = (4, 6)  # A100-hours per job
weekly_low = jobs_per_week[0] * hours_per_job[0]
weekly_high = jobs_per_week[1] * hours_per_job[1]

a100 = get_gpu("a100-80gb-sxm")
print(f"price catalog edition {prices.EDITION}")
print(f"usage: {weekly_low} to {weekly_high} A100-hours a week, "
      f"{weekly_low / HOURS_PER_WEEK:.1%} to {weekly_high / HOURS_PER_WEEK:.1%} of the hours in a week")

# %% [markdown]
# ## Renting: what the catalog says an A100 hour costs
#
# The catalog lists several on-demand offers for the A100 SXM 80GB; the default rental price is their median.

# %%
for offer in prices.offers_for(a100.id):
    print(f"{offer.provider:<26} {offer.offering:<28} ${offer.usd_per_gpu_hour:5.2f}/GPU-hour "
          f"(read {offer.source.as_of})")
rent_usd_per_hour = prices.median_cloud_usd_per_gpu_hour(a100.id)
cheapest = min(prices.offers_for(a100.id), key=lambda o: o.usd_per_gpu_hour)
print(f"median ${rent_usd_per_hour:.2f}/GPU-hour; cheapest ${cheapest.usd_per_gpu_hour:.2f} ({cheapest.provider})")
for weekly in (weekly_low, weekly_high):
    yearly = training_run_cost_usd(gpu_hours=weekly * WEEKS_PER_YEAR, usd_per_gpu_hour=rent_usd_per_hour)
    print(f"{weekly:>3} A100-hours a week -> ${yearly:,.0f} a year renting at the median")

# %% [markdown]
# ## Buying an A100: the catalog has no price, and says so
#
# Datacenter GPUs have no public list price, so the catalog leaves it empty rather than guess, and the calculator asks for one by name:

# %%
try:
    cost_comparison(gpu=a100.id)
except InputError as error:
    print(f"InputError: {error}")

# %% [markdown]
# Instead of guessing a price, turn the question around: at this usage, what is the most an A100 may cost for buying to break even with renting over three years? Buying pays once `purchase / (rent - power)` GPU-hours have been used (power at the card's TDP and the catalog's assumed tariff). Passing that price back in as `purchase_usd` must give a break-even utilisation equal to the researcher's own, which the cell checks.

# %%
years = 3.0
kwh_usd = prices.default_kwh_price().usd_per_kwh
power_usd_per_hour = a100.tdp_watts / 1000 * kwh_usd
for weekly in (weekly_low, weekly_high):
    used_hours = weekly * WEEKS_PER_YEAR * years
    most_usd = used_hours * (rent_usd_per_hour - power_usd_per_hour)
    check = cost_comparison(gpu=a100.id, purchase_usd=most_usd, utilization=weekly / HOURS_PER_WEEK, years=years)
    assert abs(check.breakeven_gpu_hours - used_hours) < 1e-6 * used_hours
    print(f"{weekly:>3} A100-hours a week: buying pays only below ${most_usd:,.0f} per A100 "
          f"(break-even {check.breakeven_utilization:.1%} utilisation)")

# %% [markdown]
# ## Buying a consumer card instead
#
# A GeForce RTX 4090 has a launch list price in the catalog, but it is slower and has 24 GB, not 80. If the jobs are compute-bound and fit in 24 GB (check with the [fine-tuning notebook](../fine-tune-3b-on-24gb/)), an A100-hour of work takes the ratio of the two dense BF16 spec rates in 4090-hours. That ratio is an *assumption* built on spec sheets: a memory-bound job scales with bandwidth instead, also printed.
#
# To compare like with like, the rental price is expressed per 4090-hour of the same work (A100 price divided by the ratio), so `cost_comparison` computes the break-even in the 4090's own hours.

# %%
rtx = get_gpu("rtx-4090")
slowdown = a100.bf16_dense_flop_per_s / rtx.bf16_dense_flop_per_s
print(f"dense BF16: {a100.bf16_dense_flop_per_s / 1e12:.0f} vs {rtx.bf16_dense_flop_per_s / 1e12:.1f} TFLOP/s "
      f"-> one A100-hour = {slowdown:.2f} RTX 4090-hours (assumed compute-bound)")
print(f"memory bandwidth ratio, for memory-bound work: "
      f"{a100.memory_bandwidth_bytes_per_s / rtx.memory_bandwidth_bytes_per_s:.2f}")


def buy_rtx(weekly_a100_hours, **overrides):
    """Cost comparison of owning one RTX 4090 for this much A100-equivalent work a week."""
    settings = {"cloud_usd_per_gpu_hour": rent_usd_per_hour / slowdown, "years": years, **overrides}
    return cost_comparison(gpu=rtx.id, utilization=weekly_a100_hours * slowdown / HOURS_PER_WEEK, **settings)


for weekly in (weekly_low, weekly_high):
    c = buy_rtx(weekly)
    yearly_own = c.local_usd_per_gpu_hour * weekly * slowdown * WEEKS_PER_YEAR
    yearly_rent = training_run_cost_usd(gpu_hours=weekly * WEEKS_PER_YEAR, usd_per_gpu_hour=rent_usd_per_hour)
    print(f"{weekly:>3} A100-hours a week: own a 4090 ${yearly_own:,.0f}/year vs rent an A100 ${yearly_rent:,.0f}/year"
          f" -> {c.cheaper} is cheaper")
base = buy_rtx(weekly_low)
breakeven_weekly = base.breakeven_gpu_hours / slowdown / (years * WEEKS_PER_YEAR)
print(f"break-even: {breakeven_weekly:.1f} A100-hours of work a week over {years:g} years "
      f"(purchase ${base.purchase_usd:,.0f}, {base.price_sources[0]})")
for line in base.assumptions:
    print("assumes:", line)

# %% [markdown]
# ## The break-even chart
#
# Yearly cost against weekly usage. Renting grows in proportion to the hours; owning starts at the year's share of the purchase and grows only by the power bill. The shaded band is the researcher's usage.

# %%
weekly_hours = list(range(1, 61))
rent_line = [training_run_cost_usd(gpu_hours=w * WEEKS_PER_YEAR, usd_per_gpu_hour=rent_usd_per_hour) for w in weekly_hours]
cheap_line = [training_run_cost_usd(gpu_hours=w * WEEKS_PER_YEAR, usd_per_gpu_hour=cheapest.usd_per_gpu_hour)
              for w in weekly_hours]
own_line = [buy_rtx(w).local_usd_per_gpu_hour * w * slowdown * WEEKS_PER_YEAR for w in weekly_hours]

#| fig-alt: Line chart of yearly cost in USD against A100-hours of work per week: renting an A100 at the median and at the cheapest catalogued price, and owning an RTX 4090; a shaded band marks the researcher's usage and a dashed line the break-even.
fig, ax = plt.subplots(figsize=(8, 4.5))
ax.axvspan(weekly_low, weekly_high, color="tab:green", alpha=0.15, label="the researcher's usage")
ax.plot(weekly_hours, rent_line, label=f"rent A100, median ${rent_usd_per_hour:.2f}/h")
ax.plot(weekly_hours, cheap_line, linestyle=":", label=f"rent A100, cheapest ${cheapest.usd_per_gpu_hour:.2f}/h")
ax.plot(weekly_hours, own_line, label=f"own an RTX 4090 (${base.purchase_usd:,.0f}, {years:g} years)")
ax.axvline(breakeven_weekly, color="grey", linestyle="--")
ax.annotate(f"break-even\n{breakeven_weekly:.1f} h/week", (breakeven_weekly, max(rent_line) * 0.8),
            textcoords="offset points", xytext=(6, 0), fontsize=8)
ax.set_xlabel("A100-hours of work per week")
ax.set_ylabel("USD per year (derived)")
ax.set_title(f"Buy or rent (prices edition {prices.EDITION})")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Your own numbers
#
# Every default can be replaced: the rental price (here, the cheapest catalog offer), the electricity tariff (here, the EIA 2023 average for Californian households, a catalog record), the depreciation period, or the purchase price itself (for example a used card). Each row changes one input and prints where the break-even moves.

# %%
california = next(e for e in prices.all_electricity() if e.id == "us-ca-residential-2023")
cases = {
    "catalog defaults": {},
    f"cheapest A100 offer (${cheapest.usd_per_gpu_hour:.2f}/h)": {
        "cloud_usd_per_gpu_hour": cheapest.usd_per_gpu_hour / slowdown},
    f"California household power (${california.usd_per_kwh:.4f}/kWh)": {"kwh_usd": california.usd_per_kwh},
    "written off over 2 years": {"years": 2.0},
    "a used card at 60% of list": {"purchase_usd": 0.6 * rtx.launch_price_usd},
}
for name, override in cases.items():
    c = buy_rtx(weekly_low, **override)
    weekly = c.breakeven_gpu_hours / slowdown / (c.years * WEEKS_PER_YEAR)
    print(f"{name:<45} break-even {weekly:5.1f} A100-hours/week")

# %% [markdown]
# ## What to change
#
# The verdict at both ends of the researcher's usage, and the input that moves the break-even most:

# %%
for weekly in (weekly_low, weekly_high):
    verdict = "owning the RTX 4090 is cheaper" if buy_rtx(weekly).cheaper == "local" else "renting is cheaper"
    print(f"{weekly:>3} A100-hours a week: {verdict}")
moved = {name: abs(buy_rtx(weekly_low, **o).breakeven_gpu_hours - base.breakeven_gpu_hours)
         for name, o in cases.items() if o}
print("the break-even moves most with:", max(moved, key=moved.get))

# %% [markdown]
# - **Buying an A100 for this much work** pays only below the purchase price printed in the A100 section; compare it with the quotes you get.
# - **A consumer card** pays back when the jobs fit in its memory and run at the assumed speed ratio; check both before buying (the [fine-tuning notebook](../fine-tune-3b-on-24gb/) does the memory part).
# - **Left out, and able to change the answer:** the host computer, resale value, your time administering the machine, and the cloud's storage and egress. Add them to the prices you pass in.
#
# The same comparison is on the [Local or cloud?](../../cost/) page as a calculator, and on the command line as `mlhw cost`.
