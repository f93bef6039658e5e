"""The notebook regression checks physics, not one CPU's rounding, and still has teeth.

- Stored numbers carry no digit beyond their declared precision (``nbcheck.precision_problems``,
  run on every chapter by test_stored_outputs.py): a raw ``repr`` of a float fails, a glue record
  that declares 3 digits and stores 5 fails, round-off dust fails, a bound passes.
- A 1e-6 relative change of a core function makes nbval fail on a chapter: the stored digits are
  few enough to survive another CPU's last bits (tools/nbval_stage.py) and many enough to see a
  change of the physics.

    .venv/bin/python -m pytest -q tests/notebooks/test_regression_teeth.py
"""

from __future__ import annotations

import os
import subprocess
import sys

import nbformat
import pytest

from nbcheck import ROOT, number_problems, precision_problems, significant_digits

import widgets.prose as prose


@pytest.mark.parametrize("text, n", [("0.0125", 3), ("1.50", 3), ("2.4e-07", 2), ("1200", 2),
                                     ("-0.49999999999999994", 17), ("15.301237862223", 14)])
def test_significant_digits(text, n):
    assert significant_digits(text) == n


def test_a_raw_float_repr_fails_and_ten_digits_pass():
    assert number_problems("stored 0.49999999999999994 here")
    assert number_problems("[0.0, 1.7320508075688772]")
    assert not number_problems("0.8533333333 and 1.732050808 and 0.5")


def test_round_off_dust_fails_and_a_bound_passes():
    assert number_problems("4.577566798522237e-16")
    assert any("dust" in p for p in number_problems("4.58e-16"))
    assert any("dust" in p for p in number_problems("max error 2.2e-16"))
    assert not number_problems("all rows agree to 1e-12: True")


def _record(value_text, digits=None):
    meta = {"scrapbook": {"name": "k", "mime_prefix": "application/papermill.record/"}}
    if digits is not None:
        meta["spatialbook"] = {"digits": digits}
    return nbformat.v4.new_output("display_data", metadata=meta,
                                  data={"application/papermill.record/text/plain": value_text})


def test_a_glue_record_is_held_to_its_declared_digits():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("glue(...)", execution_count=1,
                                          outputs=[_record("15.301", 3), _record("15.3", 3),
                                                   _record("0.8533333333")])]
    problems = precision_problems(nb)
    assert len(problems) == 1 and "15.301" in problems[0] and "at most 3" in problems[0]


def test_glue_stores_what_the_checker_accepts():
    for raw in (0.49999999999999994, 15.301237862223, -2 / 3, 4.577566798522237e-16, 1e300):
        stored = prose.significant(raw)
        assert not number_problems(repr(stored)), (raw, stored)
    assert prose.significant(0.49999999999999994) == 0.5
    assert prose.significant(4.577566798522237e-16) == 0.0
    assert prose.significant(15.301237862223, 3) == 15.3
    with pytest.raises(ValueError, match="digits"):
        prose.significant(1.0, 0)


PERTURB = '''
"""Test-only: every spatial inertia comes out 1e-6 larger (tests/notebooks/test_regression_teeth.py)."""
import os, sys
import spatialbook as _sb
import spatialbook.inertia as _inertia
_original = _inertia.spatial_inertia

def spatial_inertia(*args, **kwargs):
    return _original(*args, **kwargs) * (1.0 + 1e-6)

for _module in list(sys.modules.values()):
    if getattr(_module, "__name__", "").startswith("spatialbook"):
        for _name, _value in list(vars(_module).items()):
            if _value is _original:
                setattr(_module, _name, spatial_inertia)
with open(os.environ["SB_PERTURB_MARK"], "a") as _f:
    _f.write(f"{os.getpid()}\\n")
'''


def test_a_1e_6_change_of_a_core_function_fails_nbval(tmp_path):
    """sitecustomize.py (on PYTHONPATH, so the chapter's kernel loads it at start-up) scales
    ``sb.spatial_inertia`` by 1 + 1e-6; nbval on chapter 6 must then fail on glued numbers."""
    (tmp_path / "sitecustomize.py").write_text(PERTURB, encoding="utf-8")
    mark = tmp_path / "perturbed-pids"
    env = dict(os.environ, SB_PERTURB_MARK=str(mark),
               PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    chapter = "book/chapters/ch06_spatial_inertia.ipynb"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
                          "--nbval-sanitize-with", "tests/notebooks/sanitize.cfg", chapter],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert len(mark.read_text().split()) >= 2, "the kernel did not load the perturbation"
    assert run.returncode == 1, run.stdout[-3000:]
    failed = [line for line in run.stdout.splitlines() if line.startswith("FAILED")]
    assert failed, run.stdout[-3000:]
    assert "application/papermill.record/text/plain" in run.stdout, \
        "nbval failed, but not on a glued number:\n" + run.stdout[-3000:]
