/* The book's JupyterLite kernel worker: Pyodide boots while JupyterLab starts (issue 35).
 *
 * jupyterlite-pyodide-kernel 0.6 creates its kernel's worker (its own bundle, a classic
 * worker script in its extension's ``static/`` folder) only once JupyterLab has started and
 * drawn the notebook, seconds after the page opened, and the worker starts Pyodide only when
 * the kernel's ``initialize`` message comes.  The book's lite pages (tools/lite_guard.js)
 * create this script as that worker at the page's start instead, beside that bundle
 * (``static/sb_kernel_worker.js?kernel=<the bundle's file name>``), and hand it to the kernel
 * when the kernel asks for its worker.  This script:
 *
 * 1. loads the book's Pyodide loader (tools/lite_kernel_pyodide.js) and calls its
 *    ``loadPyodide`` at once with the options the site's settings give the kernel
 *    (``SB_KERNEL``, written in by tools/lite_site.py): the archives download, Pyodide starts
 *    and the book's packages and the kernel's own module are imported while JupyterLab starts;
 * 2. loads the kernel's own bundle, which listens for the kernel's messages as ever; its
 *    ``initialize`` loads the loader again and calls ``loadPyodide``, and gets the boot
 *    already under way (or done).  Everything after (the drive, the kernel's globals) is the
 *    kernel's own, as without this script.
 *
 * Nothing here touches the drive (the site's files through the service worker): the worker is
 * created once a service worker controls the page, and the kernel mounts the drive as ever.
 */
"use strict";
(function () {
  var SB_KERNEL = null;                                // tools/lite_site.py writes it in
  var kernel = new URLSearchParams(self.location.search).get("kernel") || "";
  if (!/^[\w.-]+\.js$/.test(kernel)) {                 // a file of this folder, nothing else
    throw new Error("sb_kernel_worker.js: no kernel bundle named (?kernel=<file>.js): " + kernel);
  }
  if (SB_KERNEL) {
    var lite = new URL(SB_KERNEL.lite, self.location.href);
    var loader = new URL(SB_KERNEL.pyodideUrl, lite).href;
    importScripts(loader);
    var options = { indexURL: loader.slice(0, loader.lastIndexOf("/") + 1) };
    for (var k in SB_KERNEL.loadPyodideOptions) { options[k] = SB_KERNEL.loadPyodideOptions[k]; }
    // a failure is the kernel's to report: its own call gets this same promise
    self.loadPyodide(options).catch(function () {});
  }
  importScripts(kernel);
})();
