"""One record of the model catalog: a model's ``config.json`` values and where they came from.

The records themselves live in :mod:`calculators.catalog.model_records`, one module per
family; lookup by id, name or repository is :mod:`calculators.catalog.models`. This module
holds the record type and the helpers that build its citations.

>>> rec = record("demo", "Demo", "org/demo", "demo", {"model_type": "llama", "hidden_size": 64,
...     "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10},
...     config_source("org/demo"))
>>> rec.spec().hidden_size
64
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from calculators.catalog.sources import Source
from calculators.model import ModelSpec
from calculators.model_config import spec_from_config

#: The day the configs and counts of the first catalog (models up to 2024) were read.
READ_ON = "2026-11-21"
#: The day the configs and counts of the 2025 models (Llama 3.3, Qwen3, Gemma 3, gpt-oss,
#: Mistral Small 3.x and Nemo, Phi-4, DeepSeek-R1) were read.
READ_ON_2025_MODELS = "2026-11-25"
#: The day the configs and counts of the 2026 additions (Llama 4, GLM-4.5, Kimi K2, DeepSeek V3.2,
#: MiniMax-M2.7, Qwen3-Next, Nemotron-H, Granite 4.0, vision-language checkpoints, more Qwen3 sizes...)
#: were read.
READ_ON_2026_MODELS = "2026-11-28"
#: The day the configs and counts of the second 2026 batch (Qwen2.5-VL, Llama 3.2 Vision, Nemotron-H sizes,
#: Mamba-Codestral, DeepSeek V3.1, the 2507 Qwen3 updates, OLMo, Gemma 3n...) were read.
READ_ON_2026_MORE = "2026-11-29"

HUB = "https://huggingface.co"


@dataclass(frozen=True)
class ModelRecord:
    """One catalogued model: its config values, where they came from, and its published size.

    Attributes:
        id: Short lowercase key, e.g. ``"llama-3-8b"``.
        name: Display name, e.g. ``"Llama 3 8B"``.
        hf_repo: The official Hugging Face repository, ``owner/name``.
        family: Model family, e.g. ``"llama"``, ``"qwen2.5"``.
        config: The ``config.json`` values that matter for sizing (read-only).
        source: Where the config values come from (the repository's ``config.json``).
        published_parameters: An exact element count published for the checkpoint, or
            ``None`` where no exact figure was found.
        published_parameters_source: Where :attr:`published_parameters` comes from.
        published_extra_elements: How many of the published elements are not parameters
            of the model as :class:`~calculators.model.ModelSpec` counts it (buffers,
            quantisation scales, auxiliary modules); :attr:`notes` explain the figure.
        published_active_parameters: An exact per-token (active) count, for a
            mixture-of-experts model whose publisher gives one.
        notes: Caveats a reader should know before trusting the numbers.
    """

    id: str
    name: str
    hf_repo: str
    family: str
    config: Mapping[str, Any]
    source: Source
    published_parameters: int | None = None
    published_parameters_source: Source | None = None
    published_extra_elements: int = 0
    published_active_parameters: int | None = None
    notes: tuple[str, ...] = ()

    def spec(self) -> ModelSpec:
        """Parse :attr:`config` into a :class:`~calculators.model.ModelSpec`.

        Returns:
            The model's shapes and exact parameter counts.

        Example:
            >>> from calculators.catalog.models import get_model_record
            >>> get_model_record("mixtral-8x7b").spec().moe.num_experts
            8
            >>> get_model_record("mixtral-8x7b").spec() is get_model_record("mixtral-8x7b").spec()  # parsed once
            True
        """
        # Parsed once per record: the config is frozen and the spec is a frozen, deeply immutable value, so
        # every call returns the same answer (a speed-accuracy table asks for the same model thousands of times).
        parsed: ModelSpec | None = self.__dict__.get("_spec")
        if parsed is None:
            parsed = spec_from_config(thaw(self.config), name=self.name)
            object.__setattr__(self, "_spec", parsed)
        return parsed


# --------------------------------------------------------------------------- helpers
def freeze(value: Any) -> Any:
    """Deep read-only copy: dicts become mapping proxies, lists become tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Plain ``dict``/``list`` copy of a frozen config, as ``json.load`` would give it."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def config_source(repo: str, read_from: str = "", *, as_of: str = READ_ON) -> Source:
    """The ``config.json`` of ``repo`` on the Hub, with where its values were read."""
    where = f"; values read from {read_from}" if read_from else ""
    return Source(
        title=f"{repo} config.json on the Hugging Face Hub{where}",
        url=f"{HUB}/{repo}/blob/main/config.json",
        as_of=as_of,
        kind="spec",
    )


def hub_api_source(repo: str, revision: str, *, via: str, sibling_of: str = "", as_of: str = READ_ON) -> Source:
    """The Hub model API's ``safetensors.total`` of ``repo``, as a third party recorded it."""
    sibling = f" (the {sibling_of} checkpoint has the same tensor shapes)" if sibling_of else ""
    return Source(
        title=(f"Hugging Face model API, {repo} safetensors.total at revision {revision}{sibling}; "
               f"value as recorded in {via}"),
        url=f"{HUB}/api/models/{repo}",
        as_of=as_of,
        kind="spec",
    )


def keras_source(preset: str, model_dir: str, *, sibling_of: str = "", as_of: str = READ_ON) -> Source:
    """KerasHub's preset metadata ``params`` of ``preset``."""
    sibling = f" (a port of {sibling_of}, same tensor shapes)" if sibling_of else ""
    return Source(
        title=f"KerasHub preset metadata, {preset} 'params'{sibling}",
        url=f"https://github.com/keras-team/keras-hub/blob/master/keras_hub/src/models/{model_dir}/{model_dir}_presets.py",
        as_of=as_of,
        kind="spec",
    )


ATLAS = "the saved hub response test/fixtures/hf/{} in github.com/zaid-cdlg/inference-atlas"
HELDOUT = "a study dataset script in a public GitHub repository that lists hub API values read on 2026-10-01"
_KVFIT = "github.com/debaditc/kvfit (commit bd4ccabf914323ee9831bc4dfae6bff777aa7966)"
#: kvfit's registry records each model's hub ``safetensors.total`` ...
KVFIT_COUNTS = f"the MODELS table of scripts/build_registry.py in {_KVFIT}"
#: ... and a trimmed copy of its ``config.json`` (the ``text_config`` of a multimodal one).
KVFIT_CONFIGS = f"the trimmed config.json copy in src/kvfit/data/models.json of {_KVFIT}"
_AIC = "github.com/ai-dynamo/aiconfigurator (commit 095f58a51c4ca8e61b66ec108d86f223f8d559ce)"
#: NVIDIA's aiconfigurator keeps verbatim config.json copies, one file per repository.
AIC_CONFIGS = "the config.json copy aic-core/src/aiconfigurator_core/model_configs/{}_config.json in " + _AIC
#: inference-atlas's featured fixtures: a trimmed config.json and the hub API response, per repository.
ATLAS_FEATURED = ("the saved hub response test/fixtures/featured/{} in github.com/zaid-cdlg/inference-atlas "
                  "(commit b694f3732138a8e05dd8cea1d8bcf37e3ed02ebd)")
#: A licence-audit script whose KNOWN_MODELS table records each repository's hub safetensors.total.
AUDIT_TABLE = ("the KNOWN_MODELS table of a licence-audit script (audit_compliance.py) in a public GitHub "
               "repository, which records each repository's hub API safetensors.total read on 2026-09-25")
#: simple-mmeval's model metadata: parameter_count is the Hub's safetensors.total, and the architecture fields are
#: read from config.json (its text_config for a multimodal checkpoint), by its scripts/update_model_metadata.py.
MMEVAL = ("the model_metadata.json of github.com/mm-evaluation/simple-mmeval (commit "
          "7f0faed3d7154decaa18560c435e681533b60d7d), whose parameter_count is the Hub's safetensors.total and whose "
          "num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads and max_position_embeddings are "
          "read from the repository's config.json (scripts/update_model_metadata.py)")
#: A MoE-variant grouping journal whose total_params column records each repository's Hub parameter total.
MOE_JOURNAL = ("the total_params column of JOURNAL_AUDIT, a MoE-variant grouping journal (in French) in a public "
               "GitHub repository that lists each repository's Hub parameter total (its figures for DeepSeek-V3, "
               "Kimi K2, GLM-4.5 and Qwen3-Next equal the hub totals the catalog cites elsewhere)")
#: transformers' configuration classes, whose defaults some families set to their flagship checkpoint.
TRANSFORMERS_DEFAULTS = "the defaults of {} in transformers 5.23.0 (transformers/models/{})"


@dataclass(frozen=True)
class Published:
    """A published element count of a checkpoint and where it comes from (see :class:`ModelRecord`'s
    ``published_*`` attributes): ``parameters`` (``None``: no exact figure found), its ``source``, the
    ``extra`` elements it holds that are not parameters as :class:`~calculators.model.ModelSpec` counts
    them, and the ``active`` per-token count a mixture-of-experts publisher gives."""

    parameters: int | None
    source: Source | None
    extra: int = 0
    active: int | None = None


def record(id: str, name: str, repo: str, family: str, config: Mapping[str, Any], source: Source,
           published: Published | None = None, *, notes: tuple[str, ...] = ()) -> ModelRecord:
    """One :class:`ModelRecord`, its config frozen read-only."""
    counted = published or Published(None, None)
    return ModelRecord(
        id=id, name=name, hf_repo=repo, family=family, config=freeze(config), source=source,
        published_parameters=counted.parameters, published_parameters_source=counted.source,
        published_extra_elements=counted.extra, published_active_parameters=counted.active, notes=notes,
    )
