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
    def __init__(self, page):
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        page.on("requestfailed", self._failed)

    def _console(self, msg):
        if msg.type == "error":
            self.errors.append(f"console.error: {msg.text} ({msg.location.get('url', '')})")

    def _failed(self, request):
        if is_local(request.url):
            self.errors.append(f"request failed: {request.url} {request.failure}")
