// Module Web Worker that runs the calculators in Pyodide, off the page's main thread.
//
// Boots the self-hosted runtime from <site>/pyodide/, installs the package wheel named
// in <site>/wheels/manifest.json (checking its SHA-256) with unpackArchive (no micropip,
// no packages, nothing from a CDN), then answers {type: "compute", id, name, inputs}
// with calculators.widgets.api.compute_json's reply plus the time it took.
const siteRoot = new URL("../", import.meta.url); // this file is <site>/assets/pyodide-worker.js

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  return response;
}

async function hex(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function boot() {
  const started = performance.now();
  const manifest = await (await fetchOk(new URL("wheels/manifest.json", siteRoot))).json();
  const indexURL = new URL("pyodide/", siteRoot).href;
  const [{ loadPyodide }, wheel] = await Promise.all([
    import(new URL("pyodide.mjs", indexURL).href),
    fetchOk(new URL(`wheels/${manifest.wheel}`, siteRoot)).then((response) => response.arrayBuffer()),
  ]);
  if (crypto.subtle && (await hex(wheel)) !== manifest.sha256) {
    throw new Error(`${manifest.wheel} does not match its SHA-256 in wheels/manifest.json`);
  }
  const fetched = performance.now();
  const pyodide = await loadPyodide({ indexURL });
  const booted = performance.now();
  pyodide.unpackArchive(wheel, "wheel");
  const api = pyodide.pyimport("calculators.widgets.api");
  const done = performance.now();
  // Phases of the boot, for scripts/bench_site.py.
  const phases = { fetch: fetched - started, loadPyodide: booted - fetched, install: done - booted };
  return { api, ms: done - started, phases };
}

const booting = boot();
booting.then(
  ({ ms, phases }) => postMessage({ type: "ready", ms, phases }),
  (error) => postMessage({ type: "fatal", message: String(error && error.message ? error.message : error) }),
);

self.onmessage = async (event) => {
  const request = event.data;
  if (!request || request.type !== "compute") return;
  let api;
  try {
    ({ api } = await booting);
  } catch {
    return; // the page was told by the "fatal" message
  }
  const started = performance.now();
  let reply;
  try {
    reply = JSON.parse(api.compute_json(String(request.name), JSON.stringify(request.inputs || {})));
  } catch (error) {
    reply = { ok: false, field: null, message: "The calculator failed in the browser (a bug, not your input)." };
  }
  postMessage({ type: "result", id: request.id, ms: performance.now() - started, ...reply });
};
