// Browser runtime of the calculator widgets: generic, it knows no formula and no default.
//
// The build renders every widget (form + result) from Python. This script finds the
// [data-calculator] roots, starts one Pyodide module worker per page once the page has
// loaded (the hook adds this script only to pages with a widget), sends each form's
// values to it on every change and puts the returned HTML into [data-role=output]; an
// error is shown next to the field the engine names. data-state on the root: static -> loading -> live | error.
// If Python in the worker crashes (Pyodide's fatal state), the page starts a new worker and
// says so; a config.json file over the size limit or not in UTF-8 is refused before Python sees it.
// Every widget's inputs live in the page's query string (?fit-3.batch=8&fit-3.job=training: the
// widget's id without "mlhw-", a dot, the field), only those that differ from the build's: a
// reload or a shared link restores them and recomputes. A config.json goes in the fragment
// (#kv-cache-2.config=..., never sent to the server) when it is at most MAX_URL_CONFIG characters
// once encoded, else the link says it was left out. "Copy link"
// and "Copy result" (Markdown or JSON from calculators.widgets.share, computed by the worker)
// give an address that reproduces the result.
// A classic (not module) script, so that it still runs from file:// and can say why
// the calculator cannot start there.
(function () {
  "use strict";
  var script = document.currentScript;
  var roots = Array.prototype.slice.call(document.querySelectorAll("[data-calculator]"));
  if (movedAway(roots)) return;
  if (!roots.length || !script) return;

  // A widget moved to another page leaves <span id="mlhw-KEY" data-mlhw-moved="PATH"> on its old one
  // (PATH relative to the old page). A link whose inputs all name such widgets of one page (by the
  // widget's old key or its calculator's name), none a widget still here, opens that page with the
  // same query and state fragment; the widget there takes them (readLink: the name, or an old id).
  function movedAway(here) {
    var marks = document.querySelectorAll("[data-mlhw-moved]");
    var state = location.hash.indexOf("=") >= 0 ? location.hash : "";
    if (!marks.length || (!location.search && !state)) return false;
    var staying = new Set(), targets = new Map(), dest = null;
    here.forEach(function (root) {
      staying.add(root.id.replace(/^mlhw-/, ""));
      staying.add(root.getAttribute("data-calculator"));
    });
    Array.prototype.forEach.call(marks, function (mark) {
      var key = mark.id.replace(/^mlhw-/, ""), path = mark.getAttribute("data-mlhw-moved");
      targets.set(key, path);
      targets.set(key.replace(/-[0-9]+$/, ""), path);
    });
    var keys = (location.search.slice(1) + "&" + state.slice(1)).split("&").filter(Boolean).map(function (part) {
      return part.split("=")[0];
    });
    for (var i = 0; i < keys.length; i++) {
      if (keys[i] === "q" || keys[i] === "h") continue; // the theme's search, not ours
      var prefix = keys[i].split(".")[0], base = prefix.replace(/-[0-9]+$/, "");
      var path = targets.get(prefix) || targets.get(base);
      if (!path || staying.has(prefix) || staying.has(base) || (dest !== null && dest !== path)) return false;
      dest = path;
    }
    if (dest === null || location.protocol === "file:") return false;
    var url = new URL(dest, location.href);
    url.search = location.search;
    url.hash = state;
    location.replace(url.href);
    return true;
  }
  var siteRoot = new URL("../", script.src); // this file is <site>/assets/widgets.js
  var DEBOUNCE_MS = 60;
  // A choice with more options than this (the model catalog: over a hundred) gets a filter box.
  var FILTER_MIN_OPTIONS = 30;
  // The runtime version the page was built with (widgets.js?v=VERSION): the worker and every
  // file it fetches are asked for under it. BUILT is the version the build wrote into this
  // file: another one means the server answered with another build's script.
  var VERSION = new URL(script.src).searchParams.get("v");
  var BUILT = "__MLHW_VERSION__";
  var NEW_VERSION = "A new version of this site has been published since this page was loaded: reload the page " +
    "to use its calculators.";

  var worker = null;
  var ready = false;
  var nextId = 1;
  var pending = {}; // request id -> widget root
  var widgets = new Map(); // root -> {latest, timer, dirty, crashed, fields, fromLink, dropped, ...}
  var restarts = 0; // workers started again after Python crashed
  var gaveUp = false;
  var MAX_RESTARTS = 3; // then the page stops trying (something is wrong beyond one input)
  var CRASHED = "Python in your browser crashed on these inputs and was restarted; change an input to try again.";
  // A compute answers in milliseconds (the slowest calculator takes ~0.1 s on 2 cores; storing
  // the memory snapshot can hold the worker for a few seconds): a worker that has not answered
  // the oldest request for HUNG_MS is stuck (an endless loop, a deadlock) and is replaced.
  // window.mlhwHungMs overrides it (tests/browser/test_long_session.py).
  var HUNG_MS = typeof window.mlhwHungMs === "number" ? window.mlhwHungMs : 20000;
  var HUNG = "Python in your browser stopped answering on these inputs (no result in " + Math.round(HUNG_MS / 1000) +
    " s) and was restarted; change an input to try again.";
  var watchdog = 0;

  function setState(root, state) { root.setAttribute("data-state", state); }
  // The status line holds two parts: what the calculator is doing (replaced at every step) and
  // the link's note (what the address asked for that was not applied), kept until the reader
  // changes an input.
  function status(root, text) {
    var state = widgets.get(root);
    if (state && state.statusText) state.statusText.textContent = text;
  }
  function output(root) { return root.querySelector("[data-role=output]"); }

  // While the runtime downloads (~23 MB on a first visit; 10 s at 20 Mbit/s), the status line shows a bar
  // and the megabytes received of the total, from the worker's "progress" messages; gone once Python
  // is live or has failed. From a cache the download takes a moment and the bar barely shows.
  function megabytes(bytes) { return (bytes / 1e6).toFixed(1); }
  function showProgress(loaded, total) {
    roots.forEach(function (root) {
      var state = widgets.get(root);
      if (!state || !state.progress) return;
      var bar = state.progress.firstChild;
      if (total > 0) {
        bar.max = total;
        bar.value = Math.min(loaded, total);
      }
      state.progress.lastChild.textContent = " " + megabytes(loaded) + (total > 0 ? " of " + megabytes(total) : "") +
        " MB of the runtime downloaded";
      state.progress.hidden = false;
    });
  }
  function hideProgress() {
    roots.forEach(function (root) {
      var state = widgets.get(root);
      if (state && state.progress) state.progress.hidden = true;
    });
  }

  // Each input of a widget by name, found once in the build's markup. A name from the address is
  // looked up in this map, never put into a CSS selector: a quote in a link's key once made
  // querySelector throw, which stopped every calculator on the page.
  function fieldsOf(root) {
    var fields = new Map();
    root.querySelectorAll("[data-field]").forEach(function (wrapper) {
      var name = wrapper.getAttribute("data-field");
      var control = Array.prototype.find.call(wrapper.querySelectorAll("[name]"), function (el) {
        return el.getAttribute("name") === name;
      });
      if (control) {
        fields.set(name, { wrapper: wrapper, control: control, optional: wrapper.querySelector("[data-role=optional]"),
          config: wrapper.classList.contains("mlhw-config") });
      }
    });
    return fields;
  }
  function fields(root) { return widgets.get(root).fields; }

  function values(root) {
    var data = {};
    fields(root).forEach(function (field, name) {
      var control = field.control;
      if (field.optional && field.optional.value === "none") data[name] = "none";
      else data[name] = control.type === "checkbox" ? (control.checked ? "true" : "false") : control.value;
    });
    return data;
  }

  // A number with an explicit "none"/"default" choice: its input shows only when a value is set.
  function applyOptional(root) {
    fields(root).forEach(function (field) {
      if (field.optional) field.control.hidden = field.optional.value === "none";
    });
  }

  // The build's value of an input, as the markup holds it.
  function resetControl(root, name) {
    var field = fields(root).get(name), control = field.control;
    [field.optional, control].forEach(function (el) {
      if (!el) return;
      if (el.tagName === "SELECT") {
        Array.prototype.forEach.call(el.options, function (option) { option.selected = option.defaultSelected; });
      } else if (el.type === "checkbox") {
        el.checked = el.defaultChecked;
      } else {
        el.value = el.defaultValue;
      }
    });
  }

  // ------------------------------------------------------------------ inputs in the URL
  // The address is untrusted data: a link from anyone, mangled by any chat client. Its keys and
  // values are only compared with the build's names and choices and put into the controls'
  // values; a query or fragment over its size limit is not parsed at all; each key or value not
  // applied is listed in the widget's note, and the address the page writes (and "Copy link")
  // holds only what was applied.
  var MAX_QUERY = 8192; // characters of the query as the address holds it (percent-encoded)
  var MAX_FRAGMENT = 16384; // of the fragment (it may hold a config.json)
  var MAX_VALUE = 1024; // of one value, decoded (a config.json: MAX_URL_CONFIG, encoded)
  var MAX_URL_CONFIG = 6000; // characters of the encoded config.json; keeps a link under ~8 KB
  var MAX_LISTED = 40; // inputs named in a note; the rest are counted
  var THEME_KEYS = ["q", "h"]; // the theme's search query and highlighting, not ours
  var defaults = new Map(); // root -> the inputs the page was built with
  var restoredInView = false;
  var byName = new Set(); // widgets the address gives inputs by their calculator's name (readLink)

  function urlKey(root) { return root.id.replace(/^mlhw-/, ""); }
  function count(n) { return n.toLocaleString("en"); }

  function visible(root, name) {
    var field = fields(root).get(name);
    return Boolean(field) && !field.wrapper.hidden;
  }

  // A key or value from the address as a note shows it: control and format characters (a
  // right-to-left override, a zero-width space) as U+FFFD, at most `max` characters.
  function label(text, max) {
    var chars = Array.from(text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "\ufffd"));
    return chars.length > max ? chars.slice(0, max).join("") + "\u2026" : chars.join("");
  }

  // "a=1&b=2" as forms encode it (+ is a space) into {key, value, raw} items; a key or value
  // whose percent-encoding is not UTF-8 is null (URLSearchParams would make it U+FFFD silently).
  function decode(text) {
    try { return decodeURIComponent(text.replace(/\+/g, " ")); } catch (error) { return null; }
  }
  function parsePairs(text) {
    return text.split("&").filter(Boolean).map(function (part) {
      var at = part.indexOf("=");
      var raw = at < 0 ? part : part.slice(0, at);
      return { key: decode(raw), value: decode(at < 0 ? "" : part.slice(at + 1)), raw: raw };
    });
  }

  // True when the fragment holds inputs ("kv-cache-2.config=...") rather than an anchor.
  function stateFragment() { return location.hash.indexOf("=") >= 0; }

  // The address's inputs by widget, read once: root -> [{name, value, text}], and what could
  // not be given to any widget (a part over its limit, a key naming no widget of the page).
  function readLink() {
    var byKey = new Map(), given = new Map(), stray = [];
    roots.forEach(function (root) { byKey.set(urlKey(root), root); given.set(root, []); });
    // A key may name a calculator instead of one widget (plan.model=...: the page's first plan
    // widget), so that another page can link to it without knowing its place on this one.
    // A widget's id in a link from before a widget was added above it (training-memory-0 once the
    // page's first widget became another): still its own, where the page has one of that calculator.
    var single = new Map();
    roots.forEach(function (root) {
      var name = root.getAttribute("data-calculator");
      if (!byKey.has(name)) byKey.set(name, root);
      single.set(name, single.has(name) ? null : root);
    });
    function widgetOf(prefix) {
      var found = byKey.get(prefix), earlier = /^(.+)-[0-9]+$/.exec(prefix);
      return found || (earlier && single.get(earlier[1])) || undefined;
    }
    [["query", location.search.slice(1), MAX_QUERY], ["fragment", stateFragment() ? location.hash.slice(1) : "", MAX_FRAGMENT]]
      .forEach(function (part) {
        if (part[1].length > part[2]) {
          stray.push("the address's " + part[0] + " (" + count(part[1].length) + " characters; at most " +
            count(part[2]) + " are read)");
          return;
        }
        parsePairs(part[1]).forEach(function (pair) {
          if (pair.key !== null && THEME_KEYS.indexOf(pair.key) >= 0) return;
          var key = pair.key === null ? pair.raw : pair.key, dot = key.indexOf(".");
          var root = dot > 0 ? widgetOf(key.slice(0, dot)) : undefined;
          var text = label(key, 60) + (pair.value === null ? "" : "=" + label(pair.value, 40));
          if (pair.key === null) stray.push(text + " (not valid UTF-8 percent-encoding)");
          else if (!root) stray.push(text + (dot > 0 ? " (no calculator on this page is called " + label(key.slice(0, dot), 40) + ")"
            : " (not an input of the calculators on this page)"));
          else {
            given.get(root).push({ name: key.slice(dot + 1), value: pair.value, text: text });
            if (key.slice(0, dot) !== urlKey(root)) byName.add(root);
          }
        });
      });
    return { given: given, stray: stray };
  }

  // Sets one control from the address; "" or why the value was not applied.
  function setControl(root, name, value) {
    var field = fields(root).get(name);
    if (!field) return "this calculator has no such input";
    if (value === null) return "not valid UTF-8 percent-encoding";
    var size = field.config ? encodeURIComponent(value).length : value.length;
    var limit = field.config ? MAX_URL_CONFIG : MAX_VALUE;
    if (size > limit) return "a value of " + count(size) + " characters; at most " + count(limit) + " are read";
    var control = field.control;
    if (field.optional) {
      var none = ["", "none", "auto"].indexOf(value.trim().toLowerCase()) >= 0;
      field.optional.value = none ? "none" : "set";
      if (none) return "";
    }
    if (control.type === "checkbox") {
      if (value !== "true" && value !== "false") return "expected true or false";
      control.checked = value === "true";
      return "";
    }
    if (control.tagName === "SELECT" &&
        !Array.prototype.some.call(control.options, function (option) { return option.value === value; })) {
      return "not one of this calculator's choices";
    }
    control.value = value;
    if (control.value === value) return "";
    resetControl(root, name); // a number input that refused the text
    return "not a number";
  }

  // Inputs from the link that the form hides for the other inputs (gpu_memory_gb without
  // gpu=custom) would not be used: back to the build's value, and listed.
  function dropHidden(root) {
    var state = widgets.get(root);
    for (var pass = 0; pass < 4; pass++) {
      applyOptional(root);
      applyShowWhen(root);
      var hidden = Array.from(state.fromLink.keys()).filter(function (name) { return !visible(root, name); });
      if (!hidden.length) return;
      hidden.forEach(function (name) {
        var rule = fields(root).get(name).wrapper.getAttribute("data-show-when").split("=");
        state.dropped.push(state.fromLink.get(name) + " (used only when " + rule[0] + " is " +
          rule.slice(1).join("=").split("|").join(" or ") + ")");
        state.fromLink.delete(name);
        resetControl(root, name);
      });
    }
  }

  function showLinkNote(root) {
    var state = widgets.get(root), dropped = state.dropped;
    var listed = dropped.slice(0, MAX_LISTED).join("; ");
    if (dropped.length > MAX_LISTED) listed += "; and " + count(dropped.length - MAX_LISTED) + " more";
    state.linkNote.textContent = dropped.length ? " Not restored from the link: " + listed +
      ". The calculator uses its own values for these; this note goes when you change an input." : "";
    state.linkNote.hidden = !dropped.length;
  }

  // Restore the inputs the address holds for `root`; it recomputes once Python is live.
  function restore(root, given, stray) {
    var state = widgets.get(root), seen = new Set();
    state.dropped = stray.slice();
    given.forEach(function (item) {
      var problem = seen.has(item.name) ? "given more than once; only the first is read" : setControl(root, item.name, item.value);
      seen.add(item.name);
      if (problem) state.dropped.push(item.text + " (" + problem + ")");
      else state.fromLink.set(item.name, item.text);
    });
    dropHidden(root);
    showLinkNote(root);
    if (!state.fromLink.size) return;
    // A fragment of inputs is no anchor the browser can scroll to: show the first widget it names.
    if ((stateFragment() || byName.has(root)) && !restoredInView) {
      restoredInView = true;
      root.scrollIntoView();
    }
    state.dirty = true;
    output(root).setAttribute("data-stale", "true");
    status(root, "Inputs restored from the link; the result below is recomputed once Python has started in your browser.");
  }

  // The first compute after a link refused an input it set: that input goes back to the build's
  // value (all the link's inputs, when the error names none of them), is listed in the note, and
  // the widget computes again, so that no link leaves a calculator in error.
  function dropRefused(root, reply) {
    var state = widgets.get(root);
    var names = state.fromLink.has(reply.field) ? [reply.field] : Array.from(state.fromLink.keys());
    names.forEach(function (name) {
      state.dropped.push(state.fromLink.get(name) + " (" + reply.message + ")");
      state.fromLink.delete(name);
      resetControl(root, name);
    });
    dropHidden(root);
    showLinkNote(root);
    if (ready) compute(root);
    else widgets.get(root).dirty = true;
  }

  function encode(text) { return encodeURIComponent(text); }

  // Links to other calculators carry an address relative to the site's root (data-site-href,
  // calculators.jobs.plan_links): resolved here, wherever the site is served.
  function siteLinks(out) {
    out.querySelectorAll("a[data-site-href]").forEach(function (a) {
      a.href = new URL(a.getAttribute("data-site-href"), siteRoot).href;
    });
  }

  // What the address holds: every widget's inputs that differ from the build's (a config.json in
  // the fragment, which browsers never send to the server, so a pasted config leaves the
  // reader's computer only when they share the link), and per widget the labels of inputs left
  // out because they do not fit (over MAX_VALUE / MAX_URL_CONFIG, or the query over MAX_QUERY).
  function linkState() {
    var query = [], fragment = [], left = new Map();
    roots.forEach(function (root) {
      left.set(root, []);
      var now = values(root), base = defaults.get(root) || {};
      fields(root).forEach(function (field, name) {
        if (!visible(root, name) || now[name] === base[name]) return;
        var value = now[name];
        if (field.config) {
          try { value = JSON.stringify(JSON.parse(value)); } catch (error) { /* kept as typed */ }
        }
        var pair = encode(urlKey(root) + "." + name) + "=" + encode(value);
        if (field.config ? encode(value).length > MAX_URL_CONFIG : value.length > MAX_VALUE) left.get(root).push(name);
        else (field.config ? fragment : query).push({ root: root, name: name, text: pair });
      });
    });
    [[query, MAX_QUERY], [fragment, MAX_FRAGMENT]].forEach(function (part) {
      var list = part[0];
      while (list.map(function (pair) { return pair.text; }).join("&").length > part[1]) {
        var longest = list.reduce(function (a, b) { return b.text.length > a.text.length ? b : a; });
        list.splice(list.indexOf(longest), 1);
        left.get(longest.root).push(longest.name);
      }
    });
    var texts = function (list) { return list.map(function (pair) { return pair.text; }).join("&"); };
    return { query: texts(query), fragment: texts(fragment), left: left };
  }

  function leftOutNote(names) {
    return names.length ? "The link holds every input but " + names.join(", ") + ", too long for an address: " +
      "whoever opens it must enter " + (names.length > 1 ? "them" : "it") + " again." : "";
  }

  // The page's address with the applied inputs only (other keys of the query are dropped): the
  // fragment holds a config.json, else it is `anchor` (or the current one, when it is an anchor).
  function stateUrl(anchor) {
    var url = new URL(location.href), state = linkState();
    url.search = state.query;
    if (state.fragment) url.hash = state.fragment;
    else if (anchor !== undefined) url.hash = anchor;
    else if (stateFragment()) url.hash = "";
    return url.href;
  }

  function saveState(root) {
    try { history.replaceState(history.state, "", stateUrl()); } catch (error) { /* a sandboxed page */ }
    shareNote(root, leftOutNote(linkState().left.get(root)));
  }

  // ------------------------------------------------------------------ copy link / result
  var sharing = {}; // request id -> {root, kind}
  var shareQueue = []; // copies asked for before Python was live

  function shareNote(root, text) {
    var note = root.querySelector("[data-role=share-note]");
    if (!note) return;
    note.textContent = text;
    note.hidden = !text;
  }

  function showCopy(root, text, what) {
    var box = root.querySelector("[data-role=share-text]");
    box.value = text;
    box.hidden = false;
    var done = function () { shareNote(root, "Copied " + what + " to the clipboard (also shown below)."); };
    var manual = function () {
      box.focus();
      box.select();
      shareNote(root, "Select the text below and copy it: the browser did not allow writing to the clipboard.");
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, manual);
    else manual();
  }

  function requestShare(root, kind) {
    var id = nextId++;
    sharing[id] = { root: root, kind: kind };
    worker.postMessage({ type: "share", id: id, name: root.getAttribute("data-calculator"), inputs: values(root),
      url: stateUrl(root.id) });
  }

  function share(root, kind) {
    var note = leftOutNote(linkState().left.get(root));
    if (kind === "link") {
      showCopy(root, stateUrl(root.id), "the link");
      if (note) shareNote(root, note);
      return;
    }
    if (!ready) {
      shareNote(root, "Starting Python in your browser to compute the result to copy\u2026");
      shareQueue.push([root, kind]);
      start();
      return;
    }
    requestShare(root, kind);
  }

  function onShared(reply) {
    var asked = sharing[reply.id];
    delete sharing[reply.id];
    if (!asked) return;
    if (!reply.ok) {
      shareNote(asked.root, "Nothing copied: " + reply.message);
      return;
    }
    var note = leftOutNote(linkState().left.get(asked.root));
    if (asked.kind === "json") showCopy(asked.root, JSON.stringify(reply.record, null, 2) + "\n", "the result as JSON");
    else showCopy(asked.root, reply.markdown, "the result as Markdown");
    if (note) shareNote(asked.root, note);
  }

  function applyShowWhen(root) {
    var current = values(root);
    root.querySelectorAll("[data-show-when]").forEach(function (wrapper) {
      var rule = wrapper.getAttribute("data-show-when").split("=");
      wrapper.hidden = rule.slice(1).join("=").split("|").indexOf(current[rule[0]]) < 0;
    });
  }

  function clearErrors(root) {
    root.querySelectorAll("[data-role=error]").forEach(function (el) { el.hidden = true; el.textContent = ""; });
    root.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
  }

  function showError(root, name, message) {
    clearErrors(root);
    var field = name ? fields(root).get(name) : null;
    var slot = field && !field.wrapper.hidden ? field.wrapper.querySelector("[data-role=error]") : null;
    if (slot) {
      slot.textContent = message;
      slot.hidden = false;
      field.control.setAttribute("aria-invalid", "true");
      status(root, "Not recomputed: fix the input marked above. The result shown is for earlier inputs.");
    } else {
      status(root, "Not recomputed: " + message + " The result shown is for earlier inputs.");
    }
    output(root).setAttribute("data-stale", "true");
    setState(root, "error");
  }

  function onReply(reply) {
    var root = pending[reply.id];
    delete pending[reply.id];
    if (!root) return;
    var state = widgets.get(root);
    if (reply.id !== state.latest) return; // a newer request is on its way
    state.crashed = false;
    if (!reply.ok && state.fromLink.size) {
      dropRefused(root, reply);
      return;
    }
    state.fromLink.clear(); // the link's inputs computed: they are the reader's now
    if (reply.ok) {
      clearErrors(root);
      var out = output(root);
      // Keep "Assumptions and notes" open across recomputes if the reader opened it.
      var open = Array.prototype.map.call(out.querySelectorAll("details"), function (el) { return el.open; });
      update(out, reply.html);
      siteLinks(out);
      out.querySelectorAll("details").forEach(function (el, i) { if (open[i]) el.open = true; });
      out.removeAttribute("data-stale");
      status(root, "Recomputed in your browser in " + reply.ms.toFixed(1) + " ms.");
      setState(root, "live");
      // detail: when the worker received the request and began and ended its compute (ms
      // since this page's time origin), for a breakdown of the round trip.
      performance.mark("mlhw-output", { detail: reply.t || null });
    } else {
      showError(root, reply.field, reply.message);
    }
  }

  // Puts the new result into the output, changing only what differs: a recompute mostly
  // changes numbers (text and the chart's x/width), so patching those in place instead of
  // replacing ~250 nodes keeps the browser's style, layout and paint work after it small
  // (that work delayed the next reply by ~10 ms on 2 cores). Where the structure differs
  // (another row, another attribute), that element is replaced with the new one, so the
  // output's HTML ends up exactly as if it had been replaced whole.
  var template = document.createElement("template");
  function sameAttributes(a, b) {
    var names = [];
    for (var i = 0; i < a.attributes.length; i++) {
      var name = a.attributes[i].name;
      // A details' open state is the reader's; scroll.js's data-scroll* mark what scrolls sideways.
      if (!(name === "open" && a.localName === "details") && name.indexOf("data-scroll") !== 0) names.push(name);
    }
    if (names.length !== b.attributes.length) return false;
    for (var j = 0; j < names.length; j++) if (names[j] !== b.attributes[j].name) return false;
    return true;
  }
  function patch(a, b) { // a: live node, b: the new one (same node name); false: replace a
    if (a.nodeType !== 1) {
      if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue;
      return true;
    }
    if (!sameAttributes(a, b)) return false;
    for (var i = 0; i < b.attributes.length; i++) {
      var attribute = b.attributes[i];
      if (a.getAttribute(attribute.name) !== attribute.value) a.setAttribute(attribute.name, attribute.value);
    }
    return patchChildren(a, b);
  }
  function patchChildren(a, b) {
    var olds = a.childNodes, news = b.childNodes;
    if (olds.length !== news.length) return false;
    var replace = [];
    for (var i = 0; i < olds.length; i++) {
      var x = olds[i], y = news[i];
      if (x.nodeType !== y.nodeType || x.nodeName !== y.nodeName || !patch(x, y)) replace.push([x, y]);
    }
    replace.forEach(function (pair) { a.replaceChild(pair[1], pair[0]); });
    return true;
  }
  function update(out, html) {
    template.innerHTML = html;
    if (!patchChildren(out, template.content)) out.replaceChildren(template.content);
    template.innerHTML = "";
  }

  function compute(root) {
    var state = widgets.get(root);
    state.dirty = false;
    state.crashed = false;
    var id = nextId++;
    state.latest = id;
    pending[id] = root;
    if (swTimer > 0) registerServiceWorkerWhenQuiet();
    worker.postMessage({ type: "compute", id: id, name: root.getAttribute("data-calculator"), inputs: values(root),
      timeOrigin: performance.timeOrigin });
    watch();
  }

  // The worker answers requests in order: the timer runs while any is unanswered, from the
  // last answer (or the first request after a quiet spell).
  function watch() {
    if (!watchdog) watchdog = setTimeout(hung, HUNG_MS);
  }
  function answered() {
    clearTimeout(watchdog);
    watchdog = 0;
    if (Object.keys(pending).length) watch();
  }
  function hung() {
    watchdog = 0;
    var ids = Object.keys(pending).map(Number);
    if (!worker || !ready || !ids.length) return;
    restart({ id: Math.min.apply(null, ids), message: "no answer in " + HUNG_MS + " ms", hung: true });
  }

  function schedule(root, delay) {
    var state = widgets.get(root);
    state.crashed = false; // new inputs: worth a try on the new worker
    applyOptional(root);
    applyShowWhen(root);
    saveState(root);
    clearTimeout(state.timer);
    if (!ready) {
      state.dirty = true;
      output(root).setAttribute("data-stale", "true");
      status(root, "Starting Python in your browser; the result shown is for earlier inputs.");
      start();
      return;
    }
    // A committed change goes to the worker now: even a 0 ms timer waits for the page's
    // next rendering, which made most of the round trip (~10 ms of ~15 ms on 2 cores).
    if (delay === 0) compute(root);
    else state.timer = setTimeout(function () { compute(root); }, delay);
  }

  function fail(message) {
    hideProgress();
    roots.forEach(function (root) {
      setState(root, "error");
      var stale = output(root).hasAttribute("data-stale");
      status(root, "The calculator could not start (" + message + "). " +
        (stale ? "The result shown is NOT for the inputs shown." : "The result shown was computed when the page was built."));
    });
  }

  // The server holds another build than this page's: computing with its calculators would mix
  // two versions, so the widgets keep this build's answers and the page offers to reload.
  function stale() {
    hideProgress();
    clearTimeout(watchdog);
    watchdog = 0;
    if (worker) {
      worker.onmessage = null;
      worker.terminate();
      worker = null;
    }
    ready = false;
    gaveUp = true;
    roots.forEach(function (root) {
      setState(root, "error");
      status(root, NEW_VERSION + (output(root).hasAttribute("data-stale") ? " The result shown is NOT for the inputs shown."
        : " The result shown was computed when this page was built."));
    });
    document.dispatchEvent(new CustomEvent("mlhw:new-version"));
  }

  function start() {
    if (VERSION && BUILT.indexOf("__") !== 0 && BUILT !== VERSION) stale();
    if (worker || gaveUp) return;
    roots.forEach(function (root) {
      setState(root, "loading");
      if (!output(root).hasAttribute("data-stale")) status(root, "Starting Python in your browser\u2026");
      else if (restarts) status(root, "Restarting Python in your browser; the result shown is for earlier inputs.");
    });
    performance.mark("mlhw-worker-start");
    try {
      var address = new URL("assets/pyodide-worker.js", siteRoot);
      if (VERSION) address.search = "v=" + VERSION;
      worker = new Worker(address, { type: "module" });
    } catch (error) {
      fail(String(error));
      return;
    }
    worker.onmessage = function (event) {
      var message = event.data;
      if (message.type === "ready" && VERSION && message.version !== VERSION) {
        stale(); // a worker of another build (one an older service worker kept) answered
      } else if (message.type === "ready") {
        ready = true;
        hideProgress();
        // Phases for scripts/bench_site.py: ms since navigation at which the worker script
        // began running, then the worker's own marks (ms since it began); "from" says how
        // Python started: from a memory snapshot, the build's ("build") or its copy in Cache
        // Storage ("cache"), or "boot".
        var phases = Object.assign({ worker: message.startedEpoch - performance.timeOrigin, from: message.from },
          message.phases);
        performance.mark("mlhw-live", { detail: phases });
        // Only now, with the runtime in the HTTP cache, let the service worker store it
        // for offline visits (registering earlier downloads it twice, competing with the boot).
        registerServiceWorkerWhenQuiet();
        shareQueue.splice(0).forEach(function (item) { requestShare(item[0], item[1]); });
        roots.forEach(function (root) {
          if (widgets.get(root).crashed) {
            showError(root, null, widgets.get(root).crashed);
          } else if (widgets.get(root).dirty) {
            compute(root);
          } else {
            setState(root, "live");
            status(root, "Live: Python " + (restarts ? "restarted" : "started") + " in your browser in " + (message.ms / 1000).toFixed(1) +
              " s; change any input to recompute.");
          }
        });
      } else if (message.type === "progress") {
        if (!ready) showProgress(message.loaded, message.total);
      } else if (message.type === "snapshot") {
        // The worker stored its memory snapshot: the next visit starts Python from it.
        performance.mark("mlhw-snapshot", { detail: message });
      } else if (message.type === "stale") {
        stale();
      } else if (message.type === "fatal") {
        fail(message.message);
      } else if (message.type === "crashed") {
        restart(message);
      } else if (message.type === "result") {
        onReply(message);
        answered();
      } else if (message.type === "shared") {
        onShared(message);
      }
    };
    worker.onerror = function (event) { fail(event.message || "the worker failed to load"); };
  }

  // Python crashed (or hung: message.hung) in the worker on one widget's inputs: end that
  // worker, start a fresh one, recompute the other widgets that were waiting, and leave the one
  // that crashed it in the error state (sending its inputs again would crash the new worker too).
  function restart(message) {
    var culprit = pending[message.id];
    var told = message.hung ? HUNG : CRASHED;
    clearTimeout(watchdog);
    watchdog = 0;
    var waiting = pending;
    var linked = culprit && widgets.get(culprit).fromLink;
    pending = {};
    worker.onmessage = null;
    worker.onerror = null;
    worker.terminate();
    worker = null;
    ready = false;
    console.warn("Python in the calculator worker " + (message.hung ? "hung" : "crashed") + "; restarting it:", message.message);
    Object.keys(waiting).forEach(function (id) {
      if (waiting[id] !== culprit) widgets.get(waiting[id]).dirty = true;
    });
    if (linked && linked.size) {
      // The link's inputs crashed it: they go, and the widget computes the rest on the new worker.
      dropRefused(culprit, { field: null, message: "Python in your browser " + (message.hung ? "stopped answering" : "crashed") +
        " on them and was restarted" });
      culprit = null;
    }
    if (culprit) widgets.get(culprit).crashed = told;
    if (restarts >= MAX_RESTARTS) {
      gaveUp = true;
      fail("Python crashed " + (restarts + 1) + " times; reload the page");
      return;
    }
    restarts += 1;
    performance.mark("mlhw-worker-restart", { detail: { restarts: restarts, message: message.message } });
    start();
    if (culprit) showError(culprit, null, told);
  }

  // The file's bytes must be UTF-8 (with or without a byte-order mark) and at most the size
  // the Python side reads (data-max-bytes, calculators.config_input.MAX_CONFIG_BYTES): checked
  // here from File.size before reading, so a 100 MB upload never reaches memory.
  var BOMS = [[[0xff, 0xfe, 0, 0], "UTF-32"], [[0, 0, 0xfe, 0xff], "UTF-32"], [[0xff, 0xfe], "UTF-16"],
    [[0xfe, 0xff], "UTF-16"]];
  function encodingOf(bytes) {
    for (var i = 0; i < BOMS.length; i++) {
      var bom = BOMS[i][0];
      if (bytes.length >= bom.length && bom.every(function (b, j) { return bytes[j] === b; })) return BOMS[i][1];
    }
    if (bytes.length >= 2 && (bytes[0] === 0) !== (bytes[1] === 0)) return "UTF-16"; // no BOM: every other byte 0
    return null;
  }
  var UTF8 = "expected a UTF-8 encoded config.json (with or without a byte-order mark)";
  function readFile(root, input) {
    var file = input.files && input.files[0];
    if (!file) return;
    var field = input.getAttribute("data-target");
    var target = fields(root).get(field);
    var limit = Number(input.getAttribute("data-max-bytes")) || 1048576;
    input.value = ""; // choosing the same file again is a new change
    if (file.size > limit) {
      showError(root, field, "config.json: got a file of " + file.size.toLocaleString("en") + " bytes; expected at most " +
        limit.toLocaleString("en") + " bytes (1 MiB). The file was not read.");
      return;
    }
    file.arrayBuffer().then(function (buffer) {
      var bytes = new Uint8Array(buffer);
      var encoding = encodingOf(bytes);
      if (encoding) {
        showError(root, field, "config.json: got " + encoding + " text; " + UTF8 + ".");
        return;
      }
      var text;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes); // drops a UTF-8 byte-order mark
      } catch (error) {
        showError(root, field, "config.json: got bytes that are not UTF-8 (Latin-1 or another encoding?); " + UTF8 + ".");
        return;
      }
      if (target) target.control.value = text;
      schedule(root, 0);
    }, function () {
      showError(root, field, "config.json: the file could not be read.");
    });
  }

  // Precaching the runtime (~40 MB through the service worker into Cache Storage) takes
  // CPU for a few seconds: on 2 cores it made the first recomputes 3x slower. So it waits
  // for a quiet second: no recompute for SW_QUIET_MS (each compute pushes it back).
  var SW_QUIET_MS = 1000;
  var swTimer = 0;
  function registerServiceWorkerWhenQuiet() {
    if (swTimer < 0) return;
    clearTimeout(swTimer);
    swTimer = setTimeout(function () {
      swTimer = -1;
      var idle = window.requestIdleCallback || function (callback) { callback(); };
      idle(registerServiceWorker, { timeout: 1000 });
    }, SW_QUIET_MS);
  }

  function registerServiceWorker() {
    if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
    navigator.serviceWorker.register(new URL("sw.js", siteRoot).href, { scope: siteRoot.pathname })
      .then(function () { return navigator.serviceWorker.ready; })
      // A worker installed from a page without a calculator saved only the guide: store the runtime too
      // (a worker of another build ignores it: the page's build is installing and saves its own).
      .then(function (registration) {
        if (registration.active) registration.active.postMessage({ type: "precache-runtime", version: VERSION });
      })
      .catch(function () { /* offline repeat visits are a bonus; the page works without */ });
  }

  // Type to search: a long <select> gets a search box above it that hides the options whose
  // text and value do not hold every typed word; when the chosen option is hidden, the first
  // one shown is chosen and the widget recomputes as on any input. The box has no name, so it
  // is never an input of the calculator, a link or a copy.
  function addFilter(select) {
    var box = document.createElement("input");
    var labelText = select.labels && select.labels[0] ? select.labels[0].textContent.trim() : "the choices";
    box.type = "search";
    box.className = "mlhw-filter";
    box.setAttribute("data-role", "filter");
    box.setAttribute("autocomplete", "off");
    box.setAttribute("spellcheck", "false");
    box.placeholder = "Type to filter " + count(select.options.length) + " choices";
    box.setAttribute("aria-label", "Filter " + labelText);
    box.addEventListener("input", function (event) {
      event.stopPropagation(); // the box is not a field of the calculator
      var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
      var first = null;
      Array.prototype.forEach.call(select.options, function (option) {
        var text = (option.textContent + " " + option.value).toLowerCase();
        option.hidden = !words.every(function (word) { return text.indexOf(word) >= 0; });
        if (!option.hidden && first === null) first = option;
      });
      box.setCustomValidity(first === null ? "No choice matches" : "");
      var chosen = select.options[select.selectedIndex];
      if (first !== null && (!chosen || chosen.hidden)) {
        select.value = first.value;
        select.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
    box.addEventListener("keydown", function (event) { if (event.key === "Enter") event.preventDefault(); });
    select.parentNode.insertBefore(box, select);
  }

  var fromFile = location.protocol === "file:";
  roots.forEach(function (root) {
    siteLinks(output(root));
    var line = root.querySelector("[data-role=status]");
    var text = document.createElement("span"), note = document.createElement("span");
    text.textContent = line.textContent;
    note.className = "mlhw-link-note";
    note.setAttribute("data-role", "link-note");
    note.hidden = true;
    // The download's progress: a bar (its accessible name says what it measures) and the megabytes.
    var progress = document.createElement("span"), bar = document.createElement("progress");
    progress.className = "mlhw-progress";
    progress.setAttribute("data-role", "progress");
    progress.hidden = true;
    bar.setAttribute("aria-label", "Python runtime downloaded");
    progress.append(bar, document.createElement("span"));
    line.replaceChildren(text, progress, note);
    widgets.set(root, { latest: 0, timer: 0, dirty: false, crashed: false, fields: fieldsOf(root), statusText: text,
      linkNote: note, progress: progress, fromLink: new Map(), dropped: [] });
    if (fromFile) {
      var fileNote = root.querySelector("[data-role=file-note]");
      if (fileNote) fileNote.hidden = false;
      line.hidden = true;
    }
  });
  if (fromFile) return;
  var link = readLink();
  roots.forEach(function (root, index) {
    var form = root.querySelector("[data-role=form]");
    defaults.set(root, values(root));
    Array.prototype.forEach.call(form.querySelectorAll("select[name]"), function (select) {
      if (select.options.length > FILTER_MIN_OPTIONS) addFilter(select);
    });
    var bar = root.querySelector("[data-role=share]");
    if (bar) {
      bar.hidden = false;
      bar.addEventListener("click", function (event) {
        var kind = event.target.closest && event.target.closest("[data-share]");
        if (kind) share(root, kind.getAttribute("data-share"));
      });
    }
    // What fits no widget is told in the first one.
    restore(root, link.given.get(root), index === 0 ? link.stray : []);
    // The reader's own change: the link's note has been read, and its inputs are the reader's.
    var changed = function () {
      var state = widgets.get(root);
      state.fromLink.clear();
      state.dropped = [];
      showLinkNote(root);
    };
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("input", function (event) {
      changed();
      if (event.target.getAttribute("data-role") !== "file") schedule(root, DEBOUNCE_MS);
    });
    form.addEventListener("change", function (event) {
      changed();
      if (event.target.getAttribute("data-role") === "file") readFile(root, event.target);
      else schedule(root, 0);
    });
  });
  // A link to this page that differs only in its fragment opens without a reload: load it, so
  // that its inputs are read as any link's are.
  window.addEventListener("hashchange", function () { if (stateFragment()) location.reload(); });

  // Start Python once the page has loaded, not when a widget scrolls into view (booting
  // takes seconds). Not earlier: compiling the runtime's wasm takes the CPU the page
  // needs for its first tasks (on 2 cores that made the longest main-thread task 2x).
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start, { once: true });
})();
