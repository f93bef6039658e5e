"""Helpers shared by the real-browser tests (fixtures are in conftest.py).

Debian Chromium driven by Playwright, network off:

* Chromium comes from Debian (``tools/ensure_browser.py`` installs it when missing and we are
  root); never ``playwright install``.
* The built site (``book/_build/html``, or ``$SB_SITE_DIR``) is served on 127.0.0.1 from a
  thread.  Every request that is not to the loopback interface (or a data:/blob: URL) is aborted
  and recorded, and a test that caused one fails.
"""

from __future__ import annotations

import http.server
import os
import sys
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import ensure_browser  # noqa: E402

SITE = Path(os.environ.get("SB_SITE_DIR", ROOT / "book" / "_build" / "html")).resolve()
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def is_local(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in ("data", "blob", "about"):
        return True
    return parsed.scheme in ("http", "https", "ws", "wss") and parsed.hostname in LOOPBACK


def site_pages(site: Path = SITE) -> list[str]:
    """Every built HTML page, relative to the site root (no sources, no MathJax internals, not
    the JupyterLite app in ``lite/``: tests/browser/test_lite.py tests that).  Of the Chinese
    edition (``zh/``, issue 36), the finished pages (tools/zh_edition.py ``finished``): the
    others are the English pages again, with a note."""
    if not (site / "index.html").is_file():
        return []
    import zh_edition

    zh = {f"{zh_edition.SUBDIR}/{p}.html" for p in zh_edition.finished(ROOT / "book")}
    pages = []
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site)
        if rel.parts[0] in ("_static", "_sources", "mathjax", "_images", "lite"):
            continue
        if rel.parts[0] == zh_edition.SUBDIR and (rel.as_posix() not in zh or "_static" in rel.parts):
            continue
        pages.append(rel.as_posix())
    return pages


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output readable
        pass


class NetworkGuard:
    """Aborts and records every non-loopback request of a browser context."""

    def __init__(self):
        self.blocked: list[str] = []

    def route(self, route):
        url = route.request.url
        if is_local(url):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort("blockedbyclient")


class ConsoleLog:
    """A page's console errors, page errors and failed local requests.

    A request that the test itself cut off by navigating (``page.goto``/``page.reload``: a
    MathJax font still loading when the test moves to the next page, say) fails with
    ``net::ERR_ABORTED``; that is the test's doing, not the page's, so it is not recorded.  Each
    navigation the test starts opens a new generation *before* it starts, every request is
    stamped with the generation it began in, and an ``ERR_ABORTED`` of an older generation is
    left out.  An image or a font that the browser itself gives up within a page's life is
    left out too: a frame player that moves on to the next frame, or a resize to the phone's
    frames, cancels the picture it no longer shows, and MathJax's web fonts can still be
    loading (a block laid out after the load event asks for its own) when the test's navigation
    is already under way, their "request" event seen after the new generation began.  A
    picture the page needs and lacks is caught where it matters (the players' checks ask for
    ``naturalWidth > 0``); a script's, a stylesheet's, a fetch's or a document's abort within
    a page's life is still an error.
    """

    #: resource types the browser cancels on its own when they are no longer wanted
    CANCELLABLE = frozenset({"image", "font"})

    def __init__(self, page):
        self.errors: list[str] = []
        self.generation = 0
        self._born: dict = {}
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        page.on("request", lambda request: self._born.setdefault(request, self.generation))
        page.on("requestfailed", self._failed)
        for name in ("goto", "reload"):
            setattr(page, name, self._navigating(getattr(page, name)))

    def _navigating(self, navigate):
        def wrapper(*args, **kwargs):
            self.generation += 1
            return navigate(*args, **kwargs)
        return wrapper

    def _console(self, msg):
        if msg.type == "error":
            self.errors.append(f"console.error: {msg.text} ({msg.location.get('url', '')})")

    def _failed(self, request):
        born = self._born.pop(request, self.generation)
        if "ERR_ABORTED" in (request.failure or "") and (
                born < self.generation or request.resource_type in self.CANCELLABLE):
            return                       # cut off by the test's own navigation, or no longer wanted
        if is_local(request.url):
            self.errors.append(f"request failed: {request.url} {request.failure}")


#: JupyterLab: set ``window.__sbBusySeen`` once any cell's prompt shows ``[*]``; evaluate it just
#: before Run All, then wait for the flag: Run All has started, so "idle" means "all ran", not
#: "not yet begun" (on a loaded machine the first cell may start seconds after the click).
BUSY_WATCH_JS = """() => {
    window.__sbBusySeen = false;
    const watch = () => {
        if (Array.from(document.querySelectorAll('.jp-InputPrompt')).some(p => p.textContent.includes('*')))
            window.__sbBusySeen = true;
        else requestAnimationFrame(watch);
    };
    watch();
}"""


# ------------------------------------------------------------------------- JupyterLab servers

#: JupyterLab settings of the tests: every cell in the DOM (selectors find them), no news, no
#: autosave (the copies in the temporary folder are never rewritten by the tests' edits)
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "autoStartDefaultKernel": True,
        "windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
}

#: the book's own small JupyterLab extension (a prebuilt federated extension, no build step):
#: ``make lab`` puts this folder on JUPYTER_PATH, and so do the tests
LAB_JUPYTER_PATH = ROOT / "tools" / "jupyter"


def lab_env(tmp: Path) -> dict:
    """The environment of a test's JupyterLab: isolated runtime and config folders, the
    project importable, the book's extension found (``make lab`` sets the same JUPYTER_PATH)."""
    return dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg",
                JUPYTER_RUNTIME_DIR=str(tmp / "runtime"), JUPYTER_CONFIG_DIR=str(tmp / "config"),
                JUPYTER_PATH=os.pathsep.join(p for p in [str(LAB_JUPYTER_PATH),
                                                         os.environ.get("JUPYTER_PATH")] if p),
                PYTHONPATH=os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p))


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lab_get(url: str, method: str = "GET", timeout: float = 5.0):
    import json
    import urllib.request

    req = urllib.request.Request(url, method=method)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        body = r.read()
        return json.loads(body) if body else None


def shutdown_kernels(base: str) -> None:
    try:
        for k in lab_get(f"{base}/api/kernels") or []:
            lab_get(f"{base}/api/kernels/{k['id']}", method="DELETE", timeout=20)
    except OSError:
        pass


class JupyterLab:
    """JupyterLab on 127.0.0.1 serving the folder ``work`` (no token, loopback only, isolated
    settings, autosave off); ``with JupyterLab(tmp, work) as base:`` yields its URL."""

    def __init__(self, tmp: Path, work: Path) -> None:
        self.tmp, self.work = Path(tmp), Path(work)

    def __enter__(self) -> str:
        import json
        import subprocess
        import time

        settings_dir = self.tmp / "settings"
        for rel, value in LAB_SETTINGS.items():
            path = settings_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value))
        jupyter = Path(sys.executable).with_name("jupyter-lab")
        # the free port is chosen here and taken by the server a second later; another
        # process may take it in between (make test runs three lanes of browsers and servers:
        # seen once, "port 41663 is not available"), so a server that found its port taken
        # is started again on another one
        for attempt in range(3):
            port = _free_port()
            cmd = [str(jupyter) if jupyter.exists() else "jupyter-lab", "--no-browser",
                   "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
                   "--IdentityProvider.token=", "--ServerApp.password=",
                   "--ServerApp.disable_check_xsrf=True", "--LabApp.extension_manager=readonly",
                   f"--ServerApp.root_dir={self.work}", f"--LabApp.user_settings_dir={settings_dir}",
                   f"--LabApp.workspaces_dir={self.tmp / 'workspaces'}", "--LabApp.news_url=",
                   "--ServerApp.open_browser=False", "--LabApp.expose_app_in_browser=True"]
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                cmd.append("--allow-root")
            self.log_path = self.tmp / "lab.log"
            self.log = open(self.log_path, "w")
            self.proc = subprocess.Popen(cmd, cwd=self.work, env=lab_env(self.tmp),
                                         stdout=self.log, stderr=subprocess.STDOUT)
            self.base = f"http://127.0.0.1:{port}"
            deadline = time.time() + 90
            while True:
                try:
                    lab_get(f"{self.base}/api/status")
                    return self.base
                except OSError:
                    if self.proc.poll() is not None or time.time() > deadline:
                        break
                    time.sleep(0.5)
            self.__exit__(None, None, None)
            log = self.log_path.read_text()
            if f"port {port} is not available" not in log or attempt == 2:
                raise RuntimeError("JupyterLab did not start:\n" + log[-3000:])

    def __exit__(self, *exc) -> None:
        import subprocess

        shutdown_kernels(self.base)
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


#: JupyterLab (started with ``--LabApp.expose_app_in_browser=True``, as the tests' servers are):
#: the current notebook's kernel is connected to the page and idle
KERNEL_READY_JS = """() => {
    const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
    return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
}"""


def start_run_all(page, attempts: int = 3, started_ms: int = 60_000) -> int:
    """Run → Run All Cells, once the notebook's kernel is connected, and wait until a cell has
    started (``[*]``); return how many extra clicks it took.

    JupyterLab runs a code cell only when the notebook has a kernel: a Run All clicked while the
    kernel is still being connected (seconds, on a loaded machine) renders the markdown and skips
    every code cell without a word.  So the click waits for the kernel (an explicit condition),
    and a Run All that starts no cell is clicked again, as a reader would."""
    for attempt in range(attempts):
        page.wait_for_function(KERNEL_READY_JS, timeout=240_000)
        page.locator(".jp-Notebook .jp-Cell").first.click()   # focus the notebook
        page.evaluate(BUSY_WATCH_JS)
        page.locator(".lm-MenuBar-item", has_text="Run").first.click()
        page.locator("li.lm-Menu-item[data-command='runmenu:run-all']").click()
        try:
            page.wait_for_function("() => window.__sbBusySeen === true", timeout=started_ms)
            return attempt
        except Exception as exc:          # playwright's TimeoutError: no cell started
            if "Timeout" not in type(exc).__name__:
                raise
    raise AssertionError(f"Run All started no cell in {attempts} clicks")


def wait_lab_idle(page, timeout: int = 300_000) -> None:
    """Wait until the notebook's kernel is idle and no cell is queued or running (``[*]``)."""
    page.wait_for_function(
        """() => {
            const ind = document.querySelector('.jp-Notebook-ExecutionIndicator');
            const busy = Array.from(document.querySelectorAll('.jp-InputPrompt'))
                .some(p => p.textContent.includes('*'));
            return ind && ind.getAttribute('data-status') === 'idle' && !busy;
        }""", timeout=timeout)


def blocked_context(browser):
    """A desktop context (1280 x 900, en-US, no service workers) with every request outside
    127.0.0.1 blocked and recorded in ``ctx.guard.blocked``."""
    guard = NetworkGuard()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US",
                              service_workers="block")
    ctx.route("**/*", guard.route)
    ctx.guard = guard
    return ctx


#: Chromium's resolver with every host name but 127.0.0.1 unknown: the network blocked without
#: routing requests (a routed context has no HTTP cache)
BLOCK_BY_RESOLVER = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


def cached_context(browser, profile: Path, **options):
    """A browser context with a reader's disk cache: a persistent profile in ``profile``
    (launched through the session's Playwright, ``browser.browser_type``), the network blocked
    by the resolver (:data:`BLOCK_BY_RESOLVER`) instead of by routing, which would turn the
    cache off.  Every request that is not to the loopback interface is recorded in
    ``ctx.outside``: a test using it fails when that list is not empty.  ``options`` are
    Playwright's context options (viewport, locale, service_workers, is_mobile, ...)."""
    ctx = browser.browser_type.launch_persistent_context(
        str(profile), executable_path=str(ensure_browser.ensure()), headless=True,
        args=CHROMIUM_ARGS + [BLOCK_BY_RESOLVER], **options)
    ctx.outside = []
    ctx.on("request", lambda r: None if is_local(r.url) else ctx.outside.append(r.url))
    return ctx


#: close every open document without waiting for its kernel: its changes dropped, its widget
#: disposed; returns the ids of the sessions it had, for :func:`close_in_background`
DROP_ALL_JS = """() => {
    const app = window.jupyterapp, ids = [];
    for (const w of Array.from(app.shell.widgets('main'))) {
        if (w.sessionContext && w.sessionContext.session) ids.push(w.sessionContext.session.id);
        if (w.context && w.context.model) w.context.model.dirty = false;
        w.dispose();
    }
    return ids;
}"""


def close_in_background(page, base: str) -> None:
    """JupyterLab (``page``, server ``base``): close every open document now and shut its
    session and kernel down on a thread.  A kernel's shutdown (its process told to exit, then
    waited for) takes about 3 s under load; a test opening the next notebook need not wait
    for it."""
    import threading

    ids = page.evaluate(DROP_ALL_JS)

    def shut():
        for sid in ids:
            try:
                lab_get(f"{base}/api/sessions/{sid}", method="DELETE", timeout=30)
            except OSError:
                pass
    threading.Thread(target=shut, daemon=True).start()

# ------------------------------------------------------------------------- page checks

#: a phone's view of the page (issue 36): the document's language, the first few visible texts
#: under 12 CSS px (MathJax and the frame players' pictures left out) and the page's width
PHONE_MEASURE_JS = """() => {
  let small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const t = walker.currentNode, el = t.parentElement;
    if (!t.textContent.trim() || !el || el.closest('mjx-container, .sb-frame-player')) continue;
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || s.visibility === 'hidden' || s.display === 'none') continue;
    if (parseFloat(s.fontSize) < 12) small.push(parseFloat(s.fontSize) + 'px: ' + t.textContent.trim().slice(0, 40));
  }
  return {lang: document.documentElement.lang, small: small.slice(0, 5),
          width: document.scrollingElement.scrollWidth};
}"""

#: jump every running animation and transition to its end: a resized page as a reader who
#: loaded it at that size sees it.  (The theme slides its sidebars out over 0.25 s when the
#: viewport narrows to a phone's, and in: mid-way the page outline covered the language switch
#: at 390 px; finishing them needs no animation frame, waiting for them would.)  Returns how
#: many it finished (an endless one is left).
FINISH_ANIMATIONS_JS = """() => {
  let n = 0;
  for (const a of document.getAnimations()) { try { a.finish(); n++; } catch (e) { /* endless */ } }
  return n;
}"""


#: the header's language switch as a reader meets it, read without touching the page (issue 34:
#: a click on it after the axe audit waited 30 s for an animation frame once): the URL its href
#: resolves to, whether it sits in the article header, is rendered (``checkVisibility`` with
#: opacity and visibility), lies inside the viewport at the top of the page, and is what a tap
#: at its centre would hit.  The page is first put at its top (``instant``: the theme scrolls
#: smoothly), as a freshly loaded page is.
SWITCH_JS = """() => {
  const a = document.querySelector('a.sb-lang-switch');
  if (!a) return null;
  window.scrollTo({top: 0, left: 0, behavior: 'instant'});
  const r = a.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {href: a.href, count: document.querySelectorAll('a.sb-lang-switch').length,
          header: !!a.closest('.bd-header-article'),
          shown: r.width > 0 && r.height > 0 &&
                 a.checkVisibility({opacityProperty: true, visibilityProperty: true}),
          inside: r.left >= 0 && r.top >= 0 && r.right <= window.innerWidth && r.bottom <= window.innerHeight,
          hit: !!hit && (hit === a || a.contains(hit)),
          box: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)]};
}"""


#: Before an axe audit that leaves MathJax out, make the page cheap to audit with the same
#: verdict on the rest (issue 34: the audit was most of a chapter's test time).  (1) Each
#: ``mjx-container`` keeps its box (its size frozen in CSS px) but loses MathJax's thousands of
#: inner nodes, which the audit excluded anyway.  (2) Of the syntax-highlighted code's token
#: spans, the first with a given chain of classes and styles up to its ``pre`` stays and each
#: repeat becomes plain text: a repeat has the same colour, background and font as the first,
#: so colour contrast gives it the same verdict.  The same for Sphinx's ``span.pre`` (the
#: words of inline code and of the library reference's signatures: 926 on the api page), the
#: chain up to the body.  Returns what it removed.
AXE_PREPARE_JS = """() => {
  let math = 0, spans = 0;
  for (const c of document.querySelectorAll('mjx-container')) {
    const r = c.getBoundingClientRect();
    c.replaceChildren();
    c.style.display = c.getAttribute('display') === 'true' ? 'block' : 'inline-block';
    c.style.width = r.width + 'px'; c.style.height = r.height + 'px';
    math++;
  }
  const seen = new Set();
  for (const s of document.querySelectorAll('div.highlight pre span, span.pre')) {
    if (s.children.length) continue;
    const key = [];
    for (let e = s; e && e.tagName !== 'BODY'; e = e.parentElement) {
      key.push(e.tagName + '.' + e.className + '|' + (e.getAttribute('style') || ''));
      if (e.tagName === 'PRE') break;
    }
    const k = key.join('<');
    if (seen.has(k)) { s.replaceWith(document.createTextNode(s.textContent)); spans++; }
    else seen.add(k);
  }
  return {math: math, spans: spans};
}"""


#: close every open document of a JupyterLab page: its kernel shut down, its changes dropped
#: (the copies are never saved), its widget disposed, so the next notebook opened is the only one
CLOSE_ALL_JS = """async () => {
    const app = window.jupyterapp;
    for (const w of Array.from(app.shell.widgets('main'))) {
        if (w.sessionContext) await w.sessionContext.shutdown();
        if (w.context && w.context.model) w.context.model.dirty = false;
        w.dispose();
    }
    return true;
}"""


def open_lab(page, lab: str):
    """JupyterLab (server ``lab``) in ``page``, started afresh (``?reset``) and restored; the
    page's default timeout 60 s (a loaded core can take tens of seconds to start it)."""
    page.set_default_timeout(60_000)
    page.goto(f"{lab}/lab?reset", wait_until="domcontentloaded")
    page.wait_for_function("() => !!window.jupyterapp", timeout=90_000)
    page.evaluate("() => window.jupyterapp.restored.then(() => true)")
    return page


#: tools/sb_settle.js's blocks: the prose and math of a chapter's sections, which the browser
#: lays out only near the screen until the script has laid out each (the script's list and
#: book/_static/spatialbook.css's rule name the same ones)
SETTLE_BLOCKS = ", ".join(f"article section > {b}" for b in
                          ("p", "div.math", "ul", "ol", "dl", "blockquote", "table",
                           "div.pst-scrollable-table-container", "details.dropdown",
                           "div.dropdown"))

#: the page is whole: tools/sb_settle.js has laid out what it left to the browser, or did not
#: leave anything (a page without math, or a visit that lands inside a chapter)
SETTLED_JS = ("() => document.documentElement.classList.contains('sb-settled')"
              " || !document.documentElement.classList.contains('sb-settling')")
