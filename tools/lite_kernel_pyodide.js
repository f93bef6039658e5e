/* The book's JupyterLite kernel starts Pyodide as live mode does (issue 35).
 *
 * jupyterlite-pyodide-kernel 0.6 runs ``importScripts(pyodideUrl)`` in its worker and then
 * calls ``self.loadPyodide({indexURL: <this file's folder>, ...loadPyodideOptions})``; the
 * book's lite site (tools/lite_site.py) points ``pyodideUrl`` at this file, which defines
 * that ``loadPyodide``:
 *
 * 1. it starts downloading the archives named in ``loadPyodideOptions.sbBoot.archives`` at
 *    once (gzipped ones gunzipped as they arrive), all with the browser's ordinary HTTP cache:
 *    live mode's site archive (numpy, matplotlib and their dependencies, compiled), the lite
 *    site's own (IPython, jedi, micropip, comm, ipywidgets, the kernel's own packages), the
 *    book's packages and matplotlib's font list;
 * 2. it loads the site's own verified Pyodide (``sbBoot.pyodide``) and starts it with a lock
 *    that lists only the packages loaded on demand (ssl, sqlite3), no packages at start;
 * 3. it writes the archives' files into Pyodide's file system (a tar's as views of its bytes,
 *    with live mode's reader ``sbBoot.tarScript``, book/_live/sb_tar.js; a zip with
 *    ``pyodide.unpackArchive``) and puts ``sbBoot.sysPath`` (the book's packages' folder) first on ``sys.path``;
 * 4. it runs ``sbBoot.imports``: numpy, matplotlib, the book's packages and the kernel's own
 *    ``pyodide_kernel`` (IPython), so the kernel's imports after it mounts the drive are
 *    found in ``sys.modules``.
 *
 * Pyodide's ``loadPackage`` would instead load every extension module of a package (each
 * ``.so``: compiled and linked) as the package is installed; written as plain files, an
 * extension module is linked when Python first imports it, as in live mode.  The kernel then
 * finds every package it would otherwise install named in ``loadPyodideOptions.packages`` and
 * installs nothing; ``import pyodide_kernel`` reads the unpacked files.
 *
 * The boot may start before the kernel asks for it: the book's kernel worker
 * (tools/lite_kernel_worker.js, created by the page at its start: tools/lite_guard.js) loads
 * this file and calls ``self.loadPyodide`` at once, with the options the site's settings give
 * the kernel; when the kernel then loads this file again and calls ``self.loadPyodide``, it
 * gets the same boot (one per worker: the options of the first call hold).
 *
 * Each phase's time (ms from the first call) is logged once to the worker's console, on one
 * line starting "sb-lite boot:" (benchmarks/bench_lite.py reads it), with "kernel asked"
 * when the kernel's call came.  The boot's end is posted to the page (``{sbBoot: "done"}``):
 * the page holds its idle-time work until then (tools/lite_guard.js ``holdIdleWork``).
 */
"use strict";

self.sbLoadPyodide = self.sbLoadPyodide || async function sbLoadPyodide(options, marks, mark) {
  var boot = options.sbBoot;
  var here = options.indexURL;                        // this file's folder, <lite>/pyodide/
  var at = function (rel) { return new URL(rel, here).href; };

  var fetched = function (url) {
    return fetch(url).then(function (r) {
      if (!r.ok) { throw new Error(url + ": HTTP " + r.status); }
      return r;
    });
  };
  // the archives are fetched once the interpreter's wasm has arrived (or after 3 s), not beside
  // it: all of them come from the browser's cache at a warm start, and fetched together the
  // wasm (10 MB) shared the cache's reads with the archives (16 MB) and the worker's thread
  // with their gunzip, while Python's start waits for the wasm alone and the archives are
  // needed only once Python has started (:func:`wasmArrived`; ``?sbOrder=together`` in the
  // worker's URL: fetched together, for benchmarks/bench_lite_warm.py --what order)
  var arrived = /[?&]sbOrder=together(&|$)/.test(self.location.search)
    ? Promise.resolve() : wasmArrived(3000);
  var archives = boot.archives.map(function (a) {
    var url = at(a.url);
    var bytes = arrived.then(function () { return fetched(url); }).then(function (r) {
      if (a.format === "gztar" && typeof DecompressionStream === "function") {
        return new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer()
          .then(function (buf) { return { buf: buf, format: "tar" }; });
      }
      return r.arrayBuffer().then(function (buf) { return { buf: buf, format: a.format }; });
    });
    bytes.then(function () { mark(a.url.split("/").pop()); }, function () {});
    return bytes;
  });

  importScripts(at(boot.tarScript));                  // sbUntar, sbInstall (live mode's)
  var ours = self.loadPyodide;
  importScripts(at(boot.pyodide + "pyodide.js"));     // defines Pyodide's own self.loadPyodide
  var pyodidesOwn = self.loadPyodide;
  self.loadPyodide = ours;                            // a second call gets this boot
  var opts = {};
  for (var k in options) {
    if (k !== "sbBoot" && k !== "packages") { opts[k] = options[k]; }
  }
  opts.indexURL = at(boot.pyodide);
  opts.lockFileURL = at(boot.lockFileURL);
  if (boot.stdLibURL) { opts.stdLibURL = at(boot.stdLibURL); }
  var pyodide = await pyodidesOwn(opts);
  mark("Python started");
  for (var i = 0; i < archives.length; i++) {
    var got = await archives[i], dir = boot.archives[i].dir;
    if (got.format === "tar") { self.sbInstall(pyodide.FS, self.sbUntar(new Uint8Array(got.buf)), dir); }
    else { pyodide.unpackArchive(got.buf, got.format, { extractDir: dir }); }
  }
  pyodide.runPython("import importlib, sys\nsys.path[:0] = " + JSON.stringify(boot.sysPath || [])
                    + "\nimportlib.invalidate_caches()");
  mark("unpacked");
  // the book's packages and the kernel's own module (tools/lite_site.py PRE_IMPORTS), while
  // the working folder is still Pyodide's in-memory one: after this the kernel mounts /drive
  // and makes it the working folder, where each import's look-up is a request to the
  // service worker
  // line by line, each line's end marked ("import numpy, ..." as "numpy..."), with the time
  // the imports spent compiling and instantiating extension modules (each .so: a wasm module
  // compiled when first imported, at every start: nothing caches a module compiled from bytes)
  var wasm = timeWasm();
  try {
    (boot.imports || "").split("\n").forEach(function (line) {
      pyodide.runPython(line);
      var m = /^import (\S+?),?( |$)/.exec(line);
      if (m) { mark(m[1] + (m[2] ? "..." : "")); }
    });
  } finally {
    wasm.restore();
  }
  mark("imports");
  marks.push("(of which " + wasm.n + " extension modules compiled in " + Math.round(wasm.compile) +
             " ms, instantiated in " + Math.round(wasm.instantiate) + " ms)");
  console.log("sb-lite boot: " + marks.join(", "));
  return pyodide;
};

self.loadPyodide = function (options) {
  if (!self.sbBooting) {
    var t0 = performance.now(), marks = self.sbBootMarks = [];
    self.sbBootMark = function (name) {
      marks.push(name + " " + Math.round(performance.now() - t0));
    };
    self.sbBooting = self.sbLoadPyodide(options, marks, self.sbBootMark);
    // the boot's end (its imports done, or failed) told to the page, which holds its
    // idle-time work until then (tools/lite_guard.js); the kernel's own handler of the
    // worker's messages ignores one with no ``type``
    var ended = function () {
      try { self.postMessage({ sbBoot: "done" }); } catch (e) { /* not a worker */ }
    };
    self.sbBooting.then(ended, ended);
  } else {
    self.sbBootMark("kernel asked");
  }
  return self.sbBooting;
};

/* A promise that resolves when the body of the first fetch of ``pyodide.asm.wasm`` made from now
 * on (Pyodide's, which compiles it as it streams) has arrived, or after ``ms``: ``self.fetch``
 * is wrapped until then, and the response's clone read to its end. */
function wasmArrived(ms) {
  var native = self.fetch;
  return new Promise(function (resolve) {
    var done = function () { self.fetch = native; resolve(); };
    setTimeout(done, ms);
    self.fetch = function (input) {
      var p = native.apply(self, arguments);
      if (String(input && input.url || input).indexOf("pyodide.asm.wasm") >= 0) {
        self.fetch = native;
        p.then(function (r) { return r.clone().arrayBuffer(); }).then(done, done);
      }
      return p;
    };
  });
}

/* ``WebAssembly.Module`` and ``WebAssembly.Instance`` timed until ``restore()``: how many
 * modules were compiled, and the ms spent compiling and instantiating them. */
function timeWasm() {
  var W = self.WebAssembly, Module = W.Module, Instance = W.Instance;
  var out = { n: 0, compile: 0, instantiate: 0 };
  var timed = function (Native, key) {
    var T = function (a, b) {
      var t = performance.now();
      try { return new Native(a, b); }
      finally {
        out[key] += performance.now() - t;
        if (key === "compile") { out.n++; }
      }
    };
    T.prototype = Native.prototype;
    Object.getOwnPropertyNames(Native).forEach(function (k) {
      if (typeof Native[k] === "function" && !(k in T)) { T[k] = Native[k]; }
    });
    return T;
  };
  W.Module = timed(Module, "compile");
  W.Instance = timed(Instance, "instantiate");
  out.restore = function () { W.Module = Module; W.Instance = Instance; };
  return out;
}
