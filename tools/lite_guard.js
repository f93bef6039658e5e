/* The book's JupyterLite pages: say what is missing instead of hanging (issue 35).
 *
 * Loaded first by each page of the lite site (tools/lite_site.py puts it before JupyterLite's
 * own start).  JupyterLite needs the page served over http(s) (its parts are fetched as files
 * a file:// page may not read) and hands the site's files to Python through a service worker,
 * which browsers offer only to pages on https or on this machine (127.0.0.1, localhost), and
 * not in some private windows; with no service worker the kernel waits for one for ever.
 *
 * Opened from a file, or where the browser has no service workers (and the page is not
 * cross-origin isolated, JupyterLite's other way), this script sets ``window.sbLiteStop``
 * (the start then does nothing) and shows what is missing and how to open the page instead.
 * Where the browser has them but does not register JupyterLite's (refused, or no
 * registration comes back), it shows the same over the app.
 *
 * Where JupyterLite can run and the page opens a notebook (``?path=<...>.ipynb``), it starts
 * the kernel's worker at once (:func:`startKernelEarly`) instead of when JupyterLab asks.
 */
(function () {
  "use strict";
  var me = document.currentScript;
  var here = location.pathname, at = here.lastIndexOf("/lite/");
  var served = "http://127.0.0.1:8000" + (at >= 0 ? here.slice(at) : "/lite/") + location.search;

  function show(title, lines) {
    var box = document.createElement("div");
    box.className = "sb-lite-missing";
    box.setAttribute("role", "alert");
    box.style.cssText = "position:fixed;inset:0;z-index:100000;background:#fff;color:#111;" +
      "font:16px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;padding:3em max(1.5em,10vw);overflow:auto";
    var h = document.createElement("h1");
    h.style.cssText = "font-size:1.4em;margin:0 0 .8em";
    h.textContent = title;
    box.appendChild(h);
    lines.forEach(function (line) {
      var p = document.createElement("p");
      if (typeof line === "string") { p.textContent = line; }
      else {
        p.appendChild(document.createTextNode(line[0]));
        var a = document.createElement("a");
        a.href = line[1];
        a.textContent = line[1];
        p.appendChild(a);
        p.appendChild(document.createTextNode(line[2] || ""));
      }
      box.appendChild(p);
    });
    var put = function () { document.body.appendChild(box); };
    if (document.body) { put(); } else { document.addEventListener("DOMContentLoaded", put); }
  }

  var serve = ["Serve the book with make serve (in the book's folder; it serves on this " +
               "machine only) and open ", served, " in a normal window."];
  var rest = "The book's pages read as before; only editing and running the notebooks needs this.";

  if (location.protocol === "file:") {
    window.sbLiteStop = "file";
    show("Editing in the browser needs the book served over http", [
      "This page is JupyterLite: it runs the chapter's Python in your browser.  Opened from a " +
      "file it cannot start: the browser lets a file page neither fetch the app's parts nor " +
      "run the service worker that hands the book's files to Python.", serve, rest]);
    return;
  }
  var noWorker = function (detail) {
    return ["JupyterLite hands the book's files to Python through a service worker, and this " +
            "browser gives this page none: " + detail, serve, rest];
  };
  var why = !window.isSecureContext
    ? "the page comes over plain http from " + location.host + ", and browsers allow service " +
      "workers only on https or on this machine (127.0.0.1, localhost)."
    : "service workers are turned off (a private window, or a setting of the browser).";
  if (!("serviceWorker" in navigator) && !window.crossOriginIsolated) {
    window.sbLiteStop = "no service worker";
    show("Editing in the browser needs service workers", noWorker(why));
    return;
  }
  if ("serviceWorker" in navigator) {
    var sw = navigator.serviceWorker, register = sw.register;
    sw.register = function () {
      var refused = function (what) {
        if (window.crossOriginIsolated) { return; }
        window.sbLiteStop = "service worker refused";
        show("Editing in the browser needs service workers", noWorker(
          "it did not register JupyterLite's (" + what + "): service workers are turned off " +
          "(a private window, or a setting of the browser)."));
      };
      var p = register.apply(sw, arguments);
      p.then(function (reg) { if (!reg) { refused("no registration came back"); } },
             function (e) { refused(e && e.message ? e.message : String(e)); });
      return p;
    };
  }
  if (!startKernelEarly()) { prefetch(); }

  /* The kernel's big files (tools/lite_site.py ``boot_archives``, the interpreter), fetched
   * now into the browser's HTTP cache when the kernel's worker does not start now. */
  function prefetch() {
    var root = at >= 0 ? here.slice(0, at) : "";
    ["/_pyodide/pyodide.asm.wasm", "/_pyodide/pyodide.asm.js", "/_live/python_stdlib_pyc.zip",
     "/_live/sb_site.tar.gz", "/lite/pyodide/sb_lite_site.tar.gz", "/_live/sb_packages.zip"]
      .forEach(function (u) {
        fetch(root + u).then(function (r) { return r.arrayBuffer(); }).catch(function () {});
      });
  }

  /* The kernel's worker, created now rather than once JupyterLab has started and drawn the
   * notebook (4-16 s later on this machine): the book's worker script (tools/
   * lite_kernel_worker.js) boots Pyodide and imports the book's packages while JupyterLab
   * starts, then runs the kernel's own worker bundle.  ``new Worker(<that bundle>)`` from the
   * kernel is answered with this worker the first time and with a fresh one of the book's
   * script after (a restart, a second notebook: each boots at once, as the kernel's own would).
   * The kernel's files reach Python through the service worker, so the worker is made once one
   * controls the page: at once when the page opens controlled (the book's later pages), else
   * when JupyterLite's service worker takes the page (a first visit: JupyterLite registers it
   * during its start, 2.6-3.2 s after the page opened at load 8-9).  Registered here at the
   * page's start instead, JupyterLite found it, unregistered it as "a new version" and
   * registered it again, and a first visit was slower, not faster: ready 27.3 and 34.3 s
   * against 22.4 and 23.5 s without the early worker (alternating runs, load 6-11.5).  Not for a
   * cross-origin-isolated page (the kernel then uses another bundle) nor one that opens no
   * notebook.  A worker not asked for in two minutes is ended.  Returns whether the worker
   * started now. */
  function startKernelEarly() {
    var bundle = me && me.getAttribute("data-sb-kernel");
    var path = new URLSearchParams(location.search).get("path") || "";
    if (!bundle || window.crossOriginIsolated || !("serviceWorker" in navigator)
        || !/\.ipynb$/.test(path)) { return false; }
    var lite = new URL(".", me.src);
    var kernelUrl = new URL(bundle, lite).href;
    var script = new URL("sb_kernel_worker.js?kernel=" +
                         encodeURIComponent(kernelUrl.slice(kernelUrl.lastIndexOf("/") + 1)),
                         kernelUrl).href;
    var Native = window.Worker, early = null, asked = false, timer = null;
    // localStorage "sb-lite-order" = "together": the kernel's archives fetched beside the
    // interpreter's wasm, not after it (tools/lite_kernel_pyodide.js; a benchmark's comparison)
    var order = null;
    try { order = localStorage.getItem("sb-lite-order"); } catch (e) { /* none */ }
    var spawn = function () {
      return new Native(script + (order ? "&sbOrder=" + encodeURIComponent(order) : ""));
    };
    var Patched = function Worker(url, options) {
      if (String(url).split(/[?#]/)[0] === kernelUrl) {
        console.log("sb-lite: the kernel asked for its worker " + Math.round(performance.now()) +
                    " ms after the page opened (" +
                    (early ? "started at the page's start" : "a new one") + ")");
        var w = early || spawn();
        early = null;
        asked = true;
        clearTimeout(timer);
        return w;
      }
      return new Native(url, options);
    };
    Patched.prototype = Native.prototype;
    window.Worker = Patched;
    var begin = function (atStart) {
      if (asked || early || window.sbLiteStop) { return; }
      early = spawn();
      if (atStart === true) { holdIdleWork(early); }
      timer = setTimeout(function () {
        if (early) { early.terminate(); early = null; }
      }, 120000);
    };
    var sw = navigator.serviceWorker;
    if (sw.controller) { begin(true); return true; }
    sw.addEventListener("controllerchange", begin, { once: true });
    registerEarly(lite);
    return false;
  }

  /* The page's idle-time work (``requestIdleCallback``) held until the kernel's worker has
   * imported its packages, when that worker started at the page's start (a warm start): it
   * posts ``{sbBoot: "done"}`` then, or if its boot failed (tools/lite_kernel_pyodide.js); at
   * most 8 s.  JupyterLab draws a notebook's cells in the page's idle time (``windowingMode: defer``): once the
   * first cells are drawn the main thread is idle to it, and it drew the rest of the chapter
   * (style, layout, MyST: 1-1.5 s of the main thread) while the kernel's worker imported its
   * packages, on a machine of two cores that V8's compile threads share too.  Held, in
   * alternating warm starts of one profile (benchmarks/bench_lite_warm.py), the page's main
   * thread used 0.5-1 s less CPU and the start was ready sooner where the machine was busy:
   * medians 4.41 against 5.80 s (four pairs, each in favour, load 2.9-4.2), 4.81 against 6.23
   * s (load 5.0-5.7), 7.15 against 9.81 s (load 3.1-3.4); at load 1.6-2.8 not shown faster
   * (5.17 against 4.81 s, three pairs, one in favour).  Releasing it only once the kernel
   * had answered its ``initialize`` instead was no faster (4.04 against 3.82 s, load 1-1.8).
   * Idle work is what the page may put off; it runs as soon as the kernel's imports end.
   * localStorage "sb-lite-idle" = "off" turns the hold off (the benchmark's comparison). */
  function holdIdleWork(worker) {
    try { if (localStorage.getItem("sb-lite-idle") === "off") { return; } } catch (e) { return; }
    var native = window.requestIdleCallback, cancel = window.cancelIdleCallback;
    if (typeof native !== "function") { return; }
    // what happened, for the browser test: how many held, when and why released
    // (bootDone is noted after a release by timeout too, so a slow boot can be told from a lost
    // message)
    var state = window.sbLiteIdle = { held: 0, start: performance.now(), released: null, by: null,
                                      bootDone: null };
    var held = [], ids = 0;
    var release = function (by) {
      if (state.by) { return; }
      state.by = by;
      state.released = performance.now();
      held.forEach(function (h) { if (!h.cancelled) { h.id = native.call(window, h.cb, h.opts); } });
    };
    var on = function (e) {
      if (e.data && e.data.sbBoot === "done") {
        state.bootDone = performance.now();
        worker.removeEventListener("message", on);
        release("boot done");
      }
    };
    worker.addEventListener("message", on);
    worker.addEventListener("error", function () { release("error"); });
    setTimeout(function () { release("timeout"); }, 8000);
    window.requestIdleCallback = function (cb, opts) {
      if (state.by) { return native.call(window, cb, opts); }
      var h = { cb: cb, opts: opts, key: "sb-idle-" + (++ids) };
      held.push(h);
      state.held++;
      return h.key;
    };
    window.cancelIdleCallback = function (id) {
      var h = held.filter(function (x) { return x.key === id; })[0];
      if (!h) { return cancel.call(window, id); }
      h.cancelled = true;                       // held: never run; released: cancelled
      if (h.id !== undefined) { cancel.call(window, h.id); }
    };
  }

  /* On a first visit (no service worker controls the page yet), JupyterLite's service worker
   * registered now rather than by JupyterLite's own start (2-4.5 s later on this machine), so
   * the kernel's worker can start then.  Registered as JupyterLite registers it (the same URL,
   * ``data-sb-sw``: ``service-worker.js?enableCache=...``, the lite root as its scope), and with
   * the version JupyterLite keeps for it in localStorage (``<script URL>-version``, the app's
   * version, ``data-sb-app-version``), JupyterLite then finds it "already registered"; without
   * that key it took it for an old version, unregistered it and registered it again (a first
   * visit was slower, not faster: see startKernelEarly).  A registration refused here is left
   * to JupyterLite's own to report. */
  function registerEarly(lite) {
    var rel = me && me.getAttribute("data-sb-sw");
    var version = me && me.getAttribute("data-sb-app-version");
    if (!rel || !version || typeof register !== "function") { return; }
    var url = new URL(rel, lite).href;
    try { localStorage.setItem(url + "-version", version); } catch (e) { return; }
    register.call(navigator.serviceWorker, url).catch(function () {});
  }
})();
