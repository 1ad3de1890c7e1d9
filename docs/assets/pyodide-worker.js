// Module Web Worker that runs the calculators in Pyodide, off the page's main thread.
//
// Boots the self-hosted runtime from <site>/pyodide/, installs the package wheel named
// in <site>/wheels/manifest.json (checking its SHA-256) with unpackArchive (no micropip,
// no packages, no lockfile download, nothing from a CDN), then answers
// {type: "compute", id, name, inputs} with calculators.widgets.api.compute_json's reply
// ({type: "share", id, name, inputs, url} with share_json's: the result to copy)
// plus the time it took.
//
// Every visit, the first included, skips Python's start-up: the build made a Pyodide
// memory snapshot in node with every calculator imported (scripts/make_snapshot.mjs;
// manifest.snapshot names it, gzipped, under the site's version: a hash of the wheel, the
// runtime and these scripts, so a new wheel never meets an old snapshot), and the worker
// restores it, then checks that Python computes. If that fails, or the site has no
// build snapshot, Python boots normally and, after the first results, the worker takes a
// snapshot itself. Either snapshot is then stored, decompressed, in Cache Storage under
// the site's version (the service worker deletes other versions' caches), and the next
// boot restores that copy first (reading 30 MB is faster than decompressing 7 MB). A
// snapshot that fails to restore is deleted and Python boots normally.
//
// One build only: the page starts this script as pyodide-worker.js?v=VERSION (the runtime
// version of the page's build), and every file it fetches carries the same ?v=, so that no
// HTTP cache or service worker can answer with another build's copy under that address. A
// server that now holds a newer build answers with it anyway: this script (the build writes
// its version into BUILT), the manifest and Pyodide's version are compared with the page's,
// and on a difference the worker says "stale" (the page offers to reload) instead of
// computing with calculators the page was not built with.
const siteRoot = new URL("../", import.meta.url); // this file is <site>/assets/pyodide-worker.js
const indexURL = new URL("pyodide/", siteRoot).href;
const BUILT = "__MLHW_VERSION__";
const asked = new URL(import.meta.url).searchParams.get("v");
const VERSION = BUILT.startsWith("__") ? asked : BUILT; // unset: a test's copy of this script
const versioned = (url) => (VERSION ? `${url}?v=${VERSION}` : String(url));
class Stale extends Error {}
const staleScript = asked && VERSION && asked !== VERSION;
const started = performance.now();
// When this script started, on the wall clock: the page turns it into ms since navigation.
const startedEpoch = performance.timeOrigin + started;
const phases = {}; // name -> ms since this script started, for scripts/bench_site.py
const mark = (name) => { phases[name] = performance.now() - started; };

// Compile the 9 MB wasm from the first moment, in parallel with everything else (left to
// itself, loadPyodide compiles it only after importing its scripts and reading the
// snapshot). loadPyodide's own request for it gets a placeholder, and its
// instantiateStreaming call gets this module; any other wasm goes the normal way.
//
// Every download goes through countedFetch, which counts the bytes as they arrive and posts
// {type: "progress", loaded, total} for the page's indicator, at most every PROGRESS_MS: the
// total is the sum of the files this visit downloads (their sizes are in the manifest), known
// once the manifest says whether the build's snapshot is needed; from a cache it runs in an instant.
const PROGRESS_MS = 100;
const progress = { loaded: 0, total: 0, posted: 0, timer: 0 };
function postProgress() {
  progress.timer = 0;
  progress.posted = performance.now();
  postMessage({ type: "progress", loaded: progress.loaded, total: Math.max(progress.total, progress.loaded) });
}
function counted(bytes) {
  progress.loaded += bytes;
  if (progress.timer) return;
  progress.timer = setTimeout(postProgress, Math.max(0, PROGRESS_MS - (performance.now() - progress.posted)));
}
const nativeFetch = self.fetch.bind(self);
// Not the manifest: it lists the sizes, and is not one of them (a few hundred bytes).
const manifestPath = new URL("wheels/manifest.json", siteRoot).pathname;
async function countedFetch(input, init) {
  const response = await nativeFetch(input, init);
  if (!response.ok || !response.body || new URL(response.url || String(input)).pathname === manifestPath) return response;
  const counter = new TransformStream({ transform(chunk, controller) { counted(chunk.byteLength); controller.enqueue(chunk); } });
  // The same status and headers (WebAssembly.compileStreaming checks the wasm's content type).
  return new Response(response.body.pipeThrough(counter),
    { status: response.status, statusText: response.statusText, headers: response.headers });
}
const wasmURL = new URL("pyodide.asm.wasm", indexURL).href;
const wasmCompiled = WebAssembly.compileStreaming(countedFetch(versioned(wasmURL))).then((module) => { mark("compiled"); return module; });
const placeholders = new WeakSet();
self.fetch = (input, init) => {
  if (String(input instanceof Request ? input.url : input) !== wasmURL) return countedFetch(input, init);
  const placeholder = new Response(null);
  placeholders.add(placeholder);
  return Promise.resolve(placeholder);
};
const nativeInstantiateStreaming = WebAssembly.instantiateStreaming;
WebAssembly.instantiateStreaming = async (source, imports) => {
  const response = await source;
  if (!placeholders.has(response)) return nativeInstantiateStreaming(response, imports);
  mark("instantiate");
  const module = await wasmCompiled.catch(() => WebAssembly.compileStreaming(nativeFetch(versioned(wasmURL))));
  const instance = await WebAssembly.instantiate(module, imports);
  mark("instantiated");
  return { module, instance };
};

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${new URL(url).pathname}: HTTP ${response.status}`);
  return response;
}

async function hex(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Snapshot store: one entry in the service worker's cache of this version (mlhw-VERSION).
const snapshotStore = {
  usable: () => typeof caches !== "undefined",
  key: (manifest) => new URL(`pyodide/memory-snapshot-${manifest.version}.bin`, siteRoot).href,
  async find(manifest) {
    if (!this.usable()) return null;
    const cache = await caches.open(`mlhw-${manifest.version}`);
    const response = await cache.match(this.key(manifest));
    if (!response || response.headers.get("x-mlhw-wheel-sha256") !== manifest.sha256) return null;
    // Wrapped: an async function returning the promise itself would wait for the read.
    return { bytes: response.arrayBuffer().then((bytes) => { mark("snapshotRead"); return new Uint8Array(bytes); }),
      source: "cache" };
  },
  async write(manifest, bytes) {
    const cache = await caches.open(`mlhw-${manifest.version}`);
    await cache.put(this.key(manifest), new Response(bytes, {
      headers: { "content-type": "application/octet-stream", "x-mlhw-wheel-sha256": manifest.sha256 },
    }));
  },
  async remove(manifest) {
    if (this.usable()) await (await caches.open(`mlhw-${manifest.version}`)).delete(this.key(manifest));
  },
};

const manifestLoaded = fetchOk(versioned(new URL("wheels/manifest.json", siteRoot))).then(async (response) => {
  const manifest = await response.json();
  if (staleScript || (VERSION && manifest.version !== VERSION)) {
    throw new Stale(`the server holds runtime ${manifest.version}, the page was built for ${asked || VERSION}`);
  }
  return manifest;
});
// The two scripts are imported, not fetched: their bytes count once each has arrived.
const importedSize = (path) => manifestLoaded.then((manifest) => counted((manifest.downloads || {})[path] || 0), () => {});
const pyodideImported = import(versioned(new URL("pyodide.mjs", indexURL))).then((module) => {
  mark("import");
  importedSize("pyodide/pyodide.mjs");
  return module;
});
// Pyodide's 1.2 MB Emscripten module, imported now rather than by loadPyodide later.
const asmImported = import(versioned(new URL("pyodide.asm.mjs", indexURL))).then((module) => {
  mark("asm");
  importedSize("pyodide/pyodide.asm.mjs");
  return module;
});
const wheelLoaded = manifestLoaded.then(async (manifest) => {
  const wheel = await (await fetchOk(versioned(new URL(`wheels/${manifest.wheel}`, siteRoot)))).arrayBuffer();
  if (crypto.subtle && (await hex(wheel)) !== manifest.sha256) {
    throw new Error(`${manifest.wheel} does not match its SHA-256 in wheels/manifest.json`);
  }
  mark("wheel");
  return new Uint8Array(wheel);
});
// The build's snapshot: 7 MB gzipped, fetched and decompressed (~30 MB) as it arrives.
const buildSnapshot = {
  usable: (manifest) => Boolean(manifest.snapshot) && typeof DecompressionStream !== "undefined",
  find(manifest) {
    if (!this.usable(manifest)) return null;
    const bytes = fetchOk(versioned(new URL(manifest.snapshot, siteRoot))).then(async (response) => {
      const raw = await new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
      mark("snapshotRead");
      return new Uint8Array(raw);
    });
    bytes.catch(() => {}); // a failed download is handled where the bytes are awaited
    return { bytes, source: "build" };
  },
};
// Whether there is a snapshot is known at once; its 30 MB are read while the wasm compiles.
// The copy in Cache Storage (see storeSnapshot) first, else the build's.
const snapshotFound = manifestLoaded.then(async (manifest) => (await snapshotStore.find(manifest).catch(() => null))
  || buildSnapshot.find(manifest)).catch(() => null);
// This visit's downloads: the runtime, the wheel, and the build's snapshot unless Cache Storage holds one.
Promise.all([manifestLoaded, snapshotFound]).then(([manifest, snapshot]) => {
  const sizes = manifest.downloads || {};
  progress.total = Object.keys(sizes).reduce((sum, path) => sum +
    (path === manifest.snapshot && (!snapshot || snapshot.source !== "build") ? 0 : sizes[path]), 0);
}, () => {});

async function start(loadPyodide, manifest, snapshot) {
  mark("load");
  const pyodide = await loadPyodide({
    indexURL,
    stdLibURL: versioned(new URL("python_stdlib.zip", indexURL)),
    // The lockfile lists packages we never load; its info block is all Pyodide checks.
    lockFileContents: { info: manifest.lockfile_info, packages: {} },
    packageBaseUrl: indexURL,
    createPyodideModule: ((create) => async (settings) => {
      mark("create");
      const module = await create(settings);
      // A snapshot larger than the wasm's initial memory (30 MiB in this Pyodide) does not fit:
      // loadPyodide asks for INITIAL_MEMORY = the snapshot's size, but the memory is the module's
      // own (exported, not imported), so that setting is not applied and restoreSnapshot's copy
      // runs past the end ("offset is out of bounds"). Grow it to the snapshot's size first.
      if (settings.INITIAL_MEMORY && module.HEAP8.length < settings.INITIAL_MEMORY) module.growMemory(settings.INITIAL_MEMORY);
      return module;
    })((await asmImported).default),
    // Called once the wasm is instantiated, before Python starts.
    fsInit: async () => mark("wasm"),
    // _loadSnapshot and _makeSnapshot are Pyodide's private (underscored) memory-snapshot options,
    // not part of its documented API: they are used with the Pyodide version package-lock.json pins,
    // and a snapshot that fails to restore falls back to a normal boot (boot() below).
    ...(snapshot ? { _loadSnapshot: snapshot.bytes } : { _makeSnapshot: snapshotStore.usable() }),
  });
  mark("python");
  if (pyodide.version !== manifest.pyodide) {
    throw new Stale(`the server holds Pyodide ${pyodide.version}, the page was built for ${manifest.pyodide}`);
  }
  if (snapshot) {
    // Every module of the package is already imported in the snapshot's memory (see
    // storeSnapshot), so Python can compute now. The file system is not in a snapshot:
    // the wheel's files are unpacked right after "ready" for anything that reads them.
    const api = pyodide.pyimport("calculators.widgets.api");
    if (!api.self_check()) throw new Error("the restored calculators do not compute");
    mark("install");
    return { pyodide, api };
  }
  pyodide.unpackArchive(await wheelLoaded, "wheel");
  const api = pyodide.pyimport("calculators.widgets.api");
  mark("install");
  return { pyodide, api };
}

async function boot() {
  const [{ loadPyodide }, manifest, snapshot] = await Promise.all([pyodideImported, manifestLoaded, snapshotFound]);
  if (snapshot) {
    try {
      const booted = await start(loadPyodide, manifest, snapshot);
      return { ...booted, manifest, restored: snapshot.source, snapshotBytes: snapshot.bytes };
    } catch (error) {
      if (error instanceof Stale) throw error;
      console.warn(`Pyodide memory snapshot (${snapshot.source}) not usable, booting normally:`, error);
      if (snapshot.source === "cache") await snapshotStore.remove(manifest).catch(() => {});
      for (const key of Object.keys(phases)) if (!["import", "asm", "wheel", "compiled"].includes(key)) delete phases[key];
    }
  }
  return { ...(await start(loadPyodide, manifest, null)), manifest, restored: "" };
}

// Once the page is served, store the memory snapshot for the next visit: after a normal
// boot, import every calculator (one default compute each) and take one; after restoring
// the build's, the bytes already restored (its state before this visit's computes).
async function storeSnapshot({ pyodide, manifest, restored, snapshotBytes }) {
  const begun = performance.now();
  let bytes;
  if (restored === "build") {
    bytes = await snapshotBytes;
  } else {
    pyodide.runPython(WARM_UP);
    bytes = pyodide.makeMemorySnapshot();
  }
  await snapshotStore.write(manifest, bytes);
  return { ms: performance.now() - begun, bytes: bytes.length, made: restored === "build" ? "build" : "browser" };
}

// Imports every module of the package (a restored worker has no files to import from)
// and runs each calculator once with its defaults: calculators.widgets.api.warm_up, the same
// call scripts/make_snapshot.mjs makes before the build's snapshot. Run as Python source, so
// that no proxy of a Python object is alive when the snapshot is taken.
const WARM_UP = "import calculators.widgets.api\ncalculators.widgets.api.warm_up()";

const booting = boot();
booting.then(
  (booted) => {
    const ms = performance.now() - started;
    postMessage({ type: "ready", ms, startedEpoch, from: booted.restored || "boot", version: booted.manifest.version,
      phases: { ...phases, snapshot: booted.restored ? 1 : 0 } });
    if (booted.restored) {
      // A moment later, so that the page's first computes are not kept waiting.
      setTimeout(() => {
        wheelLoaded.then((wheel) => booted.pyodide.unpackArchive(wheel, "wheel")).catch((error) => {
          console.warn("could not unpack the wheel after restoring the snapshot:", error);
        });
      }, 500);
    }
  },
  (error) => postMessage({ type: error instanceof Stale ? "stale" : "fatal",
    message: String(error && error.message ? error.message : error) }),
);

// After a restore, V8 runs Python's interpreter loop as baseline wasm code until its hot
// functions are tiered up (a normal boot gets there while Python starts): a recompute took
// 2-3 ms of Python instead of 1. So the worker computes every calculator's defaults a few
// times in small idle tasks, pausing while the reader's computes come in. Only cheap
// computes: a reader's request waits for the step under way, and some calculators' defaults
// (a fit search) take ~100 ms, so a calculator whose warm-up compute took more than
// JIT_WARM_UP_MAX_MS is dropped after its first.
const JIT_WARM_UP_COMPUTES = 150;
const JIT_WARM_UP_MAX_MS = 15;
const jitWarmUp = { timer: 0, left: 0, names: [] };
function scheduleJitWarmUp(booted, delay) {
  if (!booted.restored || jitWarmUp.left <= 0) return;
  clearTimeout(jitWarmUp.timer);
  jitWarmUp.timer = setTimeout(function step() {
    const name = jitWarmUp.names[jitWarmUp.left % jitWarmUp.names.length];
    const begun = performance.now();
    try {
      booted.api.compute_json(name, "{}");
    } catch {
      jitWarmUp.left = 0;
    }
    // Defaults can cost more than the reader's inputs did: drop a slow one (not the last).
    if (performance.now() - begun > JIT_WARM_UP_MAX_MS && jitWarmUp.names.length > 1) {
      jitWarmUp.names = jitWarmUp.names.filter((other) => other !== name);
    }
    if (--jitWarmUp.left > 0) jitWarmUp.timer = setTimeout(step, 0);
  }, delay);
}
booting.then((booted) => {
  if (!booted.restored) return;
  const names = booted.api.calculator_names();
  jitWarmUp.names = names.toJs();
  names.destroy();
  jitWarmUp.left = jitWarmUp.names.length ? JIT_WARM_UP_COMPUTES : 0;
  scheduleJitWarmUp(booted, 100);
}).catch(() => {});

let snapshotTimer = 0;
function scheduleSnapshot(booted) {
  if (booted.restored === "cache" || booted.snapshotTaken || !snapshotStore.usable()) return;
  clearTimeout(snapshotTimer);
  // Wait for a quiet second so the snapshot does not delay the reader's first results.
  snapshotTimer = setTimeout(() => {
    booted.snapshotTaken = true; // once per worker
    storeSnapshot(booted).finally(() => { booted.snapshotBytes = null; }).then(
      (stored) => postMessage({ type: "snapshot", stored: true, ...stored }),
      (error) => postMessage({ type: "snapshot", stored: false, message: String(error && error.message || error) }),
    );
  }, 1000);
}
booting.then(scheduleSnapshot, () => {});

self.onmessage = async (event) => {
  const received = performance.now();
  const request = event.data;
  if (!request || (request.type !== "compute" && request.type !== "share" && request.type !== "memory")) return;
  let booted;
  try {
    booted = await booting;
  } catch {
    return; // the page was told by the "fatal" message
  }
  if (request.type === "memory") {
    // For scripts/bench_long_session.py: the wasm heap (Python's memory; it only grows) and
    // the objects Python tracks after a collection.
    const objects = booted.pyodide.runPython("import gc\ngc.collect()\nlen(gc.get_objects())");
    postMessage({ type: "memory", id: request.id, wasmBytes: booted.pyodide._module.HEAP8.buffer.byteLength, objects });
    return;
  }
  if (request.type === "share") {
    // "Copy result": the record and its Markdown (api.share_json), for the inputs shown.
    let reply;
    try {
      reply = JSON.parse(booted.api.share_json(String(request.name), JSON.stringify(request.inputs || {}),
        String(request.url || "")));
    } catch (error) {
      postMessage({ type: "crashed", id: request.id, message: String(error && error.message ? error.message : error) });
      return;
    }
    postMessage({ type: "shared", id: request.id, ...reply });
    return;
  }
  const computeStarted = performance.now();
  let reply;
  try {
    reply = JSON.parse(booted.api.compute_json(String(request.name), JSON.stringify(request.inputs || {})));
  } catch (error) {
    // compute_json answers every Python error itself, so a throw means the runtime broke:
    // Pyodide's fatal state (a stack overflow inside the interpreter, memory exhausted), after
    // which every call throws. This worker cannot compute again: the page starts a fresh one.
    postMessage({ type: "crashed", id: request.id, message: String(error && error.message ? error.message : error) });
    return;
  }
  const computed = performance.now();
  // t: when (ms since the page's time origin) the worker received the request, began and
  // ended the compute, for the page's performance marks (scripts/bench_site.py).
  const offset = performance.timeOrigin - (request.timeOrigin || performance.timeOrigin);
  postMessage({ type: "result", id: request.id, ms: computed - computeStarted, ...reply,
    t: { receivedE: received + offset, computeStartE: computeStarted + offset, computedE: computed + offset } });
  if (snapshotTimer) scheduleSnapshot(booted); // still waiting: wait for the reader to pause
  scheduleJitWarmUp(booted, 300);
};
