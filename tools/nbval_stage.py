"""The notebook regression stage: every chapter re-executed and compared with nbval (strict),
with numpy's SIMD dispatch limited to its baseline.

    .venv/bin/python tools/nbval_stage.py [--junitxml PREFIX] [--also-native] [notebooks ...]

Why limited.  The stored outputs are the truth on every reader's machine, whose CPU runs other
numpy SIMD code (and another BLAS kernel) than the author's, so the last bits of a double differ
(``0.5`` here, ``0.49999999999999994`` there).  The chapters store only the digits that mean
something (widgets/prose.py); this stage proves it on this machine by re-running every chapter
with ``NPY_DISABLE_CPU_FEATURES`` naming every SIMD group numpy would dispatch to beyond its
baseline (on an AVX-512 machine: X86_V3 (AVX2), X86_V4 (AVX-512), AVX512_ICL, ...), which
changes the last bits of exp, log, arctan2, power, tanh and arccos, and comparing strictly.
It never touches the BLAS library's settings (OPENBLAS_CORETYPE and the like): a machine
may need them for correct results.

One pass is enough.  The stored outputs are made at the machine's full dispatch
(tools/execute_notebooks.py), so the limited pass fails both when a chapter's outputs are stale
(the code or the physics changed: every CPU path shows it) and when an output carries digits
that depend on the CPU.  A second pass at full dispatch, which ``make test`` ran beside it
until issue 34, can fail only in the first case; it cost about 120 s of CPU per run.
``--also-native`` runs it again, in parallel, for an author who wants to tell the two cases
apart (its report: PREFIX-native.xml).  A machine whose numpy dispatches to nothing beyond its
baseline runs the plain pass and says so.  Exit code: 0 when every pass passes, else the first
failing pytest's code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
NBVAL = [PY, "-m", "pytest", "-q", "--nbval", "--nbval-sanitize-with", "tests/notebooks/sanitize.cfg",
         "--nbval-cell-timeout=300", "-p", "no:cacheprovider"]


def dispatched_features() -> list[str]:
    """The SIMD groups numpy dispatches to on this CPU, beyond its compiled baseline."""
    probe = ("import numpy._core._multiarray_umath as m; "
             "print(' '.join(f for f in m.__cpu_dispatch__ if m.__cpu_features__.get(f)))")
    env = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    out = subprocess.run([PY, "-c", probe], capture_output=True, text=True, env=env, check=True)
    return out.stdout.split()


def main(argv: list[str]) -> int:
    prefix = None
    if "--junitxml" in argv:
        i = argv.index("--junitxml")
        prefix = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    also_native = "--also-native" in argv
    argv = [a for a in argv if a != "--also-native"]
    if argv:
        notebooks = argv
    else:
        sys.path.insert(0, str(ROOT / "tools"))
        from run_tests import chapter_notebooks
        notebooks = chapter_notebooks()
    limited = dispatched_features()
    base_env = dict(os.environ)
    runs = [("numpy SIMD limited to the baseline (NPY_DISABLE_CPU_FEATURES="
             f"{' '.join(limited) or 'nothing to disable'})",
             dict(base_env, NPY_DISABLE_CPU_FEATURES=" ".join(limited)) if limited else dict(base_env),
             "")]
    if also_native:
        runs.append(("as this machine runs it", dict(base_env), "-native"))
    logs = Path(tempfile.mkdtemp(prefix="spatialbook-nbval-"))
    procs = []
    t0 = time.perf_counter()
    for label, env, suffix in runs:
        cmd = [*NBVAL, *notebooks]
        if prefix:
            cmd.append(f"--junitxml={prefix}{suffix}.xml")
        log = (logs / f"nbval{suffix or '-default'}.log").open("w")
        print(f"  {label}\n  $ {' '.join(cmd[1:6])} ... ({len(notebooks)} notebooks) > {log.name}",
              flush=True)
        procs.append((label, subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log,
                                              stderr=subprocess.STDOUT), log))
    rc_all = 0
    for label, proc, log in procs:
        rc = proc.wait()
        log.close()
        text = Path(log.name).read_text(encoding="utf-8", errors="replace")
        last = text.strip().splitlines()[-1] if text.strip() else "(no output)"
        print(f"  {'ok  ' if rc == 0 else 'FAIL'} {label}: {last}", flush=True)
        if rc != 0:
            print(text[-12000:], flush=True)
            rc_all = rc_all or rc
    print(f"  {len(runs)} pass(es) in {time.perf_counter() - t0:.1f} s", flush=True)
    if not limited:
        print("  note: numpy dispatches to no SIMD group beyond its baseline here, so the "
              "limited pass ran the machine's own code", flush=True)
    return rc_all


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
