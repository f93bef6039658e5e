"""Run every test of the project, in order, and stop at the first failing stage.

Called by ``make test`` (and so by CI).  Each stage is one command; the summary at the end
prints each stage's wall time.  Any non-zero exit code fails the stage and so ``make test``,
including pytest's 5 ("no tests collected"): for the notebook stage it means the chapters are
missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import tempfile
import xml.etree.ElementTree as ET

import yaml

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def chapter_notebooks() -> list[str]:
    """The chapter notebooks of book/_toc.yml, existing or not (a missing one fails nbval)."""
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text(encoding="utf-8"))
    return [f"book/{c['file']}.ipynb" for part in toc.get("parts", [])
            for c in part.get("chapters", []) if c.get("file", "").startswith("chapters/")]


STAGES: list[tuple[str, list[str]]] = [
    ("library and widgets (pytest, doctests, hypothesis, MuJoCo)",
     [PY, "-m", "pytest", "-q", "tests", "spatialbook", "widgets", "--ignore=tests/browser",
      "--ignore=tests/notebooks", "--ignore=tests/book"]),
    ("self-check table", [PY, "-m", "spatialbook", "check"]),
    ("every other Python 3.10-3.13 on this machine: fresh venv from the lock, self-check, library tests",
     [PY, "tools/test_pythons.py"]),
    ("chapter notebooks re-executed and compared (nbval, strict), as this machine runs them and "
     "with numpy's SIMD dispatch limited to its baseline",
     [PY, "tools/nbval_stage.py", *chapter_notebooks()]),
    ("notebooks carry their outputs, no errors, no digits beyond their declared precision; "
     "a 1e-6 change of the physics fails nbval",
     [PY, "-m", "pytest", "-q", "tests/notebooks"]),
    ("book build, warnings as errors (jupyter-book -W -n --keep-going)",
     [PY, "tools/build_book.py", "-q"]),
    ("build tool: a broken reference or a missing file fails the build",
     [PY, "-m", "pytest", "-q", "tests/book"]),
    ("static site in headless Chromium, network blocked, + axe audit",
     [PY, "-m", "pytest", "-q", "tests/browser/test_static_site.py", "--timeout=600"]),
    ("live mode of every experiment in the static site (Pyodide in headless Chromium, network blocked)",
     [PY, "-m", "pytest", "-q", "-s", "tests/browser/test_live.py", "--timeout=600"]),
    ("a chapter live in JupyterLab (headless Chromium): slider latency",
     [PY, "-m", "pytest", "-q", "-s", "tests/browser/test_jupyterlab.py", "--timeout=600"]),
    ("every chapter in JupyterLab reads as in the book: no raw MyST, numbers shown (Run All)",
     [PY, "-m", "pytest", "-q", "tests/browser/test_jupyterlab_myst.py", "--timeout=300"]),
    ("an author in JupyterLab: widget equals kernel after Run All, an edited {eval} renders on "
     "the first run, {term} and cross-chapter links open their targets",
     [PY, "-m", "pytest", "-q", "tests/browser/test_jupyterlab_authoring.py", "--timeout=600"]),
]


def count_tests(reports: Path) -> tuple[int, int, int]:
    """(passed, failed, skipped) summed over the pytest stages' JUnit reports."""
    passed = failed = skipped = 0
    for xml in sorted(reports.glob("stage*.xml")):
        for suite in ET.parse(xml).getroot().iter("testsuite"):
            tests, skip = int(suite.get("tests", 0)), int(suite.get("skipped", 0))
            bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            passed += tests - skip - bad
            failed += bad
            skipped += skip
    return passed, failed, skipped


#: `make test-fast` (tools/run_tests.py --fast): the library and widget tests and the self-check,
#: the stages an author runs after every edit; `make test` runs them all.
FAST_STAGES = 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # local use only: `tools/run_tests.py --from 5` starts at stage 5 (make test runs them all)
    first = int(argv[argv.index("--from") + 1]) if "--from" in argv else 1
    last = FAST_STAGES if "--fast" in argv else len(STAGES)
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    timings = []
    reports = Path(tempfile.mkdtemp(prefix="spatialbook-tests-"))
    t_all = time.perf_counter()
    for number, (name, cmd) in enumerate(STAGES, start=1):
        if number < first or number > last:
            continue
        name = f"{number}. {name}"
        print(f"\n=== {name}\n$ {' '.join(cmd)}", flush=True)
        t0 = time.perf_counter()
        if "pytest" in cmd:
            cmd = [*cmd, f"--junitxml={reports / f'stage{number}.xml'}"]
        elif cmd[1:2] == ["tools/nbval_stage.py"]:     # two pytest runs: stageN.xml, stageN-simd.xml
            cmd = [cmd[0], cmd[1], "--junitxml", str(reports / f"stage{number}"), *cmd[2:]]
        rc = subprocess.call(cmd, cwd=ROOT, env=env)
        if rc == 5 and "pytest" in cmd:
            print(f"FAIL: pytest collected no tests (exit 5) in stage {name!r}", flush=True)
        timings.append((name, time.perf_counter() - t0, rc))
        if rc != 0:
            break
    print("\n=== summary")
    for name, seconds, rc in timings:
        print(f"{seconds:8.1f} s  {'ok  ' if rc == 0 else 'FAIL'}  {name}")
    skipped = last - (first - 1) - len(timings)
    if skipped:
        print(f"          (not run: {skipped} later stage(s))")
    print(f"{time.perf_counter() - t_all:8.1f} s  total")
    passed, failed, skipped_tests = count_tests(reports)
    print(f"tests: {passed} passed, {failed} failed, {skipped_tests} skipped")
    return next((rc for _, _, rc in timings if rc != 0), 0)


if __name__ == "__main__":
    sys.exit(main())
