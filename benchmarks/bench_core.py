"""Throughput of spatialbook's batched operations (a script that prints figures, not a test).

    python benchmarks/bench_core.py [--n 1000000] [--repeats 7] [--mujoco-calls 100000] [--strict]

Two workloads, each on N = 10^6 vectors:

1. transform N twists with one motion transform X (``sb.transform_vectors(X, V)``);
2. evaluate the velocity field of one twist at N points (``sb.velocity_field(V, points)``).

Each is timed (median of several repeats, in million vectors per second) beside
(a) a per-call Python loop over ``mujoco.mju_transformSpatial`` (timed on fewer calls and
    scaled: the loop's cost per call is constant), and
(b) a bare ``numpy.einsum`` of the same product, with no input checking.

Targets: sb >= 20x the MuJoCo per-call loop, and sb's time within 1.5x of the bare einsum
(the validation at the boundary must not dominate).  With --strict the exit status is 1 when
a target is missed.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import spatialbook as sb  # noqa: E402

try:
    import mujoco
except ImportError:  # pragma: no cover - mujoco is a test/book dependency
    mujoco = None

SPEEDUP_OVER_MUJOCO = 20.0
SLOWDOWN_VS_EINSUM = 1.5


def median_seconds(fn, repeats: int) -> float:
    fn()                                   # warm up (page faults, caches)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def mujoco_loop(vectors, newpos, oldpos, rot, calls: int) -> float:
    """Seconds per call of a Python loop over mju_transformSpatial (motion vectors).

    Rows are split into lists beforehand so the loop pays only for the calls themselves
    (the fairest per-call loop for MuJoCo)."""
    res = np.zeros(6)
    vec_rows = [np.ascontiguousarray(r) for r in vectors[:calls]]
    pos_rows = [np.ascontiguousarray(r) for r in newpos[:calls]]
    nv, npos = len(vec_rows), len(pos_rows)
    f = mujoco.mju_transformSpatial

    def run():
        for i in range(calls):
            f(res, vec_rows[i % nv], 0, pos_rows[i % npos], oldpos, rot)

    return median_seconds(run, 3) / calls


def report(title: str, n: int, t_sb: float, t_einsum: float, t_mj_call: float | None) -> list[bool]:
    mvps = lambda t: n / t / 1e6  # noqa: E731
    print(f"\n{title}  (N = {n:,})")
    print(f"  {'implementation':<44}{'M vectors/s':>12}{'ms for N':>11}")
    print(f"  {'spatialbook':<44}{mvps(t_sb):12.1f}{t_sb * 1e3:11.1f}")
    print(f"  {'numpy.einsum, no checks':<44}{mvps(t_einsum):12.1f}{t_einsum * 1e3:11.1f}")
    ok = []
    if t_mj_call is not None:
        t_mj = t_mj_call * n
        print(f"  {'mujoco.mju_transformSpatial, Python loop':<44}{mvps(t_mj):12.2f}{t_mj * 1e3:11.0f}")
    ratio = t_sb / t_einsum
    good = ratio <= SLOWDOWN_VS_EINSUM
    ok.append(good)
    print(f"  sb time / einsum time = {ratio:.2f}  (target <= {SLOWDOWN_VS_EINSUM}): {'met' if good else 'MISSED'}")
    if t_mj_call is not None:
        speedup = t_mj_call * n / t_sb
        good = speedup >= SPEEDUP_OVER_MUJOCO
        ok.append(good)
        print(f"  speed-up over the MuJoCo per-call loop = {speedup:.0f}x  (target >= {SPEEDUP_OVER_MUJOCO:.0f}x): "
              f"{'met' if good else 'MISSED'}")
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**6, help="vectors per workload (default 10^6)")
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats; the median is shown")
    parser.add_argument("--mujoco-calls", type=int, default=10**5, help="calls timed for the MuJoCo loop")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)

    n = args.n
    rng = np.random.default_rng(0)
    R = sb.rotation_z(0.7) @ sb.rotation_x(-0.4)
    d = np.array([0.4, -0.2, 1.1])
    X = sb.motion_transform(R, d)
    twists = rng.normal(size=(n, 6))
    points = rng.normal(size=(n, 3))
    V = np.array([0.3, -0.5, 2.0, 0.1, 0.8, -0.2])

    print("spatialbook core benchmark")
    print(f"  python {platform.python_version()}, numpy {np.__version__}, "
          f"mujoco {getattr(mujoco, '__version__', 'not installed')}, {os.cpu_count()} CPUs")
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        if var in os.environ:
            print(f"  {var}={os.environ[var]}")

    ok: list[bool] = []

    # 1. transform N twists with one X ----------------------------------------------------
    out_sb = sb.transform_vectors(X, twists)
    out_einsum = np.einsum("ij,nj->ni", X, twists)
    np.testing.assert_allclose(out_sb, out_einsum, rtol=0, atol=1e-12)
    t_sb = median_seconds(lambda: sb.transform_vectors(X, twists), args.repeats)
    t_einsum = median_seconds(lambda: np.einsum("ij,nj->ni", X, twists), args.repeats)
    t_mj = None
    if mujoco is not None:
        # MuJoCo's newpos - oldpos is our d and rotnew2old our R (row-major), see the tests
        oldpos = np.zeros(3)
        newpos = d[None, :]
        rot = R.ravel().copy()
        res = np.zeros(6)
        mujoco.mju_transformSpatial(res, twists[0], 0, d, oldpos, rot)
        np.testing.assert_allclose(res, out_sb[0], atol=1e-12)
        t_mj = mujoco_loop(twists[: args.mujoco_calls], newpos, oldpos, rot, args.mujoco_calls)
    ok += report("1. motion transform of N twists, one X", n, t_sb, t_einsum, t_mj)

    # 2. velocity field of one twist at N points ------------------------------------------
    W, v = sb.skew(V[:3]), V[3:]
    field_sb = sb.velocity_field(V, points)
    field_einsum = v + np.einsum("ij,nj->ni", W, points)
    np.testing.assert_allclose(field_sb, field_einsum, rtol=0, atol=1e-12)
    t_sb = median_seconds(lambda: sb.velocity_field(V, points), args.repeats)
    t_einsum = median_seconds(lambda: v + np.einsum("ij,nj->ni", W, points), args.repeats)
    t_mj = None
    if mujoco is not None:
        # the field at x is the linear part of the twist moved to x (no rotation)
        eye = np.eye(3).ravel()
        res = np.zeros(6)
        mujoco.mju_transformSpatial(res, V, 0, points[0], np.zeros(3), eye)
        np.testing.assert_allclose(res[3:], field_sb[0], atol=1e-12)
        t_mj = mujoco_loop(V[None, :], points[: args.mujoco_calls], np.zeros(3), eye, args.mujoco_calls)
    ok += report("2. velocity field of one twist at N points", n, t_sb, t_einsum, t_mj)

    print(f"\nall targets met: {all(ok)}")
    return 0 if (all(ok) or not args.strict) else 1


if __name__ == "__main__":
    sys.exit(main())
