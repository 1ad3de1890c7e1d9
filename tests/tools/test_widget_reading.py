"""The widgets read well and their results can be shared (issue #15, items 4 and 5), without a browser.

The browser half (links restoring a result, dark mode contrast, 390 px) is in
tests/browser/test_reading.py; here are the Python parts: readable labels for every choice,
"none"/"default" as explicit choices, the echo of a parsed config.json, the copied record
(Markdown and JSON), charts whose labels cannot collide, and the site's palette settings.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from support import ROOT, load_script

from calculators import __version__
from calculators.catalog.edition import catalog_as_of
from calculators.inputs.fields import NONE, float_field
from calculators.inputs.shared import CUSTOM
from calculators.widgets.api import compute_json, share_json, widget_html
from calculators.widgets.fields import choice_texts
from calculators.widgets.form import field_html
from calculators.jobs.values import spec_from_config_text
from calculators.jobs.registry import calculator_names, get_calculator
from calculators.jobs.html import Bar, labelled_bars_svg, stacked_bar_svg
from calculators.widgets.share import outputs_of, share_markdown, share_record


CHOICE_FIELDS = [(name, field) for name in calculator_names() for field in get_calculator(name).fields
                 if field.kind == "choice"]
#: A Llama-shaped toy config; its parameter count is derived in the test that uses it.
TINY = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 512, "num_hidden_layers": 4,
        "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 1024, "vocab_size": 1000,
        "max_position_embeddings": 2048}


@pytest.mark.parametrize(("name", "field"), CHOICE_FIELDS, ids=[f"{n}.{f.name}" for n, f in CHOICE_FIELDS])
def test_no_select_shows_a_raw_engine_id(name: str, field: Any) -> None:
    # Every option reads as words: "bf16 mixed precision (fp32 master weights)", not "bf16-mixed".
    # Catalog fields (model, GPU) are labelled with each record's name, which may be its id (gpt-oss-20b).
    if field.choice_labels:
        return
    raw = [choice for choice, text in zip(field.choices, choice_texts(field)) if choice == text]
    assert raw == [], f"{name}.{field.name} shows ids as labels: {raw}"


def test_zero_never_stands_for_none_or_default_in_a_help_text() -> None:
    said = [f"{name}.{field.name}: {field.help}" for name in calculator_names() for field in get_calculator(name).fields
            if re.search(r"\b0 (=|means|takes|for)\b", field.help)]
    assert said == []


def test_a_none_choice_is_a_select_not_a_zero_to_type() -> None:
    budget = float_field("budget", "Budget", default=0.0, minimum=0, maximum=1000, unit="USD per hour",
                         none_label="No budget")
    html = field_html(budget, 0.0, prefix="w")
    assert '<option value="none" selected>No budget</option>' in html
    assert 'name="budget" value=""' in html and " hidden" in html  # the number input waits for "Set a value"
    chosen = field_html(budget, "12.5", prefix="w")
    assert '<option value="set" selected>Set a value</option>' in chosen and 'value="12.5"' in chosen
    assert budget.parse(NONE) == budget.parse("") == 0.0


@pytest.mark.parametrize(("name", "field"), [("recommend", "budget_usd_per_hour"),
                                             ("recommend", "target_tokens_per_s"), ("training-time", "mfu")])
def test_none_computes_like_the_engine_default(name: str, field: str) -> None:
    default = json.loads(compute_json(name, "{}"))
    chosen = json.loads(compute_json(name, json.dumps({field: NONE})))
    assert default["ok"] and chosen == default
    assert get_calculator(name).field(field).none_label


def test_a_custom_model_result_opens_with_what_was_read_from_its_config() -> None:
    reply = json.loads(compute_json("kv-cache", json.dumps({"model": CUSTOM, "config": json.dumps(TINY)})))
    assert reply["ok"]
    echo = reply["html"].split("</p>", 1)[0]
    # Named by its architecture when the file has no _name_or_path, never just "Custom model".
    assert "Read from your config.json: Custom LlamaForCausalLM, architecture llama (GQA)" in echo
    # 2 x 1000 x 512 (embeddings, untied head) + 4 x (655,360 attention + 1,572,864 MLP + 1,024 norms) + 512
    # (final norm) = 9,941,504 parameters.
    assert "9.94M parameters (all active), 4 layers, hidden size 512" in echo
    assert "8 attention heads and 2 KV heads of 64 dimensions" in echo and "2,048 tokens" in echo
    assert spec_from_config_text(json.dumps({**TINY, "architectures": None})).name == "Custom llama"


#: A two-layer BERT: 1000 x 128 word, 512 x 128 position and 2 x 128 token-type embeddings.
TINY_ENCODER = {"model_type": "bert", "architectures": ["BertModel"], "hidden_size": 128, "num_hidden_layers": 2,
                "num_attention_heads": 4, "intermediate_size": 512, "vocab_size": 1000,
                "max_position_embeddings": 512, "type_vocab_size": 2}


def test_every_calculator_echoes_a_custom_config() -> None:
    for name in calculator_names():
        if not {"model", "config"} <= {field.name for field in get_calculator(name).fields}:
            continue  # vision-training sizes image networks from their own catalog
        config = TINY_ENCODER if name == "embedding-memory" else TINY  # the encoder calculator reads encoders
        reply = json.loads(compute_json(name, json.dumps({"model": CUSTOM, "config": json.dumps(config)})))
        assert reply["ok"], (name, reply)
        assert "Read from your config.json" in reply["html"], name


def test_the_copied_record_holds_inputs_outputs_version_edition_and_link() -> None:
    url = "https://guide.example.org/calculators/memory/?training-memory-0.seq=4096#mlhw-training-memory-0"
    record = share_record("training-memory", {"seq": "4096", "method": "lora"}, page_url=url)
    assert record["version"] == __version__ and record["catalog_as_of"] == catalog_as_of() and record["url"] == url
    assert record["inputs"]["seq"] == "4096" and record["inputs"]["method"] == "lora"
    assert record["shown"]["Method"] == "LoRA (adapters on a 16-bit base)"
    assert "config" not in record["inputs"]  # hidden unless the model is custom
    html = json.loads(compute_json("training-memory", json.dumps({"seq": "4096", "method": "lora"})))["html"]
    assert record["outputs"] == outputs_of(html)  # what was on screen, read back from the same HTML
    assert record["outputs"]["tables"][0]["header"] == ["Component", "GiB (2^30 bytes)"]
    # The answer opens with the reader's GPUs, the verdict and the margin (#27); the form opens on a job that fits.
    assert record["outputs"]["summary"][0].startswith("On 8x H100 SXM 80GB, data parallel, ZeRO-3: fits, ")
    assert record["outputs"]["summary"][1].startswith("Llama 3 8B, training: ")
    markdown = share_markdown(record)
    assert "| Sequence length (tokens) | 4096 |" in markdown
    assert "| Component | GiB (2^30 bytes) |" in markdown
    assert markdown.rstrip().endswith(f"Computed by calculators {__version__}, catalog as of {catalog_as_of()}: <{url}>")
    json.dumps(record)  # JSON-ready


def test_share_json_answers_bad_input_like_the_widget() -> None:
    reply = json.loads(share_json("kv-cache", '{"batch": "0"}', "https://x/"))
    assert reply == json.loads(compute_json("kv-cache", '{"batch": "0"}'))
    assert reply["ok"] is False and reply["field"] == "batch"


def test_markdown_of_a_hostile_config_keeps_its_table() -> None:
    config = dict(TINY, _name_or_path="a | b\n| c")
    record = share_record("kv-cache", {"model": CUSTOM, "config": json.dumps(config)}, page_url="https://x/")
    markdown = share_markdown(record)
    inputs = markdown.split("\n\n")[1].splitlines()  # the inputs table
    cells = [len(re.findall(r"(?<!\\)\|", line)) for line in inputs]
    assert cells == [3] * len(inputs)  # two columns on every line: the name's "|" is escaped
    assert "```json" in markdown  # the config itself, fenced


def test_widget_root_carries_the_version_and_catalog_edition() -> None:
    html = widget_html("kv-cache")
    assert f'data-version="{__version__}"' in html and f'data-catalog-as-of="{catalog_as_of()}"' in html
    assert 'data-role="share" hidden' in html  # shown by the page's script only (file:// has no Python)


def test_bar_names_sit_on_their_own_line_above_each_bar() -> None:
    long = "8 x GeForce RTX 3090 24GB, int4 weights, a long name"
    svg = labelled_bars_svg([Bar(long, 1.0, "0.77 USD per million tokens", 0), Bar("b", 2.0, "1.5 USD", 1)], title="T")
    texts = [(int(y), text) for y, text in re.findall(r'<text x="0" y="(\d+)"[^>]*>([^<]*)</text>', svg)]
    rects = [int(y) for y in re.findall(r'<rect x="0" y="(\d+)"', svg)]
    assert [text for _, text in texts] == [long, "b"]
    # Each name's baseline is above its bar's top: a name can never run into a bar, at any width.
    assert all(y_text <= y_rect for (y_text, _), y_rect in zip(texts, rects))
    widths = [float(w) for w in re.findall(r'<rect x="0" y="\d+" width="([\d.]+)%"', svg)]
    assert max(widths) <= 50  # the value text after the longest bar keeps half the chart


def test_capacity_label_in_the_chart_is_the_number_only() -> None:
    svg = stacked_bar_svg([("weights", 2**33)], capacity_bytes=80 * 2**30, capacity_label="NVIDIA H100 SXM 80GB (usable)")
    label = re.search(r'text-anchor="(?:start|end)"><title>[^<]*</title>([^<]*)</text>', svg)
    assert label is not None and label.group(1) == "80.00 GiB"


def test_mkdocs_has_a_light_and_dark_palette_with_a_toggle_and_no_web_fonts() -> None:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    theme = text[text.index("theme:"):text.index("# --- Markdown")]
    assert "font: false" in theme
    schemes = re.findall(r"^\s+scheme: (\w+)$", theme, re.MULTILINE)
    assert schemes == ["default", "slate"]
    assert theme.count("toggle:") == 2 and theme.count("prefers-color-scheme") == 2
    assert "assets/site.css" in text and (ROOT / "docs" / "assets" / "site.css").is_file()


def test_site_css_keeps_identifiers_whole_and_notebook_outputs_unwrapped() -> None:
    css = (ROOT / "docs" / "assets" / "site.css").read_text(encoding="utf-8")
    assert re.search(r"\.md-typeset table code \{[^}]*word-break: normal;[^}]*white-space: nowrap", css)
    assert re.search(r"jp-OutputArea-output pre[^{]*\{[^}]*white-space: pre;[^}]*overflow-x: auto", css)


def test_the_users_chart_of_the_serving_example_starts_at_zero() -> None:
    # symlog's autoscale mirrored the axis below zero: half the chart was negative user counts.
    source = (ROOT / "docs" / "examples" / "serve-70b-model.py").read_text(encoding="utf-8")
    assert 'ax.set_yscale("symlog", linthresh=1)\nax.set_ylim(bottom=0)' in source


def test_inline_identifiers_get_break_points_between_their_parts_only() -> None:
    hooks = load_script("mkdocs_hooks")
    html = ("<p>See <code>calculators.memory.inference.inference_memory</code>.</p>"
            '<div class="highlight"><pre><span></span><code>x = a.b_c</code></pre></div>'
            "<td><code>_private</code> <code>1.5</code></td>")
    out = hooks.breakable_identifiers(html)
    assert "<code>calculators.<wbr>memory.<wbr>inference.<wbr>inference_<wbr>memory</code>" in out
    assert "<pre><span></span><code>x = a.b_c</code></pre>" in out  # code blocks keep their lines
    assert "<code>_private</code>" in out and "<code>1.5</code>" in out  # no joint: nothing to break
    assert hooks.breakable_identifiers(out) == out  # idempotent: a second pass adds nothing


def test_a_page_that_still_names_the_cite_placeholder_fails_the_build() -> None:
    from calculators.tables import DOCS_SITE_URL

    hooks = load_script("mkdocs_hooks")
    problem = hooks.placeholder_left(f'<a href="{DOCS_SITE_URL}memory/#x">cite</a>', page="memory/index.md")
    assert problem is not None and problem.startswith("memory/index.md: ") and "site_url" in problem
    assert hooks.placeholder_left('<a href="https://guide.example.org/memory/">cite</a>', page="m") is None
