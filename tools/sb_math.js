/* The page's mathematics typeset in short slices, the math on screen first (issue 33).
 *
 * Inlined by tools/sb_offline_assets.py into every page that loads MathJax, after Sphinx's
 * `window.MathJax = {...}` configuration and before the deferred tex-chtml.js runs.  MathJax's
 * own start typesets the whole page in one task (0.7-1.5 s on a chapter, long tasks that also
 * delay the reader's clicks and live mode's start); here its start typesets nothing
 * (startup.typeset = false) and pageReady typesets the page's math elements a few at a time,
 * each slice aimed at SLICE_MS of work, yielding to the browser between slices.  The same
 * MathJax, configuration and output (CHTML, assistive MathML, menu); a last pass over the
 * whole page catches any math outside Sphinx's math elements.  MathJax.startup.promise
 * resolves when every slice is done, as it did after the one pass.
 *
 * While live mode is busy (``window.sbLive.busyUntil()``: starting, or a control changed in
 * the last 0.4 s; a promise resolved when it is quiet again), only the math on screen is
 * typeset: the rest waits for that promise or for a scroll, so that the page's main thread
 * does not take a core from the worker on a two-core machine (a click often comes while the
 * page is still typesetting: ch11's 527 formulas take 2.5-5 s after navigation).
 *
 * Until the last slice, a chapter's sections below the first level that hold only prose and
 * math (no experiment, player, readout or answer box) are laid out and painted only near the
 * screen (``html.sb-typesetting``, spatialbook.css's content-visibility): each
 * slice then costs the browser the style and layout of what is near the reader, not of the
 * whole chapter (ch11's slices after the first screen: 25-40 ms of rendering each before,
 * 10-18 ms after).  Then the skipped sections are laid out one a frame and the class goes, so
 * that the page is whole again when MathJax.startup.promise resolves (a skipped section's
 * text is missing from innerText, and measuring anything in it lays it out at once).
 */
(function () {
  // the configuration object; once loaded, window.MathJax is MathJax itself (this object
  // becomes its .config), so the functions below look it up when they run
  var M = window.MathJax;
  if (!M || typeof M !== "object" || M.version) { return; }   // no config, or MathJax ran already
  var root = document.documentElement;
  root.classList.add("sb-typesetting");
  var SLICE_MS = 10;          // aimed work per slice (ms): under 50 even at 4x slower
  var MAX_N = 16;             // formulas per slice at most (one long display can cost 10-30 ms)
  var MARGIN = 300;           // px around the viewport counted as "on screen"

  // Yield to the page's other tasks between slices: a task of its own, queued behind them
  // (scheduler.yield's continuation would run ahead of every other task of its priority, so
  // a click's script, live mode's messages and the page's timers waited until the last slice:
  // ch11's Run live script ran 3.4 s after the click).  The math far from the viewport
  // (``far``) goes at background priority: after anything else the page has to do.
  function pause(far) {
    if (window.scheduler && typeof window.scheduler.postTask === "function") {
      return window.scheduler.postTask(function () {},
                                       { priority: far ? "background" : "user-visible" });
    }
    return new Promise(function (resolve) { setTimeout(resolve, 0); });
  }

  // (math inside a section the browser is skipping, spatialbook.css's content-visibility, is
  // off screen: asking for its box would lay the section out)
  function onScreen(el) {
    if (el.checkVisibility && !el.checkVisibility({ contentVisibilityAuto: true })) { return false; }
    var r = el.getBoundingClientRect(), h = window.innerHeight || 800;
    return (r.width > 0 || r.height > 0) && r.bottom > -MARGIN && r.top < h + MARGIN;
  }

  // ``list`` split into the elements on screen and the rest, each in page order
  function nearFirst(list) {
    var near = [], far = [];
    list.forEach(function (el) { (onScreen(el) ? near : far).push(el); });
    return { near: near, far: far };
  }

  // while live mode is busy (sb_live.js), a promise resolved when it is quiet; else null
  function liveBusy() {
    var live = window.sbLive;
    return live && typeof live.busyUntil === "function" ? live.busyUntil() : null;
  }

  // ``busy`` or the next scroll or resize, whichever comes first: "scroll" for the latter
  function busyOrScroll(busy) {
    var done;
    var scroll = new Promise(function (resolve) {
      done = function () { resolve("scroll"); };
      window.addEventListener("scroll", done, { passive: true });
      window.addEventListener("resize", done);
    });
    return Promise.race([busy, scroll]).then(function (why) {
      window.removeEventListener("scroll", done);
      window.removeEventListener("resize", done);
      return why;
    });
  }

  function typesetInSlices() {
    var MJ = window.MathJax, i = 0, n = 2;
    var split = nearFirst(Array.prototype.slice.call(document.querySelectorAll(".math")));
    var list = split.near.concat(split.far), nearEnd = split.near.length;
    // the elements after i split again (after a scroll): those on screen now come first
    function resplit() {
      var rest = nearFirst(list.slice(i));
      list = list.slice(0, i).concat(rest.near, rest.far);
      nearEnd = i + rest.near.length;
    }
    var seen = null;                        // the live start seen last
    function next() {
      var starting = window.sbLive && window.sbLive.starting;
      if (starting && starting !== seen) {  // a start: the math on screen now goes first
        seen = starting;
        resplit();
      }
      var busy = i >= nearEnd ? liveBusy() : null;
      if (busy) {                           // nothing on screen is left: wait for quiet
        return busyOrScroll(busy).then(function (why) {
          if (why === "scroll") { resplit(); }
          return next();
        });
      }
      if (i >= list.length) {               // a last pass for any math outside .math elements
        return MJ.typesetPromise();
      }
      var slice = list.slice(i, Math.min(i + n, i < nearEnd ? nearEnd : list.length));
      i += slice.length;
      var t0 = performance.now();
      return MJ.typesetPromise(slice).then(function () {
        var dt = Math.max(performance.now() - t0, 1);
        n = Math.max(1, Math.min(2 * n, MAX_N, Math.floor(n * SLICE_MS / dt)));
        return pause(i >= nearEnd).then(next);
      });
    }
    return next();
  }

  // Sections that hold the book's controls (an experiment, a player, a readout, an answer
  // box) are never skipped: their text stays in innerText and a script or a test that scrolls
  // to a control can read it at once.  (A code block's copy button does not count.)
  var INTERACTIVE = ".sb-frame-player, .sb-readout, .sb-answer-box, .sb-live-bar";
  // Only sections wholly below the screen are skipped: one above it (a reader who followed a
  // link to a section further down) keeps its height, so that laying the skipped ones out
  // later moves nothing on screen, even in a browser without scroll anchoring (Safari).
  function markSkippable() {
    var fold = (window.innerHeight || 800) + MARGIN;
    document.querySelectorAll("article section section").forEach(function (s) {
      if (!s.querySelector(INTERACTIVE) && s.getBoundingClientRect().top > fold) {
        s.classList.add("sb-skippable");
      }
    });
  }

  // the section's content is skipped by the browser (content-visibility: auto, off screen)
  function skipped(section) {
    var first = section.firstElementChild;
    return !!(first && first.checkVisibility && !first.checkVisibility({ contentVisibilityAuto: true }));
  }

  function frame() {
    return new Promise(function (resolve) {
      requestAnimationFrame(function () { setTimeout(resolve, 0); });
    });
  }

  // every section laid out again, a skipped one per frame (its own layout, not the chapter's
  // at once), waiting while live mode is busy; then html.sb-typesetting goes and the book's
  // other scripts hear "sb:typeset" (book/_static/sb_a11y.js measures what scrolls)
  function showAll() {
    var sections = Array.prototype.slice.call(document.querySelectorAll("section.sb-skippable"));
    var k = 0;
    function step() {
      var busy = liveBusy();
      if (busy) { return busy.then(step); }
      while (k < sections.length && !skipped(sections[k])) { sections[k++].classList.add("sb-shown"); }
      if (k < sections.length) {
        sections[k++].classList.add("sb-shown");
        return frame().then(step);
      }
      root.classList.remove("sb-typesetting");
      document.dispatchEvent(new Event("sb:typeset"));
      return undefined;
    }
    return step();
  }

  var startup = M.startup || {};
  var ready = startup.pageReady;
  M.startup = Object.assign({}, startup, {
    typeset: false,
    pageReady: function () {
      var first = ready ? ready() : window.MathJax.startup.defaultPageReady();
      markSkippable();
      // how many sections the browser skipped as typesetting began: for the tests
      window.sbMath = { skippedAtStart: Array.prototype.filter.call(
        document.querySelectorAll("section.sb-skippable"), skipped).length };
      return Promise.resolve(first).then(typesetInSlices).then(showAll);
    }
  });
})();
