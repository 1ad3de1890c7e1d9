// Service worker of the site (template: scripts/mkdocs_hooks.py writes it to <site>/sw.js
// with VERSION, a hash of the wheel and of the widget runtime, BUILD, a hash of the whole
// build (every page and asset, and VERSION), and the lists below).
//
// Two caches, so that reading the whole guide offline costs a few MB and the ~40 MB Python
// runtime is stored only for a reader of a page with a calculator:
// * the guide (mlhw-guide-BUILD): every page, the offline page, the theme, the search
//   index and its worker, the images; stored when the worker installs, i.e. on the first
//   visit to any page (assets/offline.js registers it; on pages with a calculator,
//   widgets.js does once Python is live). A text edit renames it, the runtime stays.
// * the runtime (mlhw-VERSION): Pyodide, the wheel, the memory snapshot, each under its
//   address with ?v=VERSION, as the pages of this build ask for them; stored when the worker
//   installs from a page with a calculator (or after an update, if the reader had one), or
//   when such a page asks ("precache-runtime").
//
// One build, never two: what a new build serves at the same address must not meet what an
// older one cached, whatever caching headers the server sends (none, or max-age=600, let the
// browser reuse its HTTP cache for minutes). So this worker stores only files it fetched past
// the HTTP cache and checked to be of its build (a page's <meta name="mlhw-build">, the
// manifest's version), answers from its caches only for its build (a runtime address with
// another ?v= goes to the network), fetches every page past the HTTP cache, and tells open
// pages when it takes over, so that a page of an older build offers to reload.
const VERSION = "__VERSION__";
const BUILD = "__BUILD__";
const CACHE = `mlhw-${VERSION}`;
const GUIDE_CACHE = `mlhw-guide-${BUILD}`;
const RUNTIME = [/* __RUNTIME__ */];
const GUIDE = [/* __GUIDE__ */];
const WIDGET_PAGES = [/* __WIDGET_PAGES__ */];
const OFFLINE_PAGE = "__OFFLINE_PAGE__";
const scope = new URL(self.registration.scope);
const href = (path) => new URL(path, scope).href;
// A runtime file's address as this build's pages ask for it.
const versioned = (path) => `${href(path)}?v=${VERSION}`;
const runtime = new Set(RUNTIME.map((path) => new URL(path, scope).pathname));
const widgetPages = new Set(WIDGET_PAGES.map((path) => new URL(path, scope).pathname));
const BUILD_META = /<meta name="mlhw-build" content="([^"]*)"/;

async function sha256(response) {
  const digest = await crypto.subtle.digest("SHA-256", await response.clone().arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Throws unless `response` (to `url`) belongs to this build: a page must name it, the manifest
// this version, the wheel have the manifest's SHA-256, the worker script carry this version.
async function check(url, response, manifest) {
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  let other = "";
  if ((response.headers.get("content-type") || "").startsWith("text/html")) {
    const found = BUILD_META.exec(await response.clone().text());
    if (found && found[1] !== BUILD) other = `build ${found[1]}`;
  } else if (url === versioned("wheels/manifest.json")) {
    const version = (await response.clone().json()).version;
    if (version !== VERSION) other = `version ${version}`;
  } else if (url.endsWith(".whl?v=" + VERSION)) {
    if (!manifest || (await sha256(response)) !== manifest.sha256) other = "another wheel";
  } else if (url === versioned("assets/pyodide-worker.js")) {
    if (!(await response.clone().text()).includes(`"${VERSION}"`)) other = "another worker script";
  }
  if (other) throw new Error(`${url} is of ${other}, not of this build (${BUILD}, runtime ${VERSION})`);
}
// This version's manifest, once stored.
async function storedManifest() {
  const response = await caches.match(versioned("wheels/manifest.json"), { cacheName: CACHE });
  return response ? response.json() : null;
}

// Stores what is missing (a new guide version must not download the runtime again), each file
// fetched from the server itself (revalidated, never a stale HTTP-cache copy) and checked.
async function store(cacheName, urls) {
  const cache = await caches.open(cacheName);
  for (const url of urls) {
    if (await cache.match(url)) continue;
    const response = await fetch(url, { cache: "no-cache" });
    await check(url, response, await storedManifest());
    await cache.put(url, response);
  }
}
// The manifest first: the wheel is checked against it.
const storeRuntime = () => store(CACHE, [versioned("wheels/manifest.json"), ...RUNTIME.map(versioned)]);

// The reader opened a page with a calculator, or had the runtime of an earlier build saved:
// save this build's runtime too, so that calculators still work offline after an update.
async function wantsRuntime() {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  if (windows.some((client) => widgetPages.has(new URL(client.url).pathname))) return true;
  return (await caches.keys()).some((key) => key.startsWith("mlhw-") && !key.startsWith("mlhw-guide-"));
}

// Tells the open pages this build's id: a page of another build offers to reload
// (assets/offline.js). Sent once this build is saved, and again when it takes over: an
// older worker stays active while the tabs it serves are open (see "install").
async function announce() {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  windows.forEach((client) => client.postMessage({ type: "mlhw-build", build: BUILD }));
}

// No skipWaiting here: this worker takes over once no tab the older one serves is left, or when
// the one tab left, a page of this build, asks ("take-over", assets/offline.js); the first
// install takes over at once (activate claims the open pages). With skipWaiting, the browser
// made the older worker redundant as soon as it was idle, even while it was answering a tab's
// navigation (a tab left on the older build, reloaded once this build was saved): that tab then
// never reached "load" (issue 30). Until then the older worker serves this build's pages from
// the server, and passes this build's runtime addresses (another ?v=) to the network.
self.addEventListener("install", (event) => {
  event.waitUntil(
    Promise.all([store(GUIDE_CACHE, GUIDE.map(href)), wantsRuntime().then((yes) => (yes ? storeRuntime() : null))])
      .then(announce),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith("mlhw-") && key !== CACHE && key !== GUIDE_CACHE)
        .map((key) => caches.delete(key))))
      .then(() => self.clients.claim())
      .then(announce),
  );
});

// A page with a calculator asks once Python is live (the runtime is then in the HTTP cache);
// a page of another build is ignored (work here would keep this worker from giving way to it).
self.addEventListener("message", (event) => {
  const asked = event.data;
  if (asked && asked.type === "precache-runtime" && (!asked.version || asked.version === VERSION)) {
    event.waitUntil(storeRuntime().catch(() => {}));
  }
  // A loaded page of this build asks this worker, if waiting, to take over: done only when that
  // page is the one window left, so that no tab is mid-navigation through the older worker.
  if (asked && asked.type === "take-over" && asked.build === BUILD) {
    event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true })
      .then((windows) => (windows.length <= 1 ? self.skipWaiting() : null)));
  }
});

async function offlineCopy(request) {
  const cached = await caches.match(request, { cacheName: GUIDE_CACHE, ignoreSearch: true });
  if (cached) return cached;
  if (request.mode === "navigate") {
    const offline = await caches.match(href(OFFLINE_PAGE), { cacheName: GUIDE_CACHE });
    if (offline) return offline;
  }
  return null;
}

// The server's current copy (past the HTTP cache unless the address names its version);
// offline, this build's copy.
async function networkFirst(request, url) {
  try {
    return await fetch(request, url.searchParams.has("v") ? {} : { cache: "no-cache" });
  } catch (error) {
    const cached = await offlineCopy(request);
    if (cached) return cached;
    throw error;
  }
}

// This build's runtime file from its cache; else from the network, kept (once checked) for
// offline visits: the page's first boot stores most of the runtime on its way.
async function cacheFirst(request, url) {
  const key = versioned(url.pathname);
  const cached = await caches.match(key, { cacheName: CACHE });
  if (cached) return cached;
  const response = await fetch(request);
  if (url.searchParams.get("v") === VERSION) keep(key, response.clone());
  return response;
}
async function keep(key, response) {
  try {
    await check(key, response, await storedManifest());
    await (await caches.open(CACHE)).put(key, response);
  } catch (error) {
    // another build's file, or a failed download: not kept
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== scope.origin) return;
  if (request.mode !== "navigate" && runtime.has(url.pathname)) {
    // This build's runtime from its cache; another build's (a page loaded before an update)
    // from the network, where the page's worker checks that it got the build it asked for.
    const version = url.searchParams.get("v");
    if (version === null || version === VERSION) event.respondWith(cacheFirst(request, url));
    return;
  }
  event.respondWith(networkFirst(request, url));
});
