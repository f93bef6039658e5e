"""Every chapter reads in JupyterLab as in the book: no raw MyST in any rendered markdown cell.

JupyterLab (with ``jupyterlab-myst``, from the book extra) is started as in test_jupyterlab.py,
on COPIES of the chapters in a temporary folder (the committed notebooks are never rewritten).
For each chapter, headless Chromium (network blocked) opens it and checks the markdown cells

1. as opened, with the numbers stored by ``tools/execute_notebooks.py`` (no kernel run yet), and
2. after *Run > Run All Cells*, with every number re-evaluated by the live kernel:

no rendered markdown cell may show raw ``{glue``, ``{eval}``, ``{term}``, ``{eq}``, a directive
fence (```` ```{ ````, ``:::{``), an equation label (``eq-ch03-...``: an ``{eq}`` to another
chapter, which JupyterLab cannot resolve), an unevaluated inline expression or an inline error; every
``{eval}`` role of the source must show as a number or text, and the first one of chapter 8 must
show the value the book shows.  A screenshot of each chapter (after Run All) is saved to
``$TMPDIR/sb_lab_myst_<chapter>.png``.

    .venv/bin/python -m pytest tests/browser/test_jupyterlab_myst.py -q
    SB_LAB_MYST_CHAPTERS="ch08*" ...          # a glob of book/chapters to check (default: all)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from browser_support import LAB_JUPYTER_PATH, ROOT, start_run_all

CHAPTERS = Path(os.environ.get("SB_LAB_MYST_DIR", ROOT / "book" / "chapters"))
PATTERN = os.environ.get("SB_LAB_MYST_CHAPTERS", "ch*.ipynb")
NOTEBOOKS = sorted(CHAPTERS.glob(PATTERN))
SHOTS = Path(os.environ.get("TMPDIR", "/tmp"))

SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "autoStartDefaultKernel": True,
        "windowingMode": "none"},  # attach every cell to the DOM, so selectors find them
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
}

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, method: str = "GET", timeout: float = 5.0):
    req = urllib.request.Request(url, method=method)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        body = r.read()
        return json.loads(body) if body else None


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


def _shutdown_kernels(base: str) -> None:
    try:
        for k in _get(f"{base}/api/kernels") or []:
            _get(f"{base}/api/kernels/{k['id']}", method="DELETE", timeout=20)
    except OSError:
        pass


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not NOTEBOOKS:
        pytest.fail(f"no chapter notebooks match {PATTERN!r} in {CHAPTERS}")
    tmp = tmp_path_factory.mktemp("labmyst")
    work = tmp / "work"
    work.mkdir()
    for nb in NOTEBOOKS:
        shutil.copy(nb, work / nb.name)
    settings_dir = tmp / "settings"
    for rel, value in SETTINGS.items():
        path = settings_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    port = _free_port()
    jupyter = Path(sys.executable).with_name("jupyter-lab")
    cmd = [str(jupyter) if jupyter.exists() else "jupyter-lab", "--no-browser",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           "--IdentityProvider.token=", "--ServerApp.password=",
           "--ServerApp.disable_check_xsrf=True", "--LabApp.extension_manager=readonly",
           f"--ServerApp.root_dir={work}", f"--LabApp.user_settings_dir={settings_dir}",
           f"--LabApp.workspaces_dir={tmp / 'workspaces'}", "--LabApp.news_url=",
           "--ServerApp.open_browser=False", "--LabApp.expose_app_in_browser=True"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg",
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"), JUPYTER_CONFIG_DIR=str(tmp / "config"),
               JUPYTER_PATH=str(LAB_JUPYTER_PATH),   # the book's extension, as in make lab
               PYTHONPATH=os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p))
    log = open(tmp / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                _get(f"{base}/api/status")
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    log.flush()
                    pytest.fail("JupyterLab did not start:\n" + (tmp / "lab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield base
    finally:
        _shutdown_kernels(base)
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _wait_idle(page, timeout=240_000):
    page.wait_for_function(
        """() => {
            const ind = document.querySelector('.jp-Notebook-ExecutionIndicator');
            const busy = Array.from(document.querySelectorAll('.jp-InputPrompt'))
                .some(p => p.textContent.includes('*'));
            return ind && ind.getAttribute('data-status') === 'idle' && !busy;
        }""", timeout=timeout)


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


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem[:4] for p in NOTEBOOKS])
def test_chapter_reads_in_jupyterlab(lab, page, notebook):
    base = lab
    roles = _eval_roles(notebook)
    page.set_default_timeout(60_000)
    page.goto(f"{base}/lab/tree/{notebook.name}?reset", wait_until="domcontentloaded")  # only this tab
    page.wait_for_selector(".jp-Notebook .jp-MarkdownCell", timeout=90_000)
    _wait_idle(page)
    _wait_rendered(page)
    _, problems = _settled_problems(page, roles, "as opened")

    start_run_all(page)                                   # clicked once the kernel is connected
    _wait_idle(page)
    _wait_rendered(page)
    # the last markdown cells' expressions come back after the code: settle on them
    cells, after = _settled_problems(page, roles, "after Run All")
    if os.environ.get("SB_LAB_DEBUG"):
        print(json.dumps(cells, indent=1, ensure_ascii=False))
    problems += after
    first = page.locator(".jp-Notebook .jp-MarkdownCell").nth(1)
    first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"sb_lab_myst_{notebook.stem[:4]}.png"))
    page.close()
    _shutdown_kernels(base)   # one chapter's kernel at a time on a small machine
    assert not problems, "\n".join(problems[:30])
    if notebook.name.startswith("ch08"):   # the first number of chapter 8, computed here
        import spatialbook as sb
        assert f"a {sb.DOOR['mass']:.0f} kg plate" in " ".join(cells[1]["text"].split()), cells[1]["text"][:300]
