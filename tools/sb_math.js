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
 */
(function () {
  // the configuration object; once loaded, window.MathJax is MathJax itself (this object
  // becomes its .config), so the functions below look it up when they run
  var M = window.MathJax;
  if (!M || typeof M !== "object" || M.version) { return; }   // no config, or MathJax ran already
  var SLICE_MS = 20;          // aimed work per slice (ms): under 50 even at 2x slower
  var MARGIN = 300;           // px around the viewport counted as "on screen"

  function pause() {
    if (window.scheduler && typeof window.scheduler.yield === "function") {
      return window.scheduler.yield();
    }
    return new Promise(function (resolve) { setTimeout(resolve, 0); });
  }

  function mathElements() {
    var all = Array.prototype.slice.call(document.querySelectorAll(".math"));
    var near = [], far = [], h = window.innerHeight || 800;
    all.forEach(function (el) {
      var r = el.getBoundingClientRect();
      var shown = (r.width > 0 || r.height > 0) && r.bottom > -MARGIN && r.top < h + MARGIN;
      (shown ? near : far).push(el);
    });
    return near.concat(far);
  }

  function typesetInSlices() {
    var MJ = window.MathJax, list = mathElements(), i = 0, n = 2;
    function next() {
      if (i >= list.length) {               // a last pass for any math outside .math elements
        return MJ.typesetPromise();
      }
      var slice = list.slice(i, i + n);
      i += slice.length;
      var t0 = performance.now();
      return MJ.typesetPromise(slice).then(function () {
        var dt = Math.max(performance.now() - t0, 1);
        n = Math.max(1, Math.min(2 * n, 64, Math.floor(n * SLICE_MS / dt)));
        return pause().then(next);
      });
    }
    return next();
  }

  var startup = M.startup || {};
  var ready = startup.pageReady;
  M.startup = Object.assign({}, startup, {
    typeset: false,
    pageReady: function () {
      var first = ready ? ready() : window.MathJax.startup.defaultPageReady();
      return Promise.resolve(first).then(typesetInSlices);
    }
  });
})();
