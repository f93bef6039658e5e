"""The Chinese edition (issue 36): built by ``tools/build_book.py`` into ``book/_build/html/zh/``.

The same sources and ``jupyter_book.yml`` with ``language = "zh_CN"`` (the theme's navigation and
search in Chinese, ``<html lang="zh-CN">``) and Sphinx's gettext catalogues
``book/locale/zh_CN/LC_MESSAGES/<page>.po`` (``tools/i18n.py``): a message without a finished
translation is shown in English, and its page says so at the top (``tools/sb_editions.py``).
The pages share the English site's heavy files (``mathjax/``, ``_live/``, ``_pyodide/``,
``_sb_frames/``, ``lite/``): nothing of them is copied into ``zh/``.  Warnings are errors,
as in the English build.

After the build, :func:`html_problems` reads the finished pages (``book/locale/zh_CN/FINISHED``
and every page whose catalogue is fully translated): each paragraph, heading, list item,
table cell, term and admonition must show Chinese text unless it holds only mathematics,
code, numbers or names, and no raw MyST (``{eval}``, ``{term}``, ``{eq}``, fences,
``$$``) may be visible.

    .venv/bin/python tools/zh_edition.py check      # the built Chinese pages (after make book)
"""

from __future__ import annotations

import html as htmllib
import json
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from sb_editions import LANG, catalogue_state, finished_pages, theme_in_english  # noqa: E402
from i18n import CJK as _CJK  # noqa: E402  (Chinese characters, full-width punctuation)

SUBDIR = "zh"
#: the site's own texts that are configuration, not page text (the navigation's texts are
#: Sphinx's and the theme's own Chinese translations)
UI = {
    "search_bar_text": "搜索本书……",
    "extra_footer": "可离线阅读：公式、图和预先计算的实验无需网络，也无需内核。",
}
TITLE = "Spatial Vectors for Rigid-Body Dynamics"


def locale(book: Path) -> Path:
    return book / "locale" / LANG / "LC_MESSAGES"


def book_title(book: Path, english: str) -> str:
    """The book's title in Chinese, from the root page's catalogue (else the English)."""
    po = locale(book) / "intro.po"
    if not po.is_file():
        return english
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        m = read_po(f, locale=LANG).get(english)
    return m.string if m is not None and m.string and not m.fuzzy else english


#: a run of Han characters (jieba's own dictionary words are such runs)
_HAN = re.compile(r"[\u4e00-\u9fff]{2,}")


def search_terms(book: Path) -> list[str]:
    """The glossary's Chinese names (each entry's first line, its alternates in brackets too),
    as runs of Han characters: the words the Chinese search must find whole.  Sphinx's Chinese
    search cuts the text with jieba, whose own dictionary splits 运动旋量 into 运动 / 旋量; given
    these as a user dictionary (``html_search_options``'s ``dict``) it keeps them whole, and its
    ``cut_for_search`` still indexes the parts."""
    glossary = book / "glossary.md"
    if not glossary.is_file():
        return []
    names = re.findall(r"^\S[^\n]*\n  ([^\n.]+?)[.．]", glossary.read_text(encoding="utf-8"), re.M)
    return sorted({t for name in names for t in _HAN.findall(name)})


def write_config(root: Path, dest: Path) -> Path:
    """``jupyter_book.yml`` for the Chinese edition, written to ``dest``."""
    config = yaml.safe_load((root / "jupyter_book.yml").read_text(encoding="utf-8"))
    book = root / "book"
    config["title"] = book_title(book, config.get("title", TITLE))
    config.setdefault("html", {})["extra_footer"] = UI["extra_footer"]
    sphinx = config.setdefault("sphinx", {})
    sphinx["local_extensions"] = {name: str((root / path).resolve())
                                  for name, path in (sphinx.get("local_extensions") or {}).items()}
    # the code-drawn text (answer boxes, players, live and lite bars) from its own catalogue
    sphinx["local_extensions"]["zh_strings"] = str((root / "tools").resolve())
    conf = sphinx.setdefault("config", {})
    conf["language"] = LANG
    # relative to zh/_static/: the English site's copy (tools/sb_offline_assets.py)
    conf["mathjax_path"] = "../../mathjax/tex-chtml.js"
    conf.setdefault("html_theme_options", {})["search_bar_text"] = UI["search_bar_text"]
    dest.parent.mkdir(parents=True, exist_ok=True)
    # the search index: jieba cuts the Chinese text, the glossary's terms kept whole
    terms = dest.parent / "search_terms.txt"
    terms.write_text("".join(f"{t}\n" for t in search_terms(book)), encoding="utf-8")
    conf["html_search_options"] = {"dict": str(terms.resolve())}
    dest.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return dest


def has_catalogues(book: Path) -> bool:
    return any(locale(book).rglob("*.po")) if locale(book).is_dir() else False


def build(root: Path, toc: Path | None = None, incremental: bool = False, quiet: bool = False) -> int:
    """Build the Chinese edition into ``book/_build/html/zh/`` (strict); the exit code."""
    book = root / "book"
    build_dir = book / "_build"
    out = build_dir / "html" / SUBDIR
    doctrees = build_dir / ".doctrees-zh"
    if not incremental:
        for stale in (out, doctrees):
            if stale.is_dir():
                import shutil

                shutil.rmtree(stale)
    config = write_config(root, build_dir / "_sb_zh" / "jupyter_book.yml")
    cmd = [sys.executable, str(Path(__file__).resolve()), "sphinx", str(book), str(out),
           str(doctrees), str(config), str(toc or book / "_toc.yml"),
           "all" if not incremental else "changed", "quiet" if quiet else "verbose"]
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    return subprocess.call(cmd, cwd=root, env=env)


def _sphinx(book: str, out: str, doctrees: str, config: str, toc: str, which: str, noise: str) -> int:
    """The Sphinx run itself (in its own process, like ``jupyter-book build``)."""
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(Path(book), Path(out), noconfig=True, path_config=config,
                          confoverrides={"external_toc_path": Path(toc).as_posix(), "nitpicky": True,
                                         "latex_individualpages": False},
                          doctreedir=Path(doctrees), force_all=which == "all",
                          quiet=noise == "quiet", warningiserror=True, keep_going=True)
    if isinstance(result, Exception):
        print(f"zh_edition: the Chinese build failed: {result}", file=sys.stderr)
        return 1
    return int(result or 0)


# ---------------------------------------------------------------- the built pages' check

#: raw MyST a reader must never see
RAW_MYST = re.compile(r"\{(?:eval|term|eq|ref|numref|doc|math|glue(?::\w+)?)\}`|```|:::|\$\$")
#: what may stand without Chinese: numbers, symbols, units and at most two other Latin words of
#: three letters or more (a formula's mD or I_C is no word)
#: (names such as "MuJoCo", "Modern Robotics", "MR 8.22"); more is English prose
_WORD = re.compile(r"[A-Za-z]{3,}")
UNITS = {"kg", "rad", "Hz", "mm", "cm", "ms",
         # the names a plain-text formula spells out (a docstring's "omega^T (m D) v_O")
         "omega", "theta", "alpha", "beta", "gamma", "delta", "lambda", "tau", "phi", "psi", "rho",
         "sin", "cos", "tan", "exp", "log", "sqrt", "diag", "det", "trace", "norm", "quat",
         "new", "old"}
MAX_NAME_WORDS = 2


def prose_without_chinese(text: str) -> bool:
    """Whether ``text`` (math and code left out) reads as words, not Chinese: more than
    :data:`MAX_NAME_WORDS` Latin words besides units, and no CJK character."""
    if _CJK.search(text):
        return False
    return len([w for w in _WORD.findall(text) if w not in UNITS]) > MAX_NAME_WORDS


#: the elements checked, and the classes whose content is not prose (math, code, outputs)
BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th", "dt", "caption"}
SKIP_CLASSES = {"math", "highlight", "cell_output", "output", "sb-frame-player", "headerlink",
                "pasted-text", "MathJax", "sb-live-bar", "sb-lite-bar", "sb-i18n-note",
                "sd-card", "toctree-wrapper", "footnote",
                "sig", "field-list"}   # API signatures and parameter lists: names and types


class _Blocks(HTMLParser):
    """The text of each checked element of the article (``<article>`` ... ``</article>``),
    with the text inside math, code and outputs left out; also the raw text, for raw MyST."""

    VOID = {"br", "img", "hr", "meta", "link", "input", "wbr", "source", "col"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []     # (tag, skipped)
        self.in_article = 0
        self.open: list[list] = []                  # [tag, texts, has_code]
        self.blocks: list[tuple[str, str, bool]] = []
        self.visible: list[str] = []
        self.untranslated = 0
        self._untr: list[list] = []                 # [stack depth, texts] of open untranslated

    def _skipping(self) -> bool:
        return any(skipped for _, skipped in self.stack)

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        if tag == "article":
            self.in_article += 1
        skipped = bool(classes & SKIP_CLASSES) or tag in ("code", "pre", "script", "style",
                                                         "math", "svg", "kbd")
        if self.in_article and not self._skipping() and "untranslated" in classes:
            self._untr.append([len(self.stack), []])
        self.stack.append((tag, skipped))
        if self.in_article and tag in BLOCKS and not self._skipping():
            self.open.append([tag, [], False])

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        while self.stack:
            t, _ = self.stack.pop()
            if self.open and self.open[-1][0] == t and t in BLOCKS and not self._skipping():
                block = self.open.pop()
                self.blocks.append((block[0], " ".join(block[1]).strip(), block[2]))
                if self.open:
                    self.open[-1][1].extend(block[1])
            if t == "article":
                self.in_article -= 1
            while self._untr and len(self.stack) <= self._untr[-1][0]:
                # Sphinx marks text it did not take from the catalogue; what Sphinx or napoleon
                # wrote in Chinese themselves (参数, 返回, 备注) is not English
                if not _CJK.search(" ".join(self._untr.pop()[1])):
                    self.untranslated += 1
            if t == tag:
                break

    def handle_data(self, data):
        if not self.in_article:
            return
        skipping = self._skipping()
        inside = self.stack[-1][0] if self.stack else ""
        if inside not in ("script", "style"):
            if not skipping:
                self.visible.append(data)
        if self.open and not skipping:
            self.open[-1][1].append(data)
        if not skipping:
            for entry in self._untr:
                entry[1].append(data)


def text_problems(page: str, html_text: str) -> list[str]:
    """Why a built Chinese page is not fully translated: blocks without Chinese text that are
    not only mathematics, code, numbers or names; passages Sphinx marked untranslated; raw
    MyST left in the visible text."""
    parser = _Blocks()
    parser.feed(html_text)
    problems = []
    for tag, text, _ in parser.blocks:
        words = re.sub(r"\s+", " ", text).strip()
        if not prose_without_chinese(words):
            continue
        problems.append(f"{page}: <{tag}> without Chinese text: {words[:80]!r}")
    if parser.untranslated:
        problems.append(f"{page}: {parser.untranslated} passage(s) shown in English "
                        "(class untranslated)")
    visible = htmllib.unescape("".join(parser.visible))
    for m in RAW_MYST.finditer(visible):
        problems.append(f"{page}: raw MyST visible: {visible[max(0, m.start() - 30):m.end() + 30]!r}")
    return problems


def finished(book: Path) -> list[str]:
    """The pages declared finished: listed in FINISHED, or every message translated."""
    pages = set(finished_pages(book))
    for po in sorted(locale(book).rglob("*.po")):
        page = str(po.relative_to(locale(book)).with_suffix(""))
        if catalogue_state(po)[2]:
            pages.add(page)
    return sorted(pages)


def search_problems(html_dir: Path, book: Path) -> list[str]:
    """The Chinese search index must hold the glossary's terms whole (jieba at work: without it
    Sphinx indexes only the Latin words of a Chinese page, and a reader's 空间速度 finds nothing)."""
    index = html_dir / SUBDIR / "searchindex.js"
    if not index.is_file():
        return [f"no search index {index.relative_to(html_dir)}"]
    text = index.read_text(encoding="utf-8")
    start = text.index("{")
    terms = json.loads(text[start:text.rindex("}") + 1]).get("terms", {})
    want = search_terms(book)
    missing = [t for t in want if t not in terms]
    if not any(_HAN.fullmatch(t) for t in terms):
        return ["the Chinese search index holds no Chinese word: Sphinx cuts Chinese text with "
                "jieba, which is not installed here (the book extra of pyproject.toml has it)"]
    if missing:
        return [f"the Chinese search index lacks {len(missing)} of the glossary's "
                f"{len(want)} terms: {missing[:8]}"]
    return []


def html_problems(html_dir: Path, book: Path) -> list[str]:
    """The check of the built Chinese edition's finished pages (``html_dir``: the site)."""
    zh = html_dir / SUBDIR
    problems = []
    for page in finished(book):
        path = zh / f"{page}.html"
        if not path.is_file():
            problems.append(f"{page}: no built Chinese page {path.relative_to(html_dir)}")
            continue
        text = path.read_text(encoding="utf-8")
        if '<html lang="zh-CN"' not in text:
            problems.append(f"{page}: the page is not marked lang=\"zh-CN\"")
        problems += text_problems(page, text)
        left = theme_in_english(text)
        if left:
            problems.append(f"{page}: the theme's labels or tooltips in English: {left}")
        problems += [f"{page}: a picture described in English: {alt[:80]!r} (draw it with "
                     "widgets.static_html.static_figure and its strings in zh_strings.STATIC_FIGURES)"
                     for alt in english_pictures(text)]
    return (problems + code_string_problems(html_dir, book) + figure_problems(html_dir)
            + search_problems(html_dir, book))


_IMG_ALT = re.compile(r'<img\b[^>]*\balt="([^"]*)"')


def english_pictures(page: str) -> list[str]:
    """The descriptions (alt) without Chinese of the pictures a Chinese page shows: every image
    but the English twin of a figure drawn in both languages (``<picture class="sb-figure-en">``,
    hidden on a Chinese page by the book's style sheet)."""
    out = []
    for m in _IMG_ALT.finditer(page):
        opened = page.rfind("<picture", 0, m.start())
        inside = opened > page.rfind("</picture>", 0, m.start())
        if inside and page.startswith('<picture class="sb-figure-en"', opened):
            continue
        alt = htmllib.unescape(m.group(1))
        if re.search(r"[A-Za-z]{3,}", alt) and not _CJK.search(alt):
            out.append(alt)
    return out


_FRAME_IMG = re.compile(r'<img class="sb-frame" id="(sb-fp-[0-9a-f]{12})-img" src="([^"]*)"')
_NARROW_FRAMES = re.compile(r'<div class="sb-frame-player" id="(sb-fp-[0-9a-f]{12})".*?'
                            r'<script type="application/json" class="sb-narrow-frames">(\[.*?\])',
                            re.S)


def figure_problems(html_dir: Path) -> list[str]:
    """Every Chinese page's frame players show the Chinese frames (``tools/zh_frames.py``): the
    picture on screen and the phone frames are not the English page's (every experiment's
    figure has text to translate: a player left English is a player the build did not
    recognise or a figure drawn without its translations; the figures' own check, no English
    text and no overlap, is tests/test_widget_text.py and tests/test_widget_overlaps.py)."""
    zh = html_dir / SUBDIR
    problems = []
    for path in sorted(zh.rglob("*.html")):
        rel = path.relative_to(zh)
        english = html_dir / rel
        if rel.parts[0] in ("_static", "_sources") or not english.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        if "sb-frame-player" not in text:
            continue
        en = english.read_text(encoding="utf-8")
        en_imgs, en_narrow = dict(_FRAME_IMG.findall(en)), dict(_NARROW_FRAMES.findall(en))
        narrow = dict(_NARROW_FRAMES.findall(text))
        for uid, src in _FRAME_IMG.findall(text):
            if en_imgs.get(uid) == src:
                problems.append(f"{rel.with_suffix('')}: player {uid} shows the English frames")
            elif uid in narrow and en_narrow.get(uid) == narrow[uid]:
                problems.append(f"{rel.with_suffix('')}: player {uid}'s phone frames are the "
                                "English ones")
    return problems


def code_string_problems(html_dir: Path, book: Path = ROOT / "book") -> list[str]:
    """Every Chinese page (finished or not): no code-drawn string in English (an answer box's
    question, label, button or message, a player's label, readout or picture description, a
    live or lite bar's text: ``tools/zh_strings.py``), and the code strings' catalogue complete."""
    from zh_strings import check as catalogue_problems
    from zh_strings import english_in_page

    zh = html_dir / SUBDIR
    catalogue = book / "locale" / LANG / "code_strings.po"
    problems = list(catalogue_problems(catalogue)) if catalogue.is_file() else []
    for path in sorted(zh.rglob("*.html")):
        page = str(path.relative_to(zh).with_suffix(""))
        if page.split("/")[0] in ("_static", "_sources"):
            continue
        problems += english_in_page(page, path.read_text(encoding="utf-8"))
    return problems


def site_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main(argv: list[str]) -> int:
    if argv[:1] == ["sphinx"]:
        return _sphinx(*argv[1:8])
    if argv[:1] == ["check"]:
        html_dir = ROOT / "book" / "_build" / "html"
        problems = html_problems(html_dir, ROOT / "book")
        for p in problems:
            print(p, file=sys.stderr)
        print(f"zh_edition: {len(finished(ROOT / 'book'))} finished page(s), {len(problems)} problems")
        return 1 if problems else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
