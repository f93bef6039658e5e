"""The built book in a real browser with the network off (Chromium, headless, Playwright).

For every built page, in one page load (``test_page``): it loads with no console error and no
failed request, makes no non-loopback request (see conftest), the math arrives typeset (the
build's MathJax, tools/sb_offline_assets.py: every math element holds its mjx-container, no TeX
error, no raw $$ left, no MathJax loaded in the browser),
and every image is decoded (naturalWidth > 0); it names a favicon the site serves.  Every static
experiment (frame player) has a labelled slider and a frame shown, its wide frames at least
``WIDE_MIN_SCALE`` of their size (1:1 at 1280 px: figure text >= 12 CSS px), and it changes its
picture, value and readout when its slider is moved with the keyboard; every answer box says
right and wrong; this 1x screen fetches none of the players' 2x frames.  Then an axe audit:
no serious or critical violation (MathJax's output left out; the page reduced first as
``browser_support.AXE_PREPARE_JS`` says, the same verdict at a quarter of the time).

A finished page of the Chinese edition (``zh/``, issue 36) gets all of that, axe with its
``lang="zh-CN"`` (every rule but colour contrast, :data:`ZH_AXE_SKIPPED`), except that its players and answer boxes are stepped only where their served
markup differs from the English page's (they share its stored outputs, so an equal player or box
was stepped on the English page; once issue 36 translates their labels and messages they differ,
are stepped here, and a box must answer in Chinese).  The same load then checks the page on a
phone (resized to 390 px: marked zh-CN, no visible text under 12 CSS px, nothing wider than the
screen) and the header's language switch both ways (issue 34 moved these here from
test_zh_site.py, which had a page load of its own for them): read in place right after the load
and on the phone, before anything changes the page, it is a visible link in the header that
leads to the same English page, which is served marked ``en`` with a switch leading back.  No
click: a click's wait for a still element needs animation frames, and once, after the audit on
a loaded machine, headless Chromium gave it none for 30 s (test_zh_site.py follows the switch by
navigation from ``file://``).  Answer boxes are tried through their own handlers in one call
each, the first of a page also by real typing and keys (no mouse: see check_answer_boxes).

Issue 20, 2x frames: every player lists a 2x frame (twice the 1x size) for each frame of both
layouts; ch07's players on a 2x screen (1280-px desktop and 390-px phone) show, at every step,
the 2x file of the layout shown at the 1x frame's CSS size, and on a 1x screen the 1x frame,
no 2x file fetched; one player's 2x files equal a fresh drawing (a stale build fails).

    .venv/bin/python -m pytest tests/browser/test_static_site.py -q
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import struct

import pytest

from browser_support import (AXE_PREPARE_JS, FINISH_ANIMATIONS_JS, PHONE_MEASURE_JS,
                             SETTLE_BLOCKS, SETTLED_JS, SITE, SWITCH_JS, site_pages)

from widgets.style import WIDE_MIN_SCALE

PAGES = site_pages()

import zh_edition  # noqa: E402  (tools/, on the path by browser_support)

ZH = zh_edition.SUBDIR

#: how each language's answer box says "right" (zh41 translated the messages, 4b703aa: a Chinese
#: box whose markup differs from the English page's must answer in Chinese)
RIGHT = {"en": lambda text: text.startswith("Right"),
         "zh-CN": lambda text: text.startswith("正确")}


def _ids(pages):
    return [p.removesuffix(".html") for p in pages]


def load(page, site_url, rel):
    page.goto(f"{site_url}/{rel}", wait_until="load")
    if 'http-equiv="refresh"' in (SITE / rel).read_text(encoding="utf-8").lower():
        # a redirect page (index.html -> intro.html): wait for the target to load
        page.wait_for_url(lambda url: not url.endswith("/" + rel), timeout=15_000)
        page.wait_for_load_state("load")
    # wait until the page is laid out whole (tools/sb_settle.js, on a page with math)
    page.wait_for_function(SETTLED_JS, timeout=30_000)


def test_site_is_built():
    assert (SITE / "index.html").is_file(), f"book not built: {SITE}"
    assert PAGES, "no pages in the built site"


def check_rendering(page, rel) -> list[str]:
    info = page.evaluate("""() => ({
        math: document.querySelectorAll('div.math, span.math').length,
        mjx: document.querySelectorAll('mjx-container').length,
        // math elements left untypeset (the build typesets every one)
        raw: Array.from(document.querySelectorAll('div.math, span.math'))
            .filter(e => !e.querySelector('mjx-container')).length,
        merror: document.querySelectorAll('mjx-merror, mjx-container [data-mjx-error]').length,
        // MathJax in the browser: its global, or its script
        mathjax: !!window.MathJax || !!document.querySelector('script[src*="tex-chtml"]'),
        // every formula carries its MathML for screen readers
        assistive: document.querySelectorAll('mjx-container > mjx-assistive-mml > math').length,
        text: document.body.innerText,
        images: Array.from(document.images).map(img => ({
            src: img.currentSrc.slice(0, 80), complete: img.complete, w: img.naturalWidth})),
    })""")
    problems = []
    if info["math"] and info["mjx"] < 1:
        problems.append("math present but not typeset (no mjx-container)")
    if info["raw"]:
        problems.append(f"{info['raw']} math elements not typeset")
    if info["merror"]:
        problems.append(f"{info['merror']} TeX errors")
    if info["mathjax"]:
        problems.append("MathJax is loaded in the browser (the build typesets the math)")
    if info["assistive"] != info["mjx"]:
        problems.append(f"{info['mjx'] - info['assistive']} of {info['mjx']} formulas have no "
                        "MathML for screen readers")
    if "$$" in info["text"]:
        problems.append("raw $$ left in the page")
    if "\\begin{" in info["text"]:
        problems.append("raw TeX environment left in the page")
    for img in info["images"]:
        if not (img["complete"] and img["w"] > 0):
            problems.append(f"image not shown: {img}")
    return problems


#: book/_static/sb_a11y.js's verdicts (handed the theme's measuring by
#: tools/sb_offline_assets.py), read once the page is laid out whole and the measuring has
#: settled: every code block, output and table has tabindex 0 exactly when it scrolls, -1
#: otherwise; and tools/sb_settle.js's skipping of far blocks: some were skipped when the page
#: was first shown (html.sb-settling, spatialbook.css), none is at its end
SCROLLABLES_JS = """async () => {
  const SETTLE_BLOCKS = %s;
  if (!window.sbScrollables || !window.sbScrollables.settled) { return {handed: false}; }
  await window.sbScrollables.settled();
  const sel = ["pre", ".nboutput > .output_area", ".cell_output > .output",
               ".jp-RenderedHTMLCommon", ".pst-scrollable-table-container"].join(", ");
  const out = {handed: true, called: !!window.sbScrollables.called, n: 0, wrong: [],
               settle: window.sbSettle ? {skippedAtStart: window.sbSettle.skippedAtStart} : null,
               blocks: 0, skipped: 0,
               settling: document.documentElement.classList.contains("sb-settling")
                         && !document.documentElement.classList.contains("sb-settled")};
  for (const el of document.querySelectorAll(sel)) {
    out.n++;
    const want = el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight ? 0 : -1;
    if (el.tabIndex !== want) {
      out.wrong.push(`${el.tagName}.${el.className}: tabindex ${el.tabIndex}, scrolls: ${want === 0}`);
    }
  }
  // tools/sb_settle.js's blocks hold none of the book's controls (a control in a skipped
  // block would be missing from innerText and slow to reach)
  out.controlsInBlocks = [...document.querySelectorAll(SETTLE_BLOCKS)].filter((b) =>
      b.querySelector(".sb-frame-player, .sb-readout, .sb-answer-box, .sb-live-bar")).length;
  for (const s of document.querySelectorAll("article section > *")) {
    out.blocks++;
    const first = s.firstElementChild;
    if (first && !first.checkVisibility({contentVisibilityAuto: true})) { out.skipped++; }
  }
  return out;
}""" % json.dumps(SETTLE_BLOCKS)


def check_scrollables(page, rel: str) -> list[str]:
    """Keyboard access to scrolled regions, the theme's measuring handed to the book's; a
    chapter's far blocks skipped when it was first shown, and none left skipped after
    (:data:`SCROLLABLES_JS`)."""
    got = page.evaluate(SCROLLABLES_JS)
    if not got["handed"] or not got["called"]:
        return ["the theme's scrollable-region script was not handed to book/_static/sb_a11y.js "
                f"(tools/sb_offline_assets.py): {got}"]
    problems = [f"scroll region: {w}" for w in got["wrong"][:5]]
    if got["controlsInBlocks"]:
        problems.append(f"{got['controlsInBlocks']} of the blocks tools/sb_settle.js leaves to the "
                        "browser hold a control (a player, readout, answer box or live bar)")
    if got["settle"] is not None:
        if got["settling"] or got["skipped"]:
            problems.append(f"the page has settled but {got['skipped']} of {got['blocks']} "
                            "blocks are still skipped (tools/sb_settle.js)")
        if "chapters/" in rel and got["blocks"] > 30 and not got["settle"]["skippedAtStart"]:
            problems.append(f"no block of {got['blocks']} was skipped when the page was first "
                            "shown (spatialbook.css's content-visibility)")
    return problems


def check_frame_players(page, same: frozenset = frozenset()) -> list[str]:
    """Every player: a labelled slider, a frame shown (wide frames not shrunk); then, unless its
    id is in ``same`` (a Chinese page's player whose markup equals the English page's, which
    was stepped there), its slider moved by the keyboard changes the picture, value and
    readout, and End/Home reach the ends."""
    problems = []
    players = page.locator(".sb-frame-player")
    for i in range(players.count()):
        player = players.nth(i)
        player.scroll_into_view_if_needed()
        rng = player.locator("input[type=range]")
        img = player.locator("img.sb-frame")
        label = page.locator(f"label[for='{rng.get_attribute('id')}']")
        if label.count() != 1 or not label.inner_text().strip():
            problems.append(f"player {i}: slider has no visible label")
        if img.evaluate("el => el.naturalWidth") <= 0:
            problems.append(f"player {i}: frame not shown")
        size = img.evaluate("el => ({natural: el.naturalWidth, shown: el.getBoundingClientRect()"
                            ".width, layout: el.getAttribute('data-sb-layout')})")
        if player.get_attribute("data-sb-wide-width") and size["layout"] == "wide" \
                and size["shown"] < WIDE_MIN_SCALE * size["natural"] - 0.5:
            # the figure's smallest text is >= 12 CSS px only down to this scale
            # (tests/test_widget_text.py); a 1280-px desktop shows the 660-px frames 1:1
            problems.append(f"player {i}: wide frame shrunk below {WIDE_MIN_SCALE:.2f}: {size}")
        n = int(rng.get_attribute("max")) + 1
        if n < 2 or player.get_attribute("id") in same:
            continue
        src0 = img.get_attribute("src")
        shot0 = hashlib.sha1(img.screenshot()).hexdigest()
        value0 = player.locator("output.sb-value").inner_text()
        rng.focus()
        key = "ArrowRight" if int(rng.input_value()) < n - 1 else "ArrowLeft"
        page.keyboard.press(key)
        page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=img.element_handle())
        if img.get_attribute("src") == src0:
            problems.append(f"player {i}: the slider did not change the frame")
        elif hashlib.sha1(img.screenshot()).hexdigest() == shot0:
            problems.append(f"player {i}: the frame changed but the picture looks the same")
        if player.locator("output.sb-value").inner_text() == value0:
            problems.append(f"player {i}: the value readout did not change")
        readout = player.locator(".sb-readout")
        if readout.count() and not readout.inner_text().strip():
            problems.append(f"player {i}: empty readout")
        page.keyboard.press("End")
        if rng.input_value() != str(n - 1):
            problems.append(f"player {i}: End key did not reach the last frame")
        page.keyboard.press("Home")
        if rng.input_value() != "0":
            problems.append(f"player {i}: Home key did not reach the first frame")
    return problems


#: every answer box of the page: its id, expected answer, tolerance, and whether its input has
#: one label
_BOXES_JS = """() => Array.from(document.querySelectorAll('.sb-answer-box')).map((box) => {
  const inp = box.querySelector('input');
  return {id: box.id, expected: JSON.parse(box.getAttribute('data-expected')),
          tol: parseFloat(box.getAttribute('data-tolerance')), input: !!inp && !!box.querySelector('button'),
          labelled: !!inp && document.querySelectorAll(`label[for="${CSS.escape(inp.id)}"]`).length === 1};
})"""

#: one answer box tried in one call: brought to the middle of the screen, its input and button
#: hit-tested (what a tap at each centre would reach), then each [text, how] typed (value set,
#: an input event) and submitted as the reader would (how: its button's click, or Enter in
#: the input), the box's verdict and message read after each
_TRY_BOX_JS = """({id, tries}) => {
  const box = document.getElementById(id), inp = box.querySelector('input'),
        button = box.querySelector('button'), status = box.querySelector('.sb-status');
  box.scrollIntoView({block: 'center', behavior: 'instant'});
  const reached = (el) => { const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return r.width > 0 && r.height > 0 && !!hit && (hit === el || el.contains(hit)); };
  const reach = {input: reached(inp), button: reached(button)};
  const results = tries.map(([text, how]) => {
    inp.value = text;
    inp.dispatchEvent(new Event('input', {bubbles: true}));
    if (how === 'click') button.click();
    else inp.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true}));
    return {result: box.getAttribute('data-result'), status: status.textContent};
  });
  return {reach: reach, results: results};
}"""


def check_answer_boxes(page, same: frozenset = frozenset(), lang: str = "en") -> list[str]:
    """Every answer box has a labelled input; and, unless its id is in ``same`` (a Chinese
    page's box whose markup, messages included, equals the English page's, which was tried
    there), its input and button are what a tap reaches, it accepts its answer (saying so in
    the page's language), rejects a wrong one and flags non-numeric input (one number, or a
    vector typed as comma/space-separated numbers).

    Each box is tried in one call (``_TRY_BOX_JS``: its own click and Enter handlers run, as
    a reader's would); the first box tried on a page is also driven by real input (typing, its
    button pressed from the keyboard, the Enter key), so the path from a reader's hand to the
    handlers is tested on every page that has a box to try.  (Issue 34: the dozen Playwright
    actions per box were ~4 s a page.)"""
    problems = []
    real_done = False
    for i, b in enumerate(page.evaluate(_BOXES_JS)):
        if not b["input"]:
            problems.append(f"answer box {i}: no input or button")
            continue
        if not b["labelled"]:
            problems.append(f"answer box {i}: input has no label")
        if b["id"] in same:
            continue
        expected, tol = b["expected"], b["tol"]
        vector = isinstance(expected, list)
        right = ", ".join(map(repr, expected)) if vector else repr(expected)
        if vector:  # last component wrong, space-separated
            wrong = " ".join(map(repr, expected[:-1] + [expected[-1] + 10 * tol + 1.0]))
        else:
            wrong = repr(expected + 10 * tol + 1.0)
        bad = ["abc", ", ".join(["1"] * (len(expected) + 1))] if vector else ["abc"]
        tries = [[right, "click"], [wrong, "enter"]] + [[text, "click"] for text in bad]
        got = page.evaluate(_TRY_BOX_JS, {"id": b["id"], "tries": tries})
        reachable = all(got["reach"].values())
        if not reachable:
            problems.append(f"answer box {i}: a tap does not reach its input and button: "
                            f"{got['reach']}")
        first, second, *rest = got["results"]
        if first["result"] != "right" or not RIGHT[lang](first["status"]):
            problems.append(f"answer box {i}: the right answer {right!r} was not accepted: {first}")
        if second["result"] != "wrong":
            problems.append(f"answer box {i}: a wrong answer {wrong!r} was not rejected")
        # non-numeric; for a vector also the wrong number of components
        for text, r in zip(bad, rest):
            if r["result"] != "invalid":
                problems.append(f"answer box {i}: invalid input {text!r} not flagged")
        if reachable and not real_done:
            real_done = True
            box = page.locator(f"#{b['id']}")
            inp = box.locator("input")
            inp.fill(wrong)
            # the button pressed from the keyboard (a real click event), not with the mouse: a
            # pointer left where the button was hovers whatever lies there once the page is
            # scrolled back to the top, and a link's hover colour there failed the axe audit's
            # colour contrast (ch10's glossary link, once in a full run at load 8)
            box.locator("button").press("Enter")
            if box.get_attribute("data-result") != "wrong":
                problems.append(f"answer box {i}: typed {wrong!r} and pressed Check: not rejected")
            inp.fill(right)
            inp.press("Enter")
            if box.get_attribute("data-result") != "right" or \
                    not RIGHT[lang](box.locator(".sb-status").inner_text()):
                problems.append(f"answer box {i}: typed {right!r} and pressed Enter: not accepted")
    return problems


#: axe's rules left out on a finished Chinese page: colour contrast, computed from the
#: stylesheets and the text's size and weight, which the Chinese page shares with the English
#: page audited beside it (the translation changes the words only); the costliest rule: 4 zh
#: pages took 33.5 s of CPU without it against 38.2 and 44.6 s with it (Chromium included, load
#: 9-11), and 26.5 s with no audit at all
ZH_AXE_SKIPPED = ("color-contrast",)


def check_axe(page, skip: tuple[str, ...] = ()) -> list[str]:
    """axe: no serious or critical violation (the rules in ``skip`` left out).  MathJax's output
    (thousands of mjx-* nodes, its own assistive MathML) is left out, third-party markup;
    AXE_PREPARE_JS empties its containers (their boxes kept) and reduces repeated code tokens
    to one of each kind first, a quarter of the audit's time on a long chapter (ch12: 86 s ->
    22 s at load 22)."""
    from axe_playwright_python.sync_playwright import Axe

    page.evaluate(AXE_PREPARE_JS)
    options = {"resultTypes": ["violations"], "rules": {r: {"enabled": False} for r in skip}}
    results = Axe().run(page, options=options)
    bad = [v for v in results.response["violations"] if v.get("impact") in ("serious", "critical")]
    return [f"axe {v['impact']}: {v['id']}: {v['help']} -> "
            + "; ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:5]) for v in bad]


def check_favicon(page) -> list[str]:
    """The page names an icon the site serves (a small image), so a browser asks for no
    /favicon.ico (a 404 on every page before issue 33)."""
    got = page.evaluate("""async () => {
        const link = document.querySelector('link[rel~="icon"]');
        if (!link) { return null; }
        const r = await fetch(link.href);
        return {href: link.href, status: r.status, type: r.headers.get('Content-Type'),
                size: (await r.arrayBuffer()).byteLength};
    }""")
    if got is None:
        return ["no <link rel=icon>: the browser asks for /favicon.ico (404)"]
    if got["status"] != 200 or not (got["type"] or "").startswith("image/") \
            or not 0 < got["size"] < 10_000:
        return [f"the favicon is not a small image the site serves: {got}"]
    return []


#: the ids of a Chinese page's players and answer boxes whose markup (its script, labels and
#: messages included) equals the English page's, both as served (not as the scripts changed them);
#: and the English page as served: its status, language, and where its switch leads (its href
#: resolved against the English page's own URL)
_SAME_AS_ENGLISH = """async (english) => {
  const get = async (url) => { const r = await fetch(url);
    return {status: r.status, doc: new DOMParser().parseFromString(await r.text(), 'text/html')}; };
  const [en, own] = await Promise.all([get(english), get(location.href)]);
  const same = (sel) => {
    const theirs = new Map(Array.from(en.doc.querySelectorAll(sel)).map(e => [e.id, e.outerHTML]));
    return Array.from(own.doc.querySelectorAll(sel)).filter(e => e.id && theirs.get(e.id) === e.outerHTML)
      .map(e => e.id); };
  const back = en.doc.querySelector('a.sb-lang-switch');
  return {players: same('.sb-frame-player'), boxes: same('.sb-answer-box'),
          all: own.doc.querySelectorAll('.sb-frame-player, .sb-answer-box').length,
          english: {status: en.status, lang: en.doc.documentElement.lang,
                    back: back && new URL(back.getAttribute('href'), english).href}};
}"""


def check_switch(page, target: str, where: str) -> list[str]:
    """The header's language switch (``SWITCH_JS``, read without a click): it leads to
    ``target`` (the same page of the other edition), sits in the article header, is shown
    inside the screen at the top of the page and is what a tap there reaches.  Run before
    anything changes the page (the axe audit's reduction above all)."""
    got = page.evaluate(SWITCH_JS)
    if got is None:
        return [f"{where}: no language switch"]
    problems = []
    if got["href"] != target:
        problems.append(f"{where}: the language switch leads to {got['href']}, not {target}")
    if not (got["header"] and got["shown"] and got["inside"] and got["hit"]):
        problems.append(f"{where}: the language switch is not a visible link in the header: {got}")
    return problems


def check_english_side(got: dict, zh_url: str) -> list[str]:
    """The English page a Chinese page's switch leads to, as served: found, marked ``en``, and
    its own switch leads back to the Chinese page."""
    problems = []
    if got["status"] != 200:
        problems.append(f"the switch's English page answered {got['status']}")
    if got["lang"] != "en":
        problems.append(f"the switch led to a page marked {got['lang']!r}, not en")
    if got["back"] != zh_url:
        problems.append(f"the English page's switch leads to {got['back']}, not back to {zh_url}")
    return problems


def check_phone(page, switch_target: str) -> list[str]:
    """A finished Chinese page on a phone (390 px, the loaded page resized, the theme's
    transitions finished as on a page loaded at that size): marked zh-CN, no visible text under
    12 CSS px, nothing wider than the screen, the language switch still a visible link to the
    English page."""
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        page.evaluate(FINISH_ANIMATIONS_JS)     # the sidebars' slide out
        got = page.evaluate(PHONE_MEASURE_JS)
        problems = check_switch(page, switch_target, "phone")
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.evaluate(FINISH_ANIMATIONS_JS)     # and back in, before the audit
    if got["lang"] != "zh-CN":
        problems.append(f"phone: the page is marked {got['lang']!r}, not zh-CN")
    if got["small"]:
        problems.append(f"phone: text under 12 px: {got['small']}")
    if got["width"] > 391:
        problems.append(f"phone: the page is {got['width']} px wide on a 390-px screen")
    return problems


@pytest.mark.parametrize("rel", PAGES, ids=_ids(PAGES))
def test_page(page, site_url, rel):
    """One load per page: rendering, static experiments, answer boxes, favicon, console, then
    the axe audit.  A finished Chinese page (``zh/``) shares the English page's stored outputs:
    its players and answer boxes are stepped only where their markup differs from the English
    page's (say once issue 36 translates their labels and messages); it is also checked on a
    phone (the same load, resized to 390 px), and its language switch both ways: this page's
    switch, read in place before anything changes the page, leads to the English page, which
    is served marked ``en`` with a switch leading back (an English page with a finished
    Chinese edition checks its own switch in place the same way)."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    load(page, site_url, rel)
    zh = rel.startswith(f"{ZH}/")
    english = rel.removeprefix(f"{ZH}/")
    # the switch leads to the same page of the other edition
    other = f"{site_url}/{english}" if zh else f"{site_url}/{ZH}/{rel}"
    problems = []
    if zh or f"{ZH}/{rel}" in PAGES:
        problems += check_switch(page, other, "desktop")
    same = {"players": [], "boxes": []}
    if zh:
        same = page.evaluate(_SAME_AS_ENGLISH, other)
        problems += check_english_side(same["english"], f"{site_url}/{rel}")
    problems += check_rendering(page, rel)
    problems += check_scrollables(page, rel)
    problems += check_frame_players(page, frozenset(same["players"]))
    # this 1x screen asked for no 2x frame, though every player was stepped
    dense = {n for lists in dense_lists(SITE / rel) for k in ("wide", "narrow")
             for n in lists.get(k, [])}
    problems += [f"a 1x screen fetched a 2x frame: {u}" for u in requests
                 if u.rsplit("/", 1)[-1].removesuffix(".png") in dense]
    problems += check_answer_boxes(page, frozenset(same["boxes"]), "zh-CN" if zh else "en")
    problems += check_favicon(page)
    if zh:
        problems += check_phone(page, other)
    problems += [f"browser: {e}" for e in page.console_log.errors]
    page.evaluate("() => window.scrollTo(0, 0)")
    # (axe's own fetch of the stylesheets resolves the theme's @import "../basic.css" of a zh/
    # page against the wrong folder: a 404 of the audit, not of the page; nothing runs after it)
    problems += check_axe(page, ZH_AXE_SKIPPED if zh else ())
    assert not problems, f"{rel}:\n  " + "\n  ".join(problems)


def test_every_chapter_page_has_a_working_static_experiment():
    chapters = [p for p in PAGES if p.startswith("chapters/")]
    with_player = [p for p in chapters if "sb-frame-player" in (SITE / p).read_text(encoding="utf-8")]
    assert with_player, "no chapter page has a static experiment (frame player)"


# ------------------------------------------------------------------ issue 20: 2x frames

_DENSE = re.compile(r'<script type="application/json" class="sb-2x-frames">(.*?)</script>', re.S)
_PLAYER = re.compile(r'<div class="sb-frame-player" id="(sb-fp-[0-9a-f]{12})"([^>]*)>')


def dense_lists(path) -> list[dict]:
    """The 2x frame lists of a built page's players, in order."""
    return [json.loads(m) for m in _DENSE.findall(path.read_text(encoding="utf-8"))]


def _png_size(path) -> tuple[int, int]:
    return struct.unpack(">II", path.read_bytes()[16:24])


def test_every_player_lists_its_2x_frames():
    """Every frame player of the book (each has a Run live button, so the build knows its
    experiment) lists 2x frames for both layouts, one per frame, files twice the 1x size."""
    problems, count = [], 0
    for path in sorted(SITE.glob("chapters/*.html")):
        text = path.read_text(encoding="utf-8")
        players = _PLAYER.findall(text)
        lists = dense_lists(path)
        if len(lists) != len(players):
            problems.append(f"{path.name}: {len(players)} players, {len(lists)} 2x lists")
            continue
        for (uid, _), listed in zip(players, lists):
            n = len(json.loads(re.search(rf'id="{uid}-img".*?var values = (\[.*?\]);', text,
                                         re.S).group(1)))
            narrow1x = json.loads(re.search(rf'id="{uid}".*?class="sb-narrow-frames">(\[.*?\])<',
                                            text, re.S).group(1))
            for layout, one in (("wide", (660, None)), ("narrow", _png_size(
                    (path.parent / narrow1x[0]).resolve()))):
                names = listed.get(layout, [])
                if len(names) != n:
                    problems.append(f"{path.name} {uid} {layout}: {len(names)} 2x frames for {n}")
                    continue
                for name in names:
                    w, h = _png_size(SITE / "_sb_frames" / f"{name}.png")
                    count += 1
                    if w != 2 * one[0] or (one[1] is not None and h != 2 * one[1]):
                        problems.append(f"{path.name} {uid} {layout}: {name} is {w}x{h}, "
                                        f"the 1x frame {one}")
    assert count and not problems, "\n  ".join(problems)


def test_the_built_2x_frames_are_a_fresh_drawing():
    """One player of the built book (ch07's probe-path choice: a choice control, three frames):
    its 2x files equal the experiment drawn now at twice the dpi for the player's settings and
    values, both layouts; a stale or mismatched 2x frame fails here."""
    import io
    import sys

    import numpy as np
    from PIL import Image

    sys.path.insert(0, str(SITE.parents[2] / "tools"))
    import live_frames
    from widgets import EXPERIMENTS
    from widgets.players import dense_frames

    path = next(SITE.glob("chapters/ch07_*.html"))
    text = path.read_text(encoding="utf-8")
    found = None
    for (uid, attrs), listed in zip(_PLAYER.findall(text), dense_lists(path)):
        if 'data-sb-control="path"' in attrs:
            found = uid, attrs, listed
    assert found, "ch07's probe-path player is gone: choose another player for this test"
    uid, attrs, listed = found
    settings = json.loads(html.unescape(re.search(r'data-sb-settings="([^"]*)"', attrs).group(1)))
    texts = json.loads(re.search(rf'id="{uid}-img".*?var values = (\[.*?\]);', text, re.S).group(1))
    cls = EXPERIMENTS["probes"]
    values = live_frames.player_values(cls, "path", texts)
    for layout in ("wide", "narrow"):
        fresh = dense_frames(cls, settings, "path", values, layout == "narrow")
        for name, png in zip(listed[layout], fresh):
            built = np.asarray(Image.open(SITE / "_sb_frames" / f"{name}.png").convert("RGB"))
            assert np.array_equal(built, np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))), \
                f"{layout} 2x frame {name} differs from a fresh drawing"


# The file's own width, read by loading it again in a probe image: once the shown image has
# loaded (its currentSrc settled), with the probe held on window until it loads (an unreferenced
# Image's pending promise can be garbage-collected first) and tried again after an error (a
# second request for a file still in flight was seen failing once under load).
JS_SHOWN = """async (root) => {
  const img = root.querySelector('img.sb-frame');
  for (let i = 0; i < 200 && !(img.complete && img.currentSrc); i++) {
    await new Promise((r) => setTimeout(r, 25)); }
  const r = img.getBoundingClientRect();
  const probeWidth = (src) => new Promise((done) => { const probe = new Image(); window.__sbProbe = probe;
    probe.onload = () => { window.__sbProbe = null; done(probe.naturalWidth); };
    probe.onerror = () => { window.__sbProbe = null; done(0); };
    probe.src = src; });
  let file = 0;
  for (let attempt = 0; attempt < 5 && !file; attempt++) {
    if (attempt) { await new Promise((r) => setTimeout(r, 200)); }
    file = await probeWidth(img.currentSrc);
  }
  return {src: img.currentSrc.slice(-60), srcset: img.getAttribute('srcset'),
    frame: img.getAttribute('data-frame'), layout: img.getAttribute('data-sb-layout'),
    css: r.width, cssHeight: r.height, natural: img.naturalWidth, file: file}; }"""


@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_2x_frames_only_on_2x_screens(browser, site_url, scale, width):
    """ch07 (a slider's player and a choice's): on a 2x screen (desktop and phone) every frame
    the player steps to is its 2x file (the file twice as wide as the picture's CSS width, of
    the layout shown), at the same CSS size as on a 1x screen; a 1x screen fetches no 2x file."""
    from browser_support import ConsoleLog, NetworkGuard

    path = next(SITE.glob("chapters/ch07_*.html"))
    lists = dense_lists(path)
    dense = {n for listed in lists for k in ("wide", "narrow") for n in listed[k]}
    guard = NetworkGuard()
    ctx = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=scale,
                              service_workers="block")
    ctx.route("**/*", guard.route)
    page = ctx.new_page()
    log = ConsoleLog(page)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    problems = []
    css = {"wide": 660, "narrow": 330}
    try:
        page.goto(f"{site_url}/{path.relative_to(SITE).as_posix()}", wait_until="load")
        players = page.locator(".sb-frame-player")
        assert players.count() == len(lists) >= 2
        layout = "wide" if width == 1280 else "narrow"
        for i in range(players.count()):
            player = players.nth(i)
            player.scroll_into_view_if_needed()
            rng = player.locator("input[type=range]")
            rng.focus()
            page.keyboard.press("Home")
            for step in range(3):
                if step:
                    page.keyboard.press("ArrowRight")
                got = player.evaluate(JS_SHOWN)
                k = int(got["frame"])
                if got["layout"] != layout or abs(got["css"] - css[layout]) > 0.5:
                    problems.append(f"player {i} frame {k}: {got} (expected {layout}, "
                                    f"{css[layout]} CSS px)")
                if scale == 2:
                    want = lists[i][layout][k]
                    if not got["src"].endswith(f"/_sb_frames/{want}.png") or \
                            got["file"] != 2 * got["css"] or got["natural"] != css[layout]:
                        problems.append(f"player {i} frame {k}: not its 2x frame {want}: {got}")
                elif got["srcset"] or got["file"] != got["css"]:
                    problems.append(f"player {i} frame {k}: 1x screen, not the 1x frame: {got}")
        fetched = [u for u in requests if u.rsplit("/", 1)[-1].removesuffix(".png") in dense]
        if scale == 1 and fetched:
            problems.append(f"a 1x screen fetched 2x frames: {fetched}")
        if scale == 2 and not fetched:
            problems.append("a 2x screen fetched no 2x frame")
        problems += [f"browser: {e}" for e in log.errors]
    finally:
        ctx.close()
    assert not guard.blocked, guard.blocked
    assert not problems, "\n  ".join(problems)
