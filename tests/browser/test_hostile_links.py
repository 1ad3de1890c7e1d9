"""Hostile links (issue #30): whatever a shared address holds, no calculator stops and nothing is injected.

A corpus generated from the built calculators page (its widgets and their inputs, read from
the HTML) puts into the query and the fragment: unknown and malformed keys (quotes, brackets,
``__proto__``, control and bidi characters), values that are no choice, no number or out of
range, inputs given twice or for a hidden field, percent-encodings that are not UTF-8, HTML and
script payloads in every field and key, and oversized queries, fragments, values and configs.
Each link must

* throw no uncaught error and request nothing outside the site;
* inject no element (every payload carries ``data-pwn``) and run no script (``window.__pwned``);
* leave every calculator live (``data-state=live`` once Python has computed what was applied);
* report each input it did not apply in the widget's status line, still there after the
  recompute (an input counts as applied when its control shows the value and is visible).

The suite runs a few links packed with many hostile inputs each, checked in full, plus single
links checked before Python starts. A larger run, one hostile input per link, counts outcomes
by category::

    python -m tests.browser.test_hostile_links 300 -v     # 300 links, full checks
    python -m tests.browser.test_hostile_links 300 --quick
"""

from __future__ import annotations

import argparse
import collections
import html.parser
import json
import random
import re
import sys
import time
import unicodedata
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

if __package__:  # run as python -m tests.browser.test_hostile_links
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from sitetools import CHROMIUM, CHROMIUM_ARGS, SITE, RequestLog, SiteServer  # noqa: E402

pytestmark = pytest.mark.browser

#: The memory calculators (training, inference, KV cache with its config.json, encoders).
PAGE = "calculators/memory/"
#: What a page reads of an address (docs/assets/widgets.js, "inputs in the URL").
MAX_QUERY_CHARS = 8192
MAX_FRAGMENT_CHARS = 16384
#: Keys of the theme (search highlighting and sharing), left alone by the calculators.
THEME_KEYS = ("q", "h")

PAYLOADS = (
    "<script>window.__pwned='script'</script>",
    "<img src=x data-pwn onerror=\"window.__pwned='img'\">",
    "\"><svg data-pwn onload=\"window.__pwned='svg'\">",
    "'><iframe data-pwn srcdoc=\"<script>parent.__pwned='iframe'</script>\"></iframe>",
    "</textarea><img src=x data-pwn onerror=\"window.__pwned='textarea'\">",
    "<img data-pwn src=http://evil.example/pixel.png>",
    "javascript:window.__pwned='js-url'",
    "${window.__pwned='template'}",
    "{{constructor.constructor('window.__pwned=1')()}}",
    "x'],[data-pwn],a[b='",
    "<style data-pwn>*{display:none}</style>",
    "\u202e<b data-pwn>rtl</b>\u202c",
)
ODD_NAMES = ("x'", 'x"', "x]", "[x", "x\\", "*", "a b", "`x`", "__proto__", "constructor", "toString",
             "hasOwnProperty", "", ".", "..", "x.y", "x#y", "\u202ebatch", "ba\u200btch", "BATCH", " batch",
             "batch ", "\U0001f600", "\u0000", "x" * 300, "data-field", "name='x'")
BAD_ENCODINGS = ("%FF", "%C3%28", "%E0%A4%A", "%", "%zz", "%ED%A0%80", "%C0%AF", "%F4%90%80%80", "%F0%9F%98",
                 "%%31", "%u0041")
TINY_CONFIG = {"_name_or_path": "tiny", "model_type": "llama", "hidden_size": 512, "num_hidden_layers": 4,
               "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 1024, "vocab_size": 1000}


# ----------------------------------------------------------------------------- the page's widgets
@dataclass
class Field:
    name: str
    kind: str  # int, float, choice, bool, config, text
    choices: list[str] = field(default_factory=list)
    show_when: str = ""


@dataclass
class Widget:
    key: str  # the id without "mlhw-": what the address names
    fields: dict[str, Field] = field(default_factory=dict)


class _Fields(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.widgets: list[Widget] = []
        self._field: Field | None = None
        self._in_output = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if "data-calculator" in found:
            self.widgets.append(Widget(str(found["id"]).removeprefix("mlhw-")))
            self._in_output = False
        elif found.get("data-role") == "output":
            self._in_output = True
        elif "data-field" in found and self.widgets and not self._in_output:
            kind = re.search(r"mlhw-(\w+)$", str(found.get("class"))) or re.search(r"(\w+)$", "text")
            assert kind is not None
            self._field = Field(str(found["data-field"]), kind.group(1), show_when=found.get("data-show-when") or "")
            self.widgets[-1].fields[self._field.name] = self._field
        elif tag == "option" and self._field is not None and self._field.kind == "choice":
            self._field.choices.append(str(found.get("value")))


def page_widgets(site: Path = SITE) -> list[Widget]:
    """The widgets of the calculators page and their inputs, from the built HTML."""
    parser = _Fields()
    parser.feed((site / PAGE / "index.html").read_text(encoding="utf-8"))
    return parser.widgets


# ----------------------------------------------------------------------------- the corpus
@dataclass
class Link:
    category: str
    name: str
    query: list[tuple[str, str | None]]  # raw (percent-encoded) pairs; None: a key without "="
    fragment: str | None = None  # raw, without "#"

    def suffix(self) -> str:
        text = "&".join(f"{key}={value}" if value is not None else key for key, value in self.query)
        return ("?" + text if text else "") + ("#" + self.fragment if self.fragment is not None else "")


def enc(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def _good_value(f: Field) -> str:
    return {"int": "3", "float": "12.5", "bool": "true", "text": "q_proj", "config": json.dumps(TINY_CONFIG)}.get(
        f.kind, f.choices[-1] if f.choices else "x")


def corpus(widgets: list[Widget]) -> list[Link]:
    """Every hostile link of the named cases, one hostile input each (the order is stable)."""
    links: list[Link] = []
    first = widgets[0]
    w = first.key
    configs = [widget for widget in widgets if "config" in widget.fields] or [first]
    kv = configs[0]

    def add(category: str, name: str, query: list[tuple[str, str | None]], fragment: str | None = None) -> None:
        links.append(Link(category, name, query, fragment))

    # Keys: names this calculator does not have, a calculator the page does not have, odd shapes.
    for name in ODD_NAMES:
        add("key", f"field {name[:20]!r}", [(enc(f"{w}.{name}"), "1")])
    add("key", "the issue's quote", [(f"{w}.x'", "1")])
    for head in ("fit-99", "nope", "mlhw-" + w, "__proto__", "", w.upper(), "<svg onload=x>"):
        add("key", f"widget {head[:20]!r}", [(enc(f"{head}.batch"), "2")])
    for key in ("utm_source", "<img src=x data-pwn onerror=window.__pwned=1>", "=", "a=b=c", "&", "x" * 500):
        add("key", f"foreign {key[:20]!r}", [(enc(key), "1")])
    add("key", "empty pairs", [("", None), ("", None), (enc(f"{w}.batch"), "2")])
    add("key", "no value", [(enc(f"{w}.batch"), None)])
    # Values: no choice, no number, out of range, for a hidden input (every bad value for the
    # first input of each kind in a widget, one for the others).
    bad_values = {"choice": ("sideways", "FULL", " full", "full%00"),
                  "int": ("abc", "-1", "0", "1e999", "99999999999999999999", "NaN", "0x10", " 4", "1,000", "Infinity"),
                  "bool": ("yes", "1", "TRUE", ""), "text": ("", "  ", "x" * 2000, "-1")}
    bad_values["float"] = bad_values["int"]
    for widget in widgets:
        kinds: set[str] = set()
        for f in widget.fields.values():
            key = enc(f"{widget.key}.{f.name}")
            values = bad_values.get(f.kind, ())
            for value in values if f.kind not in kinds else values[:1]:
                if f.kind == "choice" and value.lower().strip().startswith("full"):
                    value = value.replace("full", f.choices[0]).replace("FULL", f.choices[0].upper())
                add("value", f"{widget.key}.{f.name}={value[:12]}", [(key, value if "%" in value else enc(value))])
            kinds.add(f.kind)
            if f.show_when:  # a hidden input given alone
                add("value", f"hidden {widget.key}.{f.name}", [(key, enc(_good_value(f)))])
    batch = next((f for f in first.fields.values() if f.kind == "int"), None)
    if batch:
        add("value", "given twice", [(enc(f"{w}.{batch.name}"), "2"), (enc(f"{w}.{batch.name}"), "3")])
        add("value", "query and fragment", [(enc(f"{w}.{batch.name}"), "2")], f"{enc(f'{w}.{batch.name}')}=5")
    # Encodings: percent sequences that are not UTF-8, in a key and in a value.
    for bad in BAD_ENCODINGS:
        add("encoding", f"key {bad}", [(f"{w}.{bad}", "1")])
        if batch:
            add("encoding", f"value {bad}", [(enc(f"{w}.{batch.name}"), bad)])
        add("encoding", f"fragment {bad}", [], f"{enc(w)}.{bad}=1")
    add("encoding", "double encoded", [(enc(enc(f"{w}.x'")), "1")])
    add("encoding", "plus as space", [(enc(f"{w}.x") + "+y", "1")])
    # Payloads: in every field of every widget, in keys, in the fragment and in a config.
    index = 0
    for widget in widgets:
        for f in widget.fields.values():
            payload = PAYLOADS[index % len(PAYLOADS)]
            index += 1
            add("payload", f"{widget.key}.{f.name}", [(enc(f"{widget.key}.{f.name}"), enc(payload))])
    for number, payload in enumerate(PAYLOADS):
        add("payload", f"key {number}", [(enc(f"{w}.{payload}"), "1")])
        add("payload", f"fragment {number}", [], enc(f"{kv.key}.config") + "=" + enc(payload))
        named = dict(TINY_CONFIG, _name_or_path=payload, model_type="llama")
        target = configs[number % len(configs)].key
        add("payload", f"config name {number}", [(enc(f"{target}.model"), "custom")],
            enc(f"{target}.config") + "=" + enc(json.dumps(named)))
    add("payload", "anchor", [], enc("<img src=x data-pwn onerror=window.__pwned=1>"))
    add("payload", "raw anchor", [], "<img src=x data-pwn onerror=window.__pwned=1>")
    # Fragments: not JSON, nested too deep, many keys, an anchor mixed in.
    for number, (name, text) in enumerate((("not json", "{oops"), ("deep", "[" * 900 + "]" * 900), ("array", "[1,2]"),
                                           ("huge number", '{"hidden_size": 1' + "0" * 400 + "}"), ("empty", ""))):
        target = configs[number % len(configs)].key
        add("fragment", name, [(enc(f"{target}.model"), "custom")], enc(f"{target}.config") + "=" + enc(text))
    for name, text in (("equals only", "="), ("ampersands", "&&&"), ("anchor and state", f"top&{enc(w)}.batch=2"),
                       ("no widget", "foo=bar"), ("bare config", enc(f"{kv.key}.config"))):
        add("fragment", name, [], text)
    # Sizes: over each limit, and just under it.
    add("size", "query over the limit", [(enc(f"{w}.batch"), "2"), ("pad", "x" * MAX_QUERY_CHARS)])
    # (Servers refuse a request line much longer: Python's at 64 KiB, nginx's at 8 KiB by default.)
    add("size", "query far over", [(enc(f"{w}.x{i}"), "1") for i in range(1500)])
    add("size", "fragment over the limit", [], f"{enc(w)}.batch=2&pad=" + "x" * MAX_FRAGMENT_CHARS)
    add("size", "fragment far over", [], "&".join(f"{enc(w)}.x{i}=1" for i in range(20000)))
    add("size", "config over the limit", [(enc(f"{kv.key}.model"), "custom")],
        enc(f"{kv.key}.config") + "=" + enc(json.dumps(dict(TINY_CONFIG, pad="x" * 7000))))
    add("size", "value too long", [(enc(f"{w}.lora_targets"), "x" * 3000)])
    add("size", "key too long", [("k" * 4000, "1")])
    add("size", "many pairs under the limit", [(enc(f"{w}.n{i}"), "1") for i in range(300)])
    return links


def _widget(link: Link) -> str:
    return (js_decode(link.query[0][0]) or "").split(".")[0] if link.query else ""


def pack(links: list[Link], *, chars: int = MAX_QUERY_CHARS - 500, seed: int = 30) -> list[Link]:
    """The links' hostile inputs packed into few links, each address under the page's limits.

    Query pairs fill queries of up to ``chars`` characters, fragments that hold inputs are
    joined the same way, and links with both (a custom model and its config) are grouped one
    per widget; a link over a limit on purpose (category "size") or whose fragment is an
    anchor stays as it is.
    """
    alone = [link for link in links if link.category == "size" or (link.fragment is not None and "=" not in link.fragment)]
    rest = [link for link in links if link not in alone]
    pairs = [pair for link in rest if link.fragment is None for pair in link.query]
    fragments = [link.fragment for link in rest if link.fragment and not link.query]
    random.Random(seed).shuffle(pairs)
    packed: list[Link] = []

    def fill(items: list[Any], make: Any) -> None:
        group: list[Any] = []
        for item in items:
            if group and len(make(group + [item]).suffix()) > chars:
                packed.append(make(group))
                group = []
            group.append(item)
        if group:
            packed.append(make(group))

    fill(pairs, lambda group: Link("packed", f"packed query {len(packed)}", group))
    fill(fragments, lambda group: Link("packed", f"packed fragment {len(packed)}", [], "&".join(group)))
    groups: list[list[Link]] = []
    for link in (link for link in rest if link.fragment and link.query):
        group = next((group for group in groups if _widget(link) not in {_widget(other) for other in group}), None)
        if group is None:
            groups.append([link])
        else:
            group.append(link)
    packed += [Link("packed", f"packed config {number}", [pair for link in group for pair in link.query],
                    "&".join(str(link.fragment) for link in group)) for number, group in enumerate(groups)]
    return packed + alone


# ----------------------------------------------------------------------------- the checks
#: What the page shows: the address as the browser normalised it, each widget's state, status
#: (with any note) and inputs (read as widgets.js reads them), payload traces.
OBSERVE_JS = """() => ({
  search: location.search, hash: location.hash,
  pwned: window.__pwned === undefined ? null : String(window.__pwned),
  injected: document.querySelectorAll("[data-pwn]").length,
  widgets: [...document.querySelectorAll("[data-calculator]")].map((root) => {
    const fields = {};
    for (const wrapper of root.querySelectorAll("[data-field]")) {
      const name = wrapper.getAttribute("data-field");
      const control = [...wrapper.querySelectorAll("[name]")].find((el) => el.getAttribute("name") === name);
      if (!control) continue;
      const optional = wrapper.querySelector("[data-role=optional]");
      const value = optional && optional.value === "none" ? "none"
        : control.type === "checkbox" ? (control.checked ? "true" : "false") : control.value;
      fields[name] = { value, visible: !wrapper.hidden, optional: Boolean(optional) };
    }
    return { key: root.id.replace(/^mlhw-/, ""), state: root.dataset.state,
             status: root.querySelector("[data-role=status]").textContent, fields };
  }),
})"""
ALL_LIVE_JS = ("() => [...document.querySelectorAll('[data-calculator]')]"
               ".every((el) => el.dataset.state === 'live' && !el.querySelector('[data-stale]'))")
RECOMPUTED_JS = ("() => [...document.querySelectorAll('[data-calculator]')].every((el) => el.dataset.state === 'live'"
                 " && el.querySelector('[data-role=status]').textContent.startsWith('Recomputed'))")


def js_decode(text: str) -> str | None:
    """``decodeURIComponent`` after ``+`` -> space, as the page reads the address; None where it throws."""
    text = text.replace("+", " ")
    if re.search(r"%(?![0-9A-Fa-f]{2})", text):
        return None
    try:
        return urllib.parse.unquote(text, errors="strict")
    except UnicodeDecodeError:
        return None


def shown(text: str) -> str:
    """The start of a name as a note shows it: control and format characters as U+FFFD."""
    return "".join("\ufffd" if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in text)[:50]


def _pairs(text: str) -> list[tuple[str, str]]:
    return [(part.split("=", 1)[0], part.split("=", 1)[1] if "=" in part else "") for part in text.split("&") if part]


def problems(seen: dict[str, Any], *, live: bool) -> list[tuple[str, str]]:
    """(outcome, detail) for each property the observed page breaks; empty when the link was handled."""
    found: list[tuple[str, str]] = []
    if seen["pwned"] is not None:
        found.append(("script-ran", seen["pwned"]))
    if seen["injected"]:
        found.append(("injected", f"{seen['injected']} elements"))
    widgets = {widget["key"]: widget for widget in seen["widgets"]}
    notes = " ".join(widget["status"] for widget in seen["widgets"])
    if live:
        stopped = [key for key, widget in widgets.items() if widget["state"] != "live"]
        if stopped:
            found.append(("not-live", ", ".join(stopped)))
    parts = [(seen["search"][1:], MAX_QUERY_CHARS, "query")]
    if "=" in seen["hash"]:
        parts.append((seen["hash"][1:], MAX_FRAGMENT_CHARS, "fragment"))
    applied: set[tuple[str, str]] = set()
    unlisted: dict[str, list[str]] = collections.defaultdict(list)
    for text, limit, what in parts:
        if len(text) > limit:
            if f"{len(text):,} characters" not in notes:
                found.append(("unreported", f"the {what} over the limit ({len(text):,} characters)"))
            continue
        for raw_key, raw_value in _pairs(text):
            key, value = js_decode(raw_key), js_decode(raw_value)
            if key in THEME_KEYS:
                continue
            reported_in = notes
            if key is not None and value is not None and "." in key:
                head, name = key.split(".", 1)
                widget = widgets.get(head)
                if widget is not None:
                    reported_in = widget["status"]
                    got = widget["fields"].get(name)
                    same = got is not None and (got["value"] == value or (got["optional"] and got["value"] == "none"
                                                                          and value.strip().lower() in ("", "none", "auto")))
                    if got is not None and same and got["visible"] and (head, name) not in applied:
                        applied.add((head, name))
                        continue
            label = shown(key if key is not None else raw_key)
            if label not in reported_in:
                unlisted[reported_in].append(f"{label!r} (value {(value or raw_value)[:30]!r})")
    for note, labels in unlisted.items():
        more = re.search(r"and ([0-9,]+) more", note)  # a long list ends with a count
        found += [("unreported", text) for text in labels[int(more.group(1).replace(",", "")) if more else 0:]]
    return found


def check(page: Any, url: str, *, live: bool, timeout_ms: int = 60_000) -> list[tuple[str, str]]:
    """Open ``url`` and check every property; what it broke (empty: nothing)."""
    errors: list[str] = []
    log = RequestLog()
    listener = lambda error: errors.append(str(error))  # noqa: E731
    page.on("pageerror", listener)
    log.attach(page)
    try:
        page.goto("about:blank")
        page.goto(url, wait_until="domcontentloaded")
        if live:
            try:
                page.wait_for_function(ALL_LIVE_JS, timeout=timeout_ms, polling=100)
            except Exception:  # noqa: BLE001 - reported as not-live below
                pass
        seen = page.evaluate(OBSERVE_JS)
        found = problems(seen, live=live)
        if live and not found:
            # Still live: a change in every widget recomputes (and the note went with the change).
            page.evaluate("""() => { for (const root of document.querySelectorAll('[data-calculator]')) {
                const select = root.querySelector('select[name]');
                select.dispatchEvent(new Event('change', { bubbles: true })); } }""")
            try:
                page.wait_for_function(RECOMPUTED_JS, timeout=timeout_ms, polling=100)
            except Exception:  # noqa: BLE001
                found.append(("not-live", "no recompute after a change"))
            seen = page.evaluate(OBSERVE_JS)  # payloads that acted late
            if seen["pwned"] is not None or seen["injected"]:
                found.append(("injected", "after a recompute"))
        found += [("uncaught-error", error[:120]) for error in errors]
        found += [("external-request", url[:80]) for url in log.external()]
    finally:
        page.remove_listener("pageerror", listener)
    return found


def quick_context(browser: Any) -> Any:
    """A context where Python never starts (its worker script is refused): checks of the page's own handling."""
    context = browser.new_context(service_workers="block")
    context.route("**/pyodide-worker.js*", lambda route: route.abort())
    return context


# ----------------------------------------------------------------------------- the suite
@pytest.fixture(scope="module")
def widgets() -> list[Widget]:
    found = page_widgets()
    assert len(found) >= 2 and all(widget.fields for widget in found)
    return found


def _failures(browser: Any, server: SiteServer, links: list[Link], *, live: bool) -> dict[str, Any]:
    context = browser.new_context(service_workers="block") if live else quick_context(browser)
    try:
        page = context.new_page()
        return {link.name: found for link in links if (found := check(page, server.url + PAGE + link.suffix(), live=live))}
    finally:
        context.close()


def test_every_hostile_input_is_reported_and_injects_nothing(browser: Any, server: SiteServer,
                                                             widgets: list[Widget]) -> None:
    """The whole corpus, packed into a few dozen links, checked as the page reads them (before Python)."""
    links = pack(corpus(widgets))
    assert 10 <= len(links) <= 40, len(links)
    assert _failures(browser, server, links, live=False) == {}


def test_hostile_links_leave_every_calculator_live(browser: Any, server: SiteServer, widgets: list[Widget]) -> None:
    """Two packed links and the oversized ones, until every calculator has computed what was applied."""
    links = pack(corpus(widgets))
    chosen = [link for link in links if link.category == "packed"][:2] + [
        link for link in links if link.name in ("query over the limit", "config over the limit")]
    assert _failures(browser, server, chosen, live=True) == {}


# ----------------------------------------------------------------------------- the larger run
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("count", type=int, nargs="?", default=0, help="links to try (default: every named case)")
    parser.add_argument("--quick", action="store_true", help="check before Python starts (no liveness)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each failing link")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    links = corpus(page_widgets())
    if args.count > len(links):  # more: packs of a few random inputs each
        pool = [link for link in links if link.category != "size"]
        rng = random.Random(args.count)
        while len(links) < args.count:
            group = rng.sample(pool, 3)
            links.append(Link("mixed", " + ".join(link.name for link in group),
                              [pair for link in group for pair in link.query], group[-1].fragment))
    elif args.count:
        links = links[:: max(1, len(links) // args.count)][: args.count]
    tried: collections.Counter[str] = collections.Counter()
    failed: collections.Counter[str] = collections.Counter()
    outcomes: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    server = SiteServer()
    began = time.monotonic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = quick_context(browser) if args.quick else browser.new_context(service_workers="block")
        page = context.new_page()
        for number, link in enumerate(links, 1):
            found = check(page, server.url + PAGE + link.suffix(), live=not args.quick)
            tried[link.category] += 1
            failed[link.category] += bool(found)
            for outcome in sorted({outcome for outcome, _ in found}):
                outcomes[link.category][outcome] += 1
            if found and args.verbose:
                print(f"FAIL {link.category} {link.name!r}: {found[:3]}", flush=True)
            if number % 25 == 0:
                print(f"... {number}/{len(links)} in {time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
        browser.close()
    server.stop()
    print(f"{len(links)} links, {'quick' if args.quick else 'full'} checks, {time.monotonic() - began:.0f} s")
    for category in sorted(tried):
        detail = ", ".join(f"{outcome} {count}" for outcome, count in sorted(outcomes[category].items()))
        print(f"  {category:9} {tried[category]:4} tried, {failed[category]:4} failed" + (f" ({detail})" if detail else ""))
    print(f"  {'total':9} {sum(tried.values()):4} tried, {sum(failed.values()):4} failed")
    return 1 if sum(failed.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
