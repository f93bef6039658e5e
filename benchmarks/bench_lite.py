"""The book's JupyterLite site (issue 35) in headless Chromium, network blocked: its figures.

In one reader's browser profile (disk cache and service workers as a reader's), served on
127.0.0.1 by ``tools/serve_book.py``'s handler:

* cold: from the click on ch01's "Edit in your browser" to the kernel idle, and to ready
  (``import spatialbook, widgets`` answered), the browser's CPU time meanwhile (all its
  processes: less dependent on the machine's load than the wall time), with the kernel's boot
  phases as its Pyodide loader logs them (``sb-lite boot:`` in the worker's console) and when
  each big file arrived;
* Run All of that chapter;
* slider to new pixels: ``--moves`` drags of the experiment's first slider, p50 and p95, with
  the kernel's own Python time per change;
* warm: a second chapter (ch03) opened from the same profile, idle and ready (and CPU), and
  the big files the server sent again (should be none);
* the lite site's bytes.

Timings on the shared machine are noisy: the load average is printed beside them.

    .venv/bin/python benchmarks/bench_lite.py [--moves 20] [--runs 1]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from browser_support import CHROMIUM_ARGS, SITE, ensure_browser  # noqa: E402
from test_lite import (BIG, CELL_INDEX, EXPERIMENT_CELL, FIRST, LITE, SECOND,  # noqa: E402
                       _Counting, open_chapter, run_all, slider_to_pixels)

#: the kernel's Python time per slider change: ``Experiment.update`` timed in the kernel
TIME_OBSERVER = """
import time as _sbt
from widgets.experiment import Experiment as _SBE
_SBE._sb_times = []
if not hasattr(_SBE, "_sb_update"):
    _SBE._sb_update = _SBE.update
    def _sb_timed(self, *a, **k):
        t = _sbt.perf_counter()
        _SBE._sb_update(self, *a, **k)
        _SBE._sb_times.append((_sbt.perf_counter() - t) * 1000)
    _SBE.update = _sb_timed
"""


def _stat(path: str) -> tuple[str, list[str]]:
    """A ``/proc/.../stat`` file: (the name in parentheses, the fields after it)."""
    with open(path) as f:
        st = f.read()
    return st[st.index("(") + 1:st.rindex(")")], st[st.rindex(")") + 2:].split()


def browser_cpu(profile: str) -> float | None:
    """CPU seconds (user and system, with reaped children's) used so far by the browser
    launched on ``profile`` and every process under it (Linux ``/proc``; else None): the work
    of a start, less dependent on what else the machine runs than its wall time."""
    try:
        _, pids = _browser_pids(profile)
    except OSError:
        return None
    if not pids:
        return None
    total = 0
    for pid in pids:
        try:
            total += sum(int(x) for x in _stat(f"/proc/{pid}/stat")[1][11:15])
        except OSError:
            continue
    return total / os.sysconf("SC_CLK_TCK")


def _browser_pids(profile: str) -> tuple[dict, list[int]]:
    """/proc's processes ({pid: (ppid, cmdline)}) and the pids of the browser launched on
    ``profile`` with every process under it."""
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            fields = _stat(f"/proc/{d}/stat")[1]
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        procs[int(d)] = (int(fields[1]), cmd)
    flag = f"--user-data-dir={profile}".encode()
    todo = [pid for pid, (_, cmd) in procs.items() if flag in cmd.split(b"\0")]
    seen: list[int] = []
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.append(pid)
            todo += [c for c, (ppid, _) in procs.items() if ppid == pid]
    return procs, seen


def thread_cpu(profile: str) -> dict[tuple, float]:
    """CPU seconds so far of each thread of the browser on ``profile``: keyed by (the process's
    kind, ``--type=``: renderer, gpu-process, utility..., "browser" for the browser's own; the
    thread's name, Linux ``comm``, 15 characters: the renderer's main thread is "chromium", the
    kernel's worker "DedicatedWorker", V8's compile and GC helpers "ThreadPoolForeg"...; the
    process and thread ids), with (kind, "(all)", pid, 0) for each process's total, ended
    threads included.  Linux
    only ({} elsewhere): where a start's CPU goes (:func:`cpu_by_thread`)."""
    try:
        procs, pids = _browser_pids(profile)
    except OSError:
        return {}
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[tuple, float] = {}
    for pid in pids:
        # Chromium rewrites its children's command lines (one string, spaces between)
        found = re.search(rb"--type=([\w-]+)", procs[pid][1])
        kind = found.group(1).decode() if found else "browser"
        try:
            out[(kind, "(all)", pid, 0)] = sum(
                int(x) for x in _stat(f"/proc/{pid}/stat")[1][11:13]) / tick
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                name, fields = _stat(f"/proc/{pid}/task/{tid}/stat")
            except OSError:
                continue
            out[(kind, name, pid, int(tid))] = sum(int(x) for x in fields[11:13]) / tick
    return out


def cpu_by_thread(after: dict[tuple, float], before: dict[tuple, float], top: int = 8) -> str:
    """The threads that used the most CPU between two :func:`thread_cpu` snapshots, threads of
    one kind and name summed (a thread that started meanwhile counts from zero); "<kind> (ended
    threads)": what threads that ended meanwhile used (a process's total less its live
    threads')."""
    sums: dict[str, float] = {}
    live: dict[int, float] = {}
    for key, v in after.items():
        kind, name, pid, _ = key
        if name != "(all)":
            sums[f"{kind} {name}"] = sums.get(f"{kind} {name}", 0.0) + v - before.get(key, 0.0)
            live[pid] = live.get(pid, 0.0) + v - before.get(key, 0.0)
    for key, total in after.items():
        kind, name, pid, _ = key
        if name == "(all)":
            ended = max(0.0, total - before.get(key, 0.0) - live.get(pid, 0.0))
            sums[f"{kind} (ended threads)"] = sums.get(f"{kind} (ended threads)", 0.0) + ended
    rows = sorted(((v, k) for k, v in sums.items() if v >= 0.05), reverse=True)[:top]
    return ", ".join(f"{k} {v:.2f}" for v, k in rows)


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def pct(xs, q):
    return float(np.percentile(xs, q)) if xs else float("nan")


def kernel_py(page, code: str) -> str:
    return page.evaluate("""async (code) => { const w = window.jupyterapp.shell.currentWidget;
      const f = w.sessionContext.session.kernel.requestExecute({code, silent: false, store_history: false});
      let out = ''; f.onIOPub = (m) => { if (m.header.msg_type === 'stream') out += m.content.text;
        if (m.header.msg_type === 'error') out += m.content.ename + ': ' + m.content.evalue; };
      await f.done; return out; }""", code)


def boot_marks(page) -> str:
    """The kernel worker's boot phases (tools/lite_kernel_pyodide.js ``sbBootMarks``): ms from
    the loader's call; and when the loader was called, in ms from the page's start."""
    for w in page.workers:
        try:
            got = w.evaluate("() => self.sbBootMarks ? [self.sbBootMarks, performance.timeOrigin] : null")
        except Exception:
            continue
        if got:
            marks, origin = got
            page_origin = page.evaluate("() => performance.timeOrigin")
            return f"worker started {origin - page_origin:.0f} ms after the page; " + ", ".join(marks)
    return "no boot marks (not the book's loader?)"


def one_run(pw, moves: int) -> dict:
    _Counting.log = []
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Counting, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    logs: list[tuple[float, str]] = []
    out: dict = {}
    with tempfile.TemporaryDirectory() as profile:
        ctx = pw.chromium.launch_persistent_context(
            profile, executable_path=str(ensure_browser.ensure_full()), headless=True,
            args=CHROMIUM_ARGS + ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
            viewport={"width": 1280, "height": 900})
        ctx.on("page", lambda p: p.on("console", lambda m: logs.append((time.perf_counter(), m.text))))
        try:
            page = ctx.new_page()
            t_click = time.perf_counter()
            out["load_cold"] = load()
            cpu0, thr0 = browser_cpu(profile), thread_cpu(profile)
            out["cold"] = open_chapter(page, url, FIRST)
            out["cold"]["cpu"] = _less(browser_cpu(profile), cpu0)
            out["cold"]["threads"] = cpu_by_thread(thread_cpu(profile), thr0)
            out["cold"]["boot"] = boot_marks(page)
            out["cold_logs"] = [(t - t_click, m) for t, m in logs if t >= t_click]
            out["run_all"] = run_all(page)
            out["load_run_all"] = load()
            cell = page.evaluate(CELL_INDEX, EXPERIMENT_CELL)
            page.locator(".jp-Cell").nth(cell).scroll_into_view_if_needed()
            kernel_py(page, TIME_OBSERVER)
            ms = []
            for i in range(moves):
                ms.append(slider_to_pixels(page, cell, 12 if i % 2 == 0 else -12))
            out["moves"] = ms
            out["py"] = [float(x) for x in kernel_py(
                page, "print(' '.join(f'{t:.1f}' for t in _SBE._sb_times))").split()]
            out["load_moves"] = load()
            _Counting.log.clear()
            logs.clear()
            t_click = time.perf_counter()
            out["load_warm"] = load()
            cpu0, thr0 = browser_cpu(profile), thread_cpu(profile)
            out["warm"] = open_chapter(page, url, SECOND)
            out["warm"]["cpu"] = _less(browser_cpu(profile), cpu0)
            out["warm"]["threads"] = cpu_by_thread(thread_cpu(profile), thr0)
            out["warm"]["boot"] = boot_marks(page)
            out["warm_logs"] = [(t - t_click, m) for t, m in logs if t >= t_click]
            out["again"] = [(p, c) for p, c in _Counting.log if BIG.search(p) and c == 200]
        finally:
            ctx.close()
            server.shutdown()
            server.server_close()
    return out


def _less(a, b):
    return None if a is None or b is None else a - b


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=20, help="slider drags (default 20)")
    ap.add_argument("--runs", type=int, default=1, help="fresh profiles (default 1)")
    ap.add_argument("--logs", action="store_true", help="print the console lines of each start")
    args = ap.parse_args(argv)
    if not (LITE / "jupyter-lite.json").is_file():
        print(f"bench_lite: no lite site in {SITE} (build the book: tools/build_book.py)")
        return 1
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        for _ in range(args.runs):
            r = one_run(pw, args.moves)
            for key in ("cold", "warm"):
                cpu = r[key]["cpu"]
                print(f"  {key}: kernel idle {r[key]['idle'] / 1000:.2f} s, ready "
                      f"{r[key]['ready'] / 1000:.2f} s; browser CPU to ready "
                      f"{'n/a' if cpu is None else f'{cpu:.1f} s'}  ({r['load_' + key]})")
                print(f"      kernel boot: {r[key]['boot']}")
                print(f"      CPU s by thread: {r[key]['threads'] or 'n/a'}")
                for t, m in r[key + "_logs"]:
                    if m.startswith("sb-lite") or args.logs and m.strip() and not m.startswith(
                            ("Rendering", "Using MIME", "Re-rendering")):
                        print(f"      {t:6.2f} s  {m[:200]}")
            print(f"  Run All ({FIRST}): {r['run_all']:.2f} s  ({r['load_run_all']})")
            print(f"  slider to new pixels: p50 {pct(r['moves'], 50):.0f} ms, p95 "
                  f"{pct(r['moves'], 95):.0f} ms over {len(r['moves'])}; kernel Python per change "
                  f"p50 {pct(r['py'], 50):.0f} ms, p95 {pct(r['py'], 95):.0f} ms  ({r['load_moves']})")
            print(f"  big files sent again for the second chapter: {r['again'] or 'none'}")
    size = sum(p.stat().st_size for p in LITE.rglob("*") if p.is_file())
    print(f"  lite/ adds {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
