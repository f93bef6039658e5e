"""`make test`'s runner (tools/run_tests.py): its lanes at once, every stage in exactly one lane,
a stage that needs another's result starts after it, a failure fails the run and stops every
lane from starting another stage."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import run_tests  # noqa: E402


def fake_stages(fail: int | None = None, slow=(), signal: Path | None = None,
                log: Path | None = None) -> list:
    """Twelve stages that print their number; ``fail`` exits 1, each of ``slow`` sleeps 1.5 s.
    With ``signal`` (a folder): each ``slow`` stage creates ``signal/<n>`` when it starts and
    ``fail`` waits for all of them (up to 60 s) before failing, so the failure comes while they
    run, whatever the machine's load.  With ``log``: each stage appends "start n" and "end n"."""
    slow = {slow} if isinstance(slow, int) else set(slow)
    out = []
    for i in range(1, 13):
        code = "import pathlib, time; "
        if log is not None:
            code += f"open({str(log)!r}, 'a').write('start {i}\\n'); "
        if signal is not None and i in slow:
            code += f"pathlib.Path({str(signal / str(i))!r}).touch(); "
        if signal is not None and i == fail:
            code += (f"t = time.time()\nwhile not all(pathlib.Path({str(signal)!r}, str(n)).exists() "
                     f"for n in {sorted(slow)!r}) and time.time() - t < 60: time.sleep(0.02)\n")
        code += f"time.sleep({1.5 if i in slow else 0.05}); print('stage {i} ran'); "
        if log is not None:
            code += f"open({str(log)!r}, 'a').write('end {i}\\n'); "
        code += f"raise SystemExit({1 if i == fail else 0})"
        out.append((f"fake {i}", [sys.executable, "-c", code]))
    return out


def test_every_stage_is_in_exactly_one_lane():
    numbers = [n for lane in run_tests.LANES for n in lane]
    assert sorted(numbers) == list(range(1, len(run_tests.STAGES) + 1))
    assert run_tests.LANES[0][:2] == (1, 2)             # the fast stages lead the Python lane
    assert all(n not in run_tests.LANES[0] for n in range(6, 13))   # the build, then browsers


def test_lanes_run_every_stage(monkeypatch, capfd):
    monkeypatch.setattr(run_tests, "STAGES", fake_stages())
    assert run_tests.main([]) == 0
    out = capfd.readouterr().out
    for i in range(1, 13):
        assert f"stage {i} ran" in out and f"ok    {i}. fake {i}" in out


def test_a_stage_that_needs_another_starts_after_it(monkeypatch, capfd, tmp_path):
    """The browser stages read the built book: each stage of NEEDS starts only once the stage it
    needs (in another lane, here made slow) has ended."""
    assert run_tests.NEEDS, "no stage waits for another"
    for stage, need in run_tests.NEEDS.items():
        assert not any(stage in lane and need in lane for lane in run_tests.LANES), (stage, need)
    log = tmp_path / "order"
    monkeypatch.setattr(run_tests, "STAGES", fake_stages(slow=set(run_tests.NEEDS.values()), log=log))
    assert run_tests.main([]) == 0
    lines = log.read_text().split()
    order = [f"{a} {b}" for a, b in zip(lines[::2], lines[1::2])]
    for stage, need in run_tests.NEEDS.items():
        assert order.index(f"end {need}") < order.index(f"start {stage}"), order
    assert sorted(int(e.split()[1]) for e in order if e.startswith("end")) == list(range(1, 13))


@pytest.mark.parametrize("lane", range(len(run_tests.LANES)))
def test_a_failure_fails_the_run_and_starts_nothing_new(monkeypatch, capfd, tmp_path, lane):
    # the failing stage leads its lane; it fails only once every other lane's first stage (slow)
    # has started: those stages end, and their lanes start nothing after them
    fail = run_tests.LANES[lane][0]
    others = {run_tests.LANES[i][0] for i in range(len(run_tests.LANES)) if i != lane}
    assert not others & set(run_tests.NEEDS), "a lane's first stage waits for another"
    signal = tmp_path / "started"
    signal.mkdir()
    monkeypatch.setattr(run_tests, "STAGES", fake_stages(fail=fail, slow=others, signal=signal))
    assert run_tests.main([]) == 1
    out = capfd.readouterr().out
    assert f"FAIL  {fail}. fake {fail}" in out
    assert all(f"stage {other} ran" in out for other in others)
    ran = {i for i in range(1, 13) if f"stage {i} ran" in out}
    assert ran == {fail, *others}, ran
    assert f"not run: {12 - len(ran)} stage(s) after a failure" in out


def test_serial_stops_at_the_first_failure(monkeypatch, capfd):
    monkeypatch.setattr(run_tests, "STAGES", fake_stages(fail=2))
    assert run_tests.main(["--serial"]) == 1
    out = capfd.readouterr().out
    assert "stage 1 ran" in out and "stage 3 ran" not in out


# ------------------------------------------------ make test-fast: stage 1 sampled, make test whole


def test_fast_runs_stages_1_and_2_with_stage_1_sampled(monkeypatch, capfd):
    """--fast passes --sampled to stage 1 only; a full run passes it to no stage."""
    stages = [(name, [*cmd, "--sampled-probe"]) for name, cmd in fake_stages()]
    seen = []
    real = run_tests._command

    def spy(number, cmd, reports, lanes, sampled=False):
        out = real(number, cmd, reports, lanes, sampled)
        seen.append((number, run_tests.SAMPLED in out))
        return out

    monkeypatch.setattr(run_tests, "STAGES", stages)
    monkeypatch.setattr(run_tests, "_command", spy)
    # the fake stages are `python -c code --sampled-probe [--sampled]`: extra arguments are argv
    assert run_tests.main(["--fast"]) == 0
    out = capfd.readouterr().out
    assert seen == [(1, True), (2, False)]
    assert "stage 1 ran" in out and "stage 2 ran" in out and "stage 3 ran" not in out
    assert "1. fake 1 (sampled)" in out
    seen.clear()
    assert run_tests.main([]) == 0
    assert sorted(seen) == [(n, False) for n in range(1, 13)]


def test_the_real_stage_1_is_the_sampled_pytest_run_in_fast_mode(tmp_path):
    name, cmd = run_tests.STAGES[0]
    fast = run_tests._command(1, cmd, tmp_path, False, sampled=True)
    full = run_tests._command(1, cmd, tmp_path, True)
    assert "pytest" in cmd and fast[-2] == run_tests.SAMPLED and run_tests.SAMPLED not in full
    assert fast[-1].startswith("--junitxml=")


def test_the_sampled_option_reaches_the_tests(monkeypatch):
    """--sampled (tests/conftest.py's pytest_configure, before collection) sets
    SPATIALBOOK_SAMPLED for the test modules and loads the "sampled" Hypothesis profile; without
    it nothing is sampled."""
    import conftest
    import sampling
    from hypothesis import settings

    class Config:
        def __init__(self, on):
            self.on = on

        def getoption(self, name, default=None):
            assert name == "--sampled"
            return self.on

    before = settings._current_profile
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    try:
        monkeypatch.delenv(sampling.ENV, raising=False)
        conftest.pytest_configure(Config(False))
        assert not sampling.sampled() and sampling.count(100, 48) == 100
        conftest.pytest_configure(Config(True))
        assert sampling.sampled() and sampling.count(100, 48) == 48
        assert settings().max_examples == 10
        assert "SAMPLED" in conftest.pytest_report_header(Config(True))
    finally:
        if before:
            settings.load_profile(before)


def test_subset_is_seeded_keeps_its_order_and_what_it_must_keep(monkeypatch):
    import sampling

    items = list(range(30))
    monkeypatch.delenv(sampling.ENV, raising=False)
    assert sampling.subset(items, 3, "s") == items and sampling.count(6, 2) == 6
    monkeypatch.setenv(sampling.ENV, "1")
    a = sampling.subset(items, 5, "s", keep=[0, 29])
    assert a == sampling.subset(items, 5, "s", keep=[0, 29]) and a == sorted(a)
    assert len(a) == 5 and {0, 29} <= set(a)
    assert sampling.subset(items, 5, "other seed") != sampling.subset(items, 5, "s")
    assert sampling.subset(items[:2], 5, "s") == [0, 1] and sampling.count(6, 2) == 2


# ------------------------------------------------------ make test-experiment NAME=...


def test_experiment_command_selects_its_own_file_and_the_registry_tests_for_it():
    cmd = run_tests.experiment_command("bifold_door")       # registry name != module name
    n = len(run_tests.PYTEST)
    assert cmd[:n] == run_tests.PYTEST and run_tests.PYTEST[:4] == [run_tests.PY, "-m", "pytest", "-q"]
    assert cmd[n] == "tests/test_widget_bifold.py" and cmd[n + 1:-2] == run_tests.REGISTRY_TESTS
    assert cmd[-2:] == ["-k", "bifold_door or test_widget_bifold or readme"]
    assert run_tests.SAMPLED not in cmd                      # one experiment runs whole
    for path in cmd[n:-2]:
        assert (Path(run_tests.ROOT) / path).is_file(), path


def test_experiment_command_refuses_an_unknown_name(capsys):
    with pytest.raises(ValueError, match=r"no experiment 'kinetic': expected one of \["):
        run_tests.experiment_command("kinetic")
    assert run_tests.main(["--experiment", "kinetic"]) == 2
    assert "no experiment 'kinetic'" in capsys.readouterr().err
    assert run_tests.main(["--experiment"]) == 2


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["--bogus"], ["--fast", "--verbose"]])
def test_help_and_unknown_options_run_no_stage(monkeypatch, capsys, argv):
    """`--help` prints the runner's description and an unknown option is refused (exit 2):
    neither may start `make test`'s stages (a `--help` once ran all of them)."""
    def never(*a, **k):
        raise AssertionError("a stage was started")
    monkeypatch.setattr(run_tests, "run_serial", never)
    monkeypatch.setattr(run_tests, "run_lanes", never)
    monkeypatch.setattr(run_tests, "run_experiment", never)
    code = run_tests.main(argv)
    out = capsys.readouterr()
    if argv[0] in ("--help", "-h"):
        assert code == 0 and "Run every test of the project" in out.out
    else:
        assert code == 2 and "unknown argument" in out.err and argv[-1] in out.err


def test_experiment_selects_the_right_tests():
    """The selection, collected for real: its own physics tests, the registry-wide tests with its
    name, the README-table check; no other experiment's cases."""
    import subprocess

    cmd = run_tests.experiment_command("bifold_door")
    out = subprocess.run([*cmd, "--collect-only"], capture_output=True, text=True,
                         cwd=run_tests.ROOT, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    ids = [line for line in out.stdout.splitlines() if "::" in line]
    assert any(i.startswith("tests/test_widget_bifold.py::") for i in ids), ids[:12]
    assert "tests/test_widgets.py::test_readme_table_lists_the_registry" in ids
    for f in run_tests.REGISTRY_TESTS:
        assert any(i.startswith(f + "::") and "bifold_door" in i for i in ids), f
    others = [n for n in __import__("widgets").EXPERIMENTS if n != "bifold_door"]
    assert not [i for i in ids if any(f"[{n}" in i or f"-{n}]" in i for n in others)]


def test_fast_splits_stage_1_into_two_processes_that_run_the_same_tests(tmp_path):
    """make test-fast runs stage 1 as two pytest processes: FAST_SPLIT's files in one, the same
    command with exactly those files ignored in the other, both sampled, each its own report."""
    name, cmd = run_tests.STAGES[0]
    fast = run_tests._command(1, cmd, tmp_path, False, sampled=True)
    split, rest = run_tests.split_fast(fast, tmp_path)
    root = Path(run_tests.ROOT)
    assert run_tests.FAST_SPLIT and all((root / f).is_file() for f in run_tests.FAST_SPLIT)
    assert all(f"--ignore={f}" not in fast for f in run_tests.FAST_SPLIT)
    ignores = [f"--ignore={f}" for f in run_tests.FAST_SPLIT]
    assert [a for a in rest if a not in ignores] == fast and all(i in rest for i in ignores)
    assert [a for a in split if a.endswith(".py")] == run_tests.FAST_SPLIT
    assert split[:len(run_tests.PYTEST)] == run_tests.PYTEST == fast[:len(run_tests.PYTEST)]
    options = [a for a in fast if a.startswith("-") and not a.startswith(("--ignore", "--junitxml"))]
    assert [a for a in split if a.startswith("-") and not a.startswith("--junitxml")] == options
    assert run_tests.SAMPLED in split and run_tests.SAMPLED in rest
    reports = [a for c in (split, rest) for a in c if a.startswith("--junitxml=")]
    assert len(reports) == 2 and len(set(reports)) == 2
    other = [sys.executable, "-m", "spatialbook", "check"]
    assert run_tests.split_fast(other, tmp_path) == [other]


@pytest.mark.parametrize("lane_ends", [False, True], ids=["lane-busy", "lane-ended"])
def test_other_pythons_take_a_second_core_once_the_other_lanes_end(monkeypatch, tmp_path, lane_ends):
    """Stage 3 in lanes tests one interpreter at a time, two once run_lanes has created its
    LANE_ENDED file (here: while the first interpreter runs), and every interpreter once."""
    import threading
    import time

    import test_pythons as tp

    monkeypatch.setattr(tp, "discover", lambda: {"3.11.2": "/p311", "3.12.1": "/p312", "3.13.0": "/p313"})
    monkeypatch.setattr(tp, "main_venv_python", lambda: "3.11.7")
    monkeypatch.setattr(tp, "pyodide_pins", lambda: ["numpy==2.0.2"])
    flag, lock, now, seen, ran = tmp_path / run_tests.LANE_ENDED, threading.Lock(), [0], [], []

    def fake(version, exe, workdir, pins=None, smoke=False):
        with lock:
            now[0] += 1
            seen.append(now[0])
            ran.append(version)
        if version == "3.11.2" and lane_ends:
            flag.touch()
        time.sleep(0.4)
        with lock:
            now[0] -= 1
        return {"version": version, "path": exe, "log": str(tmp_path / "log"), "ok": True, "why": ""}

    def after(row, workdir):       # Pyodide's stack in 3.12's venv, once 3.12 has passed
        assert row["version"] == "3.12.1" and row["ok"]
        with lock:
            ran.append("3.12 + Pyodide's drawing stack")
        return {"version": "3.12 + Pyodide's drawing stack", "path": row["path"], "ok": True, "why": ""}

    monkeypatch.setattr(tp, "test_one", fake)
    monkeypatch.setattr(tp, "pyodide_stack_after", after)
    cmd = run_tests._command(3, [sys.executable, "tools/test_pythons.py"], tmp_path, True)
    assert cmd[2:] == ["--jobs", "1", "--more-jobs-when", str(flag)]
    assert tp.main(cmd[2:]) == 0
    assert sorted(ran) == ["3.11.2", "3.12 + Pyodide's drawing stack", "3.12.1", "3.13.0"]
    assert ran.index("3.12 + Pyodide's drawing stack") > ran.index("3.12.1")
    assert seen[0] == 1 and max(seen) == (2 if lane_ends else 1), seen


@pytest.mark.parametrize("main, own", [("3.11.7", False), ("3.12.4", True)], ids=["shared", "own-venv"])
def test_pyodide_stack_shares_the_312_venv(monkeypatch, tmp_path, main, own):
    """Pyodide's drawing stack is checked in the venv of the 3.12 tested here, after its tests
    (one set-up fewer), and in a venv of its own when the only 3.12 is the main .venv's; a
    failing 3.12 fails the stack's row too, saying why."""
    import test_pythons as tp

    found = {"3.11.2": "/p311", "3.12.4": "/p312", "3.13.0": "/p313"}
    monkeypatch.setattr(tp, "discover", lambda: found)
    monkeypatch.setattr(tp, "main_venv_python", lambda: main)
    monkeypatch.setattr(tp, "pyodide_pins", lambda: ["numpy==2.0.2"])
    calls = []
    (tmp_path / "log").write_text("the tests' log\n")

    def fake(version, exe, workdir, pins=None, smoke=False):
        calls.append((version, pins is not None))
        ok = version != "3.12.4" or own       # 3.12 fails in the shared case
        return {"version": version, "path": exe, "log": str(tmp_path / "log"), "venv": str(tmp_path),
                "ok": ok, "why": "" if ok else "library/widget tests exited 1"}

    monkeypatch.setattr(tp, "test_one", fake)
    assert tp.main(["--jobs", "1"]) == (0 if own else 1)
    stack = [c for c in calls if c[1]]
    assert stack == ([("3.12 + Pyodide's drawing stack", True)] if own else []), calls
    if not own:      # the shared venv's 3.12 failed: the stack's row says so, no install tried
        row = tp.pyodide_stack_after({"version": "3.12.4", "path": "/p312", "ok": False,
                                      "log": str(tmp_path / "log")}, tmp_path)
        assert not row["ok"] and "3.12.4 failed first" in row["why"]


def test_stage_3_hears_when_every_other_lane_has_ended(monkeypatch, capfd, tmp_path):
    """run_lanes creates LANE_ENDED (stage 3's cue for a second interpreter at a time) once every
    lane but one has ended, not when the first one does: stage 3 finds no file while the last
    book lane's last stage still runs (it waits for stage 3's word), and finds it after."""
    reports = tmp_path / "reports"
    reports.mkdir()
    monkeypatch.setattr(run_tests.tempfile, "mkdtemp", lambda **kw: str(reports))
    flag, word = reports / run_tests.LANE_ENDED, tmp_path / "word"
    stages = fake_stages()
    last = run_tests.LANES[-1][-1]                  # the last stage of the last book lane
    assert run_tests.LANES[0][-1] == 3 and last != 3
    stages[2] = ("fake 3", [sys.executable, "-c", (
        "import pathlib, time\n"
        f"flag, word = pathlib.Path({str(flag)!r}), pathlib.Path({str(word)!r})\n"
        "print('stage 3 ran, flag at start:', flag.exists())\n"
        "word.touch()\n"
        "t = time.time()\n"
        "while not flag.exists() and time.time() - t < 60: time.sleep(0.02)\n"
        "print('flag later:', flag.exists())\n")])
    stages[last - 1] = (f"fake {last}", [sys.executable, "-c", (
        "import pathlib, time\n"
        f"word = pathlib.Path({str(word)!r})\n"
        "t = time.time()\n"
        "while not word.exists() and time.time() - t < 60: time.sleep(0.02)\n"
        f"print('stage {last} ran')\n")])
    monkeypatch.setattr(run_tests, "STAGES", stages)
    assert run_tests.main([]) == 0
    out = capfd.readouterr().out
    assert "flag at start: False" in out and "flag later: True" in out and f"stage {last} ran" in out
