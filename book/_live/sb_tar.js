/* ustar archives inside a Web Worker, shared by live mode's worker (sb_worker.js) and the
 * book's JupyterLite kernel loader (tools/lite_kernel_pyodide.js); each loads this file with
 * importScripts.  Pyodide's own unpackArchive copies every file; these keep views of the
 * archive's bytes instead.
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
