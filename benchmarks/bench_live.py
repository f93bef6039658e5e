"""Live mode in headless Chromium, network blocked: the two figures of its targets.

* click to first live frame, cold cache (a fresh browser context each run, so nothing of
  Pyodide is in the HTTP or code cache): median over ``--runs`` (default 3) clicks;
* control change to new pixels, per experiment: from the control's ``input`` event to the
  blitted RGBA pixels written into the page's canvas (``putImageData`` done), median over
  ``--changes`` (default 30) changes of each control in turn.

Targets: first frame <= 6 s, a change <= 50 ms.  ``--phone`` measures the same at a phone's
width (390 px), where live mode draws each experiment's narrow layout.  Needs the built book with live mode staged
(``make book``); run ``.venv/bin/python benchmarks/bench_live.py``.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from browser_support import CHROMIUM_ARGS, SITE, NetworkGuard, _Quiet, ensure_browser  # noqa: E402
from test_live import JS_INFO, JS_SET, live_pages, start_live, wait_update  # noqa: E402

FIRST_FRAME_TARGET_S = 6.0
CHANGE_TARGET_MS = 50.0


def serve(site: Path):
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def viewport(phone: bool) -> dict:
    """A wide screen, or a phone (390 x 844 CSS px, 2x): the narrow layout."""
    if phone:
        return {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
                "is_mobile": True, "has_touch": True}
    return {"viewport": {"width": 1280, "height": 900}}


def first_frame_seconds(browser, site_url: str, rel: str, name: str,
                        phone: bool = False) -> tuple[float, dict]:
    guard = NetworkGuard()
    ctx = browser.new_context(**viewport(phone), service_workers="block")
    ctx.route("**/*", guard.route)
    page = ctx.new_page()
    page.add_init_script("document.addEventListener('click', e => { window.__sbClick = e.timeStamp; }, true)")
    try:
        root, _ = start_live(page, site_url, rel, name, phone=phone)
        ms = root.evaluate("r => r.sbLive.firstFrameAt - window.__sbClick")
        boot = root.evaluate("() => window.sbLive.bootTimes")
    finally:
        ctx.close()
    if guard.blocked:
        raise SystemExit(f"bench_live: the page reached for the network: {guard.blocked}")
    return ms / 1000.0, boot


def change_ms(page, root, controls, changes: int) -> list[float]:
    """Move each slider/choice in turn (``changes`` in all) and collect the adapter's timings."""
    from widgets import Choice, Slider

    root.evaluate("r => { r.sbLive.times.length = 0; }")
    movable = [c for c in controls if isinstance(c, (Slider, Choice))]
    for i in range(changes):
        c = movable[i % len(movable)]
        if isinstance(c, Slider):
            steps = int(round((c.max - c.min) / c.step))
            value = float(round(c.min + ((7 * i + 3) % (steps + 1)) * c.step, 10))
        else:
            value = c.options[i % len(c.options)]
        n0 = root.evaluate(JS_INFO)["updates"]
        current = root.evaluate(JS_INFO)["values"][c.name]
        if current == value:
            continue
        page.evaluate(JS_SET, [root.element_handle(), {c.name: value}])
        wait_update(page, root, n0)
    return root.evaluate("r => r.sbLive.times.slice()")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="cold-cache clicks (default 3)")
    ap.add_argument("--changes", type=int, default=30, help="changes per experiment (default 30)")
    ap.add_argument("--only", nargs="*", help="experiments to time (default: all shown)")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-cache clicks")
    ap.add_argument("--phone", action="store_true",
                    help="at a phone's width (390 px): the experiments' narrow layout")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from widgets import EXPERIMENTS

    pages = live_pages()
    if not pages or not (SITE / "_pyodide" / "pyodide.asm.wasm").is_file():
        print(f"bench_live: no live mode in {SITE} (build the book with the distribution staged)")
        return 1
    server, url = serve(SITE)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(ensure_browser.ensure()), headless=True,
                                     args=CHROMIUM_ARGS)
        name = "screw_axis" if "screw_axis" in pages else sorted(pages)[0]
        firsts = []
        for _ in range(0 if args.no_cold else args.runs):
            s, boot = first_frame_seconds(browser, url, pages[name], name, args.phone)
            firsts.append(s)
            print(f"  cold click to first live frame ({name}): {s:.2f} s  "
                  + ", ".join(f"{k} {v / 1000:.2f} s" for k, v in boot.items()), flush=True)
        rows = []
        guard = NetworkGuard()
        ctx = browser.new_context(**viewport(args.phone), service_workers="block")
        ctx.route("**/*", guard.route)
        for exp_name in sorted(args.only or pages):
            page = ctx.new_page()
            root, _ = start_live(page, url, pages[exp_name], exp_name, phone=args.phone)
            times = change_ms(page, root, EXPERIMENTS[exp_name].CONTROLS, args.changes)
            rows.append((exp_name, statistics.median(times), max(times), len(times)))
            if args.only:                       # per control, for a closer look
                for c in EXPERIMENTS[exp_name].CONTROLS:
                    if hasattr(c, "options") or c.__class__.__name__ == "Slider":
                        t = change_ms(page, root, (c,), max(6, args.changes // 3))
                        print(f"  {exp_name}.{c.name}: median {statistics.median(t):.1f} ms")
            page.close()
        ctx.close()
        browser.close()
    server.shutdown()
    if firsts:
        first = statistics.median(firsts)
        print(f"\nclick to first live frame, cold cache: median {first:.2f} s over {len(firsts)} "
              f"runs (target <= {FIRST_FRAME_TARGET_S:.0f} s) "
              f"{'ok' if first <= FIRST_FRAME_TARGET_S else 'OVER'}")
    print(f"\n{'experiment':18s} {'median ms':>10s} {'max ms':>8s} {'changes':>8s}"
          f"   ({'phone, 390 px: narrow layout' if args.phone else 'wide screen, 1280 px'})")
    for exp_name, med, worst, n in rows:
        flag = "ok" if med <= CHANGE_TARGET_MS else "OVER"
        print(f"{exp_name:18s} {med:10.1f} {worst:8.1f} {n:8d}  {flag}")
    print(f"(control change to new pixels; target <= {CHANGE_TARGET_MS:.0f} ms median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
