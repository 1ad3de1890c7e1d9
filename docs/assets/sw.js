// Service worker of the site (template: scripts/mkdocs_hooks.py writes it to <site>/sw.js
// with VERSION, a hash of the wheel and of the widget runtime, and the PRECACHE list).
//
// It precaches the Pyodide runtime, the wheel, the widget scripts, the theme's bundles,
// the search index with its worker and the pages with calculators, so a repeat visit
// (search included) works with the server gone:
// cache-first for precached runtime files (they change only with VERSION), network-first with
// a cached fallback for everything else on this origin (pages are stored as visited).
const VERSION = "__VERSION__";
const CACHE = `mlhw-${VERSION}`;
const PRECACHE = [/* __PRECACHE__ */];
const scope = new URL(self.registration.scope);
const precached = new Set(PRECACHE.map((path) => new URL(path, scope).pathname));

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((path) => new URL(path, scope).href)))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith("mlhw-") && key !== CACHE)
        .map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) cache.put(request, response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(request, { ignoreSearch: true });
    if (cached) return cached;
    throw error;
  }
}

async function cacheFirst(request) {
  const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
  return cached || networkFirst(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== scope.origin) return;
  // Pages and the search index change with every edit of the text, which VERSION does not
  // track: network first, the precached copy when offline.
  const changesWithText = request.mode === "navigate" || url.pathname.endsWith("/search/search_index.json");
  event.respondWith(!changesWithText && precached.has(url.pathname) ? cacheFirst(request) : networkFirst(request));
});
