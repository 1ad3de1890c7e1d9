"""Verdicts of the rules-of-thumb audit re-derived from first principles, and the rules behind them.

Each test quotes the guide's sentence (files in ``shared/sources/``, see tests/content/test_claims.py),
does the arithmetic here, from published parameter counts, datasheets and papers, and
checks that the audit's verdict follows. The rule tests fail when a verdict stops following
the claim as written: a reference case (weights alone) deciding a claim about training
memory, a tolerance widening a stated range, two statements of one rule with two verdicts,
a method-dependent claim judged on one method, or prose judging a claim by hand.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from calculators.claims import Evaluated, all_claims, evaluated
from calculators.claims.record import (
    APPROX_TOLERANCE,
    TOLERANCE,
    VERDICT_HOLDS,
    VERDICT_ONLY_WHEN,
    VERDICT_WRONG,
    tolerance_for,
)

ROOT = Path(__file__).resolve().parents[2]
GB = 1e9
# Exact parameter counts, from the models' Hugging Face pages (safetensors totals of the config):
LLAMA_3_8B = 8.03e9  # Meta Llama 3 model card: 8.03B
MISTRAL_7B = 7.24e9  # mistralai/Mistral-7B-v0.1: 7.24B
# Model states per parameter, ZeRO (Rajbhandari et al. 2020, sec. 3.1): weights + gradients + two Adam moments.
FP32_STATES = 4 + 4 + 4 + 4
PURE_BF16_STATES = 2 + 2 + 2 + 2


def _item(claim_id: str) -> Evaluated:
    return next(e for e in evaluated() if e.claim.id == claim_id)


def _within(value: float, claimed: float, band: float) -> bool:
    return claimed * (1 - band) <= value <= claimed * (1 + band)


# --------------------------------------------------------------------------- the rules
def test_one_tolerance_rule_for_every_claim() -> None:
    """The tolerance comes from the words of the claim (or of the rule it restates), never set per record."""
    for claim in all_claims():
        if claim.rule and claim.rule != claim.id and claim.id != _first_of_rule(claim.rule):
            continue  # a restatement keeps its rule's tolerance (test_one_rule_one_verdict)
        expected = tolerance_for(claim.quote, low=claim.low, high=claim.high, bound=claim.bound)
        assert claim.tolerance == expected, claim.id


def _first_of_rule(rule: str) -> str:
    return next(c.id for c in all_claims() if c.rule == rule)


def test_about_is_one_fifth_and_ranges_are_read_as_written() -> None:
    # "about 2x" covers 1.6x-2.4x; a stated range gets only the rounding allowance, hedged or not.
    assert (APPROX_TOLERANCE, TOLERANCE) == (0.20, 0.05)
    assert tolerance_for("about 2x faster", low=2, high=2, bound="about") == 0.20
    assert tolerance_for("approximately 60–70%", low=60, high=70, bound="about") == 0.05
    for claim in all_claims():
        if claim.low is not None and claim.high is not None and claim.low < claim.high:
            assert claim.tolerance <= TOLERANCE, f"{claim.id}: a range widened beyond rounding"


def test_one_rule_one_verdict() -> None:
    groups: dict[str, list[Evaluated]] = defaultdict(list)
    for item in evaluated():
        if item.claim.rule:
            groups[item.claim.rule].append(item)
    assert len(groups["lyceum-18-bytes"]) == 3 and len(groups["vrla-7b-fp16"]) == 3
    for rule, items in groups.items():
        assert len({item.verdict_text for item in items}) == 1, f"rule {rule}: {[i.claim.id for i in items]}"


def test_references_never_decide_a_verdict() -> None:
    for item in evaluated():
        if item.figure is None:
            continue
        readings = [case for case in item.figure.cases if case.reading]
        assert readings, item.claim.id
        for case in item.figure.cases:
            if not case.reading:
                assert "(reference)" in case.label
                assert case.label not in item.verdict_text, item.claim.id


def test_only_when_names_both_sides() -> None:
    for item in evaluated():
        if item.verdict == VERDICT_ONLY_WHEN:
            assert item.holding and item.failing and "(wrong when " in item.verdict_text, item.claim.id


# --------------------------------------------------------------------------- verdicts re-derived
def test_fp32_4x_and_mixed_2x_are_about_training_memory_and_wrong() -> None:
    # VRLA workstation guide: "For PyTorch training in full FP32 precision, memory requirements are
    # approximately 4x the model parameter count in GB. Mixed-precision training (FP16/BF16) reduces
    # this to approximately 2x." Training holds at least the model states: fp32 AdamW 16 B/param; mixed
    # precision keeps fp32 master weights, gradients and moments, so 16 B/param as well.
    assert FP32_STATES > 4 * (1 + APPROX_TOLERANCE) and FP32_STATES > 2 * (1 + APPROX_TOLERANCE)
    # An 8B model: 8.03e9 x 16 B = 128 GB of model states against the "2x" claim's 16 GB.
    assert round(LLAMA_3_8B * FP32_STATES / GB) == 128 and round(LLAMA_3_8B * 2 / GB) == 16
    for claim_id in ("vrla-ws-fp32-4x", "vrla-ws-mixed-2x"):
        item = _item(claim_id)
        assert item.verdict == VERDICT_WRONG, item.verdict_text
        assert item.figure is not None
        assert all(case.value >= FP32_STATES for case in item.figure.cases if case.reading)


def test_eighteen_bytes_and_126_gb_are_one_rule() -> None:
    # Lyceum: "Parameters x ~18 bytes" and "That same 7B model now requires roughly 126 GB of VRAM":
    # 126e9 B / 7e9 = 18 B/param, the same rule applied, so one verdict.
    assert 126e9 / 7e9 == 18
    table, text, seven_b = (_item(i) for i in ("lyceum-18-bytes-table", "lyceum-18-bytes-text", "lyceum-7b-126gb"))
    assert table.verdict_text == text.verdict_text == seven_b.verdict_text
    assert seven_b.claim.low == seven_b.claim.high == 18 and seven_b.claim.unit == "B/param"


def test_fp16_7b_range_one_verdict_naming_pure_bf16() -> None:
    # VRLA fine-tuning guide: "a full fine-tuning job on LLaMA 3 7B in FP16 requires 60–80GB of VRAM",
    # and its table row "Full fine-tuning (FP16)60–80GB". Pure bf16 AdamW: 8 B/param x 8.03e9 = 64 GB of
    # model states, inside the range before overhead; mixed precision: 16 B/param = 128 GB, far above 84.
    assert 60 <= LLAMA_3_8B * PURE_BF16_STATES / GB <= 80
    assert LLAMA_3_8B * FP32_STATES / GB > 80 * (1 + TOLERANCE)
    verdicts = {_item(i).verdict_text for i in ("vrla-7b-fp16", "vrla-ws-full-7b-fp16", "vrla-7b-full-fp16-60-80gb")}
    assert len(verdicts) == 1
    item = _item("vrla-7b-fp16")
    assert item.verdict == VERDICT_ONLY_WHEN
    assert any("pure bf16" in name for name in item.holding)
    assert any("mixed precision" in name for name in item.failing)


def test_fp32_7b_range_turns_on_the_adamw_implementation() -> None:
    # VRLA fine-tuning table: "Full fine-tuning (FP32)112–140GB". Fused AdamW keeps 16 B/param of model
    # states: 7.24e9 x 16 = 116 GB for Mistral 7B, inside. PyTorch's default foreach step adds a 4 B/param
    # temporary: 8.03e9 x 20 = 161 GB for Llama 3 8B, above 140 x 1.05 = 147.
    assert 112 <= MISTRAL_7B * FP32_STATES / GB <= 140
    assert LLAMA_3_8B * (FP32_STATES + 4) / GB > 140 * (1 + TOLERANCE)
    item = _item("vrla-7b-fp32")
    assert item.verdict == VERDICT_ONLY_WHEN
    assert "fused AdamW" in item.holding
    assert any(name.startswith("foreach AdamW") for name in item.failing)


def test_flash_attention_range_is_not_widened() -> None:
    # VRLA fine-tuning guide: "enabling Flash Attention reduces activation memory by 60–80%". A range:
    # only cases inside 57-84 % may hold; the long-sequence case (the seq x seq tensors dominate) must not.
    item = _item("vrla-flash-attention-60-80")
    assert item.figure is not None
    for case in item.figure.cases:
        assert (case.label in item.holding) == (57 <= case.value <= 84), case
    assert "seq 8192" in item.failing


def test_about_2x_reads_as_a_reader_would() -> None:
    # Practitioners' guide: "The RTX 4090 is about 2x faster than the 3090 in raw FLOPS". Datasheets: RTX 4090
    # 82.6 TFLOPS fp32 (NVIDIA Ada Lovelace architecture whitepaper), RTX 3090 35.6 (NVIDIA Ampere GA102
    # whitepaper): 2.32x, inside "about 2x" (1.6-2.4x).
    ratio = 82.6 / 35.6
    assert _within(ratio, 2, APPROX_TOLERANCE) and not _within(ratio, 2, 0.15)
    assert _item("hfp-4090-2x-3090").verdict == VERDICT_HOLDS


def test_multi_gpu_above_13b_depends_on_the_method() -> None:
    # Lyceum: "For models exceeding 13 billion parameters, multi-GPU scaling becomes mandatory". Full
    # fine-tuning: 13e9 x 16 B = 208 GB of model states, over twice an 80 GiB H100, so one GPU tops out below
    # 13B. QLoRA: 13e9 x 0.5 B of NF4 weights = 6.5 GB, so one H100 trains models far above 13B.
    assert 13e9 * FP32_STATES > 2 * 80 * 2**30
    assert 13e9 * 0.5 < 0.1 * 80 * 2**30
    item = _item("lyceum-13b-multi-gpu")
    assert item.verdict == VERDICT_ONLY_WHEN
    assert all(name.startswith("full fine-tuning") for name in item.holding)
    assert set(item.failing) == {"LoRA", "QLoRA"}


def test_selective_recompute_is_evaluated() -> None:
    # VRLA fine-tuning guide: "This reduces activation memory by approximately 60–70% at the cost of
    # approximately 30% additional compute time". Korthikanti et al. 2022 (arXiv:2205.05198): a layer keeps
    # s b h (34 + 5 a s / h) bytes; selective recomputation drops the 5 a s / h term. Llama 3 8B (a = 32,
    # h = 4096) at s = 2048: 5 x 32 x 2048 / 4096 = 80, and 80 / 114 = 70.2 %, inside 60-70 % (+5 %).
    term = 5 * 32 * 2048 / 4096
    assert round(100 * term / (34 + term), 1) == 70.2
    memory = _item("vrla-ckpt-60-70")
    assert any(name.startswith("selective recompute (attention core") for name in memory.holding)
    assert any(name.startswith("full recompute") for name in memory.failing)
    # Full recomputation runs the forward again: 2N on top of 6N, a third more; selective reruns only the
    # attention core, a few percent. The saving and the cost of the sentence belong to different recipes.
    assert 100 * 2 / 6 == pytest.approx(33.3, abs=0.1)
    compute = _item("vrla-ckpt-30pct-compute")
    assert any(name.startswith("full recompute") for name in compute.holding)
    assert any(name.startswith("selective recompute") for name in compute.failing)


def test_statements_without_numbers_are_audited() -> None:
    # VRLA workstation guide: "PyTorch either raises an out-of-memory error or falls back to gradient
    # checkpointing and CPU offloading". PyTorch raises torch.cuda.OutOfMemoryError; nothing falls back.
    assert _item("vrla-ws-oom-fallback").verdict == VERDICT_WRONG
    # PyTorch guide: "larger batch sizes, leading to faster convergence". McCandlish et al. 2018: only up to
    # the critical batch size, and in steps, not in samples.
    batch = _item("pytorch-larger-batch-converges-faster")
    assert batch.verdict == VERDICT_ONLY_WHEN and "critical batch size" in batch.verdict_text


# --------------------------------------------------------------------------- prose
#: Words that judge a guide's claim; in prose they must come from the audit (a verdict value).
_JUDGING = re.compile(r"\b(?:holds only (?:when|for|at)|finds it wrong|the range holds|stays unchecked|"
                      r"(?:claim|range|rule) (?:is|was) wrong|(?:claim|range|rule) does not hold)\b", re.IGNORECASE)
_VALUE = re.compile(r"<!-- value: [a-z0-9-]+ -->.*?<!-- /value -->")


def test_prose_verdicts_come_from_the_audit() -> None:
    """A sentence that says whether a guide's claim holds quotes the audit's verdict as a generated value."""
    hand_typed = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        fenced = generated = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if line.startswith("<!-- table: "):  # a generated table block: its caption and notes come from the code
                generated = True
            elif line.startswith("<!-- /table -->"):
                generated = False
            if fenced or generated or line.lstrip().startswith(("|", "*Table", "<!--")):
                continue
            prose = _VALUE.sub("", line)
            prose = re.sub(r"\*\*[^*]+\*\*", "", prose)  # the audit page's definitions of the verdicts
            prose = re.sub(r'"[^"]*"', "", prose)  # quoted words and examples of a verdict's wording
            if _JUDGING.search(prose):
                hand_typed.append(f"{page.relative_to(ROOT)}:{number}: {_JUDGING.search(prose).group(0)}")
    assert not hand_typed, "verdicts typed by hand:\n" + "\n".join(hand_typed)


def test_verdict_values_follow_the_audit() -> None:
    from calculators.doc_values.claims import VERDICT_VALUES, claim_verdict

    for value_id, claim_id in VERDICT_VALUES.items():
        assert claim_verdict(value_id, claim_id=claim_id).text == _item(claim_id).verdict_text
