// Build-time Pyodide memory snapshot for the calculator widgets (run by scripts/mkdocs_hooks.py).
//
//   node scripts/make_snapshot.mjs PYODIDE_DIR WHEEL OUT.bin.gz
//
// Boots Pyodide in node with _makeSnapshot (a private Pyodide option, used with the version
// package-lock.json pins), unpacks the wheel as the browser worker does, runs the same warm-up
// as the worker (calculators.widgets.api.warm_up: imports every calculator and computes each
// default once) and its check (self_check), takes makeMemorySnapshot() and writes it gzipped. The
// worker (docs/assets/pyodide-worker.js) restores it on a first visit instead of starting
// Python (about 2.8 s saved on a 2-core machine).
//
// Deterministic: the hash seed, the clock and the entropy source are fixed while the
// snapshot is made (file times = SOURCE_DATE_EPOCH), and the program name is not this
// script's path, so the same wheel and runtime give the same bytes. Python in the browser
// keeps the fixed hash seed and random state of the snapshot (the calculators use neither).
import crypto from "node:crypto";
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const [pyodideDir, wheelPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node scripts/make_snapshot.mjs PYODIDE_DIR WHEEL OUT.bin.gz");
  process.exit(2);
}

// Fixed clock (file times in the snapshot) and a seeded entropy source (Python's hash
// secret, random's state) while Python starts; the real ones again afterwards.
const epochMs = Number(process.env.SOURCE_DATE_EPOCH || 315532800) * 1000;
const realNow = Date.now;
const realFill = crypto.randomFillSync;
const realGetRandomValues = globalThis.crypto.getRandomValues;
const realPerformanceNow = performance.now;
const clock = performance.now.bind(performance);
let state = 0x2545f491;
let ticks = 0;
Date.now = () => epochMs;
// `new Date()` reads the clock without Date.now (Emscripten's time zone set-up does).
const RealDate = Date;
globalThis.Date = class extends RealDate {
  constructor(...args) { if (args.length) super(...args); else super(epochMs); }
  static now() { return epochMs; }
};
performance.now = () => (ticks += 0.001); // monotonic, advancing by call, not by time
crypto.randomFillSync = globalThis.crypto.getRandomValues = (view) => {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let i = 0; i < bytes.length; i++) {
    state ^= state << 13; state ^= state >>> 17; state ^= state << 5; // xorshift32
    bytes[i] = state & 0xff;
  }
  return view;
};
process.argv.length = 1; // Emscripten records argv[1] as the program name

const started = clock();
const dir = pyodideDir.endsWith("/") ? pyodideDir : pyodideDir + "/";
const { loadPyodide } = await import(pathToFileURL(dir + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL: dir, _makeSnapshot: true, env: { PYTHONHASHSEED: "0" } });
pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel");
// The worker's warm-up and check (calculators.widgets.api), as Python source: no proxy of a
// Python object may be alive when the snapshot is taken.
pyodide.runPython("import calculators.widgets.api\ncalculators.widgets.api.warm_up()");
if (!pyodide.runPython("calculators.widgets.api.self_check()")) throw new Error("the calculators do not compute in node");
const snapshot = pyodide.makeMemorySnapshot();
globalThis.Date = RealDate;
Date.now = realNow;
crypto.randomFillSync = realFill;
globalThis.crypto.getRandomValues = realGetRandomValues;
performance.now = realPerformanceNow;
const made = clock();
const gzipped = gzipSync(snapshot, { level: 6 });
writeFileSync(outPath + ".part", gzipped);
renameSync(outPath + ".part", outPath);
console.log(JSON.stringify({ bytes: snapshot.length, gzipped: gzipped.length,
  make_ms: Math.round(made - started), gzip_ms: Math.round(clock() - made) }));
