// Browser runtime of the calculator widgets: generic, it knows no formula and no default.
//
// The build renders every widget (form + result) from Python. This script finds the
// [data-calculator] roots, starts one Pyodide module worker per page once the page has
// loaded (the hook adds this script only to pages with a widget), sends each form's
// values to it on every change and puts the returned HTML into [data-role=output]; an
// error is shown next to the field the engine names. data-state on the root: static -> loading -> live | error.
// If Python in the worker crashes (Pyodide's fatal state), the page starts a new worker and
// says so; a config.json file over the size limit or not in UTF-8 is refused before Python sees it.
// A classic (not module) script, so that it still runs from file:// and can say why
// the calculator cannot start there.
(function () {
  "use strict";
  var script = document.currentScript;
  var roots = Array.prototype.slice.call(document.querySelectorAll("[data-calculator]"));
  if (!roots.length || !script) return;
  var siteRoot = new URL("../", script.src); // this file is <site>/assets/widgets.js
  var DEBOUNCE_MS = 60;

  var worker = null;
  var ready = false;
  var nextId = 1;
  var pending = {}; // request id -> widget root
  var widgets = new Map(); // root -> {latest, timer, dirty, crashed}
  var restarts = 0; // workers started again after Python crashed
  var gaveUp = false;
  var MAX_RESTARTS = 3; // then the page stops trying (something is wrong beyond one input)
  var CRASHED = "Python in your browser crashed on these inputs and was restarted; change an input to try again.";

  function setState(root, state) { root.setAttribute("data-state", state); }
  function status(root, text) {
    var el = root.querySelector("[data-role=status]");
    if (el) el.textContent = text;
  }
  function output(root) { return root.querySelector("[data-role=output]"); }

  function values(root) {
    var data = {};
    root.querySelectorAll("[data-field]").forEach(function (wrapper) {
      var name = wrapper.getAttribute("data-field");
      var control = wrapper.querySelector("[name='" + name + "']");
      if (!control) return;
      data[name] = control.type === "checkbox" ? (control.checked ? "true" : "false") : control.value;
    });
    return data;
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

  function showError(root, field, message) {
    clearErrors(root);
    var wrapper = field ? root.querySelector("[data-field='" + field + "']") : null;
    var slot = wrapper && !wrapper.hidden ? wrapper.querySelector("[data-role=error]") : null;
    if (slot) {
      slot.textContent = message;
      slot.hidden = false;
      var control = wrapper.querySelector("[name]");
      if (control) control.setAttribute("aria-invalid", "true");
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
    if (reply.ok) {
      clearErrors(root);
      var out = output(root);
      // Keep "Assumptions and notes" open across recomputes if the reader opened it.
      var open = Array.prototype.map.call(out.querySelectorAll("details"), function (el) { return el.open; });
      update(out, reply.html);
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
      if (!(name === "open" && a.localName === "details")) names.push(name);
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
  }

  function schedule(root, delay) {
    var state = widgets.get(root);
    state.crashed = false; // new inputs: worth a try on the new worker
    applyShowWhen(root);
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
    roots.forEach(function (root) {
      setState(root, "error");
      var stale = output(root).hasAttribute("data-stale");
      status(root, "The calculator could not start (" + message + "). " +
        (stale ? "The result shown is NOT for the inputs shown." : "The result shown was computed when the page was built."));
    });
  }

  function start() {
    if (worker || gaveUp) return;
    roots.forEach(function (root) {
      setState(root, "loading");
      if (!output(root).hasAttribute("data-stale")) status(root, "Starting Python in your browser\u2026");
      else if (restarts) status(root, "Restarting Python in your browser; the result shown is for earlier inputs.");
    });
    performance.mark("mlhw-worker-start");
    try {
      worker = new Worker(new URL("assets/pyodide-worker.js", siteRoot), { type: "module" });
    } catch (error) {
      fail(String(error));
      return;
    }
    worker.onmessage = function (event) {
      var message = event.data;
      if (message.type === "ready") {
        ready = true;
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
        roots.forEach(function (root) {
          if (widgets.get(root).crashed) {
            showError(root, null, CRASHED);
          } else if (widgets.get(root).dirty) {
            compute(root);
          } else {
            setState(root, "live");
            status(root, "Live: Python " + (restarts ? "restarted" : "started") + " in your browser in " + (message.ms / 1000).toFixed(1) +
              " s; change any input to recompute.");
          }
        });
      } else if (message.type === "snapshot") {
        // The worker stored its memory snapshot: the next visit starts Python from it.
        performance.mark("mlhw-snapshot", { detail: message });
      } else if (message.type === "fatal") {
        fail(message.message);
      } else if (message.type === "crashed") {
        restart(message);
      } else if (message.type === "result") {
        onReply(message);
      }
    };
    worker.onerror = function (event) { fail(event.message || "the worker failed to load"); };
  }

  // Python crashed in the worker on one widget's inputs: end that worker, start a fresh one,
  // recompute the other widgets that were waiting, and leave the one that crashed it in the
  // error state (sending its inputs again would crash the new worker too).
  function restart(message) {
    var culprit = pending[message.id];
    var waiting = pending;
    pending = {};
    worker.onmessage = null;
    worker.onerror = null;
    worker.terminate();
    worker = null;
    ready = false;
    console.warn("Python in the calculator worker crashed; restarting it:", message.message);
    Object.keys(waiting).forEach(function (id) {
      if (waiting[id] !== culprit) widgets.get(waiting[id]).dirty = true;
    });
    if (culprit) widgets.get(culprit).crashed = true;
    if (restarts >= MAX_RESTARTS) {
      gaveUp = true;
      fail("Python crashed " + (restarts + 1) + " times; reload the page");
      return;
    }
    restarts += 1;
    performance.mark("mlhw-worker-restart", { detail: { restarts: restarts, message: message.message } });
    start();
    if (culprit) showError(culprit, null, CRASHED);
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
    var target = root.querySelector("[name='" + field + "']");
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
      if (target) target.value = text;
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
      // A worker installed from a page without a calculator saved only the guide: store the runtime too.
      .then(function (registration) { if (registration.active) registration.active.postMessage({ type: "precache-runtime" }); })
      .catch(function () { /* offline repeat visits are a bonus; the page works without */ });
  }

  var fromFile = location.protocol === "file:";
  roots.forEach(function (root) {
    widgets.set(root, { latest: 0, timer: 0, dirty: false, crashed: false });
    var form = root.querySelector("[data-role=form]");
    if (fromFile) {
      var note = root.querySelector("[data-role=file-note]");
      if (note) note.hidden = false;
      var line = root.querySelector("[data-role=status]");
      if (line) line.hidden = true;
      return;
    }
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("input", function (event) {
      if (event.target.getAttribute("data-role") !== "file") schedule(root, DEBOUNCE_MS);
    });
    form.addEventListener("change", function (event) {
      if (event.target.getAttribute("data-role") === "file") readFile(root, event.target);
      else schedule(root, 0);
    });
  });
  if (fromFile) return;

  // Start Python once the page has loaded, not when a widget scrolls into view (booting
  // takes seconds). Not earlier: compiling the runtime's wasm takes the CPU the page
  // needs for its first tasks (on 2 cores that made the longest main-thread task 2x).
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start, { once: true });
})();
