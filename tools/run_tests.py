"""Run every test of the project; any failing stage fails the run.

Called by ``make test`` (and so by CI).  Each stage is one command; the summary at the end
prints each stage's wall time, the CPU time of its processes (``os.wait4``: user + system of
the stage's command and every process it waited for) and the load average when it ended, so
runs on a shared machine can be compared by CPU.  Any non-zero exit code fails the stage and so ``make test``,
including pytest's 5 ("no tests collected"): for the notebook stage it means the chapters are
missing.

The stages run in three lanes at once (:data:`LANES`), each in its order, a browser lane's first
stage once the book is built (:data:`NEEDS`); after a failure no lane starts another stage: the
Python lane (library and widgets, self-check, notebooks, the other Pythons) and two book lanes
(the build, the static site and the JupyterLab authoring checks; the stored outputs, the build
tool, live mode and JupyterLite, and every chapter in JupyterLab).  Together they keep both cores of a two-core machine busy.  The stage times
printed are measured with the other lanes beside them; the browser stages wait on conditions,
never on time, so that load does not fail them.
A stage's output is printed, whole, when it ends.  ``--serial`` (and ``--from N``) runs the
stages one after the other, streaming their output.

``--fast`` (``make test-fast``, the author's loop) runs stages 1-2 with stage 1 *sampled*
(pytest ``--sampled``, tests/sampling.py): the exhaustive fuzz, sweep and property runs take a
seeded subset that still reaches every experiment, control and public function; ``make test``
runs them whole.  There, stage 1 is two pytest processes at once, one per core
(:data:`FAST_SPLIT`: the same tests and ids, split by file).  In the lanes, stage 3 (the
other Pythons) tests a second interpreter at a time once the book lanes have ended.  ``--experiment NAME`` (``make test-experiment NAME=...``) runs one registered
experiment's own tests (tests/test_widget_<module>.py) and every registry-wide test of it,
unsampled.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import tempfile
import xml.etree.ElementTree as ET

import yaml

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
#: pytest for every stage but the notebooks' (stage 4): without nbval's plugin, whose import
#: (nbformat -> jsonschema's format checkers -> rfc3987-syntax building its Lark grammar) cost
#: 2.9 s of CPU in each pytest process here (5.1 -> 2.2 s for pytest on one small test file)
PYTEST = [PY, "-m", "pytest", "-q", "-p", "no:nbval"]


def chapter_notebooks() -> list[str]:
    """The chapter notebooks of book/_toc.yml, existing or not (a missing one fails nbval)."""
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text(encoding="utf-8"))
    return [f"book/{c['file']}.ipynb" for part in toc.get("parts", [])
            for c in part.get("chapters", []) if c.get("file", "").startswith("chapters/")]


STAGES: list[tuple[str, list[str]]] = [
    ("library and widgets (pytest, doctests, hypothesis, MuJoCo)",
     [*PYTEST, "tests", "spatialbook", "widgets", "--ignore=tests/browser",
      "--ignore=tests/notebooks", "--ignore=tests/book"]),
    ("self-check table", [PY, "-m", "spatialbook", "check"]),
    ("every other Python 3.11-3.13 on this machine: fresh venv from the lock, self-check, library tests "
     "(another patch release of the main .venv's minor version: set-up and self-check)",
     [PY, "tools/test_pythons.py"]),
    ("chapter notebooks re-executed and compared (nbval, strict) with numpy's SIMD dispatch "
     "limited to its baseline (stale outputs and CPU-dependent digits both fail)",
     [PY, "tools/nbval_stage.py", *chapter_notebooks()]),
    ("notebooks carry their outputs, no errors, no digits beyond their declared precision; "
     "a 1e-6 change of the physics fails nbval",
     [*PYTEST, "tests/notebooks"]),
    ("book build, both editions, warnings as errors (jupyter-book -W -n --keep-going; the Chinese "
     "edition's finished pages checked for English and raw MyST)",
     [PY, "tools/build_book.py", "-q"]),
    ("build tool: a broken reference or a missing file fails the build; the Chinese edition of a "
     "tiny book",
     [*PYTEST, "tests/book"]),
    ("static site in headless Chromium, network blocked, + axe audit (the Chinese edition's "
     "finished pages too, and on a phone, with the language switch)",
     [*PYTEST, "tests/browser/test_static_site.py", "tests/browser/test_zh_site.py",
      "--timeout=600"]),
    ("live mode of every experiment in the static site, and a chapter edited in the site's "
     "JupyterLite (Pyodide in headless Chromium, network blocked)",
     [*PYTEST, "-s", "tests/browser/test_live.py", "tests/browser/test_lite.py", "--timeout=600"]),
    ("a chapter live in JupyterLab (headless Chromium): slider latency",
     [*PYTEST, "-s", "tests/browser/test_jupyterlab.py", "--timeout=600"]),
    ("every chapter in JupyterLab reads as in the book: no raw MyST, numbers shown (as opened; "
     "chapters 8 and 12 again after Run All)",
     [*PYTEST, "tests/browser/test_jupyterlab_myst.py", "--timeout=300"]),
    ("an author in JupyterLab: widget equals kernel after Run All, an edited {eval} renders on "
     "the first run, {term} and cross-chapter links open their targets",
     [*PYTEST, "tests/browser/test_jupyterlab_authoring.py", "--timeout=600"]),
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


#: the stages (1-based) of each lane, in order.  The Python lane ends with the other Pythons
#: (stage 3: one interpreter at a time while another lane runs, two once the others have ended).
#: The browser stages run in two lanes beside each other once the book is built: the build and
#: the static site in one; the stored-outputs check and the build-tool tests (neither needs the
#: build) then, once the build has ended (:data:`NEEDS`), live mode, JupyterLite and JupyterLab in
#: the other.  The CI run of 711ed2a, in two lanes, took 1773 s (the book lane's end); the
#: fresh-clone run of f478e9b, in these three, took 1466 s; that of 4c4a428 (static41's stage 8,
#: pytest without nbval's plugin) 1305 s, its Python lane ending it (stage 1 492 s beside the
#: browser stages for 273 s of CPU, stage 4 352 s, stage 3 462 s, mostly 3.10's 305 s).  The
#: load stayed at 7-8 on two cores while the browser stages ran: the run is bound by CPU, not by a
#: lane.  (The CPU column leaves Chromium out, as no process of the stage waits for it: stage 8
#: alone, polled from /proc, used 678 s of CPU in 539 s at 172f437; static41's, its whole process
#: tree counted, 345 and 338 s of CPU in 324 and 308 s at load 1-4.)
#: Stage 12 (authoring in JupyterLab, about 70 s) follows the static site since issue 34's cuts
#: (nbval in one pass, the JupyterLite chapters on one kernel) left the third lane the longest.
LANES: tuple[tuple[int, ...], ...] = ((1, 2, 4, 3), (6, 8, 12), (5, 7, 9, 10, 11))

#: a stage that waits for a stage of another lane to end (ok) before it starts: the browser
#: stages 9-12 read the built book
NEEDS: dict[int, int] = {9: 6}

#: `make test-fast` (tools/run_tests.py --fast): the library and widget tests and the self-check,
#: the stages an author runs after every edit; `make test` runs them all.
FAST_STAGES = 2

#: the pytest option of stage 1 in `make test-fast` (tests/conftest.py, tests/sampling.py)
SAMPLED = "--sampled"

#: `make test-fast` runs its stage 1 as two pytest processes at once, one per core (no plugin:
#: the files below in one, every other file in the other; the same tests, the same ids).  The
#: overlap check (issue 33) had gone to the other process.  Measured per process (os.wait4,
#: load 9-15, 2312 tests, 363 s of CPU in all) with controls, live, text, layout and the
#: overlap check here: 208 s here, 154 s there; from that run's per-file times, without the
#: overlap check here (as before) about 153 s and 210 s, and with the figure-text check moved
#: there (this list) about 188 s and 175 s; measured so (load 10-16): 187 s and 169 s of
#: CPU (356 s in all), the two processes ending 25 s apart in 19 min of loaded wall time.  With
#: one experiment per test process (tests/widget_helpers.py's ``shared``) and the overlap check's
#: ends split between its layouts, the same split measured 150.6 s here and 149.5 s there (300 s
#: in all, load 8-17; before those changes, the same day and machine: 197.7 s and 183.2 s, 381 s,
#: load 12-19): still even, so kept; tools/run_tests.py --fast then (the control guards' updates
#: without the widget's PNG too, load 6-14): 137.4 s here and 144.1 s there (281.6 s in all).
#: Without nbval's plugin (PYTEST), with shared experiments handed out again without a redraw
#: when unchanged and the sampled adapter and stale-pixel tests (load 1.4-4): 101.4 s here,
#: 136.5 s there (237.9 s, 263 s wall); the figure-text check (about 14 s) moved here.  With
#: it (load 2.5-3.5): 112.1 s here, 127.1 s there; live mode's archive check then sampled to
#: one layout per experiment (16.6 -> 10.9 s) and the readout-width check (about 5 s) moved here.
#: Quiet (load 2-4), make test-fast took 141 s: 121 s of tests here, 130 s there (ended 18 s
#: apart); the floating biped's tests (about 4 s) moved here to even them
FAST_SPLIT = ["tests/test_widget_controls.py", "tests/test_widget_live.py",
              "tests/test_widget_layout.py", "tests/test_widget_overlaps.py",
              "tests/test_widget_text.py", "tests/test_widget_readouts.py",
              "tests/test_widget_floating_biped.py"]

#: the files of the registry-wide tests, each parametrized by the experiment's registry name
REGISTRY_TESTS = ["tests/test_widgets.py", "tests/test_widget_controls.py",
                  "tests/test_widget_layout.py", "tests/test_widget_text.py",
                  "tests/test_widget_live.py", "tests/test_widget_ticks.py",
                  "tests/test_widget_overlaps.py", "tests/test_widget_readouts.py"]


def experiment_command(name: str) -> list[str]:
    """pytest on one experiment, unsampled: its own test file whole (``-k`` matches its module's
    name), the registry-wide tests selected by its registry name (their ids carry it) and the
    check that widgets/README.md's table lists the registry.  ValueError for a name that is not
    registered, listing the registered ones."""
    sys.path.insert(0, str(ROOT))
    from widgets import EXPERIMENTS

    if name not in EXPERIMENTS:
        raise ValueError(f"--experiment: no experiment {name!r}: expected one of {sorted(EXPERIMENTS)}")
    module = EXPERIMENTS[name].__module__.rpartition(".")[2]
    own = f"test_widget_{module}"
    return [*PYTEST, f"tests/{own}.py", *REGISTRY_TESTS,
            "-k", f"{name} or {own} or readme"]


def _command(number: int, cmd: list[str], reports: Path, lanes: bool,
             sampled: bool = False) -> list[str]:
    if number == 1 and sampled:
        cmd = [*cmd, SAMPLED]
    if "pytest" in cmd:
        cmd = [*cmd, f"--junitxml={reports / f'stage{number}.xml'}"]
    elif cmd[1:2] == ["tools/nbval_stage.py"]:     # its pytest run(s): stageN.xml (stageN-native.xml)
        cmd = [cmd[0], cmd[1], "--junitxml", str(reports / f"stage{number}"), *cmd[2:]]
    elif cmd[1:2] == ["tools/test_pythons.py"] and lanes:
        # one at a time: two at a time at a lower priority beside the book lane was measured
        # no faster in all (957.6 s against 952.4 s) and slowed the browser stages by 55 s;
        # two at a time once the other lanes have ended (run_lanes creates LANE_ENDED)
        cmd = [*cmd, "--jobs", "1", "--more-jobs-when", str(reports / LANE_ENDED)]
    return cmd


def split_fast(cmd: list[str], reports: Path) -> list[list[str]]:
    """Stage 1 of ``--fast`` as two pytest commands that together run what ``cmd`` runs:
    :data:`FAST_SPLIT`'s files, and ``cmd`` with them ignored, each with its own JUnit report.
    A command that is not pytest is returned alone."""
    if "pytest" not in cmd:
        return [cmd]
    i = len(PYTEST) if cmd[:len(PYTEST)] == PYTEST else cmd.index("-q") + 1   # after the options
    rest = [*cmd[:i], *cmd[i:]]
    rest[i:i] = [f"--ignore={f}" for f in FAST_SPLIT]
    tail = [a for a in cmd[i:] if a.startswith("-") and not a.startswith(("--ignore", "--junitxml"))]
    split = [*cmd[:i], *FAST_SPLIT, *tail, f"--junitxml={reports / 'stage1-split.xml'}"]
    return [split, rest]


def _run_split(cmds: list[list[str]], env: dict, reports: Path) -> tuple[int, float]:
    """The commands at once: the last one's output streamed, the others' captured and printed
    whole when they end; the first non-zero exit code, else 0, and their CPU seconds."""
    logs = [reports / f"stage1-{i}.log" for i in range(len(cmds) - 1)]
    outs = [open(log, "wb") for log in logs]
    procs = [subprocess.Popen(c, cwd=ROOT, env=env, stdout=o, stderr=subprocess.STDOUT)
             for c, o in zip(cmds, outs)]
    procs.append(subprocess.Popen(cmds[-1], cwd=ROOT, env=env))
    waited = [_wait(p) for p in procs]
    codes = [rc for rc, _ in waited]
    for c, o, log, (rc, cpu) in zip(cmds, outs, logs, waited):
        o.close()
        print(f"--- the other process ({'ok' if rc == 0 else f'FAIL, exit {rc}'}, "
              f"{cpu:.1f} s of CPU): $ {' '.join(c)}", flush=True)
        sys.stdout.write(log.read_text(encoding="utf-8", errors="replace"))
    print(f"--- this process: {waited[-1][1]:.1f} s of CPU", flush=True)
    return next((rc for rc in codes if rc != 0), 0), sum(cpu for _, cpu in waited)


#: the file run_lanes creates in the reports folder when every lane but one has run all its stages
LANE_ENDED = "lane-ended"


def _wait(proc: subprocess.Popen) -> tuple[int, float]:
    """Wait for ``proc``: its exit code (as ``subprocess.call`` gives it) and the CPU seconds
    (user + system) of it and of every process below it that was waited for (pytest, kernels,
    Chromium, the venvs' pytest runs: ``os.wait4``'s resource usage)."""
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime


def _call(cmd: list[str], **kwargs) -> tuple[int, float]:
    """``subprocess.call`` that also gives the CPU seconds of the command's processes."""
    return _wait(subprocess.Popen(cmd, **kwargs))


def _load() -> float:
    """The one-minute load average (0 where the system gives none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def _report(number: int, name: str, rc: int) -> None:
    if rc == 5:
        print(f"FAIL: pytest collected no tests (exit 5) in stage {number}. {name!r}", flush=True)


def run_serial(numbers: list[int], env: dict, reports: Path,
               sampled: bool = False) -> list[tuple[int, float, int, float, float]]:
    """The stages one after the other, output streamed; stop at the first failure.  ``sampled``:
    stage 1 with pytest ``--sampled`` (``--fast``).  Each stage: (number, wall s, exit code,
    CPU s, load average at its end)."""
    timings = []
    for number in numbers:
        name, cmd = STAGES[number - 1]
        cmd = _command(number, cmd, reports, False, sampled)
        cmds = split_fast(cmd, reports) if sampled and number == 1 else [cmd]
        print(f"\n=== {number}. {name}{' (sampled)' if sampled and number == 1 else ''}\n"
              + "\n".join(f"$ {' '.join(c)}" for c in cmds)
              + ("\n(two processes at once: the second's output follows, then the first's)" if len(cmds) > 1
                 else ""), flush=True)
        t0 = time.perf_counter()
        rc, cpu = (_run_split(cmds, env, reports) if len(cmds) > 1
                   else _call(cmd, cwd=ROOT, env=env))
        _report(number, name, rc)
        timings.append((number, time.perf_counter() - t0, rc, cpu, _load()))
        if rc != 0:
            break
    return timings


def run_lanes(env: dict, reports: Path) -> list[tuple[int, float, int, float, float]]:
    """The lanes (:data:`LANES`) at once, a stage of :data:`NEEDS` waiting for the stage it
    needs; each stage's output captured and printed whole when it ends.  After a failure no
    lane starts another stage.  Each stage: (number, wall s, exit code, CPU s, load average at
    its end)."""
    timings: list[tuple[int, float, int, float, float]] = []
    printing = threading.Lock()
    failed = threading.Event()
    done = {n: threading.Event() for n in range(1, len(STAGES) + 1)}   # ended ok
    ended = []                               # lanes that have run all their stages

    running: dict[int, float] = {}           # stage -> start, for the heartbeat

    def lane(numbers: tuple[int, ...]) -> None:
        for number in numbers:
            need = NEEDS.get(number)
            while need and not done[need].is_set() and not failed.is_set():
                done[need].wait(timeout=0.5)
            if failed.is_set():
                return
            name, cmd = STAGES[number - 1]
            log = reports / f"stage{number}.log"
            t0 = time.perf_counter()
            running[number] = t0
            with printing:
                print(f"--- stage {number} started: {name}", flush=True)
            with open(log, "wb") as out:
                rc, cpu = _call(_command(number, cmd, reports, True), cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)
            seconds, load = time.perf_counter() - t0, _load()
            running.pop(number, None)
            with printing:
                print(f"\n=== {number}. {name}  ({seconds:.1f} s, {cpu:.1f} s of CPU, load {load:.1f}; "
                      f"{'ok' if rc == 0 else f'FAIL, exit {rc}'})\n$ {' '.join(cmd)}", flush=True)
                sys.stdout.write(log.read_text(encoding="utf-8", errors="replace"))
                _report(number, name, rc)
                sys.stdout.flush()
                timings.append((number, seconds, rc, cpu, load))
            if rc != 0:
                failed.set()
                return
            done[number].set()
        with printing:
            ended.append(numbers)
            if len(ended) >= len(LANES) - 1:  # one lane left: a core is free, stage 3 may use it
                (reports / LANE_ENDED).touch()

    print(f"=== {len(LANES)} lanes at once: "
          + "; ".join("stages " + ", ".join(map(str, numbers)) for numbers in LANES)
          + "".join(f" (stage {n} once stage {m} has ended)" for n, m in NEEDS.items())
          + "; each stage's output follows when it ends", flush=True)
    threads = [threading.Thread(target=lane, args=(numbers,)) for numbers in LANES]
    for th in threads:
        th.start()
    while any(th.is_alive() for th in threads):   # a line a minute while stages run
        next(th for th in threads if th.is_alive()).join(timeout=60.0)
        now = time.perf_counter()
        if running:
            with printing:
                print("--- running: " + ", ".join(f"stage {n} ({now - s:.0f} s)"
                                                 for n, s in sorted(running.items())), flush=True)
    for th in threads:
        th.join()
    return sorted(timings)


def run_experiment(name: str, env: dict) -> int:
    """``--experiment NAME``: one experiment's tests (:func:`experiment_command`), timed."""
    try:
        cmd = experiment_command(name)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"=== experiment {name}: its own tests and the registry-wide tests for it\n$ {' '.join(cmd)}",
          flush=True)
    t0 = time.perf_counter()
    rc, cpu = _call(cmd, cwd=ROOT, env=env)
    print(f"{time.perf_counter() - t0:8.1f} s  {cpu:.1f} s of CPU, load {_load():.1f}  "
          f"{'ok' if rc == 0 else f'FAIL, exit {rc}'}  experiment {name}")
    return rc


#: the options main() takes (anything else is refused, not run as a whole `make test`)
OPTIONS = ("--fast", "--serial", "--from", "--experiment")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "-h" in argv or "--help" in argv:
        print(__doc__)
        return 0
    unknown = [a for i, a in enumerate(argv) if a not in OPTIONS
               and (i == 0 or argv[i - 1] not in ("--from", "--experiment"))]
    if unknown:
        print(f"run_tests: unknown argument(s) {unknown}: expected none (every stage, as `make test`), "
              f"or {', '.join(OPTIONS)} (see --help)", file=sys.stderr)
        return 2
    if "--experiment" in argv:
        i = argv.index("--experiment")
        if i + 1 >= len(argv):
            print("--experiment: expected the experiment's registry name, e.g. --experiment kinetic_energy",
                  file=sys.stderr)
            return 2
        return run_experiment(argv[i + 1], dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg"))
    # local use only: `tools/run_tests.py --from 5` starts at stage 5, one stage after another
    first = int(argv[argv.index("--from") + 1]) if "--from" in argv else 1
    last = FAST_STAGES if "--fast" in argv else len(STAGES)
    serial = "--serial" in argv or "--from" in argv or "--fast" in argv
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    reports = Path(tempfile.mkdtemp(prefix="spatialbook-tests-"))
    t_all = time.perf_counter()
    numbers = list(range(first, last + 1))
    timings = (run_serial(numbers, env, reports, sampled="--fast" in argv) if serial
               else run_lanes(env, reports))
    print("\n=== summary (wall time, CPU time of the stage's processes, load average at its end)")
    for number, seconds, rc, cpu, load in timings:
        print(f"{seconds:8.1f} s {cpu:8.1f} s CPU  load {load:4.1f}  {'ok  ' if rc == 0 else 'FAIL'}  "
              f"{number}. {STAGES[number - 1][0]}")
    skipped = len(numbers) - len(timings)
    if skipped:
        print(f"          (not run: {skipped} stage(s) after a failure)")
    print(f"{time.perf_counter() - t_all:8.1f} s {sum(t[3] for t in timings):8.1f} s CPU  "
          f"load {_load():4.1f}  total")
    passed, failed, skipped_tests = count_tests(reports)
    print(f"tests: {passed} passed, {failed} failed, {skipped_tests} skipped")
    return next((t[2] for t in timings if t[2] != 0), 0)


if __name__ == "__main__":
    sys.exit(main())
