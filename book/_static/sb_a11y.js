// Keyboard access to scrolled regions (axe's "scrollable-region-focusable"): a code block, a
// cell's output or a table wider or taller than its box gets tabindex 0, any other -1, as
// pydata-sphinx-theme's own script does, on load, after a resize and after the article changes
// (a block laid out again), each 300 ms after the last.  The theme's script measured every
// such element of the page in one task; with a chapter's far blocks skipped by the browser
// while the page settles (tools/sb_settle.js, spatialbook.css's content-visibility) each
// measurement there lays its block out, and that task took 100-116 ms on ch11 (issue 33: no
// long task beside live mode's start).
// tools/sb_offline_assets.py therefore hands the theme's measuring to ``window.sbScrollables``
// below, which measures a few milliseconds at a time and only what the browser has laid out:
// an element in a skipped section gets tabindex 0 (the keyboard reaches it, and focusing it
// brings it on screen) until the page has settled ("sb:settled", every block laid out again)
// and everything is measured.
(function () {
  var SELECTOR = ["pre", ".nboutput > .output_area", ".cell_output > .output",
                  ".jp-RenderedHTMLCommon", ".pst-scrollable-table-container"].join(", ");
  var SLICE_MS = 8;            // measuring per task (ms)
  var DEBOUNCE_MS = 300;       // the theme's wait after a resize or a change

  function pause() {
    if (window.scheduler && typeof window.scheduler.postTask === "function") {
      return window.scheduler.postTask(function () {}, { priority: "background" });
    }
    return new Promise(function (resolve) { setTimeout(resolve, 0); });
  }

  // inside a section the browser skips (measuring it would lay the section out)
  function skipped(el) {
    return !!el.checkVisibility && !el.checkVisibility({ contentVisibilityAuto: true });
  }

  var running = null, again = false, timer = null, waiters = [];
  // every element of SELECTOR measured, a slice per task; a promise, resolved when done
  function measure() {
    if (running) { again = true; return running; }
    var list = Array.prototype.slice.call(document.querySelectorAll(SELECTOR)), i = 0;
    function slice() {
      var t0 = performance.now();
      while (i < list.length && performance.now() - t0 < SLICE_MS) {
        var el = list[i++];
        if (!el.isConnected) { continue; }
        el.tabIndex = skipped(el) || el.scrollWidth > el.clientWidth
          || el.scrollHeight > el.clientHeight ? 0 : -1;
      }
      if (i < list.length) { return pause().then(slice); }
      running = null;
      if (again) { again = false; return measure(); }
      settle();
      return undefined;
    }
    running = Promise.resolve().then(slice);
    return running;
  }

  function later() {
    clearTimeout(timer);
    timer = setTimeout(function () { timer = null; measure(); }, DEBOUNCE_MS);
  }
  function settle() {
    if (!running && timer === null) { waiters.splice(0).forEach(function (f) { f(); }); }
  }

  // called by the theme's script (patched by tools/sb_offline_assets.py) on the page's load
  window.sbScrollables = function () {
    window.sbScrollables.called = true;
    window.addEventListener("resize", later);
    var main = document.getElementById("main-content");
    if (main && window.MutationObserver) {
      new MutationObserver(later).observe(main, { subtree: true, childList: true });
    }
    document.addEventListener("sb:settled", later);   // tools/sb_settle.js: all laid out again
    return measure();
  };
  // a promise resolved once no measuring is under way or waiting: for the tests
  window.sbScrollables.settled = function () {
    return new Promise(function (resolve) { waiters.push(resolve); settle(); });
  };
})();
