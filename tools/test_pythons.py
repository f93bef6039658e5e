"""Prove the set-up on every Python the README promises: 3.11, 3.12 and 3.13.

    .venv/bin/python tools/test_pythons.py            # a stage of `make test`
    .venv/bin/python tools/test_pythons.py --list     # only show what was found

For each interpreter of 3.11-3.13 found on this machine (on PATH, in the usual system folders and
under pyenv; found, never hard-coded), other than the one the main ``.venv`` was made with (stage 1
of ``make test`` already runs the same tests there), it makes a fresh virtual environment from the
universal lock with ``tools/setup_venv.py``, then runs the self-check and the library and widget
tests *sampled* (pytest ``--sampled``, as ``make test-fast``: every test, every experiment, control
and public function, with the exhaustive fuzz, sweep and property runs on their seeded subset,
which stage 1 runs whole; see ``LIBRARY_TESTS``), the drawing suites only where the lock gives
another drawing stack than the main .venv's (see ``DRAWING_SUITES``).  Another patch release of the main .venv's minor version (Debian's
3.11.2 beside pyenv's 3.11.7) gets the set-up and the self-check only: the same lock installs
the same wheels, and stage 1 runs the tests on that minor version.  Minor versions not found are listed as not tested; finding
none at all is a failure, and so is any failing interpreter.  The table at the end gives each
one's set-up and test times.

The 3.12 venv, once its own tests have passed, then checks the drawing stack of live mode
(Pyodide 0.27.7's interpreter is CPython 3.12; a venv of its own where no 3.12 but the main
.venv's is found): the lock's set-up, with numpy, matplotlib, Pillow and their drawing
dependencies replaced by the versions Pyodide ships (``tools/pyodide-0.27.7-lock.json``:
matplotlib 3.8.4), runs the figure-text, phone-layout and tick checks, so the figures a reader
gets in live mode are checked as the book's frames are (and carry the same ticks).  As live
mode does, the experiments there replay the layouts measured on the main .venv's stack
(``tools/live_packages.py`` ``layouts``; tests/conftest.py ``SPATIALBOOK_LAYOUTS``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: 3.10 left the promise in December 2026: it reached its end of life in October 2026, and the
#: numpy (2.3) and matplotlib (3.11) releases since mid-2025 need 3.11.  Testing it here had cost
#: about 200 s of CPU per make test (its own numpy 2.2 and matplotlib 3.10: the drawing suites
#: again), a sixth of the run (issue 34)
PROMISED = ((3, 11), (3, 12), (3, 13))
#: the library and widget tests, *sampled* (pytest ``--sampled``, tests/sampling.py, as in
#: ``make test-fast``): every test runs and reaches every experiment, control and public function,
#: while the exhaustive fuzz, sweep and property runs take their seeded subset; stage 1 runs them
#: whole on the main .venv, and they test the physics and the drawing, not the interpreter
#: (without nbval's plugin, as tools/run_tests.py's PYTEST says why)
LIBRARY_TESTS = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbval", "tests", "spatialbook",
                 "--ignore=tests/browser", "--ignore=tests/notebooks", "--ignore=tests/book",
                 # make test's own runner, which runs on the main .venv only (18 s a Python)
                 "--ignore=tests/test_run_tests.py",
                 "--sampled"]
PROBE = "import json, os, platform, sys; print(json.dumps([os.path.realpath(sys.executable), platform.python_version()]))"

#: The exhaustive drawing suites (every control of every experiment at random states, every
#: figure text wide and narrow, the live adapter's frames, the figure-overlap check's ink of
#: every artist, the readout tables' widths in matplotlib's font metrics): they test what
#: matplotlib, numpy, Pillow and ipywidgets draw, not the interpreter.  Stage 1 runs them with the main .venv's
#: pins; an interpreter whose lock resolves the same versions of that stack (3.11+ here) runs
#: the library tests and tests/test_widgets.py (every experiment built, set, swept and checked)
#: instead, and one with other pins (none today; 3.10 had numpy 2.2 and matplotlib 3.10) runs
#: them too, but for :data:`OWN_PINS_SKIPPED`.  The
#: overlap and readout checks joined the list (issue 34): in the fresh-clone run of 71d5802
#: (load 2-4) they took 105 s of 3.12's 257 s of tests and 69 s of 3.13's 195 s, with
#: stage 1's pins, the same pixels stage 1 checks.
DRAWING_SUITES = ["tests/test_widget_controls.py", "tests/test_widget_live.py",
                  "tests/test_widget_text.py", "tests/test_widget_layout.py",
                  "tests/test_widget_ticks.py", "tests/test_widget_overlaps.py",
                  "tests/test_widget_readouts.py",
                  # the 2x frames the build draws, live mode's archives of the pinned packages
                  # (made for Pyodide's CPython 3.12, whichever Python builds them): about a
                  # fifth of 3.12's sampled tests (issue 34)
                  "tests/test_dense_frames.py", "tests/test_live_archives.py",
                  # a layout recorded while measuring, replayed without: the same pixels (what
                  # matplotlib measures and draws; live mode's own replay on Pyodide's stack is
                  # checked in the browser, stage 9): 31 s of 89 s of 3.11's sampled tests
                  "tests/test_widget_layout_tape.py"]
#: drawing suites left out on an interpreter whose lock gives another drawing stack (none today)
#: too, for what they test is not that stack: test_widget_controls moves every control of every
#: experiment to random states and bad values (the experiments' logic and guards, the same on
#: every stack; tests/test_widgets.py still sweeps every control there and checks each frame),
#: and test_widget_live compares live mode's adapter with the JupyterLab path, while live mode
#: runs Pyodide's stack (the venv below; stage 9 runs it in the browser), never that one.  The
#: two had taken 55 and 52 s of 3.10's 422 s of tests in a run at load 9-15 (issue 34).
OWN_PINS_SKIPPED = ["tests/test_widget_controls.py", "tests/test_widget_live.py"]
#: drawing tests inside files that also test the interpreter's side (tests/test_widgets.py:
#: a walked experiment's pixels equal a fresh one's), left out with the suites above
DRAWING_TESTS = ["test_blitting_leaves_no_stale_pixels"]
DRAWING_STACK = ("import importlib.metadata as m, json; print(json.dumps("
                 "{p: m.version(p) for p in ('numpy', 'matplotlib', 'pillow', 'ipywidgets', 'contourpy')}))")


def candidates() -> list[str]:
    """Paths and names of interpreters to ask, in a stable order (duplicates are fine)."""
    names = ["python3"] + [f"python{major}.{minor}" for major, minor in PROMISED]
    found = [p for p in (shutil.which(n) for n in names) if p]
    patterns = ["/usr/bin/python3*", "/usr/local/bin/python3*", "/opt/python*/bin/python3"]
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    patterns.append(os.path.join(pyenv, "versions", "*", "bin", "python3"))
    for pattern in patterns:
        found += sorted(p for p in glob.glob(pattern) if re.fullmatch(r"python3(\.\d+)?", os.path.basename(p)))
    return found


def discover() -> dict[str, str]:
    """full version -> real path of each distinct interpreter of 3.11-3.13 that runs."""
    by_path: dict[str, str] = {}
    for exe in candidates():
        try:
            out = subprocess.run([exe, "-c", PROBE], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode != 0:
            continue                        # e.g. a pyenv shim for a version not selected
        path, version = json.loads(out.stdout)
        if tuple(int(x) for x in version.split(".")[:2]) in PROMISED:
            by_path.setdefault(path, version)
    # one interpreter per full version (the first path seen)
    out: dict[str, str] = {}
    for path, version in by_path.items():
        out.setdefault(version, path)
    return dict(sorted(out.items(), key=lambda kv: tuple(int(x) for x in kv[0].split("."))))


def main_venv_python() -> str | None:
    """The full version the main .venv was made with, from its stamp."""
    try:
        return json.loads((ROOT / ".venv" / ".installed").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return None


def junit_counts(xml: Path) -> tuple[int, int, int]:
    passed = failed = skipped = 0
    for suite in ET.parse(xml).getroot().iter("testsuite"):
        tests, skip = int(suite.get("tests", 0)), int(suite.get("skipped", 0))
        bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        passed, failed, skipped = passed + tests - skip - bad, failed + bad, skipped + skip
    return passed, failed, skipped


#: Pyodide's lock (the live mode's packages) and the drawing stack taken from it
PYODIDE_LOCK = ROOT / "tools" / "pyodide-0.27.7-lock.json"
PYODIDE_DRAWING = ("numpy", "matplotlib", "pillow", "contourpy", "kiwisolver", "fonttools",
                   "pyparsing", "cycler")
PYODIDE_SUITES = ["tests/test_widget_text.py", "tests/test_widget_layout.py",
                  "tests/test_widget_ticks.py"]


#: run by the main .venv's Python: the layouts live mode replays, as JSON into argv[1]
RECORD_LAYOUTS = ("import json, sys; sys.path.insert(0, 'tools'); import live_packages; "
                  "json.dump(live_packages.layouts(), open(sys.argv[1], 'w', encoding='utf-8'))")


def pyodide_pins() -> list[str]:
    """``name==version`` of Pyodide's drawing stack, from its lock file."""
    packages = json.loads(PYODIDE_LOCK.read_text(encoding="utf-8"))["packages"]
    return [f"{n}=={packages[n]['version']}" for n in PYODIDE_DRAWING]


def command_env() -> dict[str, str]:
    """The environment of every interpreter's commands: as the Makefile's (hash seed, Agg)."""
    return dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")


def test_one(version: str, exe: str, workdir: Path, pins: list[str] | None = None,
             smoke: bool = False) -> dict:
    """Fresh venv, self-check, library and widget tests for one interpreter; output to a log.
    With ``pins``: those versions installed over the lock's, then the drawing checks only.
    ``smoke``: the set-up from the lock and the self-check only (another patch release of the
    main .venv's minor version, whose library tests stage 1 runs: e.g. Debian's 3.11.2 beside
    pyenv's 3.11.7; the same lock, the same wheels, about 100 s of tests not repeated)."""
    slug = re.sub(r"[^0-9A-Za-z.]+", "-", version).strip("-")
    venv = workdir / f"venv-{slug}"
    env = command_env()
    log = open(workdir / f"log-{slug}.txt", "w", encoding="utf-8")
    row = {"version": version, "path": exe, "log": log.name, "venv": str(venv)}
    with log:
        return _test_one(version, exe, venv, env, log, row, workdir, pins, smoke)


def _test_one(version, exe, venv, env, log, row, workdir, pins=None, smoke=False) -> dict:
    out = dict(cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    t0 = time.perf_counter()
    rc = subprocess.call([exe, str(ROOT / "tools" / "setup_venv.py"), "--venv", str(venv)], **out)
    row["setup_s"] = time.perf_counter() - t0
    if rc != 0:
        return {**row, "ok": False, "why": "set-up from the lock failed"}
    py = str(venv / "bin" / "python")
    t0 = time.perf_counter()
    rc = subprocess.call([py, "-m", "spatialbook", "check"], **out)
    if rc != 0:
        return {**row, "ok": False, "why": "self-check failed (run: python -m spatialbook check)"}
    if smoke:
        row["test_s"] = time.perf_counter() - t0
        row["drawing"] = "the main .venv's minor version: set-up and self-check; tests in stage 1"
        return {**row, "ok": True, "why": ""}
    xml = workdir / f"junit-{venv.name}.xml"
    if pins:
        return pyodide_stack_checks(py, venv, pins, out, row, xml, t0)
    same = _drawing_stack(py) == _drawing_stack(sys.executable)
    row["drawing"] = ("stage 1's pins: drawing suites not repeated" if same
                      else "own pins: drawing suites but controls and live")
    skip = ([f"--ignore={f}" for f in DRAWING_SUITES]
            + ["-k", " and ".join(f"not {t}" for t in DRAWING_TESTS)]) if same else [
        f"--ignore={f}" for f in OWN_PINS_SKIPPED]
    rc = subprocess.call([py, *LIBRARY_TESTS, *skip, f"--junitxml={xml}"], **out)
    row["test_s"] = time.perf_counter() - t0
    row["passed"], row["failed"], row["skipped"] = junit_counts(xml) if xml.exists() else (0, 0, 0)
    if rc != 0:
        return {**row, "ok": False, "why": f"library/widget tests exited {rc}"}
    return {**row, "ok": True, "why": ""}


def pyodide_stack_checks(py: str, venv: Path, pins: list[str], out: dict, row: dict, xml: Path,
                         t0: float) -> dict:
    """Install ``pins`` (Pyodide's drawing stack) over the lock's in ``venv``, then run the
    drawing checks of :data:`PYODIDE_SUITES` there; ``row`` filled in and returned."""
    uv = venv / "bin" / "uv"
    install = ([str(uv), "pip", "install", "--python", py] if uv.exists()
               else [py, "-m", "pip", "install"])
    if subprocess.call([*install, *pins], **out) != 0:
        return {**row, "ok": False, "why": f"installing {' '.join(pins)} failed"}
    row["drawing"] = "Pyodide's drawing stack: " + ", ".join(pins[:3]) + ": text and layout"
    # live mode replays the layouts the build measured (tools/live_packages.py ``layouts``, on
    # the main .venv's stack): so do the checks of the figures it draws (tests/conftest.py)
    layouts = xml.with_name("layouts-main-venv.json")
    if subprocess.call([sys.executable, "-c", RECORD_LAYOUTS, str(layouts)], **out) != 0:
        return {**row, "ok": False, "why": "recording the layouts on the main .venv failed"}
    out = {**out, "env": {**out.get("env", os.environ), "SPATIALBOOK_LAYOUTS": str(layouts)}}
    rc = subprocess.call([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbval", *PYODIDE_SUITES,
                          "--sampled", f"--junitxml={xml}"], **out)
    row["test_s"] = time.perf_counter() - t0
    row["passed"], row["failed"], row["skipped"] = junit_counts(xml) if xml.exists() else (0, 0, 0)
    if rc != 0:
        return {**row, "ok": False, "why": f"drawing checks on Pyodide's stack exited {rc}"}
    return {**row, "ok": True, "why": ""}


def pyodide_stack_after(row: dict, workdir: Path) -> dict:
    """The Pyodide drawing-stack checks in the venv of a 3.12 ``row`` whose tests have passed
    (the same set-up from the lock as a venv of its own would get: one set-up fewer, about
    20 s of CPU and 60-90 s of a loaded core per make test)."""
    version = "3.12 + Pyodide's drawing stack"
    out_row = {"version": version, "path": row["path"], "setup_s": 0.0}
    if not row["ok"]:
        return {**out_row, "log": row["log"], "ok": False,
                "why": f"not run: Python {row['version']} failed first"}
    venv = Path(row["venv"])
    env = command_env()
    with open(workdir / "log-3.12-pyodide.txt", "w", encoding="utf-8") as log:
        out_row["log"] = log.name
        out = dict(cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        return pyodide_stack_checks(str(venv / "bin" / "python"), venv, pyodide_pins(), out, out_row,
                                    workdir / "junit-venv-3.12-pyodide.xml", time.perf_counter())


def _drawing_stack(py: str) -> dict | None:
    """Versions of the drawing stack installed for the interpreter ``py`` (None if unknown)."""
    out = subprocess.run([py, "-c", DRAWING_STACK], capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode == 0 else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="only list the interpreters found")
    ap.add_argument("--keep", action="store_true", help="keep the virtual environments (printed path)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="interpreters tested at once (default: 2; each pytest uses one core)")
    ap.add_argument("--more-jobs-when", type=Path, default=None, metavar="FILE",
                    help="one more interpreter at a time once FILE exists (make test's runner "
                         "creates it when its other lane has ended and left a core free)")
    args = ap.parse_args(argv)
    found = discover()
    main_version = main_venv_python()
    print("interpreters of 3.11-3.13 found:")
    for version, path in found.items():
        note = "  (the main .venv: tested by stage 1)" if version == main_version else ""
        print(f"  {version:8s} {path}{note}")
    minors = {tuple(int(x) for x in v.split(".")[:2]) for v in found}
    missing = [f"{a}.{b}" for a, b in PROMISED if (a, b) not in minors]
    if missing:
        print(f"not tested (not found on this machine): Python {', '.join(missing)}")
    if not found:
        print("FAIL: no Python 3.11-3.13 interpreter found")
        return 1
    if args.list:
        return 0
    workdir = Path(tempfile.mkdtemp(prefix="spatialbook-pythons-"))
    main_minor = main_version.split(".")[:2] if main_version else None
    todo = [(v, p, None) for v, p in found.items() if v != main_version]

    def smoke(version: str, pins) -> bool:
        return pins is None and version.split(".")[:2] == main_minor

    # Pyodide's drawing stack goes into the venv of a 3.12 tested here, once its own tests have
    # passed (``after``); a venv of its own only when no 3.12 is tested here (the main .venv's)
    after = next((v for v, p, pins in todo if v.startswith("3.12.") and not smoke(v, pins)), None)
    py312 = next((p for v, p in found.items() if v.startswith("3.12.")), None)
    if py312 and after is None:
        todo.append(("3.12 + Pyodide's drawing stack", py312, pyodide_pins()))
    elif py312 is None:
        print("not tested: Pyodide's drawing stack (needs a Python 3.12)")
    print(f"testing {len(todo)} environment(s), {args.jobs} at a time; logs in {workdir}", flush=True)

    def report(row: dict) -> None:
        print(f"--- Python {row['version']}: {'ok' if row['ok'] else 'FAIL: ' + row['why']} "
              f"(set-up {row.get('setup_s', 0):.0f} s, tests {row.get('test_s', 0):.0f} s)", flush=True)

    def run(item) -> list[dict]:
        version, exe, pins = item
        rows = [test_one(version, exe, workdir, pins, smoke=smoke(version, pins))]
        report(rows[0])
        if version == after:
            rows.append(pyodide_stack_after(rows[0], workdir))
            report(rows[1])
        return rows

    def limit() -> int:
        more = args.more_jobs_when is not None and args.more_jobs_when.exists()
        return max(1, args.jobs) + (1 if more else 0)

    rows: list = [None] * len(todo)
    pending, running = list(enumerate(todo)), {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(todo))) as pool:
        while pending or running:
            while pending and len(running) < limit():     # in order, as found
                i, item = pending.pop(0)
                running[pool.submit(run, item)] = i
            done, _ = concurrent.futures.wait(list(running), timeout=2.0,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                rows[running.pop(future)] = future.result()
    rows = [r for group in rows for r in group]
    for r in rows:
        if not r["ok"]:
            lines = Path(r["log"]).read_text(encoding="utf-8", errors="replace").splitlines()
            print(f"\n--- last lines of the log of Python {r['version']} ({r['log']}):")
            print("\n".join(lines[-60:]))
    print("\n  python    set-up   tests   passed failed skipped  result")
    for r in rows:
        print(f"  {r['version']:8s} {r.get('setup_s', 0):6.1f} s {r.get('test_s', 0):6.1f} s "
              f"{r.get('passed', 0):7d} {r.get('failed', 0):6d} {r.get('skipped', 0):7d}  "
              f"{'ok' if r['ok'] else 'FAIL: ' + r['why']}  ({r.get('drawing', '')})")
    if main_version:
        print(f"  {main_version:8s} (the main .venv: stages 1 and 2)")
    if args.keep or not all(r["ok"] for r in rows):
        print(f"environments and logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    failed = [r["version"] for r in rows if not r["ok"]]
    if failed:
        print(f"FAIL: Python {', '.join(failed)}")
        return 1
    print(f"{len(rows) + (1 if main_version else 0)} interpreter(s) pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
