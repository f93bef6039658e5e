"""The Chinese edition's build (issue 36) on a tiny book: tools/build_book.py builds both.

A two-page book with a chapter notebook whose paragraph has two ``{eval}``s, and a catalogue
that translates the chapter's title and that paragraph *with its {eval}s in the other order*,
and leaves a second paragraph untranslated.  The Chinese page must show each stored number
where its expression is, say at its top that its translation is in progress (with a link to
the English page), mark the English paragraph ``lang="en"``, and both editions must link to
each other.  Declaring the page finished while a paragraph is in English fails the Chinese
build.  A second chapter holds an answer box (stored output, the widgets' markup): the Chinese
page asks in Chinese, the English page in English, and the built pages' check fails on a
planted English question.  The two editions are built once for the module (issue 34: one build
of both editions instead of three); the finished-page test rebuilds only the Chinese one.

    .venv/bin/python -m pytest tests/book/test_zh_edition.py -q
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import build_book  # noqa: E402
from test_build_tool import make_book  # noqa: E402

TOC_EXTRA = "  - file: chapters/tiny\n  - file: chapters/box\n"
PARA = 'The mass is {eval}`N("m")` kg and the width {eval}`N("w")` m.'
ZH_PARA = '宽度为 {eval}`N("w")` m，质量为 {eval}`N("m")` kg。'
OTHER = "This second paragraph has no translation yet."
PO = f'''msgid ""
msgstr ""
"Content-Type: text/plain; charset=utf-8\\n"
"Language: zh_CN\\n"

msgid "Tiny chapter"
msgstr "小章节"

msgid "{PARA.replace('"', chr(92) + '"')}"
msgstr "{ZH_PARA.replace('"', chr(92) + '"')}"

msgid "{OTHER}"
msgstr ""
'''


def result(text: str) -> dict:
    return {"status": "ok", "data": {"text/plain": f"'{text}'"}, "metadata": {}}


def tiny_chapter(book: Path) -> None:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_markdown_cell(f"{PARA}\n\n{OTHER}")
    cell.metadata["user_expressions"] = [{"expression": 'N("m")', "result": result("12")},
                                         {"expression": 'N("w")', "result": result("0.9")}]
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny chapter"), cell]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (book / "chapters").mkdir()
    nbformat.write(nb, book / "chapters" / "tiny.ipynb")


def box_chapter(book: Path) -> None:
    """A chapter whose one output is an answer box, as a code cell stores it, and its title's
    catalogue; the code strings' catalogue of the book beside it."""
    import zh_strings
    from test_zh_strings import QUESTION
    from widgets.static_html import answer_box

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("answer_box(...)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "text/html": answer_box(QUESTION, [0.0, 0.8, 0.0], 0.01, "m/s").data,
        "text/plain": "<IPython.core.display.HTML object>"})]
    nb.cells = [nbformat.v4.new_markdown_cell("# Box"), cell]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, book / "chapters" / "box.ipynb")
    po = book / "locale" / "zh_CN" / "LC_MESSAGES" / "chapters" / "box.po"
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
                  'msgid "Box"\nmsgstr "答题框"\n', encoding="utf-8")
    shutil.copy(zh_strings.CATALOGUE, book / "locale" / "zh_CN" / "code_strings.po")


@pytest.fixture(scope="module")
def two_editions(tmp_path_factory):
    """The tiny book, both editions built (the build's exit code checked by the first test)."""
    root = make_book(tmp_path_factory.mktemp("two_editions"), extra=TOC_EXTRA)
    shutil.copy(ROOT / "tools" / "sb_editions.py", root / "tools")
    for name in ("zh_strings.py", "i18n.py"):    # the code strings' catalogue, read through i18n
        shutil.copy(ROOT / "tools" / name, root / "tools")
    book = root / "book"
    tiny_chapter(book)
    po = book / "locale" / "zh_CN" / "LC_MESSAGES" / "chapters" / "tiny.po"
    po.parent.mkdir(parents=True)
    po.write_text(PO, encoding="utf-8")
    box_chapter(book)
    return root, build_book.build(root, quiet=True)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_both_editions_reordered_evals_note_and_switch(two_editions):
    root, rc = two_editions
    assert rc == 0
    html = root / "book" / "_build" / "html"
    en = (html / "chapters" / "tiny.html").read_text(encoding="utf-8")
    zh = (html / "zh" / "chapters" / "tiny.html").read_text(encoding="utf-8")
    assert "The mass is 12 kg and the width 0.9 m." in _text(en)
    assert "宽度为 0.9 m，质量为 12 kg。" in _text(zh)          # each number where its {eval} is
    assert '<html lang="zh-CN"' in zh and "小章节" in zh
    # the note, in Chinese and English, links to the English page
    assert "本页的中文翻译尚在进行中" in zh and "translation of this page is in progress" in zh
    assert 'href="../../chapters/tiny.html" hreflang="en"' in zh
    assert re.search(r'<p lang="en" class="[^"]*untranslated[^"]*">This second paragraph', zh)
    # the switch both ways, and the alternates
    assert re.search(r'class="[^"]*sb-lang-switch[^"]*" href="../zh/chapters/tiny.html" hreflang="zh-CN"', en)
    assert re.search(r'class="[^"]*sb-lang-switch[^"]*" href="../../chapters/tiny.html" hreflang="en"', zh)
    assert '<link rel="alternate" hreflang="zh-CN" href="../zh/chapters/tiny.html">' in en
    # shared files: the math fonts from the English site, none copied; the math typeset
    zh_intro = (html / "zh" / "intro.html").read_text(encoding="utf-8")     # it has math
    assert 'url("../mathjax/output/chtml/fonts/woff-v2/' in zh_intro
    assert "<mjx-container" in zh_intro and not (html / "zh" / "mathjax").exists()
    # a page without a catalogue is all English: it says so too
    assert "本页的中文翻译尚在进行中" in (html / "zh" / "glossary.html").read_text(encoding="utf-8")


def test_the_tiny_books_chinese_answer_box(two_editions):
    """The Chinese page's answer box asks in Chinese, the English page's in English, and the
    built pages' check passes, then fails on a planted English question."""
    import zh_edition
    from test_zh_strings import QUESTION

    root, rc = two_editions
    assert rc == 0
    html = root / "book" / "_build" / "html"
    en = (html / "chapters" / "box.html").read_text(encoding="utf-8")
    zh_page = html / "zh" / "chapters" / "box.html"
    zh = zh_page.read_text(encoding="utf-8")
    assert QUESTION in en and ">Check</button>" in en and "Please type" in en
    assert "旋翼桨毂的速度 v_Q（x, y, z）" in zh and ">检查</button>" in zh and "请输入 " in zh
    assert QUESTION not in zh and ">Check</button>" not in zh
    assert zh_edition.code_string_problems(html) == []
    zh_page.write_text(zh.replace("旋翼桨毂的速度 v_Q（x, y, z）", QUESTION), encoding="utf-8")
    try:
        assert zh_edition.code_string_problems(html) == [
            f"chapters/box: code-drawn text in English: {QUESTION!r}"]
    finally:
        zh_page.write_text(zh, encoding="utf-8")


def test_a_finished_page_with_english_fails_the_build(two_editions, capfd):
    root, rc = two_editions
    assert rc == 0
    finished = root / "book" / "locale" / "zh_CN" / "FINISHED"
    finished.write_text("chapters/tiny\n", encoding="utf-8")
    try:
        assert build_book.chinese(root, root / "book" / "_build" / "html", None, False, True) != 0
    finally:
        finished.unlink()
    out = capfd.readouterr()
    assert "chapters/tiny" in out.out + out.err
