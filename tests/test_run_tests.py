"""`make test`'s runner (tools/run_tests.py): two lanes at once, every stage in exactly one lane,
a failure fails the run and stops both lanes from starting another stage."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import run_tests  # noqa: E402


def fake_stages(fail: int | None = None, slow: int | None = None, signal: Path | None = None) -> list:
    """Twelve stages that print their number; ``fail`` exits 1, ``slow`` sleeps 1.5 s.  With
    ``signal``: ``slow`` creates that file when it starts and ``fail`` waits for it (up to 60 s)
    before failing, so the failure comes while ``slow`` runs, whatever the machine's load."""
    out = []
    for i in range(1, 13):
        code = "import pathlib, time; "
        if signal is not None and i == slow:
            code += f"pathlib.Path({str(signal)!r}).touch(); "
        if signal is not None and i == fail:
            code += (f"t = time.time()\nwhile not pathlib.Path({str(signal)!r}).exists() "
                     f"and time.time() - t < 60: time.sleep(0.02)\n")
        code += (f"time.sleep({1.5 if i == slow else 0.05}); "
                 f"print('stage {i} ran'); raise SystemExit({1 if i == fail else 0})")
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


@pytest.mark.parametrize("lane", [0, 1])
def test_a_failure_fails_the_run_and_starts_nothing_new(monkeypatch, capfd, tmp_path, lane):
    # the failing stage leads its lane; it fails only once the other lane's first stage (slow)
    # has started: that stage ends, and its lane starts nothing after it
    fail, other = run_tests.LANES[lane][0], run_tests.LANES[1 - lane][0]
    monkeypatch.setattr(run_tests, "STAGES", fake_stages(fail=fail, slow=other,
                                                         signal=tmp_path / "started"))
    assert run_tests.main([]) == 1
    out = capfd.readouterr().out
    assert f"FAIL  {fail}. fake {fail}" in out
    assert f"stage {other} ran" in out
    ran = {i for i in range(1, 13) if f"stage {i} ran" in out}
    assert ran == {fail, other}, ran
    assert "not run: 10 stage(s) after a failure" in out


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
    assert cmd[:4] == [run_tests.PY, "-m", "pytest", "-q"]
    assert cmd[4] == "tests/test_widget_bifold.py" and cmd[5:-2] == run_tests.REGISTRY_TESTS
    assert cmd[-2:] == ["-k", "bifold_door or test_widget_bifold or readme"]
    assert run_tests.SAMPLED not in cmd                      # one experiment runs whole
    for path in cmd[4:-2]:
        assert (Path(run_tests.ROOT) / path).is_file(), path


def test_experiment_command_refuses_an_unknown_name(capsys):
    with pytest.raises(ValueError, match=r"no experiment 'kinetic': expected one of \["):
        run_tests.experiment_command("kinetic")
    assert run_tests.main(["--experiment", "kinetic"]) == 2
    assert "no experiment 'kinetic'" in capsys.readouterr().err
    assert run_tests.main(["--experiment"]) == 2


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
    assert run_tests.SAMPLED in split and run_tests.SAMPLED in rest
    reports = [a for c in (split, rest) for a in c if a.startswith("--junitxml=")]
    assert len(reports) == 2 and len(set(reports)) == 2
    other = [sys.executable, "-m", "spatialbook", "check"]
    assert run_tests.split_fast(other, tmp_path) == [other]


@pytest.mark.parametrize("lane_ends", [False, True], ids=["lane-busy", "lane-ended"])
def test_other_pythons_take_a_second_core_once_the_other_lane_ends(monkeypatch, tmp_path, lane_ends):
    """Stage 3 in lanes tests one interpreter at a time, two once run_lanes has created its
    LANE_ENDED file (here: while the first interpreter runs), and every interpreter once."""
    import threading
    import time

    import test_pythons as tp

    monkeypatch.setattr(tp, "discover", lambda: {"3.10.1": "/p310", "3.12.1": "/p312", "3.13.0": "/p313"})
    monkeypatch.setattr(tp, "main_venv_python", lambda: "3.11.7")
    monkeypatch.setattr(tp, "pyodide_pins", lambda: ["numpy==2.0.2"])
    flag, lock, now, seen, ran = tmp_path / run_tests.LANE_ENDED, threading.Lock(), [0], [], []

    def fake(version, exe, workdir, pins=None, smoke=False):
        with lock:
            now[0] += 1
            seen.append(now[0])
            ran.append(version)
        if version == "3.10.1" and lane_ends:
            flag.touch()
        time.sleep(0.4)
        with lock:
            now[0] -= 1
        return {"version": version, "path": exe, "log": str(tmp_path / "log"), "ok": True, "why": ""}

    monkeypatch.setattr(tp, "test_one", fake)
    cmd = run_tests._command(3, [sys.executable, "tools/test_pythons.py"], tmp_path, True)
    assert cmd[2:] == ["--jobs", "1", "--more-jobs-when", str(flag)]
    assert tp.main(cmd[2:]) == 0
    assert sorted(ran) == ["3.10.1", "3.12 + Pyodide's drawing stack", "3.12.1", "3.13.0"]
    assert seen[0] == 1 and max(seen) == (2 if lane_ends else 1), seen
