// On every page: registers the service worker (sw.js at the site root), so that one visit to
// any page saves the whole guide for offline reading (pages with a calculator leave that to
// widgets.js, which registers once Python is live: earlier, the runtime would download
// twice), and offers to reload when a new build of the site has been published since this page
// was loaded. The page knows its build (<meta name="mlhw-build">); it learns of another from the
// service worker taking over with it, from widgets.js finding the server's runtime newer, or,
// with no service worker serving the page, from the server's build.json (asked past the HTTP
// cache once the page has loaded).
(function () {
  var script = document.currentScript;
  if (!script || location.protocol === "file:") return;
  var root = new URL("..", script.src); // this file is <root>/assets/offline.js
  var meta = document.querySelector('meta[name="mlhw-build"]');
  var build = meta ? meta.getAttribute("content") : "";

  function offerReload() {
    if (document.getElementById("mlhw-new-version")) return;
    var bar = document.createElement("div");
    bar.id = "mlhw-new-version";
    bar.className = "mlhw-new-version";
    bar.setAttribute("role", "status");
    var text = document.createElement("span");
    text.textContent = "A new version of this guide has been published since this page was loaded. ";
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = "Reload";
    button.addEventListener("click", function () { location.reload(); });
    bar.append(text, button);
    document.body.appendChild(bar);
  }
  document.addEventListener("mlhw:new-version", offerReload);
  var workers = "serviceWorker" in navigator && window.isSecureContext ? navigator.serviceWorker : null;
  if (workers) {
    workers.addEventListener("message", function (event) {
      if (event.data && event.data.type === "mlhw-build" && build && event.data.build !== build) offerReload();
    });
    workers.startMessages();
  }

  function register() {
    workers.register(new URL("sw.js", root).href, { scope: root.pathname })
      .catch(function () { /* offline reading is a bonus; the page works without */ });
  }
  function askServer() {
    if (!build || (workers && workers.controller)) return; // a service worker fetched this page fresh
    fetch(new URL("build.json", root).href, { cache: "no-cache" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (now) { if (now && now.build && now.build !== build) offerReload(); })
      .catch(function () { /* offline: nothing to compare */ });
  }
  // After the page's own work: saving the guide (a few MB) must not compete with the first paint.
  window.addEventListener("load", function () {
    var idle = window.requestIdleCallback || function (callback) { setTimeout(callback, 1000); };
    idle(function () {
      askServer();
      if (workers && !document.querySelector("[data-calculator]")) register();
      // A newer worker waiting (sw.js "install"): a page of its build asks it to take over.
      if (workers && build) {
        workers.getRegistration(root.href).then(function (registration) {
          if (registration && registration.waiting) registration.waiting.postMessage({ type: "take-over", build: build });
        }).catch(function () { /* no worker: nothing to hand over */ });
      }
    }, { timeout: 3000 });
  }, { once: true });
})();
