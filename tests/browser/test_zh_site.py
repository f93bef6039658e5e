"""The Chinese edition in a real browser (issue 36), network blocked: the language switch from
``file://`` and an unfinished page's note.

test_static_site.py's ``test_page`` checks every finished Chinese page (``site_pages``) in its
one load (issue 34): rendering, math, console, favicon, axe with the page's
``lang="zh-CN"``; its players and answer boxes where their markup differs from the English
page's; then on a phone (the loaded page resized to 390 px: marked ``zh-CN``, nothing wider than
the screen, no visible text under 12 CSS px) and the header's switch, read in place, to the
same English page and back.  Here: the switch's relative links, followed by navigation, work
from ``file://`` both ways, and an unfinished chapter says so and links to the English page.

    .venv/bin/python -m pytest tests/browser/test_zh_site.py -q
"""

from __future__ import annotations

import sys

import pytest

from browser_support import ROOT, SITE, SWITCH_JS, NetworkGuard

sys.path.insert(0, str(ROOT / "tools"))

import zh_edition  # noqa: E402

#: the finished pages (the others are the English page with a note)
FINISHED = [f"{zh_edition.SUBDIR}/{p}.html" for p in zh_edition.finished(ROOT / "book")]


def _phone(browser):
    guard = NetworkGuard()
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1,
                              service_workers="block")
    ctx.route("**/*", guard.route)
    return ctx, guard


def test_switch_works_from_a_file(browser):
    """From file:// (no server): the relative links of the switch both ways, each a visible
    link in the header (``SWITCH_JS``) followed by navigating to where the browser resolves it
    (a click's wait for a still element needs animation frames, which a loaded machine's
    headless Chromium once withheld for 30 s; issue 34)."""
    ctx = browser.new_context(service_workers="block")
    page = ctx.new_page()
    try:
        for rel in ("chapters/ch01_velocity_field.html", "intro.html"):
            zh = f"{zh_edition.SUBDIR}/{rel}"
            page.goto((SITE / rel).as_uri(), wait_until="load")
            for here, there, lang in ((rel, zh, "zh-CN"), (zh, rel, "en")):
                got = page.evaluate(SWITCH_JS)
                assert got and got["href"] == (SITE / there).as_uri(), (here, got)
                assert got["header"] and got["shown"] and got["inside"] and got["hit"], (here, got)
                page.goto(got["href"], wait_until="load")
                assert page.evaluate("document.documentElement.lang") == lang, there
    finally:
        ctx.close()


def test_unfinished_page_says_so_and_links_to_english(browser, site_url):
    unfinished = sorted(p.relative_to(SITE / zh_edition.SUBDIR).as_posix()
                        for p in (SITE / zh_edition.SUBDIR / "chapters").glob("*.html")
                        if f"{zh_edition.SUBDIR}/{p.relative_to(SITE / zh_edition.SUBDIR).as_posix()}"
                        not in FINISHED)
    if not unfinished:
        pytest.skip("every chapter is translated")
    ctx, guard = _phone(browser)
    page = ctx.new_page()
    try:
        page.goto(f"{site_url}/{zh_edition.SUBDIR}/{unfinished[0]}", wait_until="load")
        note = page.locator(".sb-i18n-note")
        assert note.count() == 1 and "翻译尚在进行中" in note.inner_text()
        note.locator("a").first.click()
        page.wait_for_url(f"{site_url}/{unfinished[0]}")
    finally:
        ctx.close()
    assert not guard.blocked


#: a query per kind of term: a glossary term jieba's own dictionary would split (运动 / 旋量),
#: one it knows whole, and a longer one; each with a chapter page it must find
SEARCHES = {"运动旋量": "chapters/ch02_motion_transform.html",
            "铰接体惯量": "chapters/ch13_articulated_body.html",
            "空间加速度": "chapters/ch07_spatial_acceleration.html"}


def test_search_finds_chinese_terms(browser, site_url):
    """The Chinese site's own search (Sphinx's, offline) finds a glossary term typed as a reader
    types it, whole: the index is cut by jieba with the glossary's terms kept whole
    (tools/zh_edition.py's ``search_terms``); without jieba it holds no Chinese word at all."""
    ctx, guard = _phone(browser)
    page = ctx.new_page()
    try:
        for query, want in SEARCHES.items():
            page.goto(f"{site_url}/{zh_edition.SUBDIR}/search.html?q={query}", wait_until="load")
            page.wait_for_function("() => (document.querySelector('#search-results .search-summary')"
                                   " || {}).innerText", timeout=60_000)
            hits = page.eval_on_selector_all("#search-results ul.search li a",
                                             "els => els.map(a => a.getAttribute('href'))")
            assert any(h.split("#")[0].endswith(want) for h in hits), (query, hits[:12])
    finally:
        ctx.close()
    assert not guard.blocked
