"""Lines of the source guides that carry a number but no claim this audit checks, each with the reason.

``tests/content/test_claims.py`` requires every source line with a number next to a unit to be
covered by a claim's quote or by one of these snippets.

>>> all(len(entry) == 3 for entry in OUT_OF_SCOPE)
True
"""

from __future__ import annotations

from calculators.claims.figures import HFP, VRLA_FT, VRLA_WS

#: (source file, verbatim snippet of the line, why it is not checked).
OUT_OF_SCOPE: tuple[tuple[str, str, str], ...] = (
    (HFP, "why you should not spend $5000 before knowing what you need",
     "spending advice in the subtitle, not a figure about hardware"),
    (HFP, "Concrete numbers for a 7B parameter model at fp16:",
     "the figures below this line are blank in the source text (its formulas were lost), so nothing is claimed"),
    (HFP, "You primarily do inference on models that fit in 24 GB",
     "a condition for buying local hardware, not a claimed quantity"),
    (HFP, "You need more than 24 GB VRAM (multi-GPU consumer setups are fragile)",
     "a condition for renting, not a claimed quantity"),
    (HFP, "Pro tier ($10/month)", "subscription price of a bundle (Colab Pro), not a GPU price"),
    (HFP, "A model has 3B parameters.", "an exercise question, not a claim (the examples section works it)"),
    (VRLA_FT, "7B models (LLaMA 3 8B, Mistral 7B, Qwen 2.5 7B)", "table heading naming the models of a size class"),
    (VRLA_FT, "13B models (LLaMA 2 13B, Qwen 2.5 14B)", "table heading naming the models of a size class"),
    (VRLA_FT, "30B–34B models (Qwen 2.5 32B, Yi 34B)", "table heading naming the models of a size class"),
    (VRLA_FT, "70B models (LLaMA 3 70B, Qwen 2.5 72B)", "table heading naming the models of a size class"),
    (VRLA_FT, "Fine-tuning 7B–13B models — QLoRA and LoRA", "section heading"),
    (VRLA_FT, "Fine-tuning 70B models — QLoRA", "section heading"),
    (VRLA_FT, "Fine-tuning 70B models — full LoRA", "section heading"),
    (VRLA_FT, "Full parameter fine-tuning of 70B models", "section heading"),
    (VRLA_WS, "CPU: AMD Ryzen 9 9950X (16 cores)", "CPU model and core count of a product configuration"),
    (VRLA_WS, "CPU: AMD Threadripper PRO 9955WX (32 cores)", "CPU model and core count of a product configuration"),
    (VRLA_WS, "NVMe 1 (OS): 2TB PCIe 4.0", "drive capacity of a product configuration; it depends on the data"),
    (VRLA_WS, "NVMe 2 (datasets): 4-8TB PCIe 4.0", "drive capacity of a product configuration; it depends on the data"),
    (VRLA_WS, "96GB ECC VRAM. Pre-validated CUDA stack.",
     "marketing tagline repeating the RTX PRO 6000 capacity checked in vrla-ws-pro6000-96gb"),
)
