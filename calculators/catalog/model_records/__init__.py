"""The catalogued models' records, one module per family, in catalog order.

>>> len(RECORDS) == len({r.id for r in RECORDS})
True
"""

from __future__ import annotations

from calculators.catalog.model_record import ModelRecord
from calculators.catalog.model_records import deepseek, gemma, gpt_oss, llama, mistral, phi, qwen

#: Every record: Llama (and Yi), Mistral, Qwen, Gemma, Phi, DeepSeek, gpt-oss.
RECORDS: tuple[ModelRecord, ...] = (
    llama.RECORDS + mistral.RECORDS + qwen.RECORDS + gemma.RECORDS + phi.RECORDS + deepseek.RECORDS
    + gpt_oss.RECORDS
)
