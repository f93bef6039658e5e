/* ustar and zip archives inside a Web Worker, shared by live mode's worker (sb_worker.js) and
 * the book's JupyterLite kernel loader (tools/lite_kernel_pyodide.js); each loads this file with
 * importScripts.  Pyodide's own unpackArchive copies every file (and, for a zip, imports
 * Python's zipfile and shutil: about 50 ms of live mode's start); these keep views of the
 * archive's bytes instead, and a zip's deflated files are inflated by the browser.
 */
"use strict";

// The regular files of a ustar archive (a Uint8Array): [[path, bytes (a view of it)], ...].
self.sbUntar = function (u8) {
  var files = [], at = 0, text = new TextDecoder();
  var field = function (a, b) {
    var s = text.decode(u8.subarray(at + a, at + b)), nul = s.indexOf("\0");
    return nul < 0 ? s : s.slice(0, nul);
  };
  while (at + 512 <= u8.length && u8[at] !== 0) {
    var name = field(0, 100), prefix = field(345, 500), type = u8[at + 156];
    var size = parseInt(field(124, 136).trim() || "0", 8);
    if (prefix) { name = prefix + "/" + name; }
    at += 512;
    if (type === 48 || type === 0) { files.push([name, u8.subarray(at, at + size)]); }  // "0"
    at += Math.ceil(size / 512) * 512;
  }
  return files;
};

// Write sbUntar's files under the folder dir of Pyodide's file system FS (the file system
// keeps the views: no copies).
self.sbInstall = function (FS, files, dir) {
  var root = String(dir || "/").replace(/\/$/, ""), made = {};
  files.forEach(function (f) {
    var path = root + "/" + f[0], folder = path.slice(0, path.lastIndexOf("/"));
    if (!made[folder]) { FS.mkdirTree(folder); made[folder] = true; }
    FS.writeFile(path, f[1], { canOwn: true });
  });
};

// The regular files of a zip archive (a Uint8Array, stored or deflated entries, no zip64): a
// promise of [[path, bytes], ...]; deflated entries are inflated by the browser's
// DecompressionStream("deflate-raw"), stored ones are views of the archive.  Rejects where the
// browser cannot inflate or the archive is not such a zip (the caller then unpacks it with
// Pyodide's unpackArchive).
self.sbUnzip = function (u8) {
  if (typeof DecompressionStream !== "function") {
    return Promise.reject(new Error("no DecompressionStream"));
  }
  var view = new DataView(u8.buffer, u8.byteOffset, u8.byteLength), text = new TextDecoder();
  var end = -1;
  for (var k = u8.length - 22; k >= Math.max(0, u8.length - 22 - 65535); k--) {
    if (view.getUint32(k, true) === 0x06054b50) { end = k; break; }
  }
  if (end < 0) { return Promise.reject(new Error("not a zip archive")); }
  var count = view.getUint16(end + 10, true), at = view.getUint32(end + 16, true), jobs = [];
  for (var i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== 0x02014b50) { return Promise.reject(new Error("bad zip directory")); }
    var method = view.getUint16(at + 10, true), size = view.getUint32(at + 20, true);
    var nameLen = view.getUint16(at + 28, true), extraLen = view.getUint16(at + 30, true);
    var commentLen = view.getUint16(at + 32, true), local = view.getUint32(at + 42, true);
    var name = text.decode(u8.subarray(at + 46, at + 46 + nameLen));
    at += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith("/")) { continue; }                       // a folder
    var start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    var data = u8.subarray(start, start + size);
    if (method === 0) { jobs.push(Promise.resolve([name, data])); }
    else if (method === 8) {
      jobs.push((function (name, data) {
        var inflated = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
        return new Response(inflated).arrayBuffer().then(function (b) { return [name, new Uint8Array(b)]; });
      })(name, data));
    } else { return Promise.reject(new Error(name + ": zip method " + method)); }
  }
  return Promise.all(jobs);
};
