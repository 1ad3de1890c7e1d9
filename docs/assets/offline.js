// Registers the service worker (sw.js at the site root) on every page, so that one visit to
// any page saves the whole guide for offline reading. Pages with a calculator leave it to
// widgets.js, which registers once Python is live (earlier, the runtime would download twice).
(function () {
  if (!("serviceWorker" in navigator) || !window.isSecureContext || location.protocol === "file:") return;
  if (document.querySelector("[data-calculator]")) return;
  var script = document.currentScript;
  if (!script) return;
  var root = new URL("..", script.src);  // this file is <root>/assets/offline.js
  function register() {
    navigator.serviceWorker.register(new URL("sw.js", root).href, { scope: root.pathname })
      .catch(function () { /* offline reading is a bonus; the page works without */ });
  }
  // After the page's own work: saving the guide (a few MB) must not compete with the first paint.
  window.addEventListener("load", function () {
    var idle = window.requestIdleCallback || function (callback) { setTimeout(callback, 1000); };
    idle(register, { timeout: 3000 });
  }, { once: true });
})();
