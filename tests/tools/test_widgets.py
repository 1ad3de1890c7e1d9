"""The widget layer: forms drawn from the engine's constants, static HTML hooks, errors as data."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from support import load_script
from hypothesis import given, settings
from hypothesis import strategies as st

from calculators.catalog.encoder_models import encoder_ids
from calculators.catalog.gpus import gpu_ids
from calculators.catalog.models import model_ids
from calculators.errors import InputError
from calculators.inputs.fields import KINDS, Field
from calculators.inputs.shared import CUSTOM
from calculators.memory import encoder as encoder_memory
from calculators.memory import inference, training_inputs
from calculators.memory.optimizers import OPTIMIZERS
from calculators.widgets.api import INTERNAL_ERROR, compute_json, form_html, widget_html
from calculators.widgets.markdown import WidgetMarkupError, expand_widgets
from calculators.jobs.registry import calculator_names, get_calculator
from calculators.jobs.html import chart_html

ALL_FIELDS = [(name, field) for name in calculator_names() for field in get_calculator(name).fields]
FIELD_IDS = [f"{name}.{field.name}" for name, field in ALL_FIELDS]


class _Tags(HTMLParser):
    """Every start tag with its attributes, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(html)
    return parser.tags


BUILT_IN = ("training-memory", "inference-memory", "kv-cache", "fit")


def test_registry_holds_the_four_calculators() -> None:
    assert {"training-memory", "inference-memory", "kv-cache", "fit"} <= set(calculator_names())


@pytest.mark.parametrize("name", calculator_names())
def test_every_calculator_renders_its_defaults(name: str) -> None:
    reply = json.loads(compute_json(name, "{}"))
    assert reply["ok"] is True, reply
    assert "<table" in reply["html"]
    if name in BUILT_IN:  # the memory calculators draw a chart in GiB
        assert "<svg" in reply["html"] and "GiB" in reply["html"]


@pytest.mark.parametrize("name", calculator_names())
def test_every_calculator_has_a_gpu_field_for_the_chart(name: str) -> None:
    # Every catalog GPU; where the calculator takes your own hardware, then a custom GPU by its numbers and a
    # Mac by its unified memory (their fields are shown only for that choice).
    calculator = get_calculator(name)
    own = tuple(choice for choice, field in (("custom", "gpu_memory_gb"), ("mac", "mac_memory_gb"))
                if any(f.name == field for f in calculator.fields))
    assert calculator.field("gpu").choices == (*gpu_ids(), *own)


@pytest.mark.parametrize(("name", "field"), ALL_FIELDS, ids=FIELD_IDS)
def test_every_default_is_inside_its_own_range(name: str, field: Field) -> None:
    assert field.kind in KINDS
    if field.kind in ("int", "float"):
        assert field.minimum is not None and field.maximum is not None
        assert field.minimum <= field.default <= field.maximum  # type: ignore[operator]
    if field.kind == "choice":
        assert field.default in field.choices
        assert len(set(field.choices)) == len(field.choices)
    if field.kind != "config":
        assert field.check(field.default) is not None
    if field.show_when is not None:
        other = get_calculator(name).field(field.show_when[0])
        assert set(field.show_when[1].split("|")) <= set(other.choices)


ENGINE_CHOICES = {
    "method": training_inputs.METHODS,
    "precision": training_inputs.PRECISIONS,
    "optimizer": tuple(OPTIMIZERS),
    "zero": tuple(str(stage) for stage in training_inputs.ZERO_STAGES),
    "weights": inference.WEIGHT_DTYPES,
    "kv_cache": inference.KV_DTYPES,
    "kv_dtype": inference.KV_DTYPES,
    "model": (*model_ids(), CUSTOM),
    "gpu": tuple(gpu_ids()),
}
#: Calculators whose engine has its own constants for a field name the others share.
OWN_ENGINE_CHOICES = {
    "embedding-memory": {"model": (*encoder_ids(), CUSTOM), "weights": encoder_memory.WEIGHTS,
                         "attention": encoder_memory.ATTENTIONS},
}


@pytest.mark.parametrize(("name", "field"), [(n, f) for n, f in ALL_FIELDS if f.kind == "choice"],
                         ids=[i for i, (_, f) in zip(FIELD_IDS, ALL_FIELDS) if f.kind == "choice"])
def test_form_choices_equal_the_engine_constants(name: str, field: Field) -> None:
    if field.name in OWN_ENGINE_CHOICES.get(name, {}):
        expected = OWN_ENGINE_CHOICES[name][field.name]
    elif field.name == "attention":
        expected = training_inputs.ATTENTIONS if name == "training-memory" else inference.ATTENTIONS
    elif field.name == "job":
        expected = field.choices  # the fit calculator's own choice (training or inference)
    elif field.name == "gpu":
        names = {f.name for f in get_calculator(name).fields}
        own = tuple(choice for choice, other in (("custom", "gpu_memory_gb"), ("mac", "mac_memory_gb"))
                    if other in names)
        expected = (*gpu_ids(), *own)
    elif field.name in ENGINE_CHOICES:
        expected = ENGINE_CHOICES[field.name]
    else:
        expected = field.choices  # a plugin's own constant: the form must still offer exactly it
    assert field.choices == tuple(expected)
    html = form_html(name)
    options = [attrs["value"] for tag, attrs in _tags(html.split(f'name="{field.name}"', 1)[1].split("</select>")[0])
               if tag == "option"]
    assert options == list(field.choices)


def _engine_check(name: str, field: str, value: int) -> None:
    """Validate one value the way the engine does for that calculator's field."""
    from calculators.catalog.models import get_model

    training = name == "fit" and get_calculator(name).field(field).show_when == ("job", "training")
    if field == "gpus" and name in ("inference-memory", "fit"):  # an inference job's even split
        from calculators.catalog.gpus import get_gpu
        from calculators.fit import share_footprint

        share_footprint(inference.inference_memory(get_model("llama-3-8b"), context=128), get_gpu("h100-sxm"),
                        gpus=value)
    elif name == "training-memory" or training:
        training_inputs.training_setup(**{field: value})  # type: ignore[arg-type]
    elif name == "kv-cache":
        inference.kv_cache_bytes(get_model("llama-3-8b"), **{"batch": 1, "context": 1, field: value})
    elif field == "new_tokens":  # prompt + new tokens <= MAX_CONTEXT: the shortest prompt leaves the most
        inference.InferenceRequest.of(weights="bf16", context=1, new_tokens=value)
    else:
        inference.InferenceRequest.of(weights="bf16", **{field: value})


INT_FIELDS = [(n, f) for n, f in ALL_FIELDS if f.kind == "int"]


@pytest.mark.parametrize(("name", "field"), INT_FIELDS, ids=[f"{n}.{f.name}" for n, f in INT_FIELDS])
def test_number_ranges_are_the_engine_bounds(name: str, field: Field) -> None:
    assert isinstance(field.minimum, int) and isinstance(field.maximum, int)
    if name not in BUILT_IN:
        # A plugin's form range must be enforced: one past it is an error naming the field.
        for outside in (field.maximum + 1, field.minimum - 1):
            reply = json.loads(compute_json(name, json.dumps({field.name: str(outside)})))
            assert reply["ok"] is False and reply["field"] == field.name, reply
        return
    _engine_check(name, field.name, field.maximum)
    with pytest.raises(InputError) as error:
        _engine_check(name, field.name, field.maximum + 1)
    assert error.value.field == field.name
    _engine_check(name, field.name, field.minimum)
    with pytest.raises(InputError):  # kv_cache_bytes too needs context >= 1 (issue #17)
        _engine_check(name, field.name, field.minimum - 1)


@pytest.mark.parametrize("name", calculator_names())
def test_static_html_carries_the_test_hooks(name: str) -> None:
    html = widget_html(name)
    tags = _tags(html)
    root_tag, root = tags[0]
    assert root_tag == "section" and root["data-calculator"] == name and root["data-state"] == "static"
    # Kept out of the site search: Material's search plugin skips a data-search-exclude element only
    # up to the first closing tag of the same name, so the root's tag must not occur inside it.
    assert "data-search-exclude" in root and [tag for tag, _ in tags].count("section") == 1
    assert sum(1 for _, attrs in tags if attrs.get("data-role") == "output") == 1
    assert sum(1 for _, attrs in tags if attrs.get("data-role") == "status") == 1
    assert sum(1 for _, attrs in tags if attrs.get("data-role") == "file-note") == 1
    calculator = get_calculator(name)
    wrappers = [attrs["data-field"] for _, attrs in tags if "data-field" in attrs]
    assert wrappers == [field.name for field in calculator.fields]
    inputs = {attrs.get("name"): (tag, attrs) for tag, attrs in tags if tag in ("input", "select", "textarea")
              and attrs.get("name")}
    for field in calculator.fields:
        tag, attrs = inputs[field.name]
        if field.kind == "int":
            assert tag == "input" and attrs["type"] == "number"
            assert (attrs["min"], attrs["max"], attrs["step"]) == (str(field.minimum), str(field.maximum), "1")
            assert attrs["value"] == str(field.default)
        elif field.kind == "choice":
            assert tag == "select"
        elif field.kind == "config":
            assert tag == "textarea"
    if any(field.kind == "config" for field in calculator.fields):
        assert 'type="file"' in html and 'data-target="config"' in html


def test_overrides_set_the_form_and_the_static_result() -> None:
    html = widget_html("kv-cache", {"context": "8192", "kv_dtype": "fp8"})
    assert 'name="context" value="8192"' in html
    assert '<option value="fp8" selected>' in html
    assert "8,192 tokens" in html


def test_widget_html_is_deterministic() -> None:
    assert widget_html("fit", {"job": "training"}) == widget_html("fit", {"job": "training"})


# The message names the input by its label, as the reader sees it (issue #17).
@pytest.mark.parametrize(("name", "inputs", "field", "start"), [
    ("training-memory", {"batch": "-1"}, "batch", "Micro-batch: got -1; expected an integer from 1 to 65536"),
    ("inference-memory", {"context": "lots"}, "context", "Prompt length: got 'lots'"),
    ("kv-cache", {"batch": ""}, "batch", "Batch: got ''"),
    ("fit", {"model": "llama-3-9000b"}, "model", "Model: got 'llama-3-9000b'"),
    ("training-memory", {"method": "dpo"}, "method", "Method: got 'dpo'"),
    ("training-memory", {"model": CUSTOM, "config": "{\"model_type\": "}, "config", "config.json: got"),
    ("training-memory", {"model": CUSTOM, "config": ""}, "config", "config.json: got ''"),
    ("inference-memory", {"model": CUSTOM, "config": "[1, 2]"}, "config", "config.json: got 'list'"),
    ("kv-cache", {"model": CUSTOM, "config": '{"model_type": "llama"}'}, "config", "config.hidden_size"),
    ("training-memory", {"lora_targets": "q,banana", "method": "lora"}, "lora_targets", "LoRA targets: got 'banana'"),
    ("training-memory", {"grad_checkpointing": "maybe"}, "grad_checkpointing", "Gradient checkpointing: got"),
    ("training-memory", {"colour": "red"}, None, "colour: got 'red'"),
])
def test_bad_input_comes_back_as_a_message_naming_the_field(name: str, inputs: dict[str, str], field: str | None,
                                                             start: str) -> None:
    reply = json.loads(compute_json(name, json.dumps(inputs)))
    assert reply["ok"] is False
    assert reply["field"] == field
    assert reply["message"].startswith(start), reply["message"]
    assert "Traceback" not in reply["message"]


def test_hidden_inputs_do_not_block_visible_ones() -> None:
    # The config textarea is hidden unless the model is custom; the job's other fields too.
    assert json.loads(compute_json("kv-cache", json.dumps({"config": "not json"})))["ok"] is True
    assert json.loads(compute_json("fit", json.dumps({"job": "inference", "seq": "-5"})))["ok"] is True


@pytest.mark.parametrize(("name", "inputs"), [("nope", "{}"), ("fit", "[]"), ("fit", "not json"), ("fit", "")])
def test_unknown_calculator_or_non_object_input_is_a_widget_level_message(name: str, inputs: str) -> None:
    reply = json.loads(compute_json(name, inputs))
    assert reply["ok"] is False and reply["field"] is None and reply["message"]


def test_unexpected_failure_is_a_generic_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("calculators.jobs.calculator.Calculator.run", lambda self, raw: 1 / 0)
    reply = json.loads(compute_json("kv-cache", "{}"))
    assert reply == {"ok": False, "field": None, "message": INTERNAL_ERROR}


def test_config_text_cannot_inject_markup() -> None:
    config = {"_name_or_path": "<script>alert(1)</script>", "model_type": "llama", "hidden_size": 256,
              "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 512, "vocab_size": 1000}
    reply = json.loads(compute_json("inference-memory", json.dumps({"model": CUSTOM, "config": json.dumps(config)})))
    assert reply["ok"] is True
    assert "<script>" not in reply["html"] and "&lt;script&gt;" in reply["html"]


field_names = st.sampled_from(sorted({field.name for _, field in ALL_FIELDS} | {"x", ""}))
garbage = st.one_of(st.text(max_size=40), st.integers(), st.floats(allow_nan=True), st.booleans(), st.none(),
                    st.lists(st.integers(), max_size=3), st.sampled_from(["-1", "0", "1e9", "NaN", "inf", "4.5",
                                                                         " 8 ", "custom", "{}", "true"]))


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from([*calculator_names(), "", "nope"]), raw=st.text(max_size=80))
def test_compute_json_never_raises_on_garbage_text(name: str, raw: str) -> None:
    reply = json.loads(compute_json(name, raw))
    assert isinstance(reply["ok"], bool)


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(calculator_names()), inputs=st.dictionaries(field_names, garbage, max_size=4))
def test_compute_json_never_raises_on_garbage_values(name: str, inputs: dict[str, object]) -> None:
    reply = json.loads(compute_json(name, json.dumps(inputs)))
    if reply["ok"]:
        assert "<table" in reply["html"]
    else:
        assert reply["message"] and reply["message"] != INTERNAL_ERROR, inputs
        assert reply["field"] is None or reply["field"] in {f.name for f in get_calculator(name).fields}


def test_markers_expand_outside_code_fences_only() -> None:
    page = "\n".join([
        "# Page", "", "<!-- widget: kv-cache batch=2 -->", "", "```markdown", "<!-- widget: kv-cache -->", "```",
        "", "~~~", "<!-- widget: nope -->", "~~~", "<!-- widget: kv-cache -->",
    ])
    html = expand_widgets(page, source="page.md")
    assert html.count('data-calculator="kv-cache"') == 2
    assert 'id="mlhw-kv-cache-0"' in html and 'id="mlhw-kv-cache-1"' in html
    assert "```markdown\n<!-- widget: kv-cache -->\n```" in html


@pytest.mark.parametrize(("marker", "message"), [
    ("<!-- widget: nope -->", "page.md line 3: calculator: got 'nope'"),
    ("<!-- widget: kv-cache batch=0 -->", "page.md line 3: batch: got 0; expected an integer from 1 to 65536"),
    ("<!-- widget: kv-cache colour=red -->", "page.md line 3: colour: got 'red'"),
    ("<!-- widget: kv-cache batch -->", "page.md line 3: expected key=value, got 'batch'"),
    ("<!-- widget: kv-cache batch=1 batch=2 -->", "page.md line 3: batch is given twice"),
    ("<!-- widget: -->", "page.md line 3: the marker names no calculator"),
    ("<!-- widget: fit model=\"llama -->", "page.md line 3: cannot read the marker"),
])
def test_bad_markers_fail_the_build_with_page_and_line(marker: str, message: str) -> None:
    with pytest.raises(WidgetMarkupError) as error:
        expand_widgets(f"# Page\n\n{marker}\n", source="page.md")
    assert str(error.value).startswith(message), str(error.value)


def test_chart_draws_the_capacity_line_and_escapes_labels() -> None:
    html = chart_html([("weights", 2**34), ("kv_cache", 2**33), ("gradients", 0)], capacity_bytes=2**35,
                      capacity_label="A&B")
    svg = html.split("</svg>")[0]
    assert svg.count("<rect") == 2  # zero-byte components are not drawn
    assert 'class="mlhw-capacity"' in svg and "A&amp;B: 32.00 GiB" in svg
    assert "Weights: 16.00 GiB" in html and "KV cache: 8.00 GiB" in html and "A&amp;B memory: 32.00 GiB" in html


def test_mkdocs_hook_turns_a_bad_marker_into_a_build_error() -> None:
    pytest.importorskip("mkdocs")
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError

    hooks = load_script("mkdocs_hooks")
    page = SimpleNamespace(file=SimpleNamespace(src_uri="bad.md"), url="bad/")
    with pytest.raises(PluginError, match="docs/bad.md line 1: calculator: got 'nope'"):
        hooks.on_page_markdown("<!-- widget: nope -->", page, {}, None)


def test_training_time_form_takes_the_global_batch_as_the_engine_does() -> None:
    # The form's "Global batch" is training_time's global_batch_tokens: 4M tokens over 8 replicas of
    # 1 x 2048-token micro-batches is ceil(4,000,000 / (8 x 2048)) = 245 micro-batches per step (the documented
    # rounding: at least the global batch asked for), and the
    # "none" choice is the engine's default (one micro-batch per replica).
    from calculators.catalog.models import get_model
    from calculators.performance.training_time import training_time

    calculator = get_calculator("training-time")
    assert calculator.field("global_batch_tokens").check("none") == 0
    for typed, engine_value in (("4M", 4_000_000), ("none", None)):
        html = calculator.run({"model": "llama-3-8b", "gpus": "8", "global_batch_tokens": typed})
        answer = training_time(get_model("llama-3-8b"), "h100-sxm", tokens=100 * 10**9, gpus=8, zero=3,
                               global_batch_tokens=engine_value)
        assert f"{100 * answer.scaling_efficiency:.1f} %" in html
    assert training_time(get_model("llama-3-8b"), "h100-sxm", tokens=10**9, gpus=8,
                         global_batch_tokens=4_000_000).grad_accumulation == 245


def test_javascript_calls_the_api_module_only_and_names_no_calculator() -> None:
    # Issue 13: the worker and the snapshot script call calculators.widgets.api alone (compute, share, names,
    # warm-up, self-check); the page script widgets.js talks to the worker only. No Python source is
    # extracted from JavaScript and no calculator's name is hard-coded as a health check (api.self_check
    # picks the registry's first).
    import re

    from support import ROOT

    api = "calculators.widgets.api"
    allowed = {api} | {f"{api}.{name}" for name in
                       ("warm_up", "self_check", "compute_json", "share_json", "calculator_names")}
    scripts = [ROOT / "docs" / "assets" / "pyodide-worker.js", ROOT / "docs" / "assets" / "widgets.js",
               ROOT / "scripts" / "make_snapshot.mjs"]
    for path in scripts:
        text = path.read_text(encoding="utf-8")
        modules = set(re.findall(r"\bcalculators(?:\.\w+)+", text))
        assert path.name == "widgets.js" or modules <= allowed, (path.name, modules - allowed)
        quoted = set(re.findall(r"[\"'`]([a-z][a-z0-9-]+)[\"'`]", text))
        assert not quoted & set(calculator_names()), (path.name, quoted & set(calculator_names()))
    assert "WARM_UP = `" not in scripts[0].read_text(encoding="utf-8")  # no Python block in a JS string
