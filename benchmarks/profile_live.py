"""Where live mode's start goes, in headless Chromium, network blocked (issue 33): prints.

* cold click (a fresh routed context: no HTTP or code cache): click -> first live frame, the
  worker's phases (download, start Python, unpack numpy + matplotlib, imports) and the first
  drawing (``create``: the experiment built and drawn in Python), the main-thread long tasks
  from the click to the first frame, and every file the server sent with its size;
* second page (one profile with a disk cache, live mode run before on another page): the
  background warm start's main-thread long tasks from the page's load until Python has drawn
  the page's experiments, and click -> first live frame when clicked at the page's load;
* page load (a fresh context, live mode never run: no warm start), ``--page-load``: the
  main-thread long tasks from navigation until the page has settled (and 0.5 s more), and
  when that was; with ``--ab`` each run is also repeated with the page laid out at once (the
  inline ``tools/sb_settle.js`` taken out of the page as it is served),
  alternating, and so is the second page's warm start: the before/after of issue 33;
* ``--importtime``: the imports before the first frame, as ``python -X importtime`` reports
  them inside Pyodide (PYTHONPROFILEIMPORTTIME given to loadPyodide; the report costs time
  itself, so the phases of such a run are not the ones to quote): the modules that cost most
  by themselves, and each top-level package's cumulative time.

    .venv/bin/python benchmarks/profile_live.py [--runs 3] [--importtime] [--page chapters/ch03_screw_axis.html]
    .venv/bin/python benchmarks/profile_live.py --page-load --ab --runs 3 --no-cold

Needs the built book with live mode staged (``tools/build_book.py``).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from browser_support import CHROMIUM_ARGS, SITE, NetworkGuard, ensure_browser  # noqa: E402

# Served before sb_worker.js with --importtime: loadPyodide gets PYTHONPROFILEIMPORTTIME and
# Python's stderr is kept; the "ready" message carries it (bootTimes.__importtime).
IMPORTTIME_PRELUDE = """
var __sbErr = [];
var __sbImport = self.importScripts;
self.importScripts = function (u) {
  __sbImport(u);
  if (self.loadPyodide && !self.__sbWrapped) {
    var lp = self.loadPyodide;
    self.__sbWrapped = true;
    self.loadPyodide = function (o) {
      o.env = Object.assign({}, o.env || {}, { PYTHONPROFILEIMPORTTIME: "1" });
      o.stderr = function (m) { __sbErr.push(m); };
      return lp(o);
    };
  }
};
var __sbPost = self.postMessage.bind(self);
self.postMessage = function (m, t) {
  if (m && m.type === "ready") { m.times.__importtime = __sbErr; }
  return __sbPost(m, t);
};
"""

# Served before sb_worker.js with --profile-create: the first "create" (the experiment built
# and drawn) runs under cProfile; the worker posts the report (kept by WATCH's Worker wrapper).
CREATE_PRELUDE = r"""
var __sbHandler = null, __sbProfiled = false;
Object.defineProperty(self, "onmessage", { configurable: true,
  get: function () { return __sbHandler; },
  set: function (fn) {
    __sbHandler = fn;
    self.addEventListener("message", async function (ev) {
      var prof = ev.data.type === "create" && !__sbProfiled && pyodide;
      if (prof) { __sbProfiled = true; pyodide.runPython("import cProfile as _c; _sbpr = _c.Profile(); _sbpr.enable()"); }
      await fn(ev);
      if (prof) {
        self.postMessage({ type: "profile", text: pyodide.runPython(
          "_sbpr.disable()\nimport pstats, io\n_s = io.StringIO()\n" +
          "pstats.Stats(_sbpr, stream=_s).sort_stats('cumulative').print_stats(45)\n_s.getvalue()") });
      }
    });
  } });
"""

WATCH = """() => {
  window.__p = {longtasks: [], click: null, profiles: []};
  const W = window.Worker;
  window.Worker = function (u, o) {
    const w = new W(u, o);
    w.addEventListener('message', e => {
      if (e.data && e.data.type === 'profile') { window.__p.profiles.push(e.data.text); } });
    return w; };
  window.Worker.prototype = W.prototype;
  new PerformanceObserver(l => l.getEntries().forEach(e => window.__p.longtasks.push(
      {start: e.startTime, duration: e.duration}))).observe({type: 'longtask', buffered: true});
  document.addEventListener('click', e => { window.__p.click = e.timeStamp; }, true);
}"""


# the inline script of tools/sb_settle.js (far blocks left to the browser, then laid out a few
# milliseconds at a time), taken out for --ab's "before": everything laid out at once
SLICES = re.compile(r"<script>/\* A chapter.s far sections laid out after the page is shown.*?</script>", re.S)

# the page settled (sbSettle.settled resolved): performance.now() at that moment, else null
TYPESET_DONE = """() => new Promise(done => {
  if (!window.sbSettle) { done(null); return; }
  window.sbSettle.settled.then(() => done(performance.now()));
})"""


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the site; records (path, bytes sent); ``PRELUDE`` goes before the worker."""

    log: list = []
    PRELUDE = ""
    ONE_PASS = False          # serve the pages without tools/sb_settle.js (laid out at once)

    def log_message(self, *args):
        pass

    def _send(self, path: str, body: bytes, kind: str) -> None:
        """Answer with a rewritten file (the sizes log counts it like a served one)."""
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        type(self).log.append((path, len(body)))

    def do_GET(self):
        path = self.path.split("?")[0]
        if self.PRELUDE and path.endswith("/_live/sb_worker.js"):
            body = (self.PRELUDE + (SITE / "_live" / "sb_worker.js").read_text()).encode()
            return self._send(path, body, "text/javascript")
        if self.ONE_PASS and path.endswith(".html"):
            local = SITE / path.lstrip("/")
            if local.is_file():
                body = SLICES.sub("", local.read_text(encoding="utf-8")).encode()
                return self._send(path, body, "text/html; charset=utf-8")
        super().do_GET()

    def copyfile(self, source, outputfile):
        before = source.tell()
        super().copyfile(source, outputfile)
        type(self).log.append((self.path.split("?")[0], source.tell() - before))


def serve(prelude: str = "", one_pass: bool = False):
    handler = type("H", (Handler,), {"log": [], "PRELUDE": prelude, "ONE_PASS": one_pass})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(handler, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}", handler


def click_and_wait(page, name: str):
    button = page.locator(f'.sb-live-button[data-sb-experiment="{name}"]').first
    button.scroll_into_view_if_needed()
    button.click()
    player = button.locator("xpath=ancestor::div[contains(@class,'sb-frame-player')]")
    page.wait_for_function("(p) => p.getAttribute('data-sb-live')", arg=player.element_handle(),
                           timeout=180_000)
    if player.get_attribute("data-sb-live") != "1":
        raise SystemExit(f"live mode of {name} failed to start: {button.inner_text()}")
    root = player.locator(".sb-live")
    return root.evaluate("""r => ({first: r.sbLive.firstFrameAt - window.__p.click,
        create: r.sbLive.createMs, at: r.sbLive.firstFrameAt, boot: window.sbLive.bootTimes,
        marks: window.sbLive.bootMarks,
        progress: r.closest('.sb-frame-player').getAttribute('data-sb-progress'),
        profiles: window.__p.profiles})""")


def long_tasks(page, t0: float, t1: float) -> list[float]:
    return page.evaluate("([a, b]) => window.__p.longtasks.filter(e => e.start >= a && e.start <= b)"
                         ".map(e => Math.round(e.duration))", [t0, t1])


def cold(browser, rel: str, name: str, prelude: str) -> dict:
    server, url, handler = serve(prelude)
    guard = NetworkGuard()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    ctx.route("**/*", guard.route)          # routing turns the HTTP cache off: cold
    try:
        page = ctx.new_page()
        page.add_init_script(f"({WATCH})()")
        page.goto(f"{url}/{rel}", wait_until="load")
        handler.log.clear()
        got = click_and_wait(page, name)
        got["tasks"] = long_tasks(page, page.evaluate("() => window.__p.click"), got["at"])
        got["files"] = list(handler.log)
    finally:
        ctx.close()
        server.shutdown()
    if guard.blocked:
        raise SystemExit(f"the page reached for the network: {guard.blocked}")
    return got


def page_load(browser, rel: str, one_pass: bool) -> dict:
    """A page opened in a fresh context (live mode never run here: no warm start): the
    main-thread long tasks until the page has settled and 0.5 s after, and when it was done."""
    server, url, handler = serve(one_pass=one_pass)
    guard = NetworkGuard()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    ctx.route("**/*", guard.route)
    try:
        page = ctx.new_page()
        page.add_init_script(f"({WATCH})()")
        page.goto(f"{url}/{rel}", wait_until="load")
        done = page.evaluate(TYPESET_DONE)
        page.wait_for_timeout(500)
        got = {"done": done, "tasks": long_tasks(page, 0, 1e12),
               "mjx": page.evaluate("() => document.querySelectorAll('mjx-container').length")}
    finally:
        ctx.close()
        server.shutdown()
    if guard.blocked:
        raise SystemExit(f"the page reached for the network: {guard.blocked}")
    return got


def second(pw, first: tuple[str, str], then: tuple[str, str], one_pass: bool = False) -> dict:
    server, url, handler = serve(one_pass=one_pass)
    with tempfile.TemporaryDirectory() as profile:
        ctx = pw.chromium.launch_persistent_context(
            profile, executable_path=str(ensure_browser.ensure_full()), headless=True,
            args=CHROMIUM_ARGS + ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
            service_workers="block", viewport={"width": 1280, "height": 900})
        try:
            page = ctx.new_page()
            page.add_init_script(f"({WATCH})()")
            page.goto(f"{url}/{first[0]}", wait_until="load")
            click_and_wait(page, first[1])
            # a page read before the click: the warm start's long tasks until it is ready
            page.goto(f"{url}/{then[0]}", wait_until="load")
            page.wait_for_function("() => window.sbLive && window.sbLive.warmState === 'ready'",
                                   timeout=180_000)
            ready = page.evaluate("() => performance.now()")
            done = page.evaluate(TYPESET_DONE)
            warm = {"ready": ready, "tasks": long_tasks(page, 0, 1e12), "typeset": done}
            # the same page clicked as soon as it has loaded
            handler.log.clear()
            page.goto(f"{url}/{then[0]}", wait_until="load")
            got = click_and_wait(page, then[1])
            got["warm"] = warm
            got["resent"] = [p for p, n in handler.log if n > 1_000_000]
        finally:
            ctx.close()
            server.shutdown()
    return got


#: Node.js script for --cpu: SITE NAME CHANGES; prints one JSON line
CPU_SCRIPT = r"""
import fs from "node:fs"; import path from "node:path"; import zlib from "node:zlib";
import { pathToFileURL } from "node:url";
const [site, name, changes] = process.argv.slice(2);
const live = path.join(site, "_live"), pyd = path.join(site, "_pyodide");
globalThis.self = globalThis;
(0, eval)(fs.readFileSync(path.join(live, "sb_tar.js"), "utf8"));
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const out = { phases: {}, controls: {} };
let t = cpu();
const lap = (k) => { const n = cpu(); out.phases[k] = n - t; t = n; };
const { loadPyodide } = await import(pathToFileURL(path.join(pyd, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: pyd + "/", lockFileURL: path.join(live, "sb-lock.json"),
  stdLibURL: path.join(live, "python_stdlib_pyc.zip"), fullStdLib: false,
  stdout: () => {}, stderr: (s) => console.error(s) });
lap("start Python");
const tar = zlib.gunzipSync(fs.readFileSync(path.join(live, "sb_site.tar.gz")));
self.sbInstall(py.FS, self.sbUntar(new Uint8Array(tar)), "/");
py.unpackArchive(new Uint8Array(fs.readFileSync(path.join(live, "sb_packages.zip"))).slice(),
                 "zip", { extractDir: "/home/pyodide/sb" });
lap("unpack");
const worker = fs.readFileSync(path.join(live, "sb_worker.js"), "utf8");
const BOOT = (0, eval)(worker.match(/var BOOT = (\[[\s\S]*?\n\]);/)[1]);
let L;
for (const part of BOOT) { L = py.runPython(part[1].join("\n")); lap("imports: " + part[0]); }
const info = JSON.parse(L.create(name, false, "{}", 1)), specs = info.controls;
lap("first drawing (create at the defaults)");
let s = 1;
const rnd = () => (s = (s * 16807) % 2147483647) / 2147483647;
for (const c of specs) {
  if (c.kind === "player") { continue; }
  const ts = [];
  for (let i = 0; i < +changes; i++) {
    const v = c.kind === "slider"
      ? +(c.min + Math.round(rnd() * (c.max - c.min) / c.step) * c.step).toFixed(10)
      : c.options[Math.floor(rnd() * c.options.length)];
    const a = cpu();
    L.update(info.handle, JSON.stringify({ [c.name]: v }));
    const px = L.pixels(info.handle), b = px.getBuffer("u8clamped");
    new Uint8ClampedArray(b.data); b.release(); px.destroy();
    ts.push(cpu() - a);
  }
  L.update(info.handle, JSON.stringify({ [c.name]: c.value }));
  out.controls[c.name] = ts;
}
console.log(JSON.stringify(out));
"""


def cpu_run(names: list[str], changes: int) -> None:
    """--cpu: each experiment in a fresh Pyodide under Node.js (see the module docstring)."""
    import json
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        raise SystemExit("--cpu needs Node.js (node) on the PATH")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "cpu_live.mjs"
        script.write_text(CPU_SCRIPT)
        for name in names:
            run = subprocess.run([node, str(script), str(SITE), name, str(changes)],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                raise SystemExit(f"--cpu {name} failed:\n{run.stderr[-2000:]}")
            got = json.loads(run.stdout.strip().splitlines()[-1])
            print(f"{name}: CPU ms " + ", ".join(f"{k} {v:.0f}" for k, v in got["phases"].items()))
            for c, ts in got["controls"].items():
                ts = sorted(ts)
                p95 = ts[min(len(ts) - 1, round(0.95 * (len(ts) - 1)))]
                print(f"  {name}.{c}: CPU p50 {statistics.median(ts):.1f} ms, p95 {p95:.1f} ms")


def importtime(lines: list[str], top: int = 25) -> str:
    rows = []
    for line in "\n".join(lines).splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), len(m.group(3)) // 2, m.group(4)))
    total = sum(r[1] for r in rows if r[2] == 0)
    out = [f"  imports: {len(rows)} modules, {total / 1e3:.0f} ms in all (top level cumulative)"]
    out.append("  most by themselves (self ms, cumulative ms):")
    out += [f"    {s / 1e3:7.1f} {c / 1e3:8.1f}  {n}" for s, c, _, n in sorted(rows, reverse=True)[:top]]
    out.append("  each package's top-level import (cumulative ms):")
    out += [f"    {c / 1e3:8.1f}  {n}" for s, c, d, n in sorted((r for r in rows if r[2] == 0),
                                                            key=lambda r: -r[1])[:top]]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--page", default="chapters/ch03_screw_axis.html")
    ap.add_argument("--name", default="screw_axis")
    ap.add_argument("--second", default="chapters/ch11_chain_dynamics.html")
    ap.add_argument("--second-name", default="bifold_door")
    ap.add_argument("--importtime", action="store_true")
    ap.add_argument("--profile-create", action="store_true")
    ap.add_argument("--no-second", action="store_true")
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--page-load", action="store_true",
                    help="long tasks at page load (no live mode) on --page and --second")
    ap.add_argument("--cpu", nargs="+", metavar="NAME",
                    help="no browser: the worker's steps in Pyodide under Node.js, CPU time")
    ap.add_argument("--changes", type=int, default=20, help="--cpu: changes per control")
    ap.add_argument("--ab", action="store_true",
                    help="also the pages laid out at once (without sb_settle.js), alternating")
    args = ap.parse_args(argv)
    if args.cpu:
        cpu_run(args.cpu, args.changes)
        return 0
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(ensure_browser.ensure_full()), headless=True,
                                     args=CHROMIUM_ARGS)
        firsts = []
        kinds = [False, True] if args.ab else [False]       # one_pass: without sb_settle.js
        label = {False: "slices", True: "one pass"}
        if args.page_load:
            for i in range(args.runs):
                for rel in (args.page, args.second):
                    for one_pass in kinds:
                        got = page_load(browser, rel, one_pass)
                        print(f"page load {rel} ({label[one_pass]}): settled "
                              f"{(got['done'] or 0) / 1e3:.2f} s after navigation, "
                              f"{got['mjx']} formulas; long tasks {got['tasks']} ms", flush=True)
        for i in range(0 if args.no_cold else args.runs):
            prelude = ((IMPORTTIME_PRELUDE if args.importtime else "")
                       + (CREATE_PRELUDE if args.profile_create else ""))
            got = cold(browser, args.page, args.name, prelude)
            boot = {k: v for k, v in got["boot"].items() if not k.startswith("__")}
            firsts.append(got["first"])
            print(f"cold {i + 1}: click -> first frame {got['first'] / 1e3:.2f} s; "
                  + ", ".join(f"{k} {v / 1e3:.2f}" for k, v in boot.items())
                  + f", first drawing (create) {got['create'] / 1e3:.2f} s; long tasks "
                  f"{got['tasks']} ms", flush=True)
            print("  worker's marks (s from its start): " + ", ".join(
                f"{k} {v / 1e3:.2f}" for k, v in sorted(got["marks"].items(), key=lambda kv: kv[1])))
            if i == 0:
                big = sorted(got["files"], key=lambda f: -f[1])
                print("  sent: " + ", ".join(f"{Path(p).name} {n / 1e6:.2f} MB" for p, n in big
                                             if n > 50_000)
                      + f"; {sum(n for _, n in big) / 1e6:.1f} MB in {len(big)} files")
            if "__importtime" in got["boot"]:
                Path("/tmp/s33_importtime.txt").write_text("\n".join(got["boot"]["__importtime"]))
                print(importtime(got["boot"]["__importtime"]))
            for text in got["profiles"]:
                print(text)
        if firsts:
            print(f"cold median {statistics.median(firsts) / 1e3:.2f} s over {len(firsts)}")
        for one_pass in (kinds if not args.no_second else []):
            got = second(pw, (args.page, args.name), (args.second, args.second_name), one_pass)
            boot = {k: v for k, v in got["boot"].items() if not k.startswith("__")}
            print(f"warm start of {args.second} ({label[one_pass]}; read before the click): ready "
                  f"{got['warm']['ready'] / 1e3:.2f} s after navigation, settled "
                  f"{(got['warm']['typeset'] or 0) / 1e3:.2f} s; main-thread long tasks "
                  f"{got['warm']['tasks']} ms")
            print(f"second page clicked at its load: click -> first frame {got['first'] / 1e3:.2f}"
                  f" s; " + ", ".join(f"{k} {v / 1e3:.2f}" for k, v in boot.items())
                  + f", create {got['create'] / 1e3:.2f} s; big files sent again: "
                  f"{got['resent'] or 'none'}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
