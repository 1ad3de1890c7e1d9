"""Encoder inference (embedding, reranking): one forward pass of a batch padded to one length, no cache.

The model is the class the config's ``architectures`` names (``BertModel``,
``XLMRobertaForSequenceClassification``, ``ModernBertModel``...; ``AutoModel`` without one),
built from config values with random weights. The batch is ``batch`` sequences of ``seq``
tokens with an attention mask whose last sequence is shorter (a padded batch, as a tokenizer
returns it), so ``transformers`` builds the mask a padded batch needs. The peak of the
forward pass is recorded, with the outputs alive at its end.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

from harness.case import Case
from harness.presets import DTYPES, PRESETS
from harness.record import finish_record
from harness.tracker import Recorder, make_tracker_class


def _build_encoder(raw: dict[str, Any], dtype: Any, attention: str, device: str) -> Any:
    import torch
    import transformers
    from transformers import AutoConfig, AutoModel

    cfg = dict(raw)
    model_type = cfg.pop("model_type")
    architectures = cfg.pop("architectures", None) or []
    for key in ("torch_dtype", "_name_or_path", "transformers_version"):
        cfg.pop(key, None)
    if isinstance(cfg.get("id2label"), dict):
        cfg["id2label"] = {int(k): v for k, v in cfg["id2label"].items()}
    config = AutoConfig.for_model(model_type, **cfg)
    cls = getattr(transformers, architectures[0]) if architectures else AutoModel
    dev_ctx = torch.device("cuda") if device == "cuda" else contextlib.nullcontext()
    with dev_ctx, warnings.catch_warnings(), _no_data_dependent_init(device == "fake"):
        warnings.simplefilter("ignore")
        config._attn_implementation = attention  # noqa: SLF001 - how from_config passes it
        if architectures:
            return cls._from_config(config, dtype=dtype, attn_implementation=attention)
        return cls.from_config(config, dtype=dtype, attn_implementation=attention)


@contextlib.contextmanager
def _no_data_dependent_init(fake: bool) -> Any:
    """Fake tensors hold no values: ModernBERT's truncated-normal init asks whether any value fell outside
    its bounds, which they cannot answer. Values never change memory, so that init does nothing here."""
    if not fake:
        yield
        return
    from transformers import initialization

    original = initialization.TORCH_INIT_FUNCTIONS["trunc_normal_"]
    initialization.TORCH_INIT_FUNCTIONS["trunc_normal_"] = lambda tensor, *args, **kwargs: tensor
    try:
        yield
    finally:
        initialization.TORCH_INIT_FUNCTIONS["trunc_normal_"] = original


def run_embed(case: Case, device: str) -> dict[str, Any]:
    import torch
    from harness.steps import run_mode

    Tracker = make_tracker_class()
    raw = case.model_config or PRESETS[case.preset]
    with run_mode(device) as (dev, adjustments):
        model = _build_encoder(raw, getattr(torch, DTYPES[case.weights]), case.attention, device)
        model.eval()
        n_params = sum(p.numel() for p in model.parameters())
        tracker = Tracker("cuda" if device == "cuda" else None)
        rec = Recorder(tracker, device)
        with tracker, torch.no_grad():
            param_serials = tracker.register_weights(model)
            rec.boundary("weights")
            vocab = int(model.config.vocab_size)
            ids = torch.randint(5, vocab, (case.batch, case.seq), device=dev)
            mask = torch.ones(case.batch, case.seq, dtype=torch.long, device=dev)
            mask[-1, case.seq // 2:] = 0  # the last sequence is padded: the mask has zeros
            rec.boundary("before_forward")
            with rec.phase("forward"):
                out = model(input_ids=ids, attention_mask=mask)
            rec.boundary("after_forward")
            del out, ids, mask
        sets = {"parameters": param_serials}
        info = {"n_params": n_params}
    adjustments.append("one forward under torch.no_grad() of input_ids and an attention mask whose last "
                       "sequence is half padding; the outputs stay alive to the end of the phase")
    return finish_record(case, device, rec, sets, adjustments, info, None)
