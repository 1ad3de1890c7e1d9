// On every page: a visible cue on whatever scrolls sideways inside the page (tables, notebook
// outputs and charts, code), so that a phone reader knows there is more to the right.
//
// Each scroller gets a frame (a wrapper, or the <pre> of a code block) carrying data-scroll
// while it scrolls and data-scroll-left / data-scroll-right while there is more to see on that
// side; site.css draws a fade on that edge, a shadow on a table's pinned first column, and a
// hint line above a table or notebook chart that scrolls ("Scroll sideways to see all 9
// columns"). A widget's result table is its own frame: widgets.js patches the result in place
// on every recompute (it ignores these data-scroll attributes), so nothing may be inserted
// around it; its fades are backgrounds and its hint follows its caption (widgets.css).
// Material wraps tables after this script runs and widgets add tables as the reader changes
// inputs, so new content is picked up by a MutationObserver; the state follows scrolling and
// resizing.
(function () {
  "use strict";
  if (!("ResizeObserver" in window)) return;
  // What may scroll sideways: Material's table wrapper, a widget's result table (its own
  // scroller), notebook outputs (text and images), code blocks.
  var SCROLLERS = [".md-typeset__scrollwrap", "table.mlhw-table", ".jupyter-wrapper .jp-RenderedText > pre",
    ".jupyter-wrapper .jp-RenderedImage", ".md-typeset pre > code"].join(",");
  var framed = new WeakMap(); // scroller -> its frame
  var resized = new ResizeObserver(function (entries) { entries.forEach(function (entry) { update(entry.target); }); });

  function update(scroller) {
    var frame = framed.get(scroller);
    if (!frame) return;
    var room = scroller.scrollWidth - scroller.clientWidth;
    var left = room > 1 && scroller.scrollLeft > 1;
    var right = room > 1 && scroller.scrollLeft < room - 1;
    toggle(frame, "data-scroll", room > 1);
    toggle(frame, "data-scroll-left", left);
    toggle(frame, "data-scroll-right", right);
  }

  function toggle(element, name, on) {
    if (on !== element.hasAttribute(name)) {
      if (on) element.setAttribute(name, "");
      else element.removeAttribute(name);
    }
  }

  function columns(scroller) {
    var row = scroller.querySelector("tr");
    if (!row) return 0;
    var count = 0;
    Array.prototype.forEach.call(row.cells, function (cell) { count += cell.colSpan || 1; });
    return count;
  }

  function frame(scroller) {
    if (framed.has(scroller)) return;
    var box = scroller;
    if (scroller.matches("table.mlhw-table")) {
      // On the caption, where widgets.css's hint reads it (CSS attr() reads the element's own attributes).
      if (scroller.caption) scroller.caption.setAttribute("data-scroll-columns", String(columns(scroller)));
    } else if (scroller.tagName === "CODE") {
      box = scroller.parentNode; // the <pre>: Material positions its copy button in it
    } else {
      box = document.createElement("div");
      scroller.parentNode.insertBefore(box, scroller);
      box.appendChild(scroller);
    }
    if (box !== scroller) {
      box.classList.add("mlhw-scroll-frame");
      var table = scroller.querySelector(":scope > .md-typeset__table > table");
      if (table) box.classList.add("mlhw-scroll-table");
      var what = table ? "all " + columns(table) + " columns" : scroller.matches(".jp-RenderedImage") ? "the whole chart" : "";
      if (what) {
        var hint = document.createElement("p");
        hint.className = "mlhw-scroll-hint";
        hint.setAttribute("aria-hidden", "true"); // the table or chart itself is what a screen reader reads
        hint.textContent = "Scroll sideways to see " + what + " \u2192";
        box.insertBefore(hint, box.firstChild);
      }
    }
    framed.set(scroller, box);
    scroller.addEventListener("scroll", function () { update(scroller); }, { passive: true });
    resized.observe(scroller);
    update(scroller);
  }

  function scan(root) {
    if (root.nodeType !== 1) return;
    if (root.matches(SCROLLERS)) frame(root);
    Array.prototype.forEach.call(root.querySelectorAll(SCROLLERS), frame);
  }

  function start() {
    var content = document.querySelector(".md-content") || document.body;
    scan(content);
    new MutationObserver(function (records) {
      records.forEach(function (record) { Array.prototype.forEach.call(record.addedNodes, scan); });
    }).observe(content, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
})();
