/* Live mode's Python, off the page's main thread: a classic Web Worker started by sb_live.js.
 *
 * One worker per page, shared by the page's experiments.  It downloads, in parallel, the
 * interpreter, the standard library (with bytecode), the site archive (numpy, matplotlib and
 * their dependencies, compiled: tools/live_archives.py) and the book's own packages, reporting
 * bytes as they arrive; the site archive is gunzipped as it arrives (by a worker of its own)
 * and its files are written
 * into Pyodide's file system as soon as Python has started (an extension module is linked
 * when it is first imported, not before); then it runs widgets/live.py, reporting each step.
 * After that it answers the page's messages:
 *
 *   {type: "create", id, name, narrow, values, swept, scale}  -> {type: "frame", id, info, ...}
 *   {type: "update", id, values}                -> {type: "frame", id, ...}
 *   {type: "close", id}                         -> (the experiment is dropped)
 *
 * where a frame carries the RGBA pixels of the experiment's blitted Agg canvas as a
 * transferred ImageBitmap (or ArrayBuffer), the readout table's HTML and the experiment's
 * state (numbers).
 * Physics and drawing are the experiment's own Python (widgets/live.py); nothing here.
 *
 * Every file is fetched with the browser's ordinary HTTP cache (no query strings), so a second
 * page of the site starts from the cache (and the interpreter's WebAssembly is given to Pyodide
 * as the browser's own response, so its compiled code can be cached with it).
 */
"use strict";

importScripts("sb_tar.js");   // sbUntar, sbUnzip, sbInstall: the archives' files, shared with the lite kernel

var live = null;          // the Python object sb_live.LIVE
var pyodide = null;
var prefetched = {};      // absolute URL -> Promise<{buf, type}>: bytes downloaded up front

// Python's start, in parts, each announced on the progress bar (the status text moves while
// the imports run: about 1-3 s in all): [what is being imported, code].
var BOOT = [
  ["numpy", [
    "import importlib, importlib.util, os, sys",
    // importlib.invalidate_caches() less its import of importlib.metadata (Python 3.12's
    // PathFinder imports it to reset its cache: 0.12-0.2 s of the start, nothing else needs it):
    // the path finders forget the folders they listed before the archives were unpacked
    "for _p, _f in list(sys.path_importer_cache.items()):",
    "    if _f is None: del sys.path_importer_cache[_p]",
    "    elif hasattr(_f, 'invalidate_caches'): _f.invalidate_caches()",
    "sys.path.insert(0, '/home/pyodide/sb')",
    "_spec = importlib.util.spec_from_file_location('sb_live', '/home/pyodide/sb/widgets/live.py')",
    "_m = importlib.util.module_from_spec(_spec); sys.modules['sb_live'] = _m; _spec.loader.exec_module(_m)",
    "_m.install_ipywidgets_stand_in()",
    "_m.install_fontlist('/home/pyodide/sb/fontlist-v330.json')",
    "import numpy"]],
  ["matplotlib", ["_m.lighten_matplotlib_import()"]],
  ["the book's code", [
    "_m.install_lazy_widgets('/home/pyodide/sb/experiments.json')",   // the page's experiments only
    "import widgets.experiment",
    "_m.install_fitted('/home/pyodide/sb/fitted_limits.json')",
    "_m.install_layouts('/home/pyodide/sb/layouts')",
    "_m.LIVE"]]
];

function post(msg, transfer) { self.postMessage(msg, transfer || []); }

// Bytes downloaded so far, for the progress bar (reported at most every 50 ms).
var bytes = { loaded: 0, total: 0, known: 0, expected: 0, last: 0 };
function report(force) {
  var now = performance.now();
  if (!bytes.started && bytes.known === bytes.expected && bytes.loaded >= bytes.total) {
    bytes.started = true;       // every byte is in: what follows is Python's start
    post({ type: "progress", phase: "download", loaded: bytes.loaded, total: bytes.total, done: true });
    post({ type: "progress", phase: "step", step: "starting Python" });
    return;
  }
  if (!force && now - bytes.last < 50) { return; }
  bytes.last = now;
  post({ type: "progress", phase: "download", loaded: bytes.loaded,
         total: bytes.known === bytes.expected ? bytes.total : 0 });
}

// The progress bar's counters: a response's announced length, and bytes as they arrive.
var counting = {
  length: function (n) { bytes.total += n; bytes.known += 1; report(); },
  bytes: function (n) { bytes.loaded += n; report(); }
};

// Read a response's body to the end, counting its bytes; the chunks, joined.
async function counted(r, keep) {
  counting.length(parseInt(r.headers.get("Content-Length") || "0", 10));
  var reader = r.body.getReader(), chunks = [], n = 0;
  for (;;) {
    var step = await reader.read();
    if (step.done) { break; }
    if (keep) { chunks.push(step.value); }
    n += step.value.length;
    counting.bytes(step.value.length);
  }
  if (!keep) { return null; }
  var buf = new Uint8Array(n), at = 0;
  chunks.forEach(function (c) { buf.set(c, at); at += c.length; });
  return buf.buffer;
}

// Download the files Pyodide would ask for only later (the standard library, the book's
// zip) now, in parallel, with the interpreter.
function download(files) {
  return Promise.all(files.map(function (f) {
    var p = fetch(f.url).then(async function (r) {
      if (!r.ok) { throw new Error(f.url + ": HTTP " + r.status); }
      var type = r.headers.get("Content-Type") || "application/octet-stream";
      return { buf: await counted(r, true), type: type };
    });
    prefetched[f.url] = p;
    return p;
  }));
}

// The site archive's bytes, gunzipped while they arrive (counted before gunzipping), by a
// worker of its own, so the gunzip does not hold up Python's start on this thread (second
// page, from the cache: Python ready 0.73-0.74 s after the start instead of 0.78-1.04 s, 3
// runs each); in this thread where that worker cannot start; where the browser has no
// DecompressionStream, the gzipped bytes (Python unpacks them: slower).

// ``url``'s body gunzipped as it arrives; ``onLength(n)`` gets its announced length and
// ``onBytes(n)`` each chunk's size before gunzipping.  Self-contained: it is also the archive
// worker's code (with ``gunzipping``, given as a blob).
async function gunzipFetch(url, onLength, onBytes) {
  var r = await fetch(url);
  if (!r.ok) { throw new Error(url + ": HTTP " + r.status); }
  onLength(parseInt(r.headers.get("Content-Length") || "0", 10));
  var count = new TransformStream({ transform: function (chunk, out) {
    onBytes(chunk.length);
    out.enqueue(chunk);
  } });
  var body = r.body.pipeThrough(count).pipeThrough(new DecompressionStream("gzip"));
  return new Response(body).arrayBuffer();
}

function gunzipping() {                    // the archive worker: gunzipFetch, counts posted
  self.onmessage = async function (ev) {
    var tell = function (type) { return function (n) { self.postMessage({ type: type, n: n }); }; };
    try {
      var buf = await gunzipFetch(ev.data.url, tell("length"), tell("bytes"));
      self.postMessage({ type: "done", buf: buf }, [buf]);
    } catch (e) {
      self.postMessage({ type: "error", message: String(e && e.message ? e.message : e) });
    }
  };
}

async function gunzipHere(url) {
  if (typeof DecompressionStream === "function") {
    return { tar: new Uint8Array(await gunzipFetch(url, counting.length, counting.bytes)) };
  }
  var r = await fetch(url);
  if (!r.ok) { throw new Error(url + ": HTTP " + r.status); }
  return { gz: await counted(r, true) };
}

function downloadArchive(url) {
  var w = null;
  if (typeof DecompressionStream === "function") {
    try {
      w = new Worker(URL.createObjectURL(new Blob(
        [gunzipFetch.toString() + "\n(" + gunzipping.toString() + ")()"],
        { type: "text/javascript" })));
    } catch (e) { w = null; }
  }
  if (!w) { return gunzipHere(url); }
  return new Promise(function (resolve, reject) {
    var heard = false;
    w.onmessage = function (ev) {
      var m = ev.data;
      heard = true;
      if (m.type === "length" || m.type === "bytes") { counting[m.type](m.n); }
      else if (m.type === "done") { w.terminate(); resolve({ tar: new Uint8Array(m.buf) }); }
      else { w.terminate(); reject(new Error(m.message)); }
    };
    w.onerror = function () {                     // it could not start: do it here
      w.terminate();
      if (heard) { reject(new Error("the archive's worker failed")); }
      else { resolve(gunzipHere(url)); }
    };
    w.postMessage({ url: new URL(url, self.location.href).href });
  });
}

// Pyodide's loaders fetch the files downloaded above: hand them the bytes (once).  The
// interpreter's WebAssembly goes to Pyodide as the browser's own response (so the browser can
// keep its compiled code with the cached file); a copy of its stream only counts the bytes.
var networkFetch = self.fetch.bind(self);
var wasmUrl = null, wasmDone = null, wasmSeenResolve;
var wasmSeen = new Promise(function (resolve) { wasmSeenResolve = resolve; });
self.fetch = function (input, init) {
  var url = String(input instanceof Request ? input.url : input);
  if (url === wasmUrl && !wasmDone) {
    var r = networkFetch(input, init);
    wasmDone = r.then(function (resp) { return resp.ok ? counted(resp.clone(), false) : null; });
    wasmSeenResolve();
    return r;
  }
  var p = prefetched[url];
  if (!p) { return networkFetch(input, init); }
  delete prefetched[url];
  return p.then(function (got) {
    return new Response(got.buf, { status: 200, headers: { "Content-Type": got.type } });
  });
};

var marks = {};           // ms from the boot's start at which each file or step was done
async function boot(msg) {
  var pyBase = msg.pyodideBase, liveBase = msg.liveBase;
  var t = performance.now(), times = {}, t0 = t;
  var mark = function (name) { marks[name] = performance.now() - t0; };
  var lap = function (name) { var n = performance.now(); times[name] = n - t; t = n; };
  var step = function (name) { post({ type: "progress", phase: "step", step: name }); };

  // what to download: the interpreter, the standard library, the site archive, the book's zip
  wasmUrl = pyBase + "pyodide.asm.wasm";
  var files = [{ url: liveBase + "python_stdlib_pyc.zip" }, { url: liveBase + "sb_packages.zip" }];
  bytes.expected = files.length + 2;                      // + the site archive, the wasm
  var site = downloadArchive(liveBase + "sb_site.tar.gz");
  site.then(function () { mark("site archive"); }, function () {});
  var downloading = download(files);
  downloading.then(function () { mark("stdlib + packages"); }, function () {});
  var packages = prefetched[liveBase + "sb_packages.zip"];
  delete prefetched[liveBase + "sb_packages.zip"];
  // the book's packages, unzipped here while Python starts (null: Pyodide unzips them)
  var packageFiles = packages.then(function (got) {
    return self.sbUnzip(new Uint8Array(got.buf));
  }).catch(function () { return null; });
  importScripts(pyBase + "pyodide.js");
  // the interpreter starts as soon as its own files are in (it waits for them above); its
  // lock lists no package (the site archive brings them)
  mark("pyodide.js");
  var starting = self.loadPyodide({
    indexURL: pyBase, fullStdLib: false, lockFileURL: liveBase + "sb-lock.json",
    stdLibURL: liveBase + "python_stdlib_pyc.zip",      // the standard library + its bytecode
    stdout: function () {}, stderr: function (m) { console.warn(m); }
  });
  starting.then(function () { mark("Python started"); }, function () {});
  var got = await site;
  var siteFiles = got.tar ? self.sbUntar(got.tar) : null;
  mark("untar");
  await downloading;
  // the wasm's fetch starts inside loadPyodide (which fails early if it cannot start)
  await Promise.race([wasmSeen, starting.then(function () { return wasmSeen; })]);
  await wasmDone;
  mark("wasm");
  lap("download");
  if (!bytes.started) {           // else said by report() when the last byte came in
    bytes.started = true;
    post({ type: "progress", phase: "download", loaded: bytes.loaded, total: bytes.total, done: true });
    step("starting Python");
  }
  pyodide = await starting;
  lap("start Python");
  step("unpacking numpy and matplotlib");
  if (siteFiles) { self.sbInstall(pyodide.FS, siteFiles, "/"); }
  else { pyodide.unpackArchive(got.gz, "gztar", { extractDir: "/" }); }
  var unzipped = await packageFiles;
  if (unzipped) { self.sbInstall(pyodide.FS, unzipped, "/home/pyodide/sb"); }
  else { pyodide.unpackArchive((await packages).buf, "zip", { extractDir: "/home/pyodide/sb" }); }
  lap("numpy + matplotlib");
  BOOT.forEach(function (part, i) {
    post({ type: "progress", phase: "step", step: "importing the experiments", detail: part[0],
           part: i / BOOT.length });
    live = pyodide.runPython(part[1].join("\n"));
  });
  lap("imports");
  step("drawing");
  return times;
}

// The figure's pixels as an ImageBitmap (made here, off the main thread; transferred, so the
// page only hands it to its canvas), or as a transferred RGBA ArrayBuffer where
// createImageBitmap is missing.
async function frame(id, out, handle, extra) {
  var px = live.pixels(handle);
  var view = px.getBuffer("u8clamped");
  var copy, w, h;
  try {
    h = view.shape[0]; w = view.shape[1];
    copy = new Uint8ClampedArray(view.data);              // a copy the page can own
  } finally {
    view.release();
    px.destroy();
  }
  var msg = { type: "frame", id: id, width: w, height: h, readouts: out.readouts,
              state: out.state, inactive: out.inactive || {}, notes: out.notes || {} };
  for (var k in extra) { msg[k] = extra[k]; }
  if (typeof createImageBitmap === "function") {
    msg.bitmap = await createImageBitmap(new ImageData(copy, w, h));
    post(msg, [msg.bitmap]);
  } else {
    msg.pixels = copy.buffer;
    post(msg, [copy.buffer]);
  }
}

// The values of the frame on screen: ``values`` (the player's recorded settings) with the
// swept control (``swept``: {name, shown}, the text beside the static player's slider) at the
// value shown, as the page's live control will hold it: a slider's on its step grid from its
// minimum (as <input type=range> keeps it, and as the frames' sweeps are), a choice's option by
// index (a choice player's slider shows the option's index).
function onScreen(values, swept, controls) {
  var out = {};
  for (var k in values) { out[k] = values[k]; }
  var shown = swept ? parseFloat(swept.shown) : NaN;
  if (!isFinite(shown)) { return out; }
  controls.forEach(function (c) {
    if (c.name !== swept.name) { return; }
    if (c.kind === "slider") {
      var k = Math.round((Math.min(c.max, Math.max(c.min, shown)) - c.min) / c.step);
      out[c.name] = parseFloat(Math.min(c.max, c.min + k * c.step).toFixed(10));
    } else if (c.kind === "choice" && c.options[Math.round(shown)] !== undefined) {
      out[c.name] = c.options[Math.round(shown)];
    }
  });
  return out;
}

var handles = {};          // page's experiment id -> Python handle
var booting = null;

self.onmessage = async function (ev) {
  var msg = ev.data;
  try {
    if (msg.type === "boot") {
      if (!booting) { booting = boot(msg); }
      var times = await booting;
      post({ type: "ready", times: times, marks: marks });
      return;
    }
    await booting;
    var t0 = performance.now();
    if (msg.type === "create") {
      if (msg.figures) { live.language(JSON.stringify(msg.figures)); }   // a Chinese page
      if (handles[msg.id] !== undefined) { live.close(handles[msg.id]); }
      // the frame on screen's values first, so that the experiment is drawn once at them
      // (built at its defaults, then set: one scene and one blit fewer than an update after)
      var values = onScreen(msg.values || {}, msg.swept, JSON.parse(live.controls(msg.name)));
      var info = JSON.parse(live.create(msg.name, !!msg.narrow, JSON.stringify(values),
                                        msg.scale || 1));
      handles[msg.id] = info.handle;
      var out = info.frame;
      delete info.frame;
      await frame(msg.id, out, info.handle, { info: info, pythonMs: performance.now() - t0 });
    } else if (msg.type === "close") {
      if (handles[msg.id] !== undefined) { live.close(handles[msg.id]); delete handles[msg.id]; }
    } else if (msg.type === "update") {
      var h = handles[msg.id];
      var res = JSON.parse(live.update(h, JSON.stringify(msg.values)));
      await frame(msg.id, res, h, { pythonMs: performance.now() - t0 });
    }
  } catch (e) {
    post({ type: "error", id: msg.id, message: String(e && e.message ? e.message : e) });
  }
};
