"""Every chapter reads in JupyterLab as in the book: no raw MyST in any rendered markdown cell.

JupyterLab (with ``jupyterlab-myst``, from the book extra) is started as in test_jupyterlab.py,
on COPIES of the chapters in a temporary folder (the committed notebooks are never rewritten).
One JupyterLab page in headless Chromium (network blocked) serves every chapter: it opens each
chapter in turn, as a reader opens a file (``docmanager:open``; the previous one closed, its
kernel shut down on a thread while the next one opens), and checks the markdown cells.  Each
chapter has its own fresh kernel: started on the server (``/api/sessions``) while the chapter
before runs, so its start is not waited for; the notebook, opened, uses it (checked)

1. as opened, with the numbers stored by ``tools/execute_notebooks.py`` (no kernel run yet), and
2. after *Run > Run All Cells*, with every number re-evaluated by the live kernel, in the
   chapters of ``SB_LAB_MYST_RUN_ALL`` (:data:`RUN_ALL`; ``all`` for every chapter):

no rendered markdown cell may show raw ``{glue``, ``{eval}``, ``{term}``, ``{eq}``, a directive
fence (```` ```{ ````, ``:::{``), an equation label (``eq-ch03-...``: an ``{eq}`` to another
chapter, which JupyterLab cannot resolve), an unevaluated inline expression or an inline error; every
``{eval}`` role of the source must show as a number or text, and the first one of chapter 8 must
show the value the book shows.  A screenshot of each chapter (after Run All) is saved to
``$TMPDIR/sb_lab_myst_<chapter>.png``.

    .venv/bin/python -m pytest tests/browser/test_jupyterlab_myst.py -q
    SB_LAB_MYST_CHAPTERS="ch08*" ...          # a glob of book/chapters to check (default: all)
    SB_LAB_MYST_RUN_ALL=all ...               # Run All in every chapter checked, not RUN_ALL's

Why Run All in two chapters, not all fourteen (issue 34: it was 300 s of CPU, Chromium included,
a sixth of ``make test``, most of it the kernels re-running every chapter): what Run All
re-evaluates is checked for every chapter elsewhere.  nbval (stage 4) re-executes every chapter
in a fresh kernel and compares every output, the glued values included; tests/notebooks (stage
5) ties every stored ``{eval}`` result to those glued values and fails on a key glued nowhere;
and ``N`` (widgets/prose.py) shows a key that a cell below has not glued yet from the stored
outputs, so the order of the cells cannot make a Run All show an error.  What is left is
jupyterlab-myst's re-rendering with the kernel's results, one mechanism whatever the chapter:
checked here on chapter 8 (its first number against the book's) and chapter 12 (the most roles,
242), and by the authoring stage (test_jupyterlab_authoring.py) on chapters 1 and 3.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from browser_support import (CLOSE_ALL_JS, ROOT, JupyterLab, blocked_context, close_in_background, open_lab,
                             start_run_all, wait_lab_idle)

CHAPTERS = Path(os.environ.get("SB_LAB_MYST_DIR", ROOT / "book" / "chapters"))
PATTERN = os.environ.get("SB_LAB_MYST_CHAPTERS", "ch*.ipynb")
NOTEBOOKS = sorted(CHAPTERS.glob(PATTERN))
#: the chapters (globs, comma-separated) checked again after Run All; ``all``: every one
RUN_ALL = os.environ.get("SB_LAB_MYST_RUN_ALL", "ch08*,ch12*")


def runs_all(notebook: Path) -> bool:
    """Whether ``notebook`` is checked after Run All too (:data:`RUN_ALL`)."""
    return RUN_ALL.strip() == "all" or any(
        fnmatch.fnmatch(notebook.name, g.strip()) for g in RUN_ALL.split(",") if g.strip())
SHOTS = Path(os.environ.get("TMPDIR", "/tmp"))

# Text that must never be visible in a rendered markdown cell.
# An equation label shown as such (an {eq} to another chapter, which JupyterLab cannot resolve).
# A value key shown instead of its value: jupyterlab-myst shows a role it does not know, such
# as {glue:text}`ch08_m:.0f`, as its bare content "ch08_m:.0f".
RAW = re.compile(r"\{glue|\{eval\}|\{term\}|\{eq\}|\{numref\}|\{ref\}|\{doc\}|```\{|:::\{|\{math\}"
                 r"|\beq-ch\d\d-|\bch\d\d_\w+")

# Per rendered markdown cell: its text, how many inline expressions it shows evaluated, how many
# unevaluated (shown as code) or failed, and whether the cell is in edit mode.
CELLS_JS = """() => Array.from(document.querySelectorAll('.jp-Notebook .jp-MarkdownCell')).map(c => {
    const out = c.querySelector('.jp-MarkdownOutput, .jp-RenderedMarkdown, .myst');
    // textContent: also the text of folded dropdowns (solutions), which innerText leaves out;
    // without KaTeX's hidden MathML copy (its TeX annotation would read as raw source)
    let text = '';
    if (out) {
        const copy = out.cloneNode(true);
        copy.querySelectorAll('.katex-mathml, annotation').forEach(e => e.remove());
        text = copy.textContent;
    }
    return {
        rendered: !c.classList.contains('jp-mod-editMode') && !!out,
        text: text,
        errors: c.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"], '
                                   + '.myst-RenderedExpressionError').length,
        inline_code: Array.from(c.querySelectorAll('code')).map(e => e.innerText),
    };
})"""


def _eval_roles(nb_path: Path) -> list[list[tuple[str, str]]]:
    """(expression, stored text) of each {eval} role of each markdown cell, in order."""
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        stored = {e["expression"]: "".join(e["result"].get("data", {}).get("text/plain", ""))
                  for e in cell["metadata"].get("user_expressions", [])}
        out.append([(e, stored.get(e, "").strip("'\""))
                    for e in re.findall(r"\{eval\}`([^`]*)`", "".join(cell["source"]))])
    return out


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not NOTEBOOKS:
        pytest.fail(f"no chapter notebooks match {PATTERN!r} in {CHAPTERS}")
    tmp = tmp_path_factory.mktemp("labmyst")
    work = tmp / "work"
    work.mkdir()
    for nb in NOTEBOOKS:
        shutil.copy(nb, work / nb.name)
    with JupyterLab(tmp, work) as base:
        yield base


@pytest.fixture(scope="module")
def lab_context(browser):
    """One browser context for every chapter (conftest's ``context``, network blocked, kept for
    the module): JupyterLab's scripts are fetched and compiled once, then come from the
    context's cache, instead of once per chapter in a fresh context."""
    ctx = blocked_context(browser)
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def lab_page(lab, lab_context):
    """One JupyterLab page for every chapter: the application starts once (its start-up, tens of
    seconds of a loaded core, was paid again for each chapter when each had its own page), and
    each chapter is opened in it as a reader opens a file (``docmanager:open``), then closed."""
    p = open_lab(lab_context.new_page(), lab)
    yield p
    p.close()


def _wait_rendered(page, timeout=60_000):
    """The MyST renderer works asynchronously, cell by cell, after the cells attach."""
    try:
        page.wait_for_function(
            """() => Array.from(document.querySelectorAll('.jp-Notebook .jp-MarkdownCell'))
                .every(c => c.querySelector('.jp-MarkdownOutput, .jp-RenderedMarkdown, .myst'))""",
            timeout=timeout)
    except Exception:
        if os.environ.get("SB_LAB_DEBUG"):
            print("not all rendered:", page.evaluate("""() => Array.from(document.querySelectorAll(
                '.jp-Notebook .jp-MarkdownCell')).map((c, i) => [i, c.className,
                c.innerText.slice(0, 80)]).filter((x, i) => !document.querySelectorAll(
                '.jp-Notebook .jp-MarkdownCell')[i].querySelector(
                '.jp-MarkdownOutput, .jp-RenderedMarkdown, .myst'))"""))


def _settled_problems(page, roles, when, timeout=60.0):
    """The problems of the rendered cells once they stop changing for the better: the MyST
    renderer fills in inline expressions asynchronously, so poll until none is left (or the
    cells still show problems at the deadline, which are then reported)."""
    deadline = time.perf_counter() + timeout
    while True:
        cells = page.evaluate(CELLS_JS)
        problems = _problems(cells, roles, when)
        if not problems or time.perf_counter() > deadline:
            return cells, problems
        page.wait_for_function("() => new Promise((ok) => requestAnimationFrame(() => ok(true)))")



def _problems(cells, roles, when):
    """Human-readable list of what is wrong with the rendered markdown cells."""
    out = []
    for i, cell in enumerate(cells):
        where = f"{when}, markdown cell {i + 1}"
        if not cell["rendered"]:
            out.append(f"{where}: not rendered")
            continue
        for m in RAW.finditer(cell["text"]):
            out.append(f"{where}: raw MyST visible: ...{cell['text'][max(0, m.start() - 40):m.end() + 40]!r}")
        if cell["errors"]:
            out.append(f"{where}: {cell['errors']} inline expression error(s): {cell['text'][:200]!r}")
        expected = roles[i] if i < len(roles) else []
        unevaluated = [e for e, _ in expected if e in cell["inline_code"]]
        if unevaluated:
            out.append(f"{where}: expression(s) shown as code, not evaluated: {unevaluated[:3]}")
        # every role shows its value, in order (the stored value; Run All recomputes the same)
        pos, text = 0, " ".join(cell["text"].split())
        for expression, value in expected:
            found = text.find(" ".join(value.split()), pos) if value else -1
            if found < 0:
                out.append(f"{where}: {{eval}}`{expression}` does not show {value!r}")
                break
            pos = found + len(value)
    return out


#: the kernel started ahead for the next chapter: {notebook name: kernel id}
_AHEAD: dict[str, str] = {}


def start_kernel_ahead(base: str, name: str) -> None:
    """Start the session (and kernel) of notebook ``name`` on the server now, as JupyterLab
    does when it opens the notebook: ``docmanager:open`` then finds the session by its path and
    uses its kernel, fresh (nothing has run in it).  Called while the chapter before runs, so
    that its start (a new Python importing ipykernel, seconds on a loaded core) is not waited
    for in turn."""
    import urllib.request

    body = json.dumps({"path": name, "name": name, "type": "notebook",
                       "kernel": {"name": "python3"}}).encode()
    req = urllib.request.Request(f"{base}/api/sessions", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        _AHEAD[name] = json.loads(r.read())["kernel"]["id"]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem[:4] for p in NOTEBOOKS])
def test_chapter_reads_in_jupyterlab(lab, lab_page, lab_context, notebook):
    base, page = lab, lab_page
    seen = len(lab_context.guard.blocked)
    roles = _eval_roles(notebook)
    page.evaluate(CLOSE_ALL_JS)                           # only this chapter (as ?reset did)
    ahead = _AHEAD.pop(notebook.name, None)
    t0 = time.perf_counter()
    page.evaluate("(path) => window.jupyterapp.commands.execute('docmanager:open', {path})"
                  ".then(() => true)", notebook.name)
    page.wait_for_function("(path) => { const w = window.jupyterapp.shell.currentWidget;"
                           " return !!w && !!w.context && w.context.path === path; }",
                           arg=notebook.name, timeout=90_000)
    page.wait_for_selector(".jp-Notebook .jp-MarkdownCell", timeout=90_000)
    wait_lab_idle(page)
    _wait_rendered(page)
    cells, problems = _settled_problems(page, roles, "as opened")
    t1 = t2 = time.perf_counter()
    later = NOTEBOOKS.index(notebook) + 1
    if runs_all(notebook):
        start_run_all(page)                               # clicked once the kernel is connected
        kernel = page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id")
        assert ahead is None or kernel == ahead, "the notebook did not use the kernel started for it"
        if later < len(NOTEBOOKS):
            start_kernel_ahead(base, NOTEBOOKS[later].name)   # the next chapter's, during this Run All
        wait_lab_idle(page)
        t2 = time.perf_counter()
        _wait_rendered(page)
        # the last markdown cells' expressions come back after the code: settle on them
        cells, after = _settled_problems(page, roles, "after Run All")
        problems += after
    elif later < len(NOTEBOOKS):
        start_kernel_ahead(base, NOTEBOOKS[later].name)       # while this one is checked and closed
    if os.environ.get("SB_LAB_DEBUG"):
        print(json.dumps(cells, indent=1, ensure_ascii=False))
    first = page.locator(".jp-Notebook .jp-MarkdownCell").nth(1)
    first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"sb_lab_myst_{notebook.stem[:4]}.png"))
    t3 = time.perf_counter()
    close_in_background(page, base)   # this chapter's kernel goes while the next one opens
    print(f"{notebook.stem[:4]}: opened and checked {t1 - t0:.1f} s, Run All {t2 - t1:.1f} s, "
          f"checked {t3 - t2:.1f} s, closed {time.perf_counter() - t3:.1f} s")
    blocked = lab_context.guard.blocked[seen:]
    assert not blocked, f"page tried to reach the network: {blocked}"
    assert not problems, "\n".join(problems[:30])
    if notebook.name.startswith("ch08"):   # the first number of chapter 8, computed here
        import spatialbook as sb
        assert f"a {sb.DOOR['mass']:.0f} kg plate" in " ".join(cells[1]["text"].split()), cells[1]["text"][:300]
