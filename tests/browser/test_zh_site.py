"""The Chinese edition in a real browser (issue 36), network blocked: its finished pages on a
phone (390 px) and the language switch.

test_static_site.py already loads every finished Chinese page (``site_pages``: rendering,
MathJax, console, axe with the page's ``lang="zh-CN"``).  Here, at 390 px: the page is marked
``zh-CN``, nothing is wider than the screen, no visible text is under 12 CSS px, and the
header's switch leads to the same page of the English edition, whose switch leads back; the
same links work from ``file://``.

    .venv/bin/python -m pytest tests/browser/test_zh_site.py -q
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from browser_support import ROOT, SITE, ConsoleLog, NetworkGuard

sys.path.insert(0, str(ROOT / "tools"))

import zh_edition  # noqa: E402

FINISHED = [f"{zh_edition.SUBDIR}/{p}.html" for p in zh_edition.finished(ROOT / "book")]

#: the smallest font size of visible text, and the widest element (CSS px)
_MEASURE = """() => {
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


def _phone(browser):
    guard = NetworkGuard()
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1,
                              service_workers="block")
    ctx.route("**/*", guard.route)
    return ctx, guard


@pytest.mark.parametrize("rel", FINISHED)
def test_finished_page_on_a_phone_and_its_switch(browser, site_url, rel):
    ctx, guard = _phone(browser)
    page = ctx.new_page()
    log = ConsoleLog(page)
    try:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        got = page.evaluate(_MEASURE)
        assert got["lang"] == "zh-CN"
        assert got["small"] == [], f"text under 12 px: {got['small']}"
        assert got["width"] <= 391, f"the page is {got['width']} px wide on a 390-px screen"
        english = rel.removeprefix(f"{zh_edition.SUBDIR}/")
        page.locator("a.sb-lang-switch").first.click()
        page.wait_for_url(f"{site_url}/{english}")
        assert page.evaluate("document.documentElement.lang") == "en"
        page.locator("a.sb-lang-switch").first.click()
        page.wait_for_url(f"{site_url}/{rel}")
        assert not log.errors, log.errors
    finally:
        ctx.close()
    assert not guard.blocked


def test_switch_works_from_a_file(browser):
    """From file:// (no server): the relative links of the switch both ways."""
    ctx = browser.new_context(service_workers="block")
    page = ctx.new_page()
    try:
        for rel in ("chapters/ch01_velocity_field.html", "intro.html"):
            zh = f"{zh_edition.SUBDIR}/{rel}"
            page.goto((SITE / rel).as_uri(), wait_until="load")
            page.locator("a.sb-lang-switch").first.click()
            page.wait_for_url((SITE / zh).as_uri())
            assert page.evaluate("document.documentElement.lang") == "zh-CN"
            page.locator("a.sb-lang-switch").first.click()
            page.wait_for_url((SITE / rel).as_uri())
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
