"""Run every test of the project, in order, and stop at the first failing stage.

Called by ``make test`` (and so by CI).  Each stage is one command; the summary at the end
prints each stage's wall time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

STAGES: list[tuple[str, list[str]]] = [
    ("library and widgets (pytest, doctests, hypothesis, MuJoCo)",
     [PY, "-m", "pytest", "-q", "tests", "spatialbook", "--ignore=tests/browser", "--ignore=tests/notebooks"]),
    ("self-check table", [PY, "-m", "spatialbook", "check"]),
]


def main() -> int:
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    timings = []
    for name, cmd in STAGES:
        print(f"\n=== {name}\n$ {' '.join(cmd)}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call(cmd, cwd=ROOT, env=env)
        timings.append((name, time.perf_counter() - t0, rc))
        if rc != 0:
            break
    print("\n=== summary")
    for name, seconds, rc in timings:
        print(f"{seconds:8.1f} s  {'ok  ' if rc == 0 else 'FAIL'}  {name}")
    return next((rc for _, _, rc in timings if rc != 0), 0)


if __name__ == "__main__":
    sys.exit(main())
