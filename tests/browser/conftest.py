"""Fixtures of the real-browser tests (helpers in browser_support.py): a local server for the
built site, one headless Chromium per session, and per-test contexts with the network blocked."""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_support import (CHROMIUM_ARGS, SITE, ConsoleLog, blocked_context,  # noqa: E402
                             _Quiet, ensure_browser)


@pytest.fixture(scope="session")
def site_url():
    if not (SITE / "index.html").is_file():
        pytest.fail(f"the book is not built ({SITE}/index.html missing): run tools/build_book.py")
    handler = functools.partial(_Quiet, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    executable = ensure_browser.ensure()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(executable), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def context(browser):
    ctx = blocked_context(browser)
    guard = ctx.guard
    yield ctx
    ctx.close()
    assert not guard.blocked, f"page tried to reach the network: {guard.blocked}"


@pytest.fixture()
def page(context):
    p = context.new_page()
    p.console_log = ConsoleLog(p)
    yield p
    p.close()
