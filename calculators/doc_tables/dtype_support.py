"""Tables of the section "Compute capability and which dtypes each GPU runs" (docs/hardware/apple.md).

Every cell comes from :mod:`calculators.dtype_support` and the catalog's ``compute_capability``.

>>> formats().columns[:3]
('GPU', 'architecture', 'compute capability')
>>> next(row for row in formats().rows if row[0] == "A100 SXM 80GB")[3:7]
('yes', 'yes', 'no', 'no')
"""

from __future__ import annotations

from calculators.catalog.gpus import GPU
from calculators.columns import Column
from calculators.doc_tables.hardware import ordered_gpus, yes_no
from calculators.dtype_support import FORMATS, MPS_TRAINING_LIMITS, TENSORRT_RTX, TRANSFORMER_ENGINE, runs_natively
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table


def _capability_source(gpu: GPU) -> str:
    if gpu.compute_capability is None:
        return "no CUDA compute capability: " + ("rates given in the catalog" if gpu.vendor != "Apple"
                                                 else "PyTorch MPS (see the limits below)")
    source = gpu.source_of("compute_capability")
    return f"[{source.title}]({source.url})"


@table("hardware-dtypes")
def formats() -> Table:
    """Each catalog GPU's compute capability and the formats its matrix units multiply in."""
    shown = [fmt for fmt in FORMATS if fmt != "fp32"]
    rows = ((gpu.name, gpu.architecture, gpu.compute_capability or "—", *(runs_natively(gpu, fmt) for fmt in shown),
             "dequantised to 16 bits", _capability_source(gpu))
            for gpu in ordered_gpus())
    return Table.of(
        caption=("Which number formats each catalog GPU multiplies in natively, from its CUDA compute capability "
                 f"({computed_by(runs_natively, dotted=True, code=False)}): fp16 tensor cores from 7.0, bf16 from "
                 "8.0, fp8 from 8.9, fp4 from 10.0 (Transformer Engine and TensorRT-RTX support matrices). AMD and "
                 "custom GPUs without a capability run a format when the catalog gives its dense rate; Apple GPUs "
                 "(MPS) run fp16 and bf16 (macOS 14 or later), no fp8 or fp4. Weight-only int8/int4/nf4 are "
                 "dequantised to 16 bits inside the matmul kernels on every GPU (assumed: particular kernels set "
                 "their own minimum). A job asking for a format a GPU lacks is refused with the reason."),
        columns=(Column("GPU"), Column("architecture"), Column("compute capability", align="c"),
                 *(Column(f"{fmt} native", yes_no, "c") for fmt in shown), Column("int8 / int4 / nf4 weights"),
                 Column("capability source")),
        rows=rows,
        assumptions=(f"rules: {TRANSFORMER_ENGINE.title} ({TRANSFORMER_ENGINE.url}); FP4 on 12.0: "
                     f"{TENSORRT_RTX.title} ({TENSORRT_RTX.url}); read {TRANSFORMER_ENGINE.as_of}",),
    )


@table("hardware-mps-limits")
def mps_limits() -> Table:
    """What PyTorch on Apple silicon cannot do for training, with the source of each limit."""
    return Table(
        caption=("Training on Apple silicon with PyTorch's MPS backend: the limits the calculators state with every "
                 "Mac training answer (calculators.dtype_support.MPS_TRAINING_LIMITS)."),
        columns=("limit", "source"),
        align=("l", "l"),
        rows=tuple((text, f"[{source.title}]({source.url}), read {source.as_of}") for text, source in MPS_TRAINING_LIMITS),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
