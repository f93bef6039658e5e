"""An author in real JupyterLab (issue 19): Run All, edit an {eval}, follow the book's links.

JupyterLab is started as in test_jupyterlab.py (browser_support.JupyterLab: loopback, no token,
isolated settings, autosave off) on COPIES of chapters laid out as in book/ (``chapters/`` and
``glossary.md``), with the book's own extension (tools/jupyter/labextensions/spatialbook-lab,
found through JUPYTER_PATH as in ``make lab``).  Headless Chromium, network blocked; every wait
is on an explicit condition.  One JupyterLab page serves the module: each test opens its
chapter in it (``docmanager:open``, every other document closed and its kernel shut down
first), instead of loading JupyterLab again.

1. After *Run All*, the live experiment's slider shows the value of the last ``exp.set`` of the
   code, which is also what the kernel holds and draws (ch01: angle 0; ch03: pitch 0).  Before the
   fix, the slider view's echo of an earlier value won (ch01 showed 70 while the kernel held 69;
   ch03 -0.060 in both).
2. An edited ``{eval}`` renders on the FIRST Shift+Enter: a changed format shows the new text,
   and a misspelled key shows jupyterlab-myst's inline error (ValueError ...), not raw code.
3. A ``{term}`` link opens glossary.md at the term; ch09's ``[chapter 7](#eq-ch07-def)`` opens
   chapter 7 at that equation.

    .venv/bin/python -m pytest tests/browser/test_jupyterlab_authoring.py -q -x
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from browser_support import (CLOSE_ALL_JS, ROOT, JupyterLab, blocked_context, open_lab, shutdown_kernels,
                             start_run_all, wait_lab_idle)

CHAPTERS = ROOT / "book" / "chapters"
CH01 = "ch01_velocity_field.ipynb"
CH03 = "ch03_screw_axis.ipynb"
CH07 = "ch07_spatial_acceleration.ipynb"
CH09 = "ch09_mujoco.ipynb"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("labauthor")
    work = tmp / "work"
    (work / "chapters").mkdir(parents=True)
    for name in (CH01, CH03, CH07, CH09):
        shutil.copy(CHAPTERS / name, work / "chapters" / name)
    shutil.copy(ROOT / "book" / "glossary.md", work / "glossary.md")
    with JupyterLab(tmp, work) as base:
        yield base


@pytest.fixture(scope="module")
def page(lab, browser):
    """One JupyterLab page for the module (a context with the network blocked, checked at the
    end): the application starts once, and each test opens its chapter in it as a reader opens
    a file (:func:`_open`), the documents of the test before closed and their kernels shut
    down.  (Each test loaded JupyterLab again with ``?reset``: tens of seconds of a loaded
    core for the four.)"""
    ctx = blocked_context(browser)
    p = open_lab(ctx.new_page(), lab)
    yield p
    p.close()
    ctx.close()
    assert not ctx.guard.blocked, f"page tried to reach the network: {ctx.guard.blocked}"


def _close_all(page, base):
    page.evaluate(CLOSE_ALL_JS)
    shutdown_kernels(base)


def _open(page, base, name):
    """Only ``chapters/name`` open in the page (what ``lab/tree/chapters/name?reset`` gave),
    its MyST rendered and its kernel idle."""
    _close_all(page, base)
    path = f"chapters/{name}"
    page.evaluate("(path) => window.jupyterapp.commands.execute('docmanager:open', {path})"
                  ".then(() => true)", path)
    page.wait_for_function("(path) => { const w = window.jupyterapp.shell.currentWidget;"
                           " return !!w && !!w.context && w.context.path === path; }",
                           arg=path, timeout=90_000)
    page.wait_for_selector(".jp-Notebook .jp-MarkdownCell .myst", timeout=90_000)
    wait_lab_idle(page)


def _run_all(page):
    start_run_all(page)
    wait_lab_idle(page)
    errors = page.evaluate("""() => Array.from(document.querySelectorAll(
        '.jp-CodeCell .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'))
        .map(e => e.innerText).filter(t => t.includes('Error')).join('\\n').slice(0, 3000)""")
    assert not errors, "a cell raised in JupyterLab:\n" + errors


def _run_code(page, code: str) -> str:
    """Append a code cell with ``code`` at the end, run it, return its text output."""
    last = page.locator(".jp-Notebook .jp-Cell").last
    last.scroll_into_view_if_needed()
    last.click(position={"x": 5, "y": 5})
    page.keyboard.press("Escape")
    page.keyboard.press("b")                                # a new cell below, edit it
    page.keyboard.press("Enter")
    page.keyboard.insert_text(code)
    cell = page.locator(".jp-Notebook .jp-CodeCell.jp-mod-active")
    cell = page.locator(".jp-Notebook .jp-CodeCell").nth(
        page.evaluate("(c) => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell')).indexOf(c)",
                      cell.element_handle()))
    page.keyboard.press("Shift+Enter")                      # runs it (and adds an empty cell)
    page.wait_for_function("(cell) => /\\[\\d+\\]/.test(cell.querySelector('.jp-InputPrompt').textContent)",
                           arg=cell.element_handle(), timeout=120_000)   # it has run
    wait_lab_idle(page)
    out = cell.locator(".jp-OutputArea-output")
    return out.first.inner_text() if out.count() else ""


# ----------------------------------------------------------------------- 1. widget == kernel


@pytest.mark.parametrize("name, control, label, expected", [
    (CH01, "angle", "door angle", 0.0),
    (CH03, "pitch", "pitch", 0.0),
], ids=["ch01", "ch03"])
def test_widget_equals_kernel_after_run_all(lab, page, name, control, label, expected):
    _open(page, lab, name)
    _run_all(page)
    slider = page.locator(".widget-slider", has=page.locator(".widget-label", has_text=label)).first
    slider.scroll_into_view_if_needed()
    shown = slider.locator(".widget-readout").inner_text().replace("\u2212", "-")
    handle = float(slider.locator(".noUi-handle").get_attribute("aria-valuenow"))
    kernel = json.loads(_run_code(page, "import json; print(json.dumps("
                                        "{'values': exp.values(), 'drawn': exp._drawn_values}))"))
    _close_all(page, lab)
    value = kernel["values"][control]
    assert value == expected, f"the kernel holds {control}={value}, the code's last set is {expected}"
    assert kernel["drawn"] == kernel["values"], "the figure is drawn for other values"
    assert float(shown) == pytest.approx(value, abs=1e-9), f"the slider shows {shown}"
    assert handle == pytest.approx(value, abs=1e-9), f"the slider's handle is at {handle}"


# ----------------------------------------------------------------------- 2. {eval} on first run


def _first_eval_cell(path):
    """(index among markdown cells, source) of the first markdown cell with an N(...) role."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    md = [c for c in nb["cells"] if c["cell_type"] == "markdown"]
    for i, cell in enumerate(md):
        source = "".join(cell["source"])
        m = re.search(r'\{eval\}`N\("(\w+)", "([^"]*)"\)`', source)
        if m:
            return i, m.group(1)
    raise AssertionError(f"no {{eval}}`N(...)` role in {path.name}")


def _edit_markdown(page, index, text):
    cell = page.locator(".jp-Notebook .jp-MarkdownCell").nth(index)
    cell.scroll_into_view_if_needed()
    cell.dblclick()                                          # edit mode
    cell.locator(".cm-content").wait_for()
    cell.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(text)
    page.keyboard.press("Shift+Enter")                       # run it ONCE
    return cell


def test_edited_eval_renders_on_first_run(lab, page):
    from widgets.prose import stored_values

    index, key = _first_eval_cell(CHAPTERS / CH01)
    value = stored_values(CHAPTERS / CH01)[key]
    expected = format(value, ".4f")                      # a format the chapter does not use
    _open(page, lab, CH01)
    _run_code(page, "from widgets.prose import N")       # what the chapter's first cell imports

    cell = _edit_markdown(page, index, f'Edited: {{eval}}`N("{key}", ".4f")` end.')
    try:
        page.wait_for_function(
            """([cell, expected]) => cell.innerText.includes(expected)
                                     && !cell.classList.contains('jp-mod-editMode')""",
            arg=[cell.element_handle(), expected], timeout=30_000)
    except Exception:
        pytest.fail(f"after one run the edited {{eval}} does not show {expected!r}: "
                    f"{cell.inner_text()[:300]!r}")
    assert not cell.locator("code", has_text=key).count(), "the expression shows as raw code"

    cell = _edit_markdown(page, index, 'Misspelled: {eval}`N("ch01_no_such_key", ".2f")` end.')
    try:
        page.wait_for_function(
            """(cell) => Array.from(cell.querySelectorAll(
                '[data-mime-type="application/vnd.jupyter.stderr"]'))
                .some(e => e.innerText.includes('ValueError'))""",
            arg=cell.element_handle(), timeout=30_000)
    except Exception:
        pytest.fail("after one run a misspelled key shows no error marker: "
                    f"{cell.inner_text()[:300]!r}")
    assert "ch01_no_such_key" in cell.inner_text()       # the message names the key
    _close_all(page, lab)


# ----------------------------------------------------------------------- 3. links


def _first_term(path):
    """(display text, glossary key) of the first {term} role of a chapter."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            m = re.search(r"\{term\}`([^`]+)`", "".join(cell["source"]))
            if m:
                parts = re.fullmatch(r"(.*?)\s*<([^<>]+)>\s*", m.group(1), re.S)
                return (parts.group(1), parts.group(2)) if parts else (m.group(1), m.group(1))
    raise AssertionError(f"no {{term}} role in {path.name}")


CURRENT_TAB = "#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel"


def _in_view(page, locator) -> bool:
    return page.evaluate("""(e) => { const r = e.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }""",
                         locator.element_handle())


def test_term_and_cross_chapter_links_lead_somewhere(lab, page):
    text, key = _first_term(CHAPTERS / CH09)
    _open(page, lab, CH09)
    loaded = page.evaluate("() => Object.keys(window._JUPYTERLAB || {})")
    assert {"jupyterlab-myst", "spatialbook-lab"} <= set(loaded), loaded

    term = page.locator(".jp-MarkdownCell a.hover-link[href='#']", has_text=text).first
    term.scroll_into_view_if_needed()
    term.click()
    target = page.locator(".jp-MarkdownViewer .sb-link-target")
    target.wait_for(timeout=60_000)
    assert target.inner_text().strip().lower().startswith(key.lower()), target.inner_text()[:200]
    assert _in_view(page, target), "the glossary opened, but the term is not in view"
    active = page.locator(CURRENT_TAB).first.inner_text()
    assert active == "glossary.md", active

    page.locator(".lm-TabBar-tab", has_text=CH09).first.click()
    link = page.locator(".jp-MarkdownCell a[href='#eq-ch07-def']").first
    link.scroll_into_view_if_needed()
    link.click()
    target = page.locator(".jp-Notebook #eq-ch07-def.sb-link-target")
    target.wait_for(timeout=90_000)
    assert _in_view(page, target), "chapter 7 opened, but the equation is not in view"
    active = page.locator(CURRENT_TAB).first.inner_text()
    assert active == CH07, active
    _close_all(page, lab)
