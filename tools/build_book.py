"""Build the book (Jupyter Book 1.x) with warnings as errors, then check it works offline.

    .venv/bin/python tools/build_book.py            # what `make test` runs: strict, fresh build
    .venv/bin/python tools/build_book.py --open     # what `make book` runs: also say where to open it
    .venv/bin/python tools/build_book.py --allow-missing   # local work: skip toc entries not written yet

The build is ``jupyter-book build book/ --config jupyter_book.yml --all -W -n --keep-going``:
every warning (a broken {eq}, {term} or {ref} reference, an {eval} number without a fresh
stored result, a missing file) fails it.
The notebooks are not executed (their committed outputs are rendered).

After the build, the HTML is checked for anything fetched from the network at view time
(a <script src>, <link href>, <img src>, <iframe src> or CSS url() that is http(s)://... or
protocol-relative //...): any such reference fails the build, as does a missing MathJax copy
or a live ipywidget output left in a page (blank without a kernel; tag its cell remove-output).

``--allow-missing`` is only for local development while chapters are still being written: it
builds from a generated toc (in a temporary folder) that leaves out the entries whose files
do not exist yet, and prints which ones it skipped.  The default uses book/_toc.yml as it is.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sb_offline_assets  # noqa: E402  (beside this file: the math left raw, for the offline check)

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = (".ipynb", ".md", ".rst")

# A view-time network reference: attribute values and CSS url() starting with a scheme or //.
_EXTERNAL = re.compile(
    r"""<(?:script|link|img|iframe|source|video|audio|embed)\b[^>]*?\b(?:src|href)\s*=\s*["']?"""
    r"""((?:https?:)?//[^"'\s>]+)""", re.IGNORECASE)
_CSS_URL = re.compile(r"""url\(\s*["']?((?:https?:)?//[^"')\s]+)""", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"""@import\s+["']((?:https?:)?//[^"']+)""", re.IGNORECASE)


def find_doc(book: Path, name: str) -> Path | None:
    """The file behind a toc entry (``chapters/ch01``), whatever its suffix, or None."""
    for suffix in ("",) + SUFFIXES:
        p = book / f"{name}{suffix}"
        if p.is_file():
            return p
    return None


def toc_entries(toc: dict) -> list[str]:
    """Every ``file:`` of a jb-book toc, root first, in order."""
    out = [toc["root"]]

    def walk(items):
        for item in items or []:
            if "file" in item:
                out.append(item["file"])
            walk(item.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return out


def missing_entries(book: Path, toc_path: Path) -> list[str]:
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    return [name for name in toc_entries(toc) if find_doc(book, name) is None]


def pruned_toc(book: Path, toc_path: Path, dest: Path) -> tuple[Path, list[str]]:
    """Write a copy of the toc without entries whose files are missing; return (path, skipped)."""
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    skipped: list[str] = []

    def keep(items):
        kept = []
        for item in items or []:
            if "file" in item and find_doc(book, item["file"]) is None:
                skipped.append(item["file"])
                continue
            if "sections" in item:
                item = dict(item, sections=keep(item["sections"]))
                if not item["sections"]:
                    item.pop("sections")
            kept.append(item)
        return kept

    if find_doc(book, toc["root"]) is None:
        raise SystemExit(f"build_book: the root page {toc['root']!r} does not exist")
    if "parts" in toc:
        parts = []
        for part in toc["parts"]:
            chapters = keep(part.get("chapters"))
            if chapters:
                parts.append(dict(part, chapters=chapters))
        toc = dict(toc, parts=parts)
    if "chapters" in toc:
        toc = dict(toc, chapters=keep(toc["chapters"]))
    dest.write_text(yaml.safe_dump(toc, sort_keys=False), encoding="utf-8")
    return dest, skipped


def external_references(html_dir: Path) -> list[str]:
    """Every view-time network reference in the built site, as 'file: url' strings."""
    found = []
    for path in sorted(html_dir.rglob("*")):
        if path.suffix not in (".html", ".css") or "_sources" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        patterns = (_EXTERNAL, _CSS_URL, _CSS_IMPORT) if path.suffix == ".html" else (_CSS_URL, _CSS_IMPORT)
        for pattern in patterns:
            for m in pattern.finditer(text):
                found.append(f"{path.relative_to(html_dir)}: {m.group(1)}")
    return found


#: a font of a page's inline math stylesheet (tools/sb_math_render.js), relative to the page
_MATH_FONT = re.compile(r'url\("([^":]+\.woff)"\)')


def offline_problems(html_dir: Path) -> list[str]:
    problems = [f"network reference {r}" for r in external_references(html_dir)]
    if not (html_dir / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir():
        problems.append("MathJax fonts missing (mathjax/output/chtml/fonts/woff-v2)")
    for page in sorted(html_dir.rglob("*.html")):
        if "_sources" in page.parts or page.relative_to(html_dir).parts[0] == "lite":
            continue
        text = page.read_text(encoding="utf-8", errors="replace")
        rel = page.relative_to(html_dir)
        if "application/vnd.jupyter.widget-view+json" in text:
            problems.append(f"{rel}: a live ipywidget output was rendered "
                            "(it is blank without a kernel): tag that cell remove-output")
        # the math typeset at build time (tools/sb_offline_assets.py): none left raw, no
        # MathJax loaded in the browser, and the fonts its stylesheet names are in the site
        if sb_offline_assets.RAW_MATH.search(text):
            problems.append(f"{rel}: math left untypeset (raw TeX)")
        if "mathjax/tex-chtml.js" in text:
            problems.append(f"{rel}: loads MathJax in the browser (its math should be typeset)")
        for font in sorted(set(_MATH_FONT.findall(text))):
            if not (page.parent / font).is_file():
                problems.append(f"{rel}: math font {font} missing")
        # the theme's icons drawn into the page (sb_offline_assets.inline_icons), not by a script
        if not set(rel.parts) & sb_offline_assets.NOT_PAGES and (
                sb_offline_assets.FA_SCRIPT.search(text) or sb_offline_assets.ICON.search(text)):
            problems.append(f"{rel}: loads FontAwesome's script or keeps an icon for it to draw")
    if not (html_dir / "index.html").is_file():
        problems.append("index.html missing")
    return problems


def jupyter_book_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("jupyter-book")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("jupyter-book")
    if found:
        return [found]
    return [sys.executable, "-m", "jupyter_book.cli.main"]


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in ("darwin", "win32")


def try_open(index: Path) -> None:
    """Open the page in a browser only when a display exists; never block."""
    if not has_display():
        return
    url = index.resolve().as_uri()
    opener = shutil.which("xdg-open") if sys.platform.startswith("linux") else None
    try:
        if opener:
            subprocess.Popen([opener, url], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        else:
            import threading
            import webbrowser
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    except OSError:
        pass


def build(root: Path = ROOT, allow_missing: bool = False, incremental: bool = False,
          quiet: bool = False) -> int:
    book = root / "book"
    config = root / "jupyter_book.yml"
    toc_path = book / "_toc.yml"
    html_dir = book / "_build" / "html"
    cmd = jupyter_book_cmd() + ["build", str(book), "--config", str(config),
                                "-W", "-n", "--keep-going"]
    if not incremental:
        cmd.append("--all")
        # a fresh build starts from an empty output folder: no stale page of a renamed chapter
        for stale in (html_dir, book / "_build" / ".doctrees"):
            if stale.is_dir():
                shutil.rmtree(stale)
    if quiet:
        cmd.append("-q")
    tmp = None
    missing = missing_entries(book, toc_path)
    if missing and not allow_missing:
        print("build_book: these toc entries have no file yet (the build will fail):\n  "
              + "\n  ".join(missing), file=sys.stderr)
    if allow_missing and missing:
        tmp = tempfile.TemporaryDirectory(prefix="sb_toc_")
        toc_file, skipped = pruned_toc(book, toc_path, Path(tmp.name) / "_toc.yml")
        cmd += ["--toc", str(toc_file)]
        print("build_book --allow-missing: skipping not-yet-written entries: " + ", ".join(skipped))
    t0 = time.perf_counter()
    print("$ " + " ".join(cmd), flush=True)
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    rc = subprocess.call(cmd, cwd=root, env=env)
    seconds = time.perf_counter() - t0
    try:
        return _after(root, html_dir, book, rc, seconds,
                      toc_file if tmp is not None else None, incremental, quiet)
    finally:
        if tmp is not None:
            tmp.cleanup()


def _after(root: Path, html_dir: Path, book: Path, rc: int, seconds: float, toc: Path | None,
           incremental: bool, quiet: bool) -> int:
    if rc != 0:
        print(f"build_book: jupyter-book FAILED (exit {rc}) after {seconds:.1f} s", file=sys.stderr)
        return rc or 1
    problems = offline_problems(html_dir)
    if problems:
        print("build_book: the built site is not self-contained:\n  " + "\n  ".join(problems),
              file=sys.stderr)
        return 1
    print(f"build_book: built in {seconds:.1f} s, offline check passed")
    lite(html_dir, book)
    return chinese(root, html_dir, toc, incremental, quiet)


def chinese(root: Path, html_dir: Path, toc: Path | None, incremental: bool, quiet: bool) -> int:
    """The Chinese edition in ``html_dir/zh/`` (tools/zh_edition.py), when the book has
    catalogues: strict, sharing the English site's heavy files; then its finished pages'
    check.  Prints the time and the bytes it added."""
    sys.path.insert(0, str(ROOT / "tools"))
    import lite_pages
    import zh_edition

    if not zh_edition.has_catalogues(root / "book"):
        return 0
    t0, c0 = time.perf_counter(), _children_cpu()
    rc = zh_edition.build(root, toc, incremental, quiet)
    seconds, cpu = time.perf_counter() - t0, _children_cpu() - c0
    zh = html_dir / zh_edition.SUBDIR
    if rc != 0:
        print(f"build_book: the Chinese edition FAILED (exit {rc}) after {seconds:.1f} s", file=sys.stderr)
        return rc
    problems = offline_problems(html_dir)
    if not (html_dir / "lite" / "jupyter-lite.json").is_file() and (zh / "chapters").is_dir():
        lite_pages.strip_links(zh)
    problems += zh_edition.html_problems(html_dir, root / "book")
    if problems:
        print("build_book: the Chinese edition:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print(f"build_book: Chinese edition built in {seconds:.1f} s ({cpu:.1f} s CPU), "
          f"{zh_edition.site_bytes(zh) / 1e6:.1f} MB in {zh.relative_to(root)}, "
          f"{len(zh_edition.finished(root / 'book'))} finished page(s) checked")
    return 0


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def lite(html_dir: Path, book: Path) -> None:
    """The JupyterLite site in ``html_dir/lite`` (tools/lite_site.py); without it (it says why)
    the chapter pages lose their "Edit in your browser" links and the book reads as before."""
    sys.path.insert(0, str(ROOT / "tools"))
    import lite_pages
    import lite_site

    if (html_dir / "chapters").is_dir() and lite_site.build(html_dir, book) is not None:
        lite_pages.strip_links(html_dir)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--open", action="store_true",
                    help="print where to open the book and open it if a display is available")
    ap.add_argument("--allow-missing", action="store_true",
                    help="LOCAL DEVELOPMENT ONLY: build without toc entries whose files are missing")
    ap.add_argument("--incremental", action="store_true",
                    help="rebuild only changed pages (faster; may hide warnings of unchanged pages)")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="repository root holding jupyter_book.yml and book/ (default: this repo)")
    ap.add_argument("-q", "--quiet", action="store_true", help="less Sphinx output")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    rc = build(root, allow_missing=args.allow_missing, incremental=args.incremental, quiet=args.quiet)
    index = root / "book" / "_build" / "html" / "index.html"
    if rc == 0 and args.open:
        print(f"\nThe book is built. Open it in a browser:\n\n    {index.resolve().as_uri()}\n"
              f"\nLive mode (the Run live buttons) needs it served over http: make serve, then"
              f"\nopen http://127.0.0.1:8000/ (from file:// only the precomputed frames work);"
              f"\nso does \"Edit in your browser\" (the chapters in the site's JupyterLite, lite/)")
        try_open(index)
    return rc


if __name__ == "__main__":
    sys.exit(main())
