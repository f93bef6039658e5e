"""The Chinese edition's catalogues and checks (issue 36): fast, no build.

* every catalogue keeps, in each translation, the parts of its English that must survive
  (``{eval}``s, cross-reference targets, math, code, links, labels: tools/i18n.py);
* a page declared finished (book/locale/zh_CN/FINISHED, or every message translated) has no
  missing or fuzzy message (``tools/i18n.py update`` marks a message fuzzy when its English
  changed, so an edited English paragraph fails here until it is translated again);
* the checks fail when they should: a planted untranslated message, a stale (fuzzy) one, a
  translation that drops an ``{eval}``, an English paragraph or raw MyST in a built page;
* tools/sb_eval.py finds a translated message's cell and matches its ``{eval}``s by text.

    .venv/bin/python -m pytest -q tests/test_i18n.py
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import i18n  # noqa: E402
import sb_eval  # noqa: E402
import zh_edition  # noqa: E402
from sb_editions import finished_pages  # noqa: E402

BOOK = ROOT / "book"
FINISHED = zh_edition.finished(BOOK)


@pytest.mark.parametrize("page", i18n.pages())
def test_translations_keep_evals_targets_math_code_links(page):
    problems = [f"{m.id[:60]!r}: {p}" for m in i18n.load(i18n.po_path(page))
                if m.id and m.string for p in i18n.lost_or_changed(m.id, m.string)]
    assert problems == []


@pytest.mark.parametrize("page", [p for p in i18n.pages() if not (i18n.BOOK / f"{p}.rst").exists()])
def test_translations_name_the_labels_their_source_quotes(page):
    """Prose that quotes a label (**Run live**, "v near") must name the label the Chinese page
    shows (实时运行, 近点 v), or the reader looks for a button that is not there."""
    labels = i18n.code_labels()
    assert labels.get("Run live") == "实时运行"
    problems = [f"{m.id[:60]!r}: {p}" for m in i18n.load(i18n.po_path(page))
                if m.id and m.string and not m.fuzzy
                for p in i18n.quoted_labels_missing(m.id, m.string, labels)]
    assert not problems, "\n".join(problems)


def test_the_label_check_finds_an_english_label_left_in_the_prose():
    labels = {"Run live": "实时运行", "v near": "近点 v"}
    src = 'Press **Run live**, then read "v near" and the **door**.'
    assert len(i18n.quoted_labels_missing(src, "按 **Run live**，然后读 “近点 v”。", labels)) == 1
    assert i18n.quoted_labels_missing(src, "按**实时运行**（Run live），然后读“近点 v”。", labels) == []


def test_words_inside_math_may_be_translated_but_no_symbol():
    """A formula's prose (``\\text{that is}``) may be put in Chinese, split or merged; a symbol's
    name (``\\text{old}``), an operator or a variable may not change."""
    src = r"Here $a\quad\text{that is}\quad b$, $x^{\text{old}}$ and $c+\text{(links before }i)$."
    assert i18n.lost_or_changed(
        src, r"这里 $a\quad\text{即}\quad b$，$x^{\text{old}}$ 和 $c+\text{(在 }i\text{ 之前的连杆})$。") == []
    for wrong in (r"$x^{\text{旧}}$", r"$x^{\text{new}}$"):
        t = r"这里 $a\quad\text{即}\quad b$，" + wrong + r" 和 $c+\text{(在 }i\text{ 之前的连杆})$。"
        assert i18n.lost_or_changed(src, t), wrong
    assert i18n.lost_or_changed(src, r"这里 $a\quad\text{即}\quad c$，$x^{\text{old}}$ 和 $c+\text{(在 }i\text{ 之前的连杆})$。")
    assert not i18n._prose_text("(MR 8.22)") and not i18n._prose_text("body COM")


def test_finished_pages_are_listed_pages():
    listed = finished_pages(BOOK)
    assert listed, "book/locale/zh_CN/FINISHED lists no page"
    assert listed <= set(i18n.pages()), f"not catalogues: {sorted(listed - set(i18n.pages()))}"


@pytest.mark.parametrize("page", FINISHED)
def test_finished_page_has_no_missing_or_fuzzy_message(page, capsys):
    assert i18n.check([page], allow_missing=False) == 0, capsys.readouterr().err


# ------------------------------------------------------------ the checks fail when planted

@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A copy of the catalogues that a test may spoil (i18n's LOCALE pointed at it)."""
    locale = tmp_path / "LC_MESSAGES"
    shutil.copytree(i18n.LOCALE, locale, ignore=shutil.ignore_patterns("*.mo"))
    monkeypatch.setattr(i18n, "LOCALE", locale)
    return locale


def _spoil(page: str, change) -> None:
    catalog = i18n.load(i18n.po_path(page))
    message = next(m for m in catalog if m.id and m.string and len(m.id) > 40)
    change(message)
    i18n.save(catalog, i18n.po_path(page))


def test_planted_untranslated_message_fails(planted, capsys):
    assert i18n.check(["intro"], allow_missing=False) == 0
    _spoil("intro", lambda m: setattr(m, "string", ""))
    assert i18n.check(["intro"], allow_missing=False) == 1
    assert "not translated" in capsys.readouterr().err


def test_planted_stale_message_fails(planted, capsys):
    _spoil("notation", lambda m: m.flags.add("fuzzy"))
    assert i18n.check(["notation"], allow_missing=False) == 1
    assert "changed in English since translated" in capsys.readouterr().err


def _eval_message(page: str = "chapters/ch01_velocity_field") -> str:
    return next(m.id for m in i18n.load(i18n.po_path(page)) if m.id.count("{eval}`") >= 2)


def test_translation_dropping_an_eval_is_refused_and_fails_the_check(planted, tmp_path, capsys):
    page = "chapters/ch01_velocity_field"
    english = _eval_message(page)
    first = english[english.index("{eval}`"):english.index("`", english.index("{eval}`") + 7) + 1]
    dropped = "中文译文。" + english.replace(first, "", 1)
    assert any("lost" in p and "{eval}" in p for p in i18n.lost_or_changed(english, dropped))
    src = tmp_path / "bad.json"
    src.write_text(json.dumps({english: dropped}, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(SystemExit):
        i18n.import_(page, src)
    assert "refused" in capsys.readouterr().err
    catalog = i18n.load(i18n.po_path(page))        # stored by another way: check still fails
    catalog.get(english).string = dropped
    i18n.save(catalog, i18n.po_path(page))
    assert i18n.check([page], allow_missing=True) == 1


def test_reordered_evals_are_kept_parts():
    english = _eval_message()
    evals = [p for p in i18n.kept_parts(english) if p.startswith("{eval}")]
    swapped = "译文：" + " ".join(reversed(evals)) + " " + i18n._ROLE.sub(" ", english)
    assert [p for p in i18n.lost_or_changed(english, swapped) if "eval" in p] == []


# ------------------------------------------------------------ the built page's check

PAGE = """<!DOCTYPE html><html lang="zh-CN"><body><nav><p>Navigation in English is the theme's</p></nav>
<article>{}</article></body></html>"""
GOOD = """<h1>记号与约定</h1><p>点 <span class="math notranslate nohighlight">\\(P\\)</span> 的位置。</p>
<div class="math notranslate nohighlight">\\[ X = \\begin{{bmatrix}} R \\end{{bmatrix}} \\]</div>
<table><tr><th>符号</th><td><span class="math">\\(R\\)</span></td><td>rad/s, rad/s²</td>
<td>MuJoCo</td><td><code>sb.skew(d)</code></td><td>MR 8.22, 8.23</td></tr></table>
<ul><li><p>六维向量<strong>角分量在前</strong>。</p></li></ul>
<div class="cell_output"><p>stored output, translated in a later phase</p></div>"""


def test_built_page_check_passes_chinese_math_code_names():
    assert zh_edition.text_problems("p", PAGE.format(GOOD)) == []


@pytest.mark.parametrize("planted_html, why", [
    ("<p>Every sign and every order in this book follows from a handful of choices.</p>",
     "without Chinese text"),
    ("<ul><li>the displacement points from the old point to the new one</li></ul>",
     "without Chinese text"),
    ("<table><tr><td>rotation matrix, new-frame components</td></tr></table>", "without Chinese"),
    ('<p class="untranslated">The rest of this paragraph.</p>', "shown in English"),
    ("<p>角速度为 {eval}`N(\"ch01_omega\")` rad/s。</p>", "raw MyST"),
    ("<p>见 {term}`空间速度 <Spatial velocity>`。</p>", "raw MyST"),
    ("<p>公式 $$x$$ 没有排版。</p>", "raw MyST"),
    ("<div><p>文字</p>\n```python\nx = 1\n```</div>", "raw MyST"),
])
def test_built_page_check_fails_on_planted(planted_html, why):
    problems = zh_edition.text_problems("p", PAGE.format(GOOD + planted_html))
    assert any(why in p for p in problems), problems


def test_built_site_check_fails_on_a_missing_or_english_page(tmp_path):
    site = tmp_path / "html"
    (site / "zh").mkdir(parents=True)
    problems = zh_edition.html_problems(site, BOOK)
    assert any("no built Chinese page" in p for p in problems)
    (site / "zh" / "intro.html").write_text(
        PAGE.format(GOOD).replace('lang="zh-CN"', 'lang="en"'), encoding="utf-8")
    assert any("intro" in p and "zh-CN" in p for p in zh_edition.html_problems(site, BOOK))


# ------------------------------------------------------------ {eval} in a translated message

def test_translated_source_and_cell():
    nb = "/x/book/chapters/ch01_velocity_field.ipynb"
    assert sb_eval.translated_source(f"{nb}:150004:<translated>") == (Path(nb), 150004)
    assert sb_eval.translated_source(f"{nb}:None:<translated>") == (Path(nb), None)
    assert sb_eval.translated_source(nb) is None
    assert sb_eval.cell_of(150004) == 14 and sb_eval.cell_of(10001) == 0
    assert sb_eval.cell_of(None) is None and sb_eval.cell_of(12) is None


def test_stored_cells_index_the_chapter_cells():
    path = BOOK / "chapters" / "ch01_velocity_field.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    stored = sb_eval.stored_cells(path)
    assert stored and [e for _, e in stored] == sb_eval.stored_expressions(path)
    for k, entry in stored:
        assert entry in cells[k]["metadata"]["user_expressions"]


def test_rest_pages_translations_must_close_their_inline_markup():
    # api.rst's docstrings are parsed as reST: a literal closed before a full-width bracket
    # is no literal at all (the Chinese build's -W failed on 17 such messages).
    assert any("Inline literal" in p for p in i18n.rest_markup_problems("转过 ``angle``（rad）的旋转"))
    assert i18n.rest_markup_problems("转过 ``angle``\\ （rad）的旋转") == []
    assert i18n.rest_markup_problems("（``body_ipos``、``body_iquat``）中的主矩") == []


def test_rest_literal_closed_too_late_is_caught():
    # ``a``（ does not end the literal, so it runs on to the next ``: no warning, wrong text
    assert i18n.rest_literals_changed("``qpos0`` (for ``ref``)", "``qpos0``（对 ``ref``）")
    assert not i18n.rest_literals_changed("``qpos0`` (for ``ref``)", "``qpos0``\\ （对 ``ref``）")


def test_the_themes_labels_and_tooltips_are_given_in_chinese():
    """The theme's own labels and tooltips that Sphinx's and the themes' catalogues leave in
    English reach a Chinese page in Chinese (tools/sb_editions.py, at the end of the Chinese
    build): a heading's link, the sidebars' buttons, the navigations, the colour mode's icons;
    the same words in the page's own text, and every other attribute, are left alone.  The
    built pages' check names any left in English."""
    import sb_editions as se

    assert all(i18n.CJK.search(zh) for zh in se.THEME_ZH.values())
    page = ('<nav class="bd-links" aria-label="Main"><a title="Link to this heading" '
            'href="#a">#</a></nav><button title="Toggle primary sidebar" data-bs-title="Color mode" '
            'aria-label="Color mode"><svg aria-labelledby="t"><title id="svg-inline--fa-title-'
            'circle-half-stroke-3">System Settings</title></svg></button>'
            '<p title="spatialbook.skew">Main Page</p><title>Page</title>')
    out = se.translate_theme(page)
    for english, chinese in [("Main", "全书目录"), ("Link to this heading", "链接到此标题"),
                             ("Toggle primary sidebar", "显示或隐藏全书目录"), ("Color mode", "颜色模式")]:
        assert f'"{english}"' not in out and f'"{chinese}"' in out
    assert out.count('"颜色模式"') == 2
    assert ">跟随系统</title>" in out
    assert '<p title="spatialbook.skew">Main Page</p><title>Page</title>' in out
    assert se.theme_in_english(page) == ["Color mode", "Link to this heading", "Main",
                                         "System Settings", "Toggle primary sidebar"]
    assert se.theme_in_english(out) == []


def test_a_chinese_page_showing_a_picture_described_in_english_fails_its_check():
    """A figure drawn only in English (a plain ``<img>``, as ch05, ch11 and ch14 drew five
    before this check) is named; the English twin of a figure drawn in both languages, hidden
    on a Chinese page, and a picture described in Chinese are not."""
    both = ('<picture class="sb-figure-en"><source srcset="a.png"><img src="a.png" '
            'alt="Two colour maps of the torque"></picture>'
            '<picture class="sb-figure-zh" style="display:none"><img src="b.png" alt="两幅色图"></picture>')
    assert zh_edition.english_pictures(both) == []
    plain = '<div class="output"><img style="max-width:100%" alt="Left: the two joint angles" src="c.png"></div>'
    assert zh_edition.english_pictures(both + plain) == ["Left: the two joint angles"]
    shown = '<picture class="sb-figure-zh"><img src="d.png" alt="The energy error"></picture>'
    assert zh_edition.english_pictures(shown) == ["The energy error"]
