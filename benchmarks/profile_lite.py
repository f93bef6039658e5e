"""Where a lite page's start goes (issue 35): a Chromium trace of a chapter's notebook page.

Opens ch01 (cold, in a fresh profile) and then ch03 (warm, from the browser's cache) as
``benchmarks/bench_lite.py`` does, tracing each start with Chromium's own tracing (CDP
``Tracing``) until the kernel is ready, and prints for each:

* the page's main-thread time by kind (script evaluation and compilation, style, layout,
  paint, garbage collection...) and by script (the bundles whose code ran the longest),
  before and after the front end asked for the kernel's worker;
* the requests (from the page's resource timing): how many, how many from the HTTP cache,
  and the slowest;
* the milestones: DOMContentLoaded, the kernel's worker asked for, idle, ready; JupyterLab's
  app made, started and restored, and the plugins whose activation took longest.

With ``--slider N``: the main thread's time over N drags of ch01's first slider instead.

    .venv/bin/python benchmarks/profile_lite.py [--slider N]
"""

from __future__ import annotations

import argparse
import collections
import functools
import http.server
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_lite import load  # noqa: E402
from browser_support import CHROMIUM_ARGS, SITE, ensure_browser  # noqa: E402
from test_lite import (CELL_INDEX, EXPERIMENT_CELL, FIRST, LITE, SECOND, _Counting,  # noqa: E402
                       open_chapter, run_all, slider_to_pixels)

CATEGORIES = ",".join(["devtools.timeline", "v8.execute", "v8", "blink.user_timing", "loading",
                       "disabled-by-default-devtools.timeline",
                       "disabled-by-default-v8.compile", "toplevel", "v8.wasm",
                       "disabled-by-default-v8.wasm.detailed"])

#: in each lite page: every plugin's activation timed (its synchronous part and when its promise
#: settled), through the app JupyterLite exposes (``exposeAppInBrowser``) just before its start
PLUGIN_TIMER = """(() => {
  let app = null;
  const times = window.__sbPlugins = [];
  Object.defineProperty(window, 'jupyterapp', { configurable: true,
    get() { return app; },
    set(a) { app = a; window.__sbAppSet = performance.now();
      const reg = a.pluginRegistry, plugins = reg && reg._plugins;
      if (!plugins) return;
      for (const [id, d] of plugins) {
        const f = d.activate;
        if (typeof f !== 'function') continue;
        Object.defineProperty(d, 'activate', { configurable: true, value: function (...args) {
          const t = performance.now(), rec = {id, start: t, sync: 0, end: null};
          times.push(rec);
          let out;
          try { out = f.apply(this, args); } finally { rec.sync = performance.now() - t; }
          Promise.resolve(out).then(() => { rec.end = performance.now(); },
                                    () => { rec.end = -1; });
          return out; } });
      }
      a.started.then(() => { window.__sbStarted = performance.now(); });
      a.restored.then(() => { window.__sbRestored = performance.now(); });
    } });
})();"""

RESOURCES = """() => performance.getEntriesByType('resource').map(e => ({
  name: e.name, start: e.startTime, end: e.responseEnd, size: e.transferSize,
  body: e.decodedBodySize, type: e.initiatorType, worker: e.workerStart}))"""


def traced(page, action):
    cdp = page.context.new_cdp_session(page)
    events: list = []
    done = threading.Event()

    def collect(params):
        events.extend(params["value"])

    cdp.on("Tracing.dataCollected", collect)
    cdp.on("Tracing.tracingComplete", lambda _: done.set())
    cdp.send("Tracing.start", {"categories": CATEGORIES, "transferMode": "ReportEvents"})
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 500})
    cdp.send("Profiler.start")
    try:
        result = action()
    finally:
        traced.profile = cdp.send("Profiler.stop")["profile"]
        cdp.send("Tracing.end")
        for _ in range(600):
            if done.is_set():
                break
            page.wait_for_timeout(50)
    return result, events


def js_profile(profile: dict, top: int = 25) -> None:
    """Self time of the JavaScript sampled on the page's main thread: by script and by function."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    self_us = collections.Counter()
    for sid, dt in zip(profile["samples"], profile["timeDeltas"]):
        self_us[sid] += dt
    by_url, by_fn = collections.Counter(), collections.Counter()
    for nid, us in self_us.items():
        cf = nodes[nid]["callFrame"]
        by_url[short(cf["url"]) if cf["url"] else cf["functionName"] or "(anonymous)"] += us
        by_fn[f"{cf['functionName'] or '(anon)'} {short(cf['url'])}:{cf['lineNumber']}"] += us
    print(f"    JS profile, self time: {sum(self_us.values()) / 1e6:.2f} s sampled")
    for k, us in by_url.most_common(top // 2):
        print(f"      {us / 1000:8.0f} ms  {k}")
    print("    by function:")
    for k, us in by_fn.most_common(top):
        print(f"      {us / 1000:8.0f} ms  {k[:150]}")


def short(url: str) -> str:
    if not url:
        return "(no script)"
    tail = url.split("/lite/", 1)[-1].split("?")[0]
    return tail if len(tail) < 90 else "..." + tail[-87:]


def summarize(events: list, asked_ms: float | None, nav_ts: float | None) -> None:
    """Main-thread time of the renderer that ran the lite page: by top-level event name and by
    script URL, split at the kernel's ask."""
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    mains = [k for k, v in names.items() if v == "CrRendererMain"]
    # the renderer whose main thread ran the most
    busy = collections.Counter()
    for e in events:
        if e.get("ph") == "X" and (e["pid"], e["tid"]) in mains:
            busy[(e["pid"], e["tid"])] += e.get("dur", 0)
    if not busy:
        print("    no main-thread events")
        return
    main = busy.most_common(1)[0][0]
    evs = sorted((e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) == main),
                 key=lambda e: e["ts"])
    if nav_ts is None:
        nav_ts = evs[0]["ts"]
    split = None if asked_ms is None else nav_ts + asked_ms * 1000
    by_kind = [collections.Counter(), collections.Counter()]
    by_url = [collections.Counter(), collections.Counter()]
    # self time of each event (less its children's), by name: nesting from ts and dur
    stack: list = []
    for e in evs:
        while stack and e["ts"] >= stack[-1][0]["ts"] + stack[-1][0].get("dur", 0):
            stack.pop()
        dur = e.get("dur", 0)
        if stack:
            stack[-1][1][0] -= dur
        own = [dur]
        stack.append((e, own))
        side = 0 if split is None or e["ts"] < split else 1
        e["_own"], e["_side"] = own, side
    for e in evs:
        by_kind[e["_side"]][e["name"]] += e["_own"][0]
    # script time by URL: v8 compile and execute events carry the script's URL
    for e in evs:
        data = (e.get("args") or {}).get("data") or {}
        url = data.get("url") or (e.get("args") or {}).get("fileName")
        if e["name"] in ("EvaluateScript", "v8.compile", "v8.compileModule", "v8.evaluateModule",
                         "FunctionCall") and url:
            side = 0 if split is None or e["ts"] < split else 1
            by_url[side][short(url)] += e.get("dur", 0)
    sides = (((0, "before the kernel was asked for"), (1, "after")) if split is not None
             else ((0, "in all"),))
    for side, label in sides:
        total = sum(by_kind[side].values()) / 1000
        print(f"    main thread {label}: {total:.0f} ms busy")
        for name, us in by_kind[side].most_common(8):
            print(f"      {us / 1000:8.0f} ms  {name}")
        for url, us in by_url[side].most_common(8):
            print(f"      {us / 1000:8.0f} ms  script {url}")


def threads_summary(events: list, top: int = 12) -> None:
    """Each thread's busy time (its outermost events' CPU time, ``tdur``, else wall) in every
    process of the trace, named as Chromium names them (the page's CrRendererMain, the kernel's
    DedicatedWorker thread, the thread pool's workers where V8 compiles wasm...); and the wasm
    events (compile, tier-up, the code cache's reads and writes) by name and thread."""
    pnames, tnames = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            pnames[e["pid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            tnames[(e["pid"], e["tid"])] = e["args"]["name"]
    by_thread: dict = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and "dur" in e:
            by_thread[(e["pid"], e["tid"])].append(e)
    busy = collections.Counter()
    for key, evs in by_thread.items():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        end = -1
        for e in evs:
            if e["ts"] >= end:                          # an outermost event
                busy[key] += e.get("tdur", e["dur"])
                end = e["ts"] + e["dur"]
    named = collections.Counter()
    for (pid, tid), us in busy.items():
        named[f"{pnames.get(pid, pid)} / {tnames.get((pid, tid), tid)}"] += us
    print(f"    busy by thread (all processes): {sum(named.values()) / 1e6:.2f} s")
    for k, us in named.most_common(top):
        print(f"      {us / 1000:8.0f} ms  {k}")
    wasm = collections.Counter()
    count = collections.Counter()
    for e in events:
        name = e.get("name", "")
        if "wasm" in name.lower() and e.get("ph") in ("X", "B", "I", "i", "n"):
            k = f"{name} [{tnames.get((e['pid'], e['tid']), e['tid'])}]"
            wasm[k] += e.get("dur", 0)
            count[k] += 1
    print("    wasm events:")
    for k, us in wasm.most_common(top):
        print(f"      {count[k]:5d} x {us / 1000:8.0f} ms  {k}")
    for k in sorted(count):
        if wasm[k] == 0 and any(w in k.lower() for w in ("cache", "serial")):
            print(f"      {count[k]:5d} x  (instant)  {k}")


def one(page, url: str, rel: str, logs: list, dump: Path | None = None) -> None:
    logs.clear()
    t_load = load()
    times, events = traced(page, lambda: open_chapter(page, url, rel))
    if dump is not None:                                # for chrome://tracing or Perfetto
        dump.mkdir(parents=True, exist_ok=True)
        (dump / (rel.replace("/", "_") + ".json")).write_text(json.dumps({"traceEvents": events}))
    asked = next((float(m.split(" ms ")[0].split()[-1]) for m in logs
                  if m.startswith("sb-lite: the kernel asked")), None)
    res = page.evaluate(RESOURCES)
    nav = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
        return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, origin: performance.timeOrigin}; }""")
    # the navigation's start in trace time: the trace's first 'navigationStart' mark for the lite page
    nav_ts = None
    for e in events:
        if e.get("name") == "navigationStart" and "lite/notebooks" in json.dumps(e.get("args", {})):
            nav_ts = e["ts"]
    print(f"  {rel}: idle {times['idle'] / 1000:.2f} s, ready {times['ready'] / 1000:.2f} s (from the "
          f"click); page DOMContentLoaded {nav['dcl']:.0f} ms, kernel asked "
          f"{'?' if asked is None else f'{asked:.0f}'} ms after the page opened  ({t_load})")
    cached = [r for r in res if r["size"] == 0]
    print(f"    {len(res)} requests, {len(cached)} from the cache (transfer 0), "
          f"{sum(r['size'] for r in res) / 1e6:.2f} MB transferred")
    for r in sorted(res, key=lambda r: r["end"] - r["start"], reverse=True)[:8]:
        print(f"      {r['start']:7.0f}-{r['end']:7.0f} ms  {r['size']:>9}  {short(r['name'])}")
    summarize(events, asked, nav_ts)
    threads_summary(events)
    js_profile(traced.profile)
    plugins(page)


def plugins(page, top: int = 30) -> None:
    got = page.evaluate("""() => ({p: window.__sbPlugins || [], set: window.__sbAppSet,
        started: window.__sbStarted, restored: window.__sbRestored})""")
    ps = got["p"]
    if not ps:
        print("    no plugin times")
        return
    print(f"    app made {got['set'] or 0:.0f} ms, started {got['started'] or 0:.0f} ms, restored "
          f"{got['restored'] or 0:.0f} ms; {len(ps)} plugins activated, their synchronous parts "
          f"{sum(p['sync'] for p in ps):.0f} ms, first {min(p['start'] for p in ps):.0f} ms, last "
          f"{max(p['start'] for p in ps):.0f} ms")
    for p in sorted(ps, key=lambda p: -p["sync"])[:top]:
        end = p["end"]
        print(f"      {p['sync']:7.0f} ms sync  at {p['start']:6.0f}, settled "
              f"{'never' if end is None else f'{end:.0f}'}  {p['id']}")


def slider(page, url: str, moves: int) -> None:
    """The main thread's time over ``moves`` drags of ch01's first slider (after Run All)."""
    open_chapter(page, url, FIRST)
    run_all(page)
    cell = page.evaluate(CELL_INDEX, EXPERIMENT_CELL)
    page.locator(".jp-Cell").nth(cell).scroll_into_view_if_needed()
    slider_to_pixels(page, cell, 12)                    # the first move's one-off work
    t_load = load()
    ms, events = traced(page, lambda: [slider_to_pixels(page, cell, 12 if i % 2 else -12)
                                       for i in range(moves)])
    ms = sorted(ms)
    print(f"  {moves} slider moves to new pixels: median {ms[len(ms) // 2]:.0f} ms, max "
          f"{ms[-1]:.0f} ms  ({t_load})")
    summarize(events, None, None)
    js_profile(traced.profile)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slider", type=int, default=0, metavar="N",
                    help="instead of the starts: trace N slider moves in ch01 after its Run All")
    ap.add_argument("--dump", type=Path, metavar="DIR",
                    help="also write each start's trace there (<chapter>.json: Perfetto opens it)")
    args = ap.parse_args(argv)
    if not (LITE / "jupyter-lite.json").is_file():
        print(f"profile_lite: no lite site in {SITE}")
        return 1
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Counting, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    logs: list[str] = []
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as profile:
        ctx = pw.chromium.launch_persistent_context(
            profile, executable_path=str(ensure_browser.ensure_full()), headless=True,
            args=CHROMIUM_ARGS + ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
            viewport={"width": 1280, "height": 900})
        ctx.add_init_script(PLUGIN_TIMER)
        ctx.on("page", lambda p: p.on("console", lambda m: logs.append(m.text)))
        try:
            page = ctx.new_page()
            if args.slider:
                slider(page, url, args.slider)
                return 0
            for rel in (FIRST, SECOND):
                one(page, url, rel, logs, args.dump)
        finally:
            ctx.close()
            server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
