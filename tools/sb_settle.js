/* A chapter's far sections laid out after the page is shown, a few milliseconds at a time
 * (issue 33).
 *
 * Inlined by tools/sb_offline_assets.py into the head of every page with mathematics.  The
 * math is typeset when the book is built (tools/sb_math_render.js), so a chapter arrives as a
 * few thousand MathJax elements; laying all of them out at once made the page's first tasks
 * long (ch11, 527 formulas: six tasks of 120-360 ms).  So, on a fresh visit, while
 * ``html.sb-settling`` is on, the prose and math blocks of a chapter's sections (paragraphs,
 * displayed formulas, lists, quotes, tables, dropdowns: never one of the book's controls,
 * which live in cells' outputs; tests/browser/test_static_site.py checks) are left to the browser's content-visibility (spatialbook.css): it lays out
 * and paints only those near the screen.  Once the page is shown, the blocks are laid out
 * again (``.sb-shown``), as many a task as BUDGET_MS allows, waiting while live mode is busy
 * (``window.sbLive.busyUntil()``: starting, or a control changed in the last 0.4 s), so that
 * the page's main thread does not take a core from the worker on a two-core machine; then
 * ``html.sb-settled`` is set and the book's other scripts hear "sb:settled"
 * (book/_static/sb_a11y.js measures what scrolls): the page is whole again (a skipped
 * block's text is missing from innerText, and measuring anything in it lays it out at once).
 * ``window.sbSettle``: ``skippedAtStart`` (blocks skipped when the page was first shown, for
 * the tests) and ``settled`` (a promise, resolved at the end).
 *
 * A visit that lands inside the chapter (a link to a section, a reload, back or forward: the
 * browser restores a scroll position) lays everything out at once instead: a skipped block
 * above the screen has a guessed height, and laying it out later would move what the reader
 * sees in a browser without scroll anchoring (Safari).
 */
(function () {
  var root = document.documentElement;
  var nav = window.performance && performance.getEntriesByType
    ? performance.getEntriesByType("navigation")[0] : null;
  var landing = !!location.hash || (nav && nav.type !== "navigate");
  var done;
  window.sbSettle = { skippedAtStart: 0,
                      settled: new Promise(function (resolve) { done = resolve; }) };
  if (landing) { done(); return; }
  root.classList.add("sb-settling");
  // the prose and math blocks of a chapter's sections (paragraphs, displayed formulas, lists,
  // quotes, tables, dropdowns): never one of the book's controls, which live in cells'
  // outputs; spatialbook.css's rule names the same ones
  var SKIPPABLE = ["p", "div.math", "ul", "ol", "dl", "blockquote", "table",
                   "div.pst-scrollable-table-container", "details.dropdown",
                   "div.dropdown"].map(function (b) {
    return "article section > " + b;
  }).join(", ");
  var BUDGET_MS = 8;          // layout per task (ms): well under 50 even at 4x slower

  // while live mode is busy (sb_live.js), a promise resolved when it is quiet; else null
  function liveBusy() {
    var live = window.sbLive;
    return live && typeof live.busyUntil === "function" ? live.busyUntil() : null;
  }

  // the block's content is skipped by the browser (content-visibility: auto, off screen)
  function skipped(el) {
    var first = el.firstElementChild;
    return !!(first && first.checkVisibility &&
              !first.checkVisibility({ contentVisibilityAuto: true }));
  }

  function frame() {
    return new Promise(function (resolve) {
      requestAnimationFrame(function () { setTimeout(resolve, 0); });
    });
  }

  // each skipped block laid out again (.sb-shown), as many a task as BUDGET_MS allows (each
  // laid out at once, by reading its height, so that the work is timed here and not left to
  // the next frame)
  function showAll() {
    var blocks = Array.prototype.slice.call(document.querySelectorAll(SKIPPABLE));
    window.sbSettle.skippedAtStart = blocks.filter(skipped).length;
    var k = 0;
    function step() {
      var busy = liveBusy();
      if (busy) { return busy.then(step); }
      var t0 = performance.now();
      while (k < blocks.length && performance.now() - t0 < BUDGET_MS) {
        var el = blocks[k++];
        el.classList.add("sb-shown");
        void el.offsetHeight;
      }
      if (k < blocks.length) { return frame().then(step); }
      // (sb-settling stays: taking it off would have the browser restyle the whole page, a
      // 120-170 ms task on ch11; no rule matches a shown block any more)
      root.classList.add("sb-settled");
      document.dispatchEvent(new Event("sb:settled"));
      done();
      return undefined;
    }
    return step();
  }

  // after the page's first frame: what is on screen is drawn before anything else is laid out
  function start() { frame().then(showAll); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
