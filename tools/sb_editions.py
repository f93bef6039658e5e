"""Sphinx extension: the book's two editions, English and Chinese (issue 36).

Set up by ``tools/sb_offline_assets.py`` (the book's local extension).  The English site is
``book/_build/html/``; the Chinese one, built from the same sources with ``language = "zh_CN"``
and the catalogues ``book/locale/zh_CN/LC_MESSAGES/<page>.po`` (``tools/zh_edition.py``), is
``book/_build/html/zh/``.  This extension

* links every page to the same page of the other edition: a button in the article header
  (``sb-lang.html``, written by this extension into the build's template folder) with
  ``hreflang``, and ``<link rel="alternate" hreflang=...>`` in the head; plain relative links,
  so they work over http and from ``file://``;
* lets the Chinese edition share the English site's heavy files instead of copying them:
  :func:`shared_root` (``"../"`` in the Chinese edition) and :func:`shared_dir` are used by
  tools/sb_offline_assets.py (MathJax), tools/live_stage.py (``_live/``, ``_pyodide/``,
  ``_sb_frames/``) and tools/lite_pages.py (``lite/``);
* in the Chinese edition, counts per page the messages that fell back to English (no
  translation, or a fuzzy one: Sphinx leaves fuzzy messages out of the compiled catalogue),
  puts a note at the top of such a page, in Chinese and English, with a link to the English
  page, marks the English passages ``lang="en"``, and warns (so ``-W`` fails) when a page
  declared finished (listed in ``book/locale/zh_CN/FINISHED``, or whose catalogue has every
  message translated) has a message that fell back: the English changed since it was
  translated (run ``tools/i18n.py update`` and translate the fuzzy messages);
* in the Chinese edition, gives the theme's own labels and tooltips in Chinese
  (:data:`THEME_ZH`, :func:`translate_theme`): Sphinx's and the themes' catalogues leave
  "Link to this heading", "Toggle primary sidebar", "System Settings" and the like in English,
  and screen readers and tooltips read them out.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from sphinx.util import logging
from sphinx.util.nodes import extract_messages

logger = logging.getLogger(__name__)

LANG = "zh_CN"
#: the other edition's root, relative to this edition's root, and its language tag
OTHER = {"en": ("zh/", "zh-CN", "中文"), "zh": ("../", "en", "English")}
TEMPLATE = "sb-lang.html"
_TEMPLATE_TEXT = """{%- if sb_lang_href %}
<a class="btn btn-sm sb-lang-switch" href="{{ sb_lang_href }}" hreflang="{{ sb_lang_code }}" lang="{{ sb_lang_code }}" title="{{ sb_lang_title }}">{{ sb_lang_label }}</a>
{%- endif %}
"""
_TITLE = {"en": "本页的中文版 (the Chinese edition of this page)",
          "zh": "The English edition of this page (本页的英文原版)"}


def edition(config) -> str:
    """``"zh"`` in the Chinese build, else ``"en"``."""
    return "zh" if (config.language or "en").startswith("zh") else "en"


def shared_root(config) -> str:
    """Where the site's shared files (``_live/``, ``_pyodide/``, ``_sb_frames/``, ``mathjax/``,
    ``lite/``) are, relative to this edition's root."""
    return "../" if edition(config) == "zh" else ""


def shared_dir(app) -> Path:
    """The folder holding the shared files (the English site's root)."""
    out = Path(app.outdir).resolve()
    return out.parent if edition(app.config) == "zh" else out


def shared_pathto(app, pathto):
    """``pathto(name, 1)`` for a shared file, from the page being written."""
    root = shared_root(app.config)
    return lambda name, resource=1: pathto(root + name, 1)


def locale_dir(app) -> Path:
    return Path(app.srcdir) / "locale" / LANG / "LC_MESSAGES"


def finished_pages(srcdir: Path) -> set[str]:
    """The pages listed in ``book/locale/zh_CN/FINISHED`` (one a line, ``#`` comments)."""
    path = Path(srcdir) / "locale" / LANG / "FINISHED"
    if not path.is_file():
        return set()
    return {line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.split("#")[0].strip()}


def catalogue_state(po: Path) -> tuple[set[str], set[str], bool]:
    """(English messages with a finished translation, their translations, every message
    translated) of a page's catalogue."""
    if not po.is_file():
        return set(), set(), False
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, locale=LANG)
    done = [m for m in catalog if m.id and m.string and not m.fuzzy]
    total = sum(1 for m in catalog if m.id)
    return {m.id for m in done}, {m.string for m in done}, total > 0 and len(done) == total


def _config_inited(app, config) -> None:
    # beside the site, not in it: book/_build/_sb_templates_en, _sb_templates_zh
    folder = shared_dir(app).parent / ("_sb_templates_" + edition(config))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / TEMPLATE).write_text(_TEMPLATE_TEXT, encoding="utf-8")
    config.templates_path = [*config.templates_path, str(folder)]
    options = dict(config.html_theme_options or {})
    end = options.get("article_header_end", ["article-header-buttons.html"])
    end = [end] if isinstance(end, str) else list(end)
    if TEMPLATE not in end:
        options["article_header_end"] = [TEMPLATE, *end]
    config.html_theme_options = options
    if edition(config) == "zh":
        config.translation_progress_classes = "untranslated"
        _fast_chinese_search()


class _Terms(set):
    """Sphinx's Chinese search keeps the Latin words seen so far in a list and asks, for every
    word indexed, whether it is in that list: quadratic, 66 of the 203 s of a profiled Chinese
    build.  The same answers from a set."""

    def extend(self, words) -> None:
        self.update(words)


def _fast_chinese_search() -> None:
    """Index the Chinese edition with Sphinx's own ``SearchChinese``, its Latin words in a
    :class:`_Terms` set (same index, no quadratic look-up)."""
    import sphinx.search
    from sphinx.search.zh import SearchChinese

    class SearchChineseFast(SearchChinese):
        def init(self, options) -> None:
            super().init(options)
            self.latin_terms = _Terms()

    sphinx.search.languages["zh"] = SearchChineseFast


def _doctree_read(app, doctree) -> None:
    """Chinese edition: count the page's messages and those shown in English."""
    if edition(app.config) != "zh":
        return
    docname = app.env.docname
    ids, strings, _ = catalogue_state(locale_dir(app) / f"{docname}.po")
    _translate_captions(app, doctree, docname)
    total = english = 0
    shown = []
    for node, msg in extract_messages(doctree):
        total += 1
        if node.get("translated") or msg in ids or msg in strings:
            continue
        english += 1
        shown.append(msg)
    if not hasattr(app.env, "sb_i18n"):
        app.env.sb_i18n = {}
    app.env.sb_i18n[docname] = (total, english)
    if not hasattr(app.env, "sb_i18n_shown"):
        app.env.sb_i18n_shown = {}
    app.env.sb_i18n_shown[docname] = shown[:3]


def _translate_captions(app, doctree, docname) -> None:
    """The toc's part captions (sphinx-external-toc inserts the root page's toctrees after
    Sphinx has translated the page, so their captions would stay English in the sidebar)."""
    from sphinx import addnodes

    po = locale_dir(app) / f"{docname}.po"
    trees = list(doctree.findall(addnodes.toctree))
    if not trees or not po.is_file():
        return
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, locale=LANG)
    for tree in trees:
        m = catalog.get(tree.get("caption") or "")
        if m is not None and m.string and not m.fuzzy:
            tree["caption"] = m.string
            tree["translated"] = True


def _purge(app, env, docname) -> None:
    getattr(env, "sb_i18n", {}).pop(docname, None)
    getattr(env, "sb_i18n_shown", {}).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    if not hasattr(env, "sb_i18n"):
        env.sb_i18n = {}
    env.sb_i18n.update({d: v for d, v in getattr(other, "sb_i18n", {}).items() if d in docnames})
    if not hasattr(env, "sb_i18n_shown"):
        env.sb_i18n_shown = {}
    env.sb_i18n_shown.update({d: v for d, v in getattr(other, "sb_i18n_shown", {}).items()
                              if d in docnames})


def _check_finished(app, env) -> None:
    """A page declared finished with a message shown in English fails the strict build."""
    if edition(app.config) != "zh":
        return
    listed = finished_pages(Path(app.srcdir))
    for docname, (total, english) in sorted(getattr(env, "sb_i18n", {}).items()):
        complete = catalogue_state(locale_dir(app) / f"{docname}.po")[2]
        if english and (docname in listed or complete):
            why = "listed in locale/zh_CN/FINISHED" if docname in listed else "fully translated"
            first = "; ".join(repr(m[:80]) for m in getattr(env, "sb_i18n_shown", {}).get(docname, []))
            logger.warning(f"the Chinese page is {why} but {english} of its {total} messages are "
                           "shown in English (their English changed since they were translated): "
                           f"run tools/i18n.py update and translate the fuzzy messages ({first})",
                           location=docname, type="sb_i18n")
    for docname in sorted(listed - set(env.found_docs)):
        logger.warning(f"locale/zh_CN/FINISHED lists {docname!r}, which is not a page",
                       type="sb_i18n")


_UNTRANSLATED = re.compile(r'<(\w+)([^<>]*?) class="([^"]*\buntranslated\b[^"]*)"')


def progress_note(total: int, english: int, english_href: str) -> str:
    """The note at the top of a Chinese page not yet fully translated."""
    done = total - english
    return ('<div class="sb-i18n-note admonition" role="note">'
            f'<p>本页的中文翻译尚在进行中（已译 {done}/{total} 段），未译的段落暂以英文显示。'
            f'<a href="{html.escape(english_href)}" hreflang="en">阅读英文原页</a></p>'
            f'<p lang="en">The Chinese translation of this page is in progress ({done} of '
            f'{total} passages translated); the passages not yet translated are shown in English. '
            f'<a href="{html.escape(english_href)}" hreflang="en">Read the English page</a></p>'
            '</div>\n')


def _page_context(app, pagename, templatename, context, doctree) -> None:
    ed = edition(app.config)
    here = f"{pagename}{app.builder.out_suffix}"
    if ed == "en" and not locale_dir(app).is_dir():
        return                      # no Chinese edition is built beside this one
    root, code, label = OTHER[ed]
    pathto = context["pathto"]
    other = pathto(root + here, 1)
    context["sb_lang_href"] = other
    context["sb_lang_code"] = code
    context["sb_lang_label"] = label
    context["sb_lang_title"] = _TITLE[ed]
    own = "en" if ed == "en" else "zh-CN"
    context["metatags"] = (context.get("metatags", "")
                           + f'<link rel="alternate" hreflang="{own}" href="{html.escape(here.rpartition("/")[2])}">\n'
                           + f'<link rel="alternate" hreflang="{code}" href="{html.escape(other)}">\n')
    body = context.get("body")
    if ed != "zh" or not body:
        return
    body = _UNTRANSLATED.sub(lambda m: f'<{m.group(1)}{m.group(2)} lang="en" class="{m.group(3)}"', body)
    total, english = getattr(app.env, "sb_i18n", {}).get(pagename, (0, 0))
    if english:
        body = progress_note(total, english, other) + body
    context["body"] = body


#: the theme's labels and tooltips that reach a Chinese page in English (Sphinx 7.4's zh_CN
#: catalogue has no translation for the header links; sphinx-book-theme writes its sidebar
#: buttons' tooltips and pydata-sphinx-theme its navigations' labels without a catalogue)
THEME_ZH = {
    "Link to this heading": "链接到此标题",
    "Link to this equation": "链接到此公式",
    "Link to this term": "链接到此术语",
    "Link to this definition": "链接到此定义",
    "Main": "全书目录",
    "Page": "本页目录",
    "Toggle primary sidebar": "显示或隐藏全书目录",
    "Toggle secondary sidebar": "显示或隐藏本页目录",
    "Color mode": "颜色模式",
    "System Settings": "跟随系统",
}
#: where the theme puts them: a label, a tooltip, an icon's title (tools/sb_offline_assets.py)
_THEME_TEXT = re.compile(r'(\s(?:title|aria-label|data-bs-title)=")([^"]*)(")'
                         r'|(<title id="svg-inline--fa-title-[^"]*">)([^<]*)(</title>)')


def translate_theme(page: str) -> str:
    """A written Chinese page (its whole text ``page``) with the theme's labels and tooltips
    of :data:`THEME_ZH` in Chinese; every other text left as it is.

    >>> translate_theme('<a class="headerlink" href="#x" title="Link to this heading">#</a>')
    '<a class="headerlink" href="#x" title="链接到此标题">#</a>'
    """
    def one(m):
        head, text, tail = (m.group(1), m.group(2), m.group(3)) if m.group(1) else \
            (m.group(4), m.group(5), m.group(6))
        return head + THEME_ZH.get(text, text) + tail

    return _THEME_TEXT.sub(one, page)


def theme_in_english(page: str) -> list[str]:
    """The theme's labels and tooltips of :data:`THEME_ZH` that a page (its whole text) still
    shows in English, sorted: the Chinese build's check."""
    return sorted({m.group(2) or m.group(5) for m in _THEME_TEXT.finditer(page)} & THEME_ZH.keys())


def _translate_theme_pages(app, exception) -> None:
    """At ``build-finished`` of the Chinese edition, after the icons are drawn in
    (priority 800): every written page through :func:`translate_theme`."""
    if exception is not None or edition(app.config) != "zh" or app.builder.format != "html":
        return
    from sb_offline_assets import edition_pages   # beside this file (it sets this one up)

    for page in edition_pages(Path(app.outdir)):
        text = page.read_text(encoding="utf-8")
        new = translate_theme(text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def setup(app):
    app.connect("build-finished", _translate_theme_pages, priority=800)
    app.connect("config-inited", _config_inited)
    app.connect("doctree-read", _doctree_read)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check_finished)
    app.connect("html-page-context", _page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
