"""Live mode of the built book in a real browser, network off (Chromium, headless, Playwright).

For each registered experiment that a chapter shows (first page with its "Run live" button):
before the click the page requests nothing of live mode; the click starts Pyodide from the
site itself; the live panel has every control of the experiment's ``CONTROLS``; moving each
control with the keyboard or the mouse changes the picture; the play button animates; for
random settings of every control the live numbers equal native Python's ``exp.state()`` (same
values, computed here) and the readout table equals ``exp.readout_table()`` character for
character; no console error; no non-loopback request (see conftest).  Then: Pyodide is loaded
once per page even with two experiments; the axe audit is clean with the live controls; at a
phone's width (390 px) the page does not overflow sideways and both the frames and the live
figure use the experiment's narrow layout (panels stacked, 330 px), shown 1:1.  The staged distribution is checked file by file.

    .venv/bin/python -m pytest tests/browser/test_live.py -q -s
"""

from __future__ import annotations

import json
import math
import re
import statistics
import sys
from pathlib import Path

import numpy as np
import pytest

from browser_support import ROOT, SITE, ConsoleLog, NetworkGuard

sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))

import pyodide_dist  # noqa: E402

START_TIMEOUT_MS = 120_000
RANDOM_SETTINGS = 2
def live_pages(site: Path = SITE) -> dict[str, str]:
    """Experiment name -> the first built page (relative) with a Run live button for it."""
    found: dict[str, str] = {}
    for path in sorted(site.glob("chapters/*.html")):
        for name in re.findall(r'data-sb-experiment="([a-z_0-9]+)"', path.read_text(encoding="utf-8")):
            found.setdefault(name, path.relative_to(site).as_posix())
    return found


PAGES = live_pages()

# ------------------------------------------------------------------------------ JS helpers

JS_PIXELS = """(root) => {
  const c = root.querySelector('canvas.sb-live-canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let h1 = 0x811c9dc5 | 0, h2 = 0;
  for (let i = 0; i < d.length; i += 1) { h1 = Math.imul(h1 ^ d[i], 16777619); h2 = (h2 + d[i] * (i % 251)) | 0; }
  return (h1 >>> 0).toString(16) + ':' + (h2 >>> 0).toString(16);
}"""

JS_INFO = """(root) => ({
  updates: root.sbLive.updates, state: root.sbLive.state, values: root.sbLive.values(),
  readout: root.sbLive.readoutHtml,
  times: root.sbLive.times, first: root.sbLive.firstFrameMs, create: root.sbLive.createMs,
  boot: window.sbLive.bootTimes || null })"""

JS_SET = """([root, values]) => {
  for (const [name, v] of Object.entries(values)) {
    const inp = root.sbLive.inputs[name];
    if (inp.spec.kind === 'slider') {
      inp.el.value = String(v);
      inp.el.dispatchEvent(new Event('input', {bubbles: true}));
    } else {
      const i = inp.spec.options.indexOf(v);
      const r = inp.el.querySelectorAll('input[type=radio]')[i];
      r.checked = true;
      r.dispatchEvent(new Event('change', {bubbles: true}));
    }
  }
}"""


def start_live(page, site_url: str, rel: str, name: str, index: int = 0, phone: bool = False):
    """Open ``rel``, check nothing of live mode (nor, on a wide screen, a phone frame) was
    fetched, click Run live; return the panel."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{site_url}/{rel}", wait_until="load")
    early = [u for u in requests if "/_pyodide/" in u or "/_live/" in u
             or ("/_sb_frames/" in u and not phone)]
    assert not early, f"{rel}: live files (or phone frames, on a wide screen) fetched: {early}"
    button = page.locator(f'.sb-live-button[data-sb-experiment="{name}"]').nth(index)
    button.scroll_into_view_if_needed()
    button.click()
    player = button.locator("xpath=ancestor::div[contains(@class,'sb-frame-player')]")
    page.wait_for_function("(p) => p.getAttribute('data-sb-live')", arg=player.element_handle(),
                           timeout=START_TIMEOUT_MS)
    assert player.get_attribute("data-sb-live") == "1", \
        f"{rel}: live mode of {name} failed to start: {button.inner_text()}"
    root = player.locator(".sb-live")
    return root, requests


def wait_update(page, root, before: int) -> None:
    page.wait_for_function("([r, n]) => r.sbLive.updates > n && !r.sbLive.busy",
                           arg=[root.element_handle(), before], timeout=20_000)


def close_enough(a, b, path="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))} differ"]
        return [m for k in a for m in close_enough(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} != {len(b)}"]
        return [m for i, (x, y) in enumerate(zip(a, b)) for m in close_enough(x, y, f"{path}[{i}]")]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        # rel 1e-9; abs 1e-8 for numbers that are rounding noise by design (E8's power-balance
        # residual is ~1e-10 with a sign that depends on the BLAS), far below any readout digit
        if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-8) or (math.isnan(a) and math.isnan(b)):
            return []
        return [f"{path}: live {a!r} != native {b!r}"]
    return [] if a == b else [f"{path}: live {a!r} != native {b!r}"]


def random_values(specs, rng) -> dict:
    out = {}
    for c in specs:
        if c.__class__.__name__ == "Slider":
            k = int(rng.integers(0, int(round((c.max - c.min) / c.step)) + 1))
            out[c.name] = float(round(c.min + k * c.step, 10))
        elif c.__class__.__name__ == "Choice":
            out[c.name] = c.options[int(rng.integers(0, len(c.options)))]
    return out


# ---------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def live_context(browser):
    """One context for the module: the HTTP cache is shared, as for a reader paging through."""
    guard = NetworkGuard()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US",
                              service_workers="block")
    ctx.route("**/*", guard.route)
    yield ctx
    ctx.close()
    assert not guard.blocked, f"live mode tried to reach the network: {guard.blocked}"


@pytest.fixture()
def live_page(live_context):
    p = live_context.new_page()
    p.console_log = ConsoleLog(p)
    yield p
    p.close()


# ------------------------------------------------------------------------------------- tests


def test_distribution_is_staged_and_verified():
    """Every file of the distribution is in the site and matches the official hashes."""
    staged = SITE / "_pyodide"
    assert staged.is_dir(), (f"{staged} missing: the Pyodide distribution was not staged (live "
                             "mode unavailable in this build; see the build's sb_live message)")
    expected = pyodide_dist.needed_files()
    bad = [n for n, digest in expected.items()
           if not (staged / n).is_file() or pyodide_dist.sha256_of(staged / n) != digest]
    assert not bad, f"staged files missing or not matching the official hashes: {bad}"
    assert sorted(p.name for p in staged.iterdir()) == sorted(expected), "extra files staged"
    assert (SITE / "_live" / "sb_live.js").is_file() and (SITE / "_live" / "sb_packages.zip").is_file()


def test_every_experiment_shown_has_a_live_button():
    from widgets import EXPERIMENTS

    shown = set()
    for path in SITE.glob("chapters/*.html"):
        text = path.read_text(encoding="utf-8")
        for name, cls in EXPERIMENTS.items():
            import html as _html
            if f'alt="{_html.escape(cls.alt or cls.title)}"' in text:
                shown.add(name)
    assert shown, "no registered experiment is shown by a frame player"
    assert shown <= set(PAGES), f"experiments shown without a Run live button: {shown - set(PAGES)}"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_experiment_live(live_page, site_url, name):
    from widgets import EXPERIMENTS, Player

    page, rel = live_page, PAGES[name]
    cls = EXPERIMENTS[name]
    root, _ = start_live(page, site_url, rel, name)
    problems = []
    info = root.evaluate(JS_INFO)
    # live mode starts where the chapter's frames are: the frames' settings, the shown frame
    player = root.locator("xpath=ancestor::div[contains(@class,'sb-frame-player')]")
    start = json.loads(player.get_attribute("data-sb-settings") or "{}")
    swept = player.get_attribute("data-sb-control")
    spec = {c.name: c for c in cls.CONTROLS}.get(swept)
    if spec is None:
        problems.append("the frame player records no settings (stale chapter outputs?)")
    else:
        shown = float(player.locator(".sb-value").inner_text())
        start[swept] = spec.options[round(shown)] if hasattr(spec, "options") else shown
        if close_enough(info["values"], start):
            problems.append(f"live started at {info['values']}, the frames show {start}")
    if set(info["values"]) != {c.name for c in cls.CONTROLS if not isinstance(c, Player)}:
        problems.append(f"controls {sorted(info['values'])} != CONTROLS")
    n_players = sum(isinstance(c, Player) for c in cls.CONTROLS)
    if root.locator("button[data-sb-control]").count() != n_players:
        problems.append("play buttons missing")

    # move every control the reader's way: keyboard on sliders, a click on another option;
    # the picture (or, for a control that only feeds numbers, the readouts) must change.  A
    # control that matters only under another option of a choice (E5's u for the line probe)
    # is tried again under each option.
    choices = [c for c in cls.CONTROLS if c.__class__.__name__ == "Choice"]
    for c in cls.CONTROLS:
        ctl = root.locator(f'[data-sb-control="{c.name}"]')
        if isinstance(c, Player):
            before_px, before_n = root.evaluate(JS_PIXELS), root.evaluate(JS_INFO)["updates"]
            ctl.click()
            page.wait_for_function("([r, n]) => r.sbLive.updates >= n + 3",
                                   arg=[root.element_handle(), before_n], timeout=20_000)
            ctl.click()
            page.wait_for_function("(r) => !r.sbLive.busy", arg=root.element_handle())
            if ctl.get_attribute("aria-pressed") != "false":
                problems.append(f"{c.name}: play did not pause")
            if root.evaluate(JS_PIXELS) == before_px:
                problems.append(f"play ({c.name}) did not change the picture")
            continue
        settings = [{}] + [{ch.name: o} for ch in choices if ch is not c for o in ch.options]
        changed = False
        for extra in settings:
            if extra:
                n0 = root.evaluate(JS_INFO)["updates"]
                page.evaluate(JS_SET, [root.element_handle(), extra])
                wait_update(page, root, n0)
            info0 = root.evaluate(JS_INFO)
            before_px = root.evaluate(JS_PIXELS)
            if c.__class__.__name__ == "Choice":
                other = next(i for i, o in enumerate(c.options) if o != info0["values"][c.name])
                root.locator(f'label[for="{ctl.nth(other).get_attribute("id")}"]').click()
            else:
                ctl.focus()
                at_max = float(ctl.input_value()) >= c.max - c.step / 2
                page.keyboard.press("Home" if at_max else "End")
            wait_update(page, root, info0["updates"])
            info1 = root.evaluate(JS_INFO)
            if root.evaluate(JS_PIXELS) != before_px or info1["readout"] != info0["readout"]:
                changed = True
                break
        if not changed:
            problems.append(f"moving {c.name} changed neither the picture nor the readouts")

    # random settings of every control: live numbers == native Python's
    rng = np.random.default_rng(sum(map(ord, name)))
    native = cls()
    for _ in range(RANDOM_SETTINGS):
        values = random_values(cls.CONTROLS, rng)
        before_n = root.evaluate(JS_INFO)["updates"]
        page.evaluate(JS_SET, [root.element_handle(), values])
        wait_update(page, root, before_n)
        live = root.evaluate(JS_INFO)
        native.set(**live["values"])
        want = native.state()
        problems += [f"values {live['values']}: {m}" for m in close_enough(live["state"], want)]
        if live["readout"] != native.readout_table():
            problems.append(f"values {live['values']}: readout table differs from native")
    native.close()

    problems += [f"browser: {e}" for e in page.console_log.errors]
    times = root.evaluate(JS_INFO)
    print(f"\n{name}: first live frame {times['first']:.0f} ms after the click "
          f"(boot {json.dumps({k: round(v) for k, v in (times['boot'] or {}).items()})}); "
          f"control change to new pixels median {statistics.median(times['times']):.1f} ms "
          f"over {len(times['times'])} updates")
    assert not problems, f"{rel} ({name}):\n  " + "\n  ".join(problems)


def test_one_interpreter_per_page_and_axe(live_page, site_url):
    """A page with two live experiments loads Pyodide once; the audit is clean after starting."""
    from test_static_site import check_axe

    pages = {}
    for path in sorted(SITE.glob("chapters/*.html")):
        n = len(re.findall(r'class="sb-live-button"', path.read_text(encoding="utf-8")))
        pages.setdefault(n, path.relative_to(SITE).as_posix())
    rel = pages[max(pages)]
    name = re.search(r'data-sb-experiment="([a-z_0-9]+)"', (SITE / rel).read_text()).group(1)
    _, requests = start_live(live_page, site_url, rel, name)
    buttons = live_page.locator(".sb-live-button")
    for i in range(1, buttons.count()):
        buttons.nth(i).click()
        live_page.wait_for_function("(b) => b.getAttribute('data-sb-live') === '1'",
                                    arg=buttons.nth(i).element_handle(), timeout=60_000)
    wasm = [u for u in requests if u.endswith("pyodide.asm.wasm")]
    assert len(wasm) == 1, f"{rel}: pyodide.asm.wasm fetched {len(wasm)} times"
    problems = [f"browser: {e}" for e in live_page.console_log.errors]
    live_page.evaluate("() => window.scrollTo(0, 0)")
    problems += check_axe(live_page)
    assert not problems, f"{rel} live:\n  " + "\n  ".join(problems)


JS_PHONE = """() => {
  const de = document.documentElement;
  const players = [...document.querySelectorAll('.sb-frame-player')].map(p => {
    const img = p.querySelector('img.sb-frame'); const r = img.getBoundingClientRect();
    return {id: p.id, layout: img.getAttribute('data-sb-layout'), natural: img.naturalWidth,
            shown: r.width, right: r.right, hasNarrow: !!p.querySelector('script.sb-narrow-frames')};
  });
  let small = 1e9, where = '';
  const walker = document.createTreeWalker(document.querySelector('main') || document.body,
                                           NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim() || !n.parentElement) { continue; }
    const e = n.parentElement; const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || e.closest('script,style,[hidden],.MathJax,mjx-container')) { continue; }
    const f = parseFloat(getComputedStyle(e).fontSize);
    if (f < small) { small = f; where = e.tagName + ': ' + n.textContent.trim().slice(0, 30); }
  }
  return {players, small, where, page: de.clientWidth, scroll: de.scrollWidth};
}"""


def test_phone_width(browser, site_url):
    """At a phone's width (390 px) on every chapter page: no sideways overflow; every frame
    player shows its phone-layout frames (330 px wide, shown 1:1, so the figure's 10.5-pt text
    is 14.6 CSS px, not smaller than the page's own small print); the readout tables scroll in
    their box.  Live mode started there draws the experiment's narrow layout, 1:1, and its
    numbers equal native Python's."""
    from widgets import EXPERIMENTS

    guard = NetworkGuard()
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                              is_mobile=True, has_touch=True, service_workers="block")
    ctx.route("**/*", guard.route)
    page = ctx.new_page()
    log = ConsoleLog(page)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    problems, smallest = [], []
    try:
        for path in sorted(SITE.glob("chapters/*.html")):
            rel = path.relative_to(SITE).as_posix()
            if "sb-frame-player" not in path.read_text(encoding="utf-8"):
                continue
            page.goto(f"{site_url}/{rel}", wait_until="load")
            page.wait_for_function("() => [...document.querySelectorAll('img.sb-frame')]"
                                   ".every(i => i.complete && i.naturalWidth > 0)", timeout=20_000)
            got = page.evaluate(JS_PHONE)
            smallest.append((got["small"], rel, got["where"]))
            if got["scroll"] > got["page"]:
                problems.append(f"{rel}: the page overflows sideways ({got['scroll']} > {got['page']})")
            for p in got["players"]:
                if not p["hasNarrow"]:
                    problems.append(f"{rel} {p['id']}: a frame player without phone frames")
                elif p["layout"] != "narrow" or p["natural"] != 330:
                    problems.append(f"{rel} {p['id']}: not the phone frames: {p}")
                elif p["shown"] < 0.99 * p["natural"] or p["right"] > got["page"]:
                    problems.append(f"{rel} {p['id']}: phone frame shrunk or cut: {p}")
        narrow_files = [u for u in requests if "/_sb_frames/" in u]
        assert narrow_files, "no phone frame was fetched at 390 px"
        print(f"\n390 px: smallest page text {min(smallest)[0]:.1f} px ({min(smallest)[2]!r} "
              f"in {min(smallest)[1]}); {len(narrow_files)} phone frames fetched")

        name = "kinetic_energy" if "kinetic_energy" in PAGES else sorted(PAGES)[0]
        root, _ = start_live(page, site_url, PAGES[name], name, phone=True)
        canvas = root.locator("canvas.sb-live-canvas")
        live = canvas.evaluate("(c) => ({layout: c.getAttribute('data-sb-layout'), w: c.width, "
                               "shown: c.getBoundingClientRect().width, "
                               "right: c.getBoundingClientRect().right, "
                               "page: document.documentElement.clientWidth, "
                               "scroll: document.documentElement.scrollWidth})")
        if live["layout"] != "narrow" or live["w"] != 330 or live["shown"] < 0.99 * 330:
            problems.append(f"live figure at 390 px is not the narrow layout shown 1:1: {live}")
        if live["right"] > live["page"] + 1 or live["scroll"] > live["page"]:
            problems.append(f"live at 390 px overflows: {live}")
        cls = EXPERIMENTS[name]
        values = random_values(cls.CONTROLS, np.random.default_rng(390))
        before = root.evaluate(JS_INFO)["updates"]
        page.evaluate(JS_SET, [root.element_handle(), values])
        wait_update(page, root, before)
        info = root.evaluate(JS_INFO)
        native = cls(narrow=True)
        native.set(**info["values"])
        problems += [f"live at 390 px: {m}" for m in close_enough(info["state"], native.state())]
        if info["readout"] != native.readout_table():
            problems.append("live at 390 px: readout table differs from native")
        native.close()
        problems += [f"browser: {e}" for e in log.errors]
    finally:
        ctx.close()
    assert not guard.blocked, guard.blocked
    assert not problems, "\n  ".join(problems)
    # the figures' text (10.5 pt at 1:1 = 14.6 px) is not smaller than the page's small print
    assert min(smallest)[0] <= 14.6, min(smallest)


def test_file_url_says_live_mode_needs_http(browser):
    """Opened from file://, the button says why live mode cannot start; nothing is fetched."""
    name = sorted(PAGES)[0]
    ctx = browser.new_context(service_workers="block")
    page = ctx.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto((SITE / PAGES[name]).as_uri(), wait_until="load")
        button = page.locator(".sb-live-button").first
        button.click()
        page.wait_for_function("(b) => /served over http/.test(b.textContent)",
                               arg=button.element_handle(), timeout=20_000)
        assert not [u for u in requests if "/_pyodide/" in u or u.endswith(".zip")], requests
    finally:
        ctx.close()
