// Service worker of the site (template: scripts/mkdocs_hooks.py writes it to <site>/sw.js
// with VERSION, a hash of the wheel and of the widget runtime, GUIDE_VERSION, a hash of the
// guide's files, and the lists below).
//
// Two caches, so that reading the whole guide offline costs a few MB and the ~40 MB Python
// runtime is stored only for a reader of a page with a calculator:
// * the guide (mlhw-guide-GUIDE_VERSION): every page, the offline page, the theme, the search
//   index and its worker, the images; stored when the worker installs, i.e. on the first
//   visit to any page (assets/offline.js registers it; on pages with a calculator,
//   widgets.js does once Python is live). A text edit renames it, the runtime stays.
// * the runtime (mlhw-VERSION): Pyodide, the wheel, the memory snapshot; stored when the
//   worker installs from a page with a calculator, or when such a page asks ("precache-runtime").
// Precached runtime files are served cache-first (they change only with VERSION); everything
// else on this origin network-first with the cached copy when offline, and a navigation
// to an address with no copy gets the offline page.
const VERSION = "__VERSION__";
const CACHE = `mlhw-${VERSION}`;
const GUIDE_CACHE = `mlhw-guide-${"__GUIDE_VERSION__"}`;
const RUNTIME = [/* __RUNTIME__ */];
const GUIDE = [/* __GUIDE__ */];
const WIDGET_PAGES = [/* __WIDGET_PAGES__ */];
const OFFLINE_PAGE = "__OFFLINE_PAGE__";
const scope = new URL(self.registration.scope);
const href = (path) => new URL(path, scope).href;
const runtime = new Set(RUNTIME.map((path) => new URL(path, scope).pathname));
const widgetPages = new Set(WIDGET_PAGES.map((path) => new URL(path, scope).pathname));

// Only what is missing: a new guide version must not download the runtime again.
async function store(cacheName, paths) {
  const cache = await caches.open(cacheName);
  const missing = [];
  for (const path of paths) if (!(await cache.match(href(path), { ignoreSearch: true }))) missing.push(href(path));
  await cache.addAll(missing);
}

async function openedFromCalculatorPage() {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  return windows.some((client) => widgetPages.has(new URL(client.url).pathname));
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    Promise.all([store(GUIDE_CACHE, GUIDE),
      openedFromCalculatorPage().then((yes) => (yes ? store(CACHE, RUNTIME) : null))])
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith("mlhw-") && key !== CACHE && key !== GUIDE_CACHE)
        .map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

// A page with a calculator asks once Python is live (the runtime is then in the HTTP cache).
self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "precache-runtime") event.waitUntil(store(CACHE, RUNTIME));
});

async function networkFirst(request, cacheName) {
  try {
    const response = await fetch(request);
    // A redirected response cannot answer a navigation later; the address it came from is kept.
    if (response.ok && !response.redirected) (await caches.open(cacheName)).put(request, response.clone());
    return response;
  } catch (error) {
    const cached = await caches.match(request, { ignoreSearch: true });
    if (cached) return cached;
    if (request.mode === "navigate") {
      const offline = await caches.match(href(OFFLINE_PAGE));
      if (offline) return offline;
    }
    throw error;
  }
}

async function cacheFirst(request) {
  const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
  return cached || networkFirst(request, CACHE);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== scope.origin) return;
  // Pages and the search index change with every edit of the text, which VERSION does not
  // track: network first, the cached copy when offline.
  event.respondWith(request.mode !== "navigate" && runtime.has(url.pathname)
    ? cacheFirst(request) : networkFirst(request, GUIDE_CACHE));
});
