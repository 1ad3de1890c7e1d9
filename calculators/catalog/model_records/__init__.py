"""The catalogued models' records, one module per family, in catalog order.

:data:`RECORDS` holds the models whose ``model_type`` :mod:`calculators.model_config` reads
exactly. :data:`PENDING_FAMILIES_RECORDS` holds researched records (config values, sources,
published counts) of families the reader does not know yet (hybrid Mamba/attention, linear
attention, Llama 4, GLM-4.5, vision-language checkpoints, ...): they are not in the catalog,
and are registered once the reader counts them exactly.

>>> len(RECORDS) == len({r.id for r in RECORDS})
True
>>> {r.id for r in RECORDS}.isdisjoint(r.id for r in PENDING_FAMILIES_RECORDS)
True
"""

from __future__ import annotations

from calculators.catalog.model_record import ModelRecord
from calculators.catalog.model_records import (
    deepseek,
    gemma,
    glm,
    gpt_oss,
    hybrid,
    hybrid_2026,
    llama,
    llama4,
    mistral,
    moe_2026,
    more_2026,
    open_2026,
    pending_2026,
    phi,
    qwen,
    qwen_2026,
    variants_2026,
    vision_2026,
    vision_language,
)

#: Every record: Llama (and Yi), Mistral, Qwen, Gemma, Phi, DeepSeek, gpt-oss, then the 2026 additions.
RECORDS: tuple[ModelRecord, ...] = (
    llama.RECORDS + mistral.RECORDS + qwen.RECORDS + gemma.RECORDS + phi.RECORDS + deepseek.RECORDS
    + gpt_oss.RECORDS + qwen_2026.RECORDS + more_2026.RECORDS + hybrid.RECORDS + vision_language.RECORDS
    + vision_2026.RECORDS + hybrid_2026.RECORDS + variants_2026.RECORDS
    # families whose readers landed after their records were researched
    + llama4.RECORDS + glm.RECORDS + moe_2026.RECORDS + hybrid.GRANITE_RECORDS + open_2026.RECORDS
    + pending_2026.RECORDS
)

#: Records of families the config reader does not count yet, kept out of :data:`RECORDS` until it does
#: (none today: every researched family is read).
PENDING_FAMILIES_RECORDS: tuple[ModelRecord, ...] = ()
