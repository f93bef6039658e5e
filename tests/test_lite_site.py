"""The JupyterLite site's build pieces (tools/lite_site.py, tools/lite_pages.py) that need no
browser: its pinned wheels agree with the universal lock, the lock it gives Pyodide names every
package the kernel would otherwise fetch with micropip, and a build without the lite site loses
its links.  The site itself is tested in Chromium by tests/browser/test_lite.py."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import lite_pages  # noqa: E402
import lite_site  # noqa: E402


def _locked(project: str) -> set[str]:
    text = (ROOT / "constraints.txt").read_text()
    return set(re.findall(rf"^{re.escape(project)}==([^\s;]+)", text, re.MULTILINE | re.IGNORECASE))


def test_kernel_wheels_are_the_locks_versions():
    pinned = {p: v for p, v, _ in lite_site.pinned_wheels()}
    assert set(pinned) == {"comm", "ipywidgets", "jupyterlab-widgets"}
    for project in ("comm", "ipywidgets"):
        assert pinned[project] in _locked(project), (project, pinned[project], _locked(project))
    # the front end: 3.0.15's prebuilt extension (the lock's 3.0.17 wants JupyterLab 4.6)
    assert pinned["jupyterlab-widgets"].startswith("3.0.")
    for _, _, digest in lite_site.pinned_wheels():
        assert re.fullmatch(r"[0-9a-f]{64}", digest)


def test_jupyterlite_is_the_06_series_of_the_lock():
    assert _locked("jupyterlite-core") == {"0.6.4"}
    assert _locked("jupyterlite-pyodide-kernel") == {"0.6.1"}
    assert lite_site.jupyterlite_versions()["jupyterlite-core"] == "0.6.4"


def test_the_kernel_installs_nothing_and_starts_from_the_sites_files(tmp_path):
    """Every package jupyterlite-pyodide-kernel 0.6.1 installs at start is named in
    ``loadPyodideOptions.packages`` spelled as the kernel spells it (else it calls piplite,
    which with PyPI off fails); the kernel's Pyodide is the book's loader, which starts the
    site's own Pyodide and unpacks the shared archives, every URL inside the site."""
    import json

    site = tmp_path / "html"
    lite = site / "lite"
    (site / "_live").mkdir(parents=True)
    (site / "_live" / "python_stdlib_pyc.zip").write_bytes(b"zip")
    lite.mkdir()
    (lite / "jupyter-lite.json").write_text('{"jupyter-config-data": {}}')
    lite_site.write_settings(lite, site)
    settings = json.loads((lite / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = settings["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    listed = kernel["loadPyodideOptions"]["packages"]
    for name in ("micropip", "piplite", "ssl", "sqlite3", "ipykernel", "comm", "pyodide_kernel",
                 "jedi", "ipython"):
        assert name in listed, name
    assert set(lite_site.KERNEL_START) <= set(listed)
    assert kernel["disablePyPIFallback"] is True
    assert kernel["pyodideUrl"] == f"./pyodide/{lite_site.BOOT_JS.name}"
    assert lite_site.BOOT_JS.is_file()
    boot = kernel["loadPyodideOptions"]["sbBoot"]
    here = "http://h/lite/pyodide/"                       # the loader's folder: its URLs' base
    from urllib.parse import urljoin

    assert urljoin(here, boot["pyodide"]) == "http://h/_pyodide/"         # the site's own Pyodide
    assert urljoin(here, boot["stdLibURL"]) == "http://h/_live/python_stdlib_pyc.zip"
    urls = [urljoin(here, a["url"]) for a in boot["archives"]]
    assert "http://h/_live/sb_site.tar.gz" in urls                         # shared with live mode
    assert "http://h/_live/sb_packages.zip" in urls
    assert f"http://h/lite/pyodide/{lite_site.SITE_ARCHIVE}" in urls
    for a in boot["archives"]:
        assert a["format"] in ("gztar", "zip") and a["dir"].startswith("/")
    assert urljoin(here, boot["lockFileURL"]) == "http://h/lite/pyodide/sb-lite-lock.json"


def test_the_pages_start_the_kernels_worker_with_the_kernels_settings(tmp_path):
    """The kernel's worker bundle is found in the kernel's ``initWorker`` as
    jupyterlite-pyodide-kernel 0.6.1 writes it (the bundle of a page that is not cross-origin
    isolated); the book's worker script beside it carries the kernel's own settings (so its
    early boot is the one the kernel asks for); the pages' guard tag names the bundle.  Another kernel version's bundles: no
    early start, and the pages say nothing of it."""
    import json

    site = tmp_path / "html"
    lite = site / "lite"
    static = lite / lite_site.KERNEL_STATIC
    static.mkdir(parents=True)
    (site / "_live").mkdir()
    (lite / "jupyter-lite.json").write_text('{"jupyter-config-data": {}}')
    lite_site.write_settings(lite, site)
    for page in ("index.html", "notebooks/index.html", "lab/index.html"):
        (lite / page).parent.mkdir(exist_ok=True)
        (lite / page).write_text("<html><head>\n<script>await import('x')</script></head></html>")
    (static / "592.aa.js").write_text(
        'initWorker(e){return crossOriginIsolated?new Worker(new URL(n.p+n.u(620),n.b),'
        '{type:void 0}):new Worker(new URL(n.p+n.u(352),n.b),{type:void 0})}')
    (static / "620.bb.js").write_text("coi")
    (static / "352.cc.js").write_text("plain")
    assert lite_site.kernel_bundle(lite) == f"{lite_site.KERNEL_STATIC}/352.cc.js"
    attrs = lite_site.early_kernel(lite)
    assert attrs == {"data-sb-kernel": f"{lite_site.KERNEL_STATIC}/352.cc.js"}
    worker = (static / lite_site.WORKER_NAME).read_text()
    written = json.loads(re.search(r"var SB_KERNEL = (\{.*\});", worker).group(1))
    kernel = json.loads((lite / "jupyter-lite.json").read_text())["jupyter-config-data"][
        "litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert written["pyodideUrl"] == kernel["pyodideUrl"]
    assert written["loadPyodideOptions"] == kernel["loadPyodideOptions"]
    from urllib.parse import urljoin

    here = f"http://h/lite/{lite_site.KERNEL_STATIC}/{lite_site.WORKER_NAME}"
    assert urljoin(here, written["lite"]) == "http://h/lite/"
    assert lite_site.guard_pages(lite, attrs) == 3
    page = (lite / "notebooks" / "index.html").read_text()
    assert (f'<script src="../{lite_site.GUARD_NAME}" data-sb-kernel="{lite_site.KERNEL_STATIC}'
            f'/352.cc.js"></script>') in page

    (static / "592.aa.js").write_text("initWorker(e){return new Worker(x)}")
    assert lite_site.kernel_bundle(lite) is None
    assert lite_site.early_kernel(lite) == {}


def test_the_lite_lock_holds_what_loads_on_demand():
    """The lock the loader gives Pyodide: ssl and OpenSSL only (loaded when a cell imports
    ssl), each from the lite folder, relative to Pyodide's index URL, with its sha256."""
    lock = lite_site.lite_lock()
    assert set(lock["packages"]) == set(lite_site.OWN_WHEELS) == {"ssl", "openssl"}
    for entry in lock["packages"].values():
        assert entry["file_name"].startswith("../lite/pyodide/"), entry
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"])
        for dep in entry["depends"]:
            assert lite_site.canonical(dep) in lock["packages"], (entry["name"], dep)


def test_an_archive_without_a_start_module_is_refused(tmp_path):
    """The lite archive must hold every module the kernel imports at start: one missing is
    named (the build then leaves the lite site out instead of shipping a kernel that hangs)."""
    import io
    import tarfile

    def archive(tops):
        path = tmp_path / f"{len(tops)}.tar.gz"
        with tarfile.open(path, "w:gz") as tf:
            for top in tops:
                data = b"x"
                info = tarfile.TarInfo(f"lib/python3.12/site-packages/{top}/__init__.pyc")
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
        return path

    full = ["IPython", "jedi", "micropip", "piplite", "pyodide_kernel", "ipykernel", "comm",
            "sqlite3"]
    assert lite_site._missing_modules(archive(full)) == []
    assert lite_site._missing_modules(archive([t for t in full if t != "comm"])) == ["comm"]


def test_a_build_without_the_lite_site_loses_its_links(tmp_path):
    html = tmp_path / "chapters"
    html.mkdir()
    bar = lite_pages.bar("chapters/ch01_x", lambda target, n: "../" + target)
    body = ('<p>a</p><button>Run live</button> <a class="sb-lite-edit sb-lite-beside" '
            'href="../lite/notebooks/index.html?path=chapters/ch01_x.ipynb">Edit in your browser</a>'
            '<p>b</p>')
    (html / "ch01_x.html").write_text(bar + body)
    assert "Restore the book" in bar and "lite/notebooks/index.html?path=chapters/ch01_x.ipynb" in bar
    assert lite_pages.strip_links(tmp_path) == 1
    assert (html / "ch01_x.html").read_text() == "<p>a</p><button>Run live</button><p>b</p>"


def test_missing_pieces_are_named(tmp_path):
    """No live mode staged: the lite build says what is missing and makes nothing."""
    site = tmp_path / "html"
    site.mkdir()
    why = lite_site.build(site)
    assert why is not None and "_pyodide/pyodide.js" in why
    assert not (site / "lite").exists()


def test_chapters_that_cannot_run_in_the_browser_say_so_instead_of_linking():
    """A chapter importing MuJoCo or Pinocchio (no Pyodide build) would stop at its first cell in
    JupyterLite: its page names the packages and sends the reader to JupyterLab, with no link.
    Every chapter is classified from its own code cells, so a chapter that starts importing one
    loses its link."""
    chapters = sorted((ROOT / "book" / "chapters").glob("ch*.ipynb"))
    missing = {c.name[:4]: lite_pages.browser_missing(c) for c in chapters}
    assert missing["ch01"] == [] and missing["ch08"] == []
    assert missing["ch09"] == ["mujoco"]
    assert "pinocchio" in missing["ch11"]
    bar = lite_pages.no_lite_bar(missing["ch11"], live=True)
    assert "mujoco, pinocchio" in bar and "make lab" in bar and "href" not in bar
    assert "run live" in bar and "run live" not in lite_pages.no_lite_bar(["mujoco"], live=False)
    assert lite_pages._BAR.sub("", "x" + bar + "y") == "xy"


#: JupyterLite 0.6.4's service worker, its two pieces the build rewrites, as it writes them
SW_064 = ('"use strict";function onInstall(e){self.skipWaiting(),e.waitUntil(cacheAll())}'
          'async function onFetch(e){let n=null;shouldBroadcast(a)?n=broadcastOne(t,a):'
          'shouldDrop(t,a)||(n=maybeFromCache(e)),n&&e.respondWith(n)}')


def test_the_service_worker_answers_only_its_drive(tmp_path, capsys):
    (tmp_path / lite_site.SW_FILE).write_text(SW_064)
    assert lite_site.lean_service_worker(tmp_path)
    text = (tmp_path / lite_site.SW_FILE).read_text()
    assert "maybeFromCache(e)" not in text and "shouldBroadcast(a)?n=broadcastOne(t,a):null" in text
    assert 'e.addRoutes([{condition:{not:{urlPattern:new URLPattern({pathname:"*/api/*"})}}' in text
    # another version's script is left as it is, with a note
    (tmp_path / lite_site.SW_FILE).write_text("other")
    assert not lite_site.lean_service_worker(tmp_path)
    assert (tmp_path / lite_site.SW_FILE).read_text() == "other"
    assert "service worker" in capsys.readouterr().err


def test_the_kernel_start_leaves_ipythons_terminal_out():
    """The stand-in for IPython.terminal.embed (lite_site.TERMINAL_STUB), run as the kernel's
    loader runs it (one line), is what ``import IPython`` then finds; its ``embed`` is the
    stand-in's, which imports the real one only when called."""
    line = next(x for x in lite_site.PRE_IMPORTS.split("\n") if "TERMINAL" in x or "_stub" in x)
    saved = {k: v for k, v in sys.modules.items() if k.startswith("IPython.terminal.embed")}
    try:
        exec(line, {})
        stub = sys.modules["IPython.terminal.embed"]
        assert stub._stub is stub and callable(stub.embed)
    finally:
        sys.modules.pop("IPython.terminal.embed", None)
        sys.modules.update(saved)


def test_a_first_visit_registers_the_service_worker_as_jupyterlite_would(tmp_path):
    """The guard registers JupyterLite's service worker at the page's start with the URL and
    version JupyterLite 0.6.4 uses for it (else it unregisters it and registers it again)."""
    (tmp_path / "jupyter-lite.json").write_text('{"jupyter-config-data": {"appVersion": "0.6.4"}}')
    assert lite_site.early_service_worker(tmp_path) == {
        "data-sb-sw": "service-worker.js?enableCache=false", "data-sb-app-version": "0.6.4"}
    guard = lite_site.GUARD_JS.read_text()
    assert 'me.getAttribute("data-sb-sw")' in guard and '"-version"' in guard


def test_the_page_holds_its_idle_work_for_the_message_the_boot_posts():
    """The guard releases the page's idle-time work on the message the kernel's loader posts
    at its boot's end (the two files agree on it; the browser test checks the hold itself)."""
    boot = lite_site.BOOT_JS.read_text()
    guard = lite_site.GUARD_JS.read_text()
    assert 'self.postMessage({ sbBoot: "done" })' in boot
    assert "self.sbBooting.then(ended, ended)" in boot          # posted on failure too
    assert 'e.data.sbBoot === "done"' in guard and "holdIdleWork(early)" in guard

