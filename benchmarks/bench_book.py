"""Benchmark of the book: build time, nbval time, and the weight of each built chapter page.

    .venv/bin/python benchmarks/bench_book.py              # build + nbval + page weights
    .venv/bin/python benchmarks/bench_book.py --no-nbval   # skip the (slow) nbval run
    .venv/bin/python benchmarks/bench_book.py --no-build   # weigh the existing build only

Page weight = the HTML file (which holds the static experiments' frames as inline base64
images) plus the local images it references (matplotlib outputs in _images/).  The shared
assets every page loads (theme CSS/JS, MathJax with its fonts) are printed once.
The JupyterLab slider latency is printed by tests/browser/test_jupyterlab.py.
"""

from __future__ import annotations

import argparse
import html.parser
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import build_book  # noqa: E402
import run_tests  # noqa: E402

HTML = ROOT / "book" / "_build" / "html"


class _Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img" and a.get("src") and not a["src"].startswith("data:"):
            self.images.append(a["src"])


def page_weight(page: Path) -> tuple[int, int, int]:
    """(total bytes, bytes of the HTML file, bytes of inline data-URI images in it)."""
    text = page.read_text(encoding="utf-8")
    refs = _Refs()
    refs.feed(text)
    # every data-URI image in the page: <img src> and the frame players' script arrays
    inline = sum(len(chunk.split('"', 1)[0]) for chunk in text.split("data:image/")[1:])
    total = len(text.encode("utf-8"))
    seen = set()
    for src in refs.images:
        path = (page.parent / unquote(urlparse(src).path)).resolve()
        if path.is_file() and path not in seen:
            seen.add(path)
            total += path.stat().st_size
    return total, len(text.encode("utf-8")), inline


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-nbval", action="store_true")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    if not args.no_build:
        t0 = time.perf_counter()
        rc = build_book.build(ROOT, quiet=True)
        print(f"book build (fresh, -W -n): {time.perf_counter() - t0:.1f} s"
              + ("" if rc == 0 else f"  [FAILED, exit {rc}]"))
    if not args.no_nbval:
        cmd = [sys.executable, "-m", "pytest", "-q", "--nbval", "--nbval-sanitize-with",
               "tests/notebooks/sanitize.cfg", "--nbval-cell-timeout=300",
               *run_tests.chapter_notebooks()]
        t0 = time.perf_counter()
        rc = subprocess.call(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        print(f"nbval (strict, {len(run_tests.chapter_notebooks())} chapters): "
              f"{time.perf_counter() - t0:.1f} s" + ("" if rc == 0 else f"  [FAILED, exit {rc}]"))
    if not (HTML / "index.html").is_file():
        print("no built site to weigh (book/_build/html)")
        return 1
    print("\npage weight (HTML incl. inline frames + its local images):")
    print(f"  {'page':42s} {'total KB':>9s} {'html KB':>8s} {'inline img KB':>14s}")
    for page in sorted((HTML / "chapters").glob("*.html")):
        total, html_bytes, inline = page_weight(page)
        print(f"  {page.relative_to(HTML).as_posix():42s} {total / 1024:9.0f} "
              f"{html_bytes / 1024:8.0f} {inline / 1024:14.0f}")
    static = dir_size(HTML / "_static")
    mathjax = dir_size(HTML / "mathjax") if (HTML / "mathjax").is_dir() else 0
    print(f"\nshared assets: _static {static / 1024:.0f} KB, mathjax {mathjax / 1024:.0f} KB "
          f"(tex-chtml.js {(HTML / 'mathjax' / 'tex-chtml.js').stat().st_size / 1024:.0f} KB);"
          f" whole site {dir_size(HTML) / 1024 / 1024:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
