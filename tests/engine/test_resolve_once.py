"""A GPU and a model are read once per call, at the entry point, and passed down as records (issue #29).

The one reader of each (:func:`calculators.inputs.gpu.resolve_gpu`,
:func:`calculators.inputs.model.resolve_model`) is wrapped wherever a module holds it, so every
call counts: a *read* turns what the user gave (an id, a description, a config) into a record; a
*pass* is a record handed to an entry point again, which returns it untouched. Below the entry
points nothing calls a reader (``tests/engine/test_import_layers.py`` lists who may); functions
there take records and check only their type (``validate.instance_of``, ``validate.model_spec``), so that
one called directly with ``None`` still names its argument (``tests/validation/test_public_records.py``).
"""

from __future__ import annotations

from collections import Counter

import pytest

from calculators.catalog.models import get_model
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.errors import InputError
from calculators.fit import fit_inference, fit_training, fit_verdict
from calculators.jobs.registry import get_calculator
from calculators.memory.inference import inference_memory
from calculators.performance.training_time import training_time
from calculators.recommend import Workload, recommend

SPEC = get_model("llama-3-8b")


# ``reads`` (tests/engine/conftest.py) counts the calls of each reader while a test runs.


def test_the_counter_sees_every_reader(reads: Counter[str]) -> None:
    # A check of the check: the readers as the faces and the entry points hold them are counted.
    from calculators.fit import resolve_gpu as fit_reader
    from calculators.jobs import values

    fit_reader("h100-sxm")
    values.resolve_model("llama-3-8b")
    values.resolve_model(SPEC)
    assert reads == {"gpu read": 1, "model read": 1, "model pass": 1}


def test_training_time_reads_its_gpu_once(reads: Counter[str]) -> None:
    training_time(SPEC, "h100-sxm", tokens=10**9, method="lora", gpus=8, zero=3)
    assert reads == {"gpu read": 1}  # the model arrives as a record and is not read


def test_fit_reads_its_gpu_once(reads: Counter[str]) -> None:
    fit_training(SPEC, "rtx-4090", method="full", batch=4)  # does not fit one GPU: the search for more runs too
    assert reads == {"gpu read": 1}


@pytest.mark.parametrize("job", ["serve", "finetune"])
def test_recommend_reads_its_model_and_each_gpu_once(reads: Counter[str], job: str) -> None:
    result = recommend(Workload(model="llama-3-8b", job=job, gpus=("h100-sxm", "mac:64")))
    assert reads["model read"] == 1 and reads["gpu read"] == 2  # one model, two GPUs given
    assert reads["model pass"] == 0
    # Fine-tuning times each configuration that fits with training_time, an entry point, which is handed the
    # record it already has (a pass: returned as it is, never read again).
    timed = sum(1 for row in result.rows + result.tight_rows if row.tokens_per_s is not None)
    assert reads["gpu pass"] == (timed if job == "finetune" else 0)


def test_below_the_entry_points_a_gpu_must_be_a_record() -> None:
    # A function below the entry points takes the record it is given and reads nothing: an id is refused,
    # naming the argument and how to get a record.
    estimate = inference_memory(SPEC)
    for call in (lambda: usable_memory_bytes("h100-sxm"), lambda: fit_verdict(estimate, "h100-sxm")):
        with pytest.raises(InputError, match=r"^gpu: got 'h100-sxm'; expected a GPU record"):
            call()


def test_inference_fit_reads_its_gpu_once(reads: Counter[str]) -> None:
    # 70B in bf16 does not fit one 24 GB card: the search over GPU counts, batches and contexts runs too.
    fit_inference(get_model("llama-3-70b"), "rtx-4090", batch=2, context=4096)
    assert reads == {"gpu read": 1}


def test_inference_fit_through_the_face_reads_model_and_gpu_once(reads: Counter[str]) -> None:
    # The fit calculator as both faces call it: ids in, each read once, then records passed down.

    get_calculator("fit").answer({"model": "llama-3.1-70b", "gpu": "rtx-4090", "gpus": "2", "weights": "int4"})
    assert reads["model read"] == 1 and reads["gpu read"] == 1


def test_recommend_over_every_gpu_reads_the_model_once_and_no_gpu(reads: Counter[str]) -> None:
    # Without a GPU list, recommend walks the catalog's records: the model is read once, no GPU at all.
    result = recommend(Workload(model="llama-3-8b", job="serve"))
    assert len(result.rows) > 10  # many GPUs were tried
    assert reads == {"model read": 1}


def test_serve_load_reads_model_and_gpu_once_for_the_whole_curve(reads: Counter[str]) -> None:
    # The serve-load calculator answers at the asked concurrency and along a curve of others: one served model.

    get_calculator("serving-load").answer({"model": "llama-3-8b", "gpu": "h100-sxm", "concurrency": "8"})
    assert reads["model read"] == 1 and reads["gpu read"] == 1
    assert reads["gpu pass"] <= 1 and reads["model pass"] <= 1  # the served model hands its records on once
