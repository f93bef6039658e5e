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
