"""Cost of a change of EVERY control of EVERY experiment (native Python), printed as a table.

For each experiment of ``widgets.EXPERIMENTS`` and each of its controls (sliders, option
buttons; a Play only drives its slider and is skipped), ``--changes`` times (default 40):
put the experiment in a random state (every control at a random value of its grid, untimed),
then time one ``exp.set(control=new)`` to another random value of that control.  The whole
native path is timed: scene, artists, blit (or background redraw), PNG, readouts.  Printed per
control: p50 and p95 wall-clock ms, p95 CPU ms (``time.process_time``, less sensitive to other
jobs on the machine), how many of the changes redrew the background, and a flag when p95 is
over ``--target`` ms (default 25).

    .venv/bin/python benchmarks/bench_controls.py [--changes 40] [--seed 0] [--only NAME]

Not a timed test: the numbers depend on the machine and on what else runs on it (the load
average is printed with the table).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from widgets import EXPERIMENTS  # noqa: E402
from widgets.controls import Player  # noqa: E402


def control_grid(spec) -> list:
    """Every value a reader can set: the slider's step grid, or a choice's options."""
    steps = getattr(spec, "step", None)
    if steps is None:
        return list(spec.sweep())
    n = int(round((spec.max - spec.min) / spec.step)) + 1
    return spec.sweep(n)


def time_controls(cls, changes: int, rng: np.random.Generator) -> list[tuple]:
    exp = cls()
    grids = {c.name: control_grid(c) for c in cls.CONTROLS if not isinstance(c, Player)}
    redraws = [0]
    draw = exp.canvas.draw

    def counted_draw(*a, **k):
        redraws[0] += 1
        return draw(*a, **k)

    exp.canvas.draw = counted_draw
    rows = []
    for name, grid in grids.items():
        for _ in range(3):                                  # warm-up (caches, first layout)
            exp.set(**{name: grid[rng.integers(len(grid))]})
        wall, cpu, full = [], [], 0
        for _ in range(changes):
            exp.set(**{k: g[rng.integers(len(g))] for k, g in grids.items()})   # random state
            old = exp.values()[name]
            new = old
            while new == old:
                new = grid[rng.integers(len(grid))]
            before = redraws[0]
            t0, c0 = time.perf_counter(), time.process_time()
            exp.set(**{name: new})
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            full += redraws[0] != before
        wall, cpu = np.array(wall) * 1e3, np.array(cpu) * 1e3
        rows.append((cls.name, name, np.percentile(wall, 50), np.percentile(wall, 95),
                     np.percentile(cpu, 95), full, len(wall)))
    exp.close()
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target", type=float, default=25.0, help="flag p95 above this (ms)")
    ap.add_argument("--only", action="append", help="experiment name (repeatable)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    names = args.only or list(EXPERIMENTS)
    print(f"every control, native exp.set(): {args.changes} changes each from random states; "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}")
    print(f"{'experiment':16} {'control':12} {'p50 ms':>7} {'p95 ms':>7} {'p95 CPU':>8} "
          f"{'redraws':>8}")
    slow = []
    for name in names:
        for exp_name, control, p50, p95, c95, full, n in time_controls(EXPERIMENTS[name],
                                                                        args.changes, rng):
            flag = f"  > {args.target:g} ms" if p95 > args.target else ""
            if flag:
                slow.append(f"{exp_name}.{control}")
            print(f"{exp_name:16} {control:12} {p50:7.1f} {p95:7.1f} {c95:8.1f} "
                  f"{f'{full}/{n}':>8}{flag}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}; "
          + (f"{len(slow)} over {args.target:g} ms p95: {', '.join(slow)}" if slow
             else f"every control at or under {args.target:g} ms p95"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
