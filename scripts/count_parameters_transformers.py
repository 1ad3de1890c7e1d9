"""Count every catalog model's parameters with transformers, on the meta device, into a JSON file.

For each record of ``calculators.catalog.model_records`` (registered and pending), build the
model class transformers picks for its ``config.json`` values with no weights
(``torch.device("meta")``), and write ``tests/data/model_counts_transformers.json``:

* ``parameters``: ``sum(p.numel() for p in model.parameters())`` (a tied head counted once);
* ``checkpoint_buffers``: persistent buffers that ``save_pretrained`` stores besides them
  (the routers' ``e_score_correction_bias`` of DeepSeek-style MoE layers);
* ``vision_parameters``: the part of ``parameters`` in the vision tower and projector (and any other encoder
  tower: Gemma 3n's audio tower and the embedders of both);
* ``state_per_layer``: for linear-attention and Mamba2 layers, the shapes of one sequence's
  conv and recurrent state, read from the mixer modules transformers builds.

The counts are an independent expected value for the config reader: ``ModelSpec.parameters``
should equal ``parameters + checkpoint_buffers`` (tests/catalog/test_model_catalog_2026.py).
Needs the ``[measure]`` extra (torch, transformers); no network, no weights.

    PYTHONPATH=. python scripts/count_parameters_transformers.py            # write the JSON
    PYTHONPATH=. python scripts/count_parameters_transformers.py --check    # compare, write nothing
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

from calculators.catalog.model_record import ModelRecord, thaw
from calculators.catalog.model_records import PENDING_FAMILIES_RECORDS, RECORDS

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "model_counts_transformers.json"

#: model_types transformers does not register, built with the class their config.json names.
BUILD_AS = {"kimi_k2": "deepseek_v3"}
_VISION = re.compile(r"(^|\.)(vision_tower|vision_model|visual|multi_modal_projector|vision_adapter|audio_tower|"
                     r"embed_vision|embed_audio)\.")

PROVENANCE = (
    "Written by scripts/count_parameters_transformers.py: each catalog record's config values built with "
    "transformers (AutoModelForImageTextToText when the config has a vision_config, else "
    "AutoModelForCausalLM) on the meta device, no weights. parameters = sum(p.numel() for p in "
    "model.parameters()); checkpoint_buffers = persistent buffers in model.state_dict() that are not "
    "parameters; state_per_layer = conv and recurrent state shapes of one sequence, read from the "
    "linear-attention / Mamba2 mixer modules (conv_dim x conv_kernel_size; heads x head dims)."
)


def build(config: dict[str, Any]) -> Any:
    """The transformers model of ``config`` on the meta device."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText

    values = {k: v for k, v in config.items() if k != "architectures"}
    model_type = values.pop("model_type")
    hf_config = AutoConfig.for_model(BUILD_AS.get(model_type, model_type), **values)
    auto = AutoModelForImageTextToText if "vision_config" in config else AutoModelForCausalLM
    with torch.device("meta"):
        return auto.from_config(hf_config)


def states(model: Any) -> list[dict[str, Any]]:
    """One entry per kind of recurrent mixer: its class, how many layers, and one sequence's state shapes."""
    kinds: dict[str, dict[str, Any]] = {}
    for name, module in model.named_modules():
        if not hasattr(module, "conv1d") or not hasattr(module, "conv_dim"):
            continue
        kind = type(module).__name__
        if kind in kinds:
            kinds[kind]["layers"] += 1
            continue
        conv = [int(module.conv_dim), int(module.conv_kernel_size)]
        if hasattr(module, "ssm_state_size"):  # Mamba2: ssm_state (heads, head_dim, state size)
            recurrent = [int(module.num_heads), int(module.head_dim), int(module.ssm_state_size)]
        else:  # Gated DeltaNet: recurrent_state (value heads, key head dim, value head dim)
            recurrent = [int(module.num_v_heads), int(module.head_k_dim), int(module.head_v_dim)]
        kinds[kind] = {
            "mixer": kind, "example_module": name, "layers": 1, "conv_state_shape": conv,
            "recurrent_state_shape": recurrent,
            "elements_per_sequence_per_layer": conv[0] * conv[1] + recurrent[0] * recurrent[1] * recurrent[2],
            "source": f"{type(module).__module__}.{kind}.__init__ (conv_dim, conv_kernel_size and head sizes)",
        }
    return list(kinds.values())


def count(record: ModelRecord, *, registered: bool) -> dict[str, Any]:
    """The counts of one record."""
    import transformers

    config = thaw(record.config)
    model = build(config)
    params = {id(p): (n, p.numel()) for n, p in model.named_parameters()}
    parameters = sum(n for _, n in params.values())
    param_ids = set(params)
    buffers = sum(t.numel() for t in model.state_dict(keep_vars=True).values() if id(t) not in param_ids)
    vision = sum(n for name, n in params.values() if _VISION.search(name))
    entry: dict[str, Any] = {
        "registered": registered,
        "transformers": transformers.__version__,
        "model_class": type(model).__name__,
        "config": config,
        "parameters": parameters,
        "checkpoint_buffers": buffers,
        "vision_parameters": vision if "vision_config" in config else None,
        "published_parameters": record.published_parameters,
        "published_extra_elements": record.published_extra_elements,
        "state_per_layer": states(model),
        "notes": [],
    }
    if any(type(module).__name__ == "TimmWrapperModel" for module in model.modules()):
        import timm

        entry["notes"].append(f"vision tower built by timm {timm.__version__} (TimmWrapperModel)")
    if config["model_type"] in BUILD_AS:
        entry["notes"].append(f"built as {BUILD_AS[config['model_type']]} (transformers has no "
                              f"{config['model_type']}; the config names that architecture)")
    if record.published_parameters is not None:
        gap = record.published_parameters - parameters - buffers - record.published_extra_elements
        entry["published_minus_counted"] = gap
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the JSON on disk, write nothing")
    parser.add_argument("--only", action="append", default=[], help="count only these ids")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    import transformers

    transformers.logging.set_verbosity_error()
    todo = [(r, True) for r in RECORDS] + [(r, False) for r in PENDING_FAMILIES_RECORDS]
    models: dict[str, Any] = {}
    for rec, registered in todo:
        if args.only and rec.id not in args.only:
            continue
        models[rec.id] = count(rec, registered=registered)
        e = models[rec.id]
        print(f"{rec.id:34} {e['model_class']:36} {e['parameters']:>16,} +{e['checkpoint_buffers']:,}"
              f"  gap={e.get('published_minus_counted')}", flush=True)
    doc = {"provenance": PROVENANCE, "models": models}
    if args.check:
        on_disk = json.loads(OUT.read_text())["models"]
        bad = [k for k, v in models.items() if on_disk.get(k, {}).get("parameters") != v["parameters"]]
        print("differs:", bad or "none")
        return 1 if bad else 0
    if args.only and OUT.exists():
        doc["models"] = {**json.loads(OUT.read_text())["models"], **models}
    OUT.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")
    print(f"wrote {len(doc['models'])} models to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
