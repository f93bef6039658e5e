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
    """Every built HTML page, relative to the site root (no sources, no MathJax internals)."""
    if not (site / "index.html").is_file():
        return []
    pages = []
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site)
        if rel.parts[0] in ("_static", "_sources", "mathjax", "_images"):
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
    left out.  Every other failure, an abort within one page's life included, is an error.
    """

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
        if "ERR_ABORTED" in (request.failure or "") and born < self.generation:
            return                       # cut off by the test's own navigation
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
