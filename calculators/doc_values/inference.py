"""Numbers in the prose of the Inference section (docs/inference/*).

>>> inference_example_total().unit
'GiB'
"""

from __future__ import annotations

from calculators.catalog.models import get_model
from calculators.inline_values import Value, ValueFunction, declared_values, quantity, value
from calculators.memory.inference import inference_memory


@value("inference-example-total")
def inference_example_total(value_id: str) -> Value:
    """Total GPU memory of the worked example: Llama 3.1 8B, bf16, four 8K prompts generating 512 tokens each."""
    estimate = inference_memory(get_model("llama-3.1-8b"), weights="bf16", kv_cache="bf16", batch=4, context=8192,
                                new_tokens=512)
    return quantity(value_id, estimate.total_bytes, digits=2, unit="GiB", kind="derived",
                    description="Total GPU memory of Llama 3.1 8B in bf16 serving four 8,192-token prompts that "
                                "each generate 512 tokens.",
                    assumptions=("SDPA attention", "runtime overhead assumed (calculators.memory.overhead)"))


VALUES: dict[str, ValueFunction] = declared_values(globals())
