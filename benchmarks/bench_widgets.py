"""Cost of one control change in each experiment (Python side), printed as a table.

For every experiment in ``widgets.EXPERIMENTS`` the main control is moved through its range
(``--changes`` times, default 60, at least 50): each change runs the whole live path -- pure
scene from spatialbook, artists updated, background restored, moving artists blitted, PNG
encoded into the ipywidgets.Image, HTML readouts refreshed.  Median and p95 milliseconds are
printed beside a naive baseline of the same scene: ``ipywidgets.interactive_output`` with a
function that builds a new pyplot figure on every call, draws everything and renders it to
PNG the way the inline backend does (``savefig(..., bbox_inches="tight")``).

    .venv/bin/python benchmarks/bench_widgets.py [--changes 60] [--naive-changes 20] [--scene-only]

First a table of the pure ``scene()`` times per experiment (microseconds, median and p95).

Wall-clock milliseconds (median, p95) are what a reader waits for; "CPU" is this process's
CPU time (``time.process_time``), which stays close to the idle-machine cost when other jobs
share the cores (compare the load average printed with the table).  Not a timed test: the
numbers depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ipywidgets as W  # noqa: E402
import matplotlib  # noqa: E402
import numpy as np  # noqa: E402

from widgets import EXPERIMENTS  # noqa: E402
from widgets.controls import Player  # noqa: E402


def _values(exp, n: int) -> list:
    """n values of the main control, back and forth over its range, never repeating twice."""
    base = exp._specs[exp.main_control].sweep(25)      # = sweep_values (a probe has no widgets)
    cyc = base + base[-2:0:-1]
    return [cyc[i % len(cyc)] for i in range(n)]


def time_blitted(cls, n: int) -> np.ndarray:
    exp = cls()
    vals = _values(exp, n + 5)
    for v in vals[:5]:                                    # warm-up (caches, first layout)
        exp.set(**{exp.main_control: v})
    wall, cpu = [], []
    for v in vals[5:]:
        t0, c0 = time.perf_counter(), time.process_time()
        exp.set(**{exp.main_control: v})
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    exp.close()
    return np.array(wall) * 1e3, np.array(cpu) * 1e3


def time_scene(cls, n: int) -> np.ndarray:
    """Microseconds of the pure ``scene(**values)`` alone (the core's arithmetic and its checks),
    over the main control's range; no drawing."""
    probe = cls.__new__(cls)
    probe._specs = {c.name: c for c in cls.CONTROLS}
    probe.main_control = cls.main_control
    defaults = {c.name: c.value for c in cls.CONTROLS if not isinstance(c, Player)}
    vals = _values(probe, n + 5)
    times = []
    for i, v in enumerate(vals):
        t0 = time.perf_counter()
        cls.scene(**{**defaults, cls.main_control: v})
        if i >= 5:                                        # the first calls warm caches
            times.append(time.perf_counter() - t0)
    return np.array(times) * 1e6


def time_naive(cls, n: int) -> np.ndarray:
    """interactive_output + a new pyplot figure per call, drawing the same scene."""
    import matplotlib.pyplot as plt

    sink = []

    def redraw(**values):
        fig = plt.figure(figsize=cls.figsize, dpi=cls.dpi)
        cls.draw_on(fig, **values)                        # the experiment's own drawing code
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        sink.append(len(buf.getvalue()))
        plt.close(fig)

    specs = [c for c in cls.CONTROLS if not isinstance(c, Player)]
    controls = {c.name: c.make() for c in specs}
    with contextlib.redirect_stdout(io.StringIO()):
        out_widget = W.interactive_output(redraw, controls)
    probe = cls.__new__(cls)
    probe._specs = {c.name: c for c in cls.CONTROLS}
    probe.main_control = cls.main_control
    vals = _values(probe, n + 2)
    ctl = controls[cls.main_control]
    wall, cpu = [], []
    # outside IPython the Output widget writes terminal escapes on clear_output: swallow them
    with contextlib.redirect_stdout(io.StringIO()):
        for v in vals[:2]:
            ctl.value = v
        for v in vals[2:]:
            t0, c0 = time.perf_counter(), time.process_time()
            ctl.value = v
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    out_widget.close()
    for c in controls.values():
        c.close()
    assert len(sink) >= n
    return np.array(wall) * 1e3, np.array(cpu) * 1e3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=60, help="control changes per experiment (>= 50)")
    ap.add_argument("--naive-changes", type=int, default=20,
                    help="changes for the naive baseline (slow; default 20)")
    ap.add_argument("--scene-only", action="store_true",
                    help="print only the table of scene() times (fast)")
    ap.add_argument("--only", action="append", help="experiment name (repeatable)")
    args = ap.parse_args()
    chosen = {n: c for n, c in EXPERIMENTS.items() if not args.only or n in args.only}
    if args.only and len(chosen) != len(set(args.only)):
        ap.error(f"--only: expected names from {sorted(EXPERIMENTS)}")
    if args.changes < 50:
        ap.error("--changes must be at least 50")

    print("scene() alone, main control swept (microseconds; the core's arithmetic and checks):")
    print(f"| {'experiment':<16} | {'scene median':>12} | {'scene p95':>9} |")
    print(f"|{'-' * 18}|{'-' * 14}|{'-' * 11}|")
    for name, cls in chosen.items():
        t = time_scene(cls, max(args.changes, 200))
        print(f"| {name:<16} | {np.median(t):12.0f} | {np.percentile(t, 95):9.0f} |", flush=True)
    print()
    if args.scene_only:
        return 0

    print(f"widgets benchmark: one control change, Python side (ms); "
          f"{args.changes} changes per experiment, naive baseline {args.naive_changes}")
    print(f"python {platform.python_version()}, matplotlib {matplotlib.__version__}, "
          f"ipywidgets {W.__version__}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f} at start")
    print()
    head = (f"| {'experiment':<16} | {'main control':<12} | {'median':>6} | {'p95':>6} | "
            f"{'CPU med':>7} | {'naive median':>12} | {'naive p95':>9} | {'naive CPU':>9} | "
            f"{'speed-up':>8} | {'<= 25 ms':>8} |")
    print(head)
    print("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    ok = True
    for name, cls in chosen.items():
        fast, fast_cpu = time_blitted(cls, args.changes)
        slow, slow_cpu = time_naive(cls, args.naive_changes)
        med, p95 = np.median(fast), np.percentile(fast, 95)
        nmed, np95 = np.median(slow), np.percentile(slow, 95)
        ok &= med <= 25
        print(f"| {name:<16} | {cls.main_control:<12} | {med:6.1f} | {p95:6.1f} | "
              f"{np.median(fast_cpu):7.1f} | {nmed:12.1f} | {np95:9.1f} | {np.median(slow_cpu):9.1f} | "
              f"{nmed / med:7.1f}x | {'yes' if med <= 25 else 'NO':>8} |", flush=True)
    print()
    print(f"load average {os.getloadavg()[0]:.2f} at end; target median <= 25 ms: "
          f"{'met' if ok else 'NOT met'} for every experiment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
