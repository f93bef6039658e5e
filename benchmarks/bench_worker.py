"""Live mode's worker by itself, in headless Chromium: Python per change, painted or not (issue 33).

``bench_live.py`` times a control from its ``input`` event to the frame painted on the chapter's
page, and the worker's Python per change beside it.  Under load that Python time grows: the
worker shares the machine's cores with the page and with the compositor painting the frames.
This script separates the two.  On an empty page of the built site it starts live mode's own
worker (``_live/sb_worker.js``: the same boot, the same ``sb_live`` calls), creates one
experiment and sends ``--changes`` updates of one control, each as soon as the previous frame
came back (as a reader dragging a slider), in three modes, alternating:

* ``alone``: nothing is painted (the frame's bitmap is dropped): the worker's Python alone;
* ``canvas``: each frame is handed to a ``bitmaprenderer`` canvas, as the chapter's player does;
* ``canvas+readouts``: the readout table is written into the page as well.

Printed per mode: p50 and p95 of the worker's Python time per change (``pythonMs``: the update
call, as ``bench_live.py``'s "py" column), and the load average.  E11's joint q2 on the 2-core
machine, two alternating rounds at load 2.9-3.5: p50 8.2 / 9.4 ms alone, 7.9 / 6.7 ms with the
canvas painted, 7.6 / 10.2 ms with the readouts too (Pyodide under Node.js: 6-9 ms): painting
the frames makes no difference this shows, while ``bench_live.py``'s "py" column for the same
control on the chapter's page read p50 12-22 ms in the same session's runs (load 0.2-4).  The extra comes from what shares
the two cores there (the player's own work, and the benchmark driving it through the DevTools
protocol at every change), not from Python's work, which is the same code.  Read the modes at one load: the spread between runs is
as large as a few milliseconds' effect.

    .venv/bin/python benchmarks/bench_worker.py [--experiment arm_explorer] [--control q2]
        [--changes 60] [--rounds 2]

Needs the built book with live mode staged (``tools/build_book.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT))

from bench_live import serve  # noqa: E402
from browser_support import CHROMIUM_ARGS, SITE, ensure_browser  # noqa: E402

MODES = {"alone": {}, "canvas": {"paint": True},
         "canvas+readouts": {"paint": True, "readouts": True}}

#: the page: live mode's worker, one experiment, ``changes`` updates of one control in a row
PAGE = """<!doctype html><html><head><meta charset="utf-8"></head><body><div id="r"></div>
<canvas id="c"></canvas><script>
window.res = null;
const P = JSON.parse(decodeURIComponent(location.hash.slice(1)));
const w = new Worker('_live/sb_worker.js');
const canvas = document.getElementById('c'), readouts = document.getElementById('r');
let ctx = null, n = 0;
const times = [];
w.onmessage = (ev) => {
  const m = ev.data;
  if (m.type === 'ready') {
    w.postMessage({type: 'create', id: 1, name: P.experiment, narrow: false, values: {}, scale: 1});
  } else if (m.type === 'frame') {
    if (m.info) { canvas.width = m.info.width; canvas.height = m.info.height; }
    if (P.paint && m.bitmap) {
      ctx = ctx || canvas.getContext('bitmaprenderer');
      ctx.transferFromImageBitmap(m.bitmap);
    }
    if (P.readouts) { readouts.innerHTML = m.readouts; }
    if (n > 0) { times.push(m.pythonMs); }
    if (n < P.values.length) {
      w.postMessage({type: 'update', id: 1, values: {[P.control]: P.values[n]}}); n++;
    } else { window.res = times; }
  } else if (m.type === 'error') { window.res = 'error: ' + m.message; }
};
w.postMessage({type: 'boot', pyodideBase: new URL('_pyodide/', location.href).href,
               liveBase: new URL('_live/', location.href).href});
</script></body></html>"""


def control_values(experiment: str, control: str, changes: int, seed: int = 0) -> list[float]:
    """``changes`` values of a slider on its step grid, each different from the one before."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    from widgets import EXPERIMENTS

    if experiment not in EXPERIMENTS:
        raise SystemExit(f"bench_worker: no experiment {experiment!r}; one of {sorted(EXPERIMENTS)}")
    spec = next((c for c in EXPERIMENTS[experiment].CONTROLS if c.name == control), None)
    if spec is None or not hasattr(spec, "step"):
        raise SystemExit(f"bench_worker: {experiment} has no slider {control!r}")
    grid = np.round(np.arange(spec.min, spec.max + spec.step / 2, spec.step), 10)
    rng = np.random.default_rng(seed)
    out = [float(spec.value)]
    while len(out) <= changes:
        v = float(rng.choice(grid))
        if v != out[-1]:
            out.append(v)
    return out[1:]


def run(browser, url: str, params: dict) -> list[float]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(url + "#" + json.dumps(params))
        page.wait_for_function("window.res !== null", timeout=180_000)
        res = page.evaluate("window.res")
    finally:
        page.close()
    if isinstance(res, str):
        raise SystemExit(f"bench_worker: {res}")
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--experiment", default="arm_explorer")
    ap.add_argument("--control", default="q2")
    ap.add_argument("--changes", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=2, help="rounds of the three modes, alternating")
    args = ap.parse_args(argv)
    if not (SITE / "_live" / "sb_worker.js").is_file():
        raise SystemExit(f"bench_worker: no live mode in {SITE}: run tools/build_book.py first")
    values = control_values(args.experiment, args.control, args.changes)
    page = SITE / "_sb_bench_worker.html"
    page.write_text(PAGE)
    server, url = serve(SITE)
    from playwright.sync_api import sync_playwright

    print(f"{args.experiment}.{args.control}: the worker's Python per change (ms), "
          f"{args.changes} changes, the first 10 of each run left out (tier-up)")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(ensure_browser.ensure_full()),
                                         headless=True, args=CHROMIUM_ARGS)
            for r in range(args.rounds):
                for mode, flags in MODES.items():
                    load = os.getloadavg()[0]
                    times = run(browser, f"{url}/{page.name}",
                                {"experiment": args.experiment, "control": args.control,
                                 "values": values, **flags})[10:]
                    print(f"  round {r + 1} {mode:<16s} p50 {np.percentile(times, 50):5.1f}  "
                          f"p95 {np.percentile(times, 95):5.1f}  (load {load:.2f} -> "
                          f"{os.getloadavg()[0]:.2f})", flush=True)
            browser.close()
    finally:
        server.shutdown()
        page.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
