"""A chapter in real JupyterLab: run all cells, move the live experiment's slider, see new pixels.

The test starts JupyterLab on 127.0.0.1 (no token, loopback only, isolated settings and
runtime folders, autosave off) on a COPY of the chapter in a temporary folder, so the committed
notebook is never rewritten.  Headless Debian Chromium (Playwright) opens it with the network
blocked (conftest), runs *Run > Run All Cells*, waits for the kernel to be idle, checks the
experiment's picture changes when its first slider moves by one keyboard step, then measures the
slider-to-new-pixels latency: from the key press to the moment the plot's new image is decoded
and painted (median over at least 20 moves), and prints it.

    .venv/bin/python -m pytest tests/browser/test_jupyterlab.py -q -s
    SB_LAB_NOTEBOOK=book/chapters/ch03_screw_axis.ipynb ...   # another chapter
"""

from __future__ import annotations

import hashlib
import os
import shutil
import statistics
import time
from pathlib import Path

import pytest

from browser_support import ROOT, JupyterLab, start_run_all, wait_lab_idle

NOTEBOOK = Path(os.environ.get("SB_LAB_NOTEBOOK",
                               ROOT / "book" / "chapters" / "ch01_velocity_field.ipynb"))
MOVES = int(os.environ.get("SB_LAB_MOVES", "21"))

@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not NOTEBOOK.is_file():
        pytest.fail(f"chapter notebook missing: {NOTEBOOK}")
    tmp = tmp_path_factory.mktemp("lab")
    work = tmp / "work"
    work.mkdir()
    shutil.copy(NOTEBOOK, work / NOTEBOOK.name)
    with JupyterLab(tmp, work) as base:
        yield base, NOTEBOOK.name


def _wait_for_live_slider(page, timeout=240.0):
    """Wait until the live experiment's slider exists; fail fast on a traceback or when the
    kernel is idle with every cell run and still no slider."""
    t0 = time.perf_counter()
    idle_since = None
    while time.perf_counter() - t0 < timeout:
        state = page.evaluate("""() => ({
            slider: !!document.querySelector('.widget-slider .noUi-handle'),
            error: Array.from(document.querySelectorAll(
                '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'))
                .map(e => e.innerText).filter(t => t.includes('Error')).join('\\n').slice(0, 3000),
            idle: (document.querySelector('.jp-Notebook-ExecutionIndicator') || {getAttribute: () => ''})
                .getAttribute('data-status') === 'idle',
            busy: Array.from(document.querySelectorAll('.jp-InputPrompt')).some(p => p.textContent.includes('*')),
        })""")
        if state["error"]:
            pytest.fail("a cell raised in JupyterLab:\n" + state["error"])
        if state["slider"] and state["idle"] and not state["busy"]:
            return
        if state["idle"] and not state["busy"]:
            idle_since = idle_since or time.perf_counter()
            if time.perf_counter() - idle_since > 20:
                pytest.fail("all cells ran but no live widget slider appeared")
        else:
            idle_since = None
        page.wait_for_timeout(500)
    pytest.fail(f"no live widget slider after {timeout:.0f} s")


OBSERVER_JS = """(area) => {
    window.__sbT = null;
    const mark = (img) => {
        const done = () => requestAnimationFrame(() => {
            if (window.__sbT === null) { window.__sbT = performance.now(); }
        });
        (img.decode ? img.decode() : Promise.resolve()).then(done, done);
    };
    const obs = new MutationObserver((records) => {
        for (const r of records) {
            if (r.type === 'attributes' && r.target.tagName === 'IMG') { mark(r.target); return; }
            for (const n of r.addedNodes || []) {
                if (n.tagName === 'IMG') { mark(n); return; }
                if (n.querySelector && n.querySelector('img')) { mark(n.querySelector('img')); return; }
            }
        }
    });
    obs.observe(area, {subtree: true, childList: true, attributes: true, attributeFilter: ['src']});
    window.__sbObserver = obs;
    return true;
}"""


def test_live_experiment_in_jupyterlab(lab, page):
    base, name = lab
    page.set_default_timeout(60_000)
    page.goto(f"{base}/lab/tree/{name}", wait_until="domcontentloaded")
    page.wait_for_selector(".jp-Notebook", timeout=90_000)
    wait_lab_idle(page)
    start_run_all(page)                                   # clicked once the kernel is connected
    if os.environ.get("SB_LAB_DEBUG"):
        page.wait_for_timeout(5000)
        page.screenshot(path="/tmp/sb_lab_after_runall.png")
    t_run = time.perf_counter()
    try:
        _wait_for_live_slider(page)
    except BaseException:
        page.screenshot(path=str(Path(os.environ.get("TMPDIR", "/tmp")) / "sb_lab_failure.png"))
        raise
    run_all = time.perf_counter() - t_run
    # the kernel-free frame player also works inside a (trusted) JupyterLab output
    players = page.locator(".jp-OutputArea-output .sb-frame-player")
    if players.count():
        player = players.first
        player.scroll_into_view_if_needed()
        rng = player.locator("input[type=range]")
        src0 = player.locator("img.sb-frame").get_attribute("src")
        box = rng.bounding_box()
        rng.click(position={"x": box["width"] - 2, "y": box["height"] / 2})  # drag to the end
        try:
            page.wait_for_function("([img, src0]) => img.getAttribute('src') !== src0",
                                   arg=[player.locator("img.sb-frame").element_handle(), src0],
                                   timeout=10_000)
        except Exception:
            pytest.fail("the static frame player does not respond inside JupyterLab")

    slider = page.locator(".widget-slider").first
    area = slider.locator("xpath=ancestor::div[contains(@class,'jp-OutputArea-output')][1]")
    img = area.locator("img").first
    img.scroll_into_view_if_needed()
    page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=img.element_handle())
    handle = slider.locator(".noUi-handle")
    handle.focus()

    area.evaluate(OBSERVER_JS)
    latencies = []
    shot_before = hashlib.sha1(img.screenshot()).hexdigest()
    key = "ArrowRight"
    failures = 0
    while len(latencies) < MOVES:
        page.evaluate("() => { window.__sbT = null; window.__sbT0 = performance.now(); }")
        page.keyboard.press(key)
        try:
            page.wait_for_function("() => window.__sbT !== null", timeout=10_000)
        except Exception:
            failures += 1  # at the end of the range, or the value did not change: turn around
            assert failures < 4, "the plot does not respond to the slider"
            key = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
            continue
        latencies.append(page.evaluate("() => window.__sbT - window.__sbT0"))
        if len(latencies) == 1:   # the new picture is painted within a few frames: poll for it
            deadline = time.perf_counter() + 10.0
            while hashlib.sha1(img.screenshot()).hexdigest() == shot_before:
                assert time.perf_counter() < deadline, \
                    "the slider moved but the plot's pixels did not change"
        if len(latencies) % 7 == 0:
            key = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
    median = statistics.median(latencies)
    print(f"\nJupyterLab ({name}): run all cells {run_all:.1f} s; slider-to-new-pixels latency "
          f"median {median:.0f} ms over {len(latencies)} moves "
          f"(min {min(latencies):.0f}, max {max(latencies):.0f} ms)")
    assert median < 2000, f"live plot too slow: median {median:.0f} ms"

    # a small window with the file browser open (JupyterLab's default): the output area is
    # narrower than the plot's least width; the plot must fit it, not be cut off at the right
    page.set_viewport_size({"width": 1024, "height": 800})
    page.wait_for_timeout(1000)
    img.scroll_into_view_if_needed()
    fit = img.evaluate("""el => {
        const area = el.closest('.jp-OutputArea-output').getBoundingClientRect();
        const r = el.getBoundingClientRect();
        return {area: Math.round(area.width), left: r.left - area.left, right: r.right - area.right,
                width: Math.round(r.width)};
    }""")
    print(f"JupyterLab at 1024 px: output area {fit['area']} px, plot {fit['width']} px")
    assert fit["right"] <= 1 and fit["left"] >= -1, f"the plot is cut off by its output area: {fit}"
