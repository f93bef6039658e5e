"""The lite site's warm start with and without a setting, alternating in one browser profile.

A warm start (a chapter's notebook opened again from the browser's cache, the kernel's worker
started at the page's start) is noisy on the shared machine; this opens ch01 cold once, then
alternates warm starts of the other runnable chapters between the compared settings (ABBA
order), all in one reader's profile at the same load, and prints for each start the ready
time (click on "Edit in your browser" to ``import spatialbook, widgets`` answered, as
``benchmarks/bench_lite.py``), the browser's CPU meanwhile, where that CPU went by thread, and
the kernel's boot marks; then the medians.

The setting compared (``--what``):

* ``idle`` (default): the lite pages' hold of the page's idle-time work until the kernel's
  imports end (tools/lite_guard.js ``holdIdleWork``) on, against off (localStorage
  ``sb-lite-idle`` = "off");
* ``order``: the kernel's archives fetched once the interpreter's wasm has arrived
  (tools/lite_kernel_pyodide.js), against fetched beside it (localStorage ``sb-lite-order`` =
  "together", passed to the kernel's worker in its URL);
* ``both``: the two on (the site as built) against both off (the lite site before them).

With ``--alone``: each side of a warm start alone instead, alternating: the kernel's boot with
JupyterLab not started (the page's start held: its worker's boot marks, from the page's
start), and JupyterLab with no kernel booting beside it (the early worker not started: when
JupyterLab asks for the kernel's worker, from the page's start).  A warm start is ready no
sooner than the later of the two, plus the kernel's own start and the first request.

    .venv/bin/python benchmarks/bench_lite_warm.py [--pairs 3] [--alone]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_lite import boot_marks, browser_cpu, cpu_by_thread, load, thread_cpu  # noqa: E402
from browser_support import CHROMIUM_ARGS, SITE, ensure_browser  # noqa: E402
from test_lite import FIRST, LITE, _Counting, open_chapter  # noqa: E402

#: chapters with an "Edit in your browser" link, other than the cold start's
WARM = ["chapters/ch03_screw_axis", "chapters/ch04_spatial_force", "chapters/ch05_central_axis",
        "chapters/ch08_newton_euler", "chapters/ch06_spatial_inertia",
        "chapters/ch07_spatial_acceleration", "chapters/ch02_motion_transform"]
#: in each page: with ``sbalone=kernel`` in its URL, JupyterLab's start held (the guard's stop
#: flag read as set after the guard has started the kernel's worker); with ``sbalone=lab``, the
#: early worker not started (the guard finds no kernel bundle) and the time JupyterLab asks
#: for the kernel's worker recorded
ALONE = """(() => {
  const q = location.search;
  if (q.indexOf('sbalone=kernel') >= 0) {
    let reads = 0;
    Object.defineProperty(window, 'sbLiteStop', {configurable: true, set(v) {},
      get() { return reads++ > 0 ? 'bench: the kernel alone' : undefined; }});
  } else if (q.indexOf('sbalone=lab') >= 0) {
    const get = Element.prototype.getAttribute;
    Element.prototype.getAttribute = function (n) {
      return n === 'data-sb-kernel' ? null : get.call(this, n); };
    const W = window.Worker;
    window.Worker = function (url, opts) {
      if (String(url).indexOf('pyodide-kernel-extension') >= 0 && !window.__sbAsked) {
        window.__sbAsked = performance.now(); }
      return new W(url, opts); };
    window.Worker.prototype = W.prototype;
  }
})();"""
#: each comparison: its two arms, each (label, {localStorage key: value})
SETTINGS = {"idle": [("hold", {"sb-lite-idle": "on"}), ("no hold", {"sb-lite-idle": "off"})],
            "order": [("wasm 1st", {"sb-lite-order": ""}),
                      ("together", {"sb-lite-order": "together"})],
            "both": [("both", {"sb-lite-idle": "on", "sb-lite-order": ""}),
                     ("neither", {"sb-lite-idle": "off", "sb-lite-order": "together"})]}


def alone(page, url: str, pairs: int, profile: str) -> None:
    """Alternating: the kernel's warm boot with JupyterLab held, JupyterLab with no kernel
    booting; prints each with the browser's CPU by thread and the load."""
    page.context.add_init_script(ALONE)
    kernel, lab = [], []
    for i in range(pairs):
        for side in (("kernel", "lab") if i % 2 == 0 else ("lab", "kernel")):
            rel = WARM[(2 * i + (side == "lab")) % len(WARM)]
            t_load = load()
            thr0 = thread_cpu(profile)
            page.goto(f"{url}/lite/notebooks/index.html?path={rel}.ipynb&sbalone={side}")
            if side == "kernel":
                marks = "no boot marks"
                for _ in range(1200):
                    marks = boot_marks(page)
                    if "imports " in marks:
                        break
                    page.wait_for_timeout(50)
                took = _boot_end(marks)
                kernel.append(took)
                print(f"  kernel alone {rel}: imports done {took / 1000:.2f} s after the page "
                      f"opened  ({t_load})\n      kernel boot: {marks}", flush=True)
            else:
                page.wait_for_function("() => window.__sbAsked", timeout=60_000, polling=20)
                took = page.evaluate("() => window.__sbAsked")
                lab.append(took)
                print(f"  JupyterLab alone {rel}: the kernel's worker asked for {took / 1000:.2f} s "
                      f"after the page opened  ({t_load})", flush=True)
                page.wait_for_timeout(1500)             # its worker's start, not the next page's
            print(f"      CPU s by thread: {cpu_by_thread(thread_cpu(profile), thr0, 5) or 'n/a'}",
                  flush=True)
    print(f"  kernel alone: imports done median {statistics.median(kernel) / 1000:.2f} s; "
          f"JupyterLab alone: kernel asked for median {statistics.median(lab) / 1000:.2f} s")


def _boot_end(marks: str) -> float:
    """ms from the page's start to the boot's "imports" mark, from :func:`boot_marks`' line."""
    import re

    start = re.search(r"worker started (-?\d+) ms", marks)
    end = re.search(r"imports (\d+)", marks)
    return float("nan") if not (start and end) else float(start.group(1)) + float(end.group(1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=3, help="warm starts per arm (default 3)")
    ap.add_argument("--what", choices=sorted(SETTINGS), default="idle")
    ap.add_argument("--alone", action="store_true",
                    help="the kernel's boot alone and JupyterLab alone, instead of a comparison")
    args = ap.parse_args(argv)
    if args.pairs < 1:
        raise ValueError(f"--pairs must be at least 1, not {args.pairs}")
    if not (LITE / "jupyter-lite.json").is_file():
        print(f"bench_lite_warm: no lite site in {SITE} (build the book: tools/build_book.py)")
        return 1
    from playwright.sync_api import sync_playwright

    arms = SETTINGS[args.what]
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Counting, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    ready: dict[str, list[float]] = {label: [] for label, _ in arms}
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as profile:
        ctx = pw.chromium.launch_persistent_context(
            profile, executable_path=str(ensure_browser.ensure_full()), headless=True,
            args=CHROMIUM_ARGS + ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
            viewport={"width": 1280, "height": 900})
        try:
            page = ctx.new_page()
            t_load = load()
            cold = open_chapter(page, url, FIRST)
            print(f"  cold {FIRST}: ready {cold['ready'] / 1000:.2f} s  ({t_load})", flush=True)
            if args.alone:
                alone(page, url, args.pairs, profile)
                return 0
            n = 0
            for i in range(args.pairs):
                for label, items in (arms if i % 2 == 0 else arms[::-1]):
                    rel = WARM[n % len(WARM)]
                    n += 1
                    page.evaluate("(kv) => { for (const k in kv) localStorage.setItem(k, kv[k]); }",
                                  items)
                    t_load = load()
                    cpu0, thr0 = browser_cpu(profile), thread_cpu(profile)
                    got = open_chapter(page, url, rel)
                    cpu = browser_cpu(profile)
                    held = page.evaluate("() => window.sbLiteIdle || null")
                    held = (f"{held['held']} callbacks, released at {held['released']:.0f} ms "
                            f"({held['by']})" if held else "none")
                    threads = cpu_by_thread(thread_cpu(profile), thr0, 5)
                    ready[label].append(got["ready"] / 1000)
                    print(f"  {label:>8} {rel}: ready {got['ready'] / 1000:.2f} s, browser CPU "
                          f"{'n/a' if cpu is None or cpu0 is None else f'{cpu - cpu0:.1f} s'}  "
                          f"({t_load})\n      CPU s by thread: {threads or 'n/a'}\n"
                          f"      kernel boot: {boot_marks(page)}\n      idle work held: "
                          f"{held}",
                          flush=True)
            page.evaluate("(kv) => { for (const k in kv) localStorage.removeItem(k); }", arms[0][1])
        finally:
            ctx.close()
            server.shutdown()
            server.server_close()
    for label, xs in ready.items():
        print(f"  {label}: warm ready median {statistics.median(xs):.2f} s over {len(xs)} "
              f"({', '.join(f'{x:.2f}' for x in xs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
