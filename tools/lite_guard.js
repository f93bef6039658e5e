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
 */
(function () {
  "use strict";
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
  // The kernel's big files (tools/lite_site.py ``boot_archives``, the interpreter), fetched
  // now into the browser's HTTP cache: the kernel's worker starts only once the app has loaded
  // and opened the notebook, seconds later, and then reads them from the cache.
  var root = at >= 0 ? here.slice(0, at) : "";
  ["/_pyodide/pyodide.asm.wasm", "/_pyodide/pyodide.asm.js", "/_live/python_stdlib_pyc.zip",
   "/_live/sb_site.tar.gz", "/lite/pyodide/sb_lite_site.tar.gz", "/_live/sb_packages.zip"]
    .forEach(function (u) {
      fetch(root + u).then(function (r) { return r.arrayBuffer(); }).catch(function () {});
    });
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
})();
