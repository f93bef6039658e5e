"""The Chinese edition's code-drawn text (issue 36): tools/zh_strings.py and its catalogue
book/locale/zh_CN/code_strings.po.

The markup is the widgets' own (``widgets.static_html``), the live and lite bars' own
(``tools/live_pages.py``, ``tools/lite_pages.py``): a Chinese page made of them must show no
English once translated, and the check must name each English string left (a planted label
with no translation).  The catalogue must cover every experiment's labels, and each message
the inline scripts or live mode assemble must still be in its English source (a changed
English message would otherwise go untranslated unseen).  Live mode's ``tr`` runs in Node
when it is installed.  The tiny book's answer box, built, is tested in test_zh_edition.py.

    .venv/bin/python -m pytest tests/book/test_zh_strings.py -q
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import zh_strings  # noqa: E402

PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
       b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00"
       b"\x00\x00\x00IEND\xaeB`\x82")
QUESTION = "Velocity v_Q of the rotor hub (x, y, z)"
LABEL = "door angle θ (deg)"


def page_of_widgets(question: str = QUESTION, label: str = LABEL) -> str:
    """A chapter body as the English build writes it: an answer box per kind, a frame player
    with readouts, its Run live bar with the lite link, and the page's lite bar."""
    import live_pages
    import lite_pages
    from widgets.readouts import readout_table
    from widgets.static_html import answer_box, frame_player

    rows = (("v near", "a", "m/s"), ("|v near|", "b", "m/s"))
    readouts = [readout_table(rows, {"a": [0, 0.8 * k, 0], "b": 0.8 * k}) for k in (1, 2)]
    player = frame_player([PNG, PNG], [0.0, 90.0], label, readouts=readouts,
                          alt=f"Precomputed picture of the experiment for {label}").data
    player = player[:-len("</div>")] + live_pages._button("velocity_field", "sb-fp-000000000000",
                                                           "../_live/sb_live.js", 27) + "</div>"
    player = player.replace(">Run live</button>", ">Run live</button> <a class=\"sb-lite-edit "
                            "sb-lite-beside\" href=\"x\">Edit in your browser</a>")
    return ("<article><p>prose</p>\n" + answer_box(question, [0.0, 0.8, 0.0], 0.01, "m/s").data
            + answer_box("Speed of the rising door's free edge?", 0.8, 0.01, "m/s").data
            + player + lite_pages.bar("chapters/ch01", lambda name, resource=1: name)
            + "</article>")


def test_the_catalogue_is_complete_and_keeps_numbers_and_symbols():
    assert zh_strings.check() == []
    # a translation that drops a symbol or a place is refused
    assert zh_strings.kept_problems(QUESTION, "旋翼桨毂的速度（x, y, z）") == ["lost 'v_Q'"]
    assert zh_strings.kept_problems("Your answer ({unit})", "你的答案") == ["lost '{unit}'"]


def test_every_experiment_text_has_a_translation():
    entries, _, _ = zh_strings.load()
    missing = [t for t in zh_strings._experiment_strings() if not entries.get(t)]
    assert missing == [], f"run tools/zh_strings.py update, then translate: {missing[:5]}"


def test_the_scripts_messages_are_still_their_sources():
    """Each message the catalogue rewrites in a page's inline scripts is in its English script."""
    import live_pages
    import lite_pages
    from widgets import static_html

    scripts = (static_html._ANSWER_JS + static_html._VECTOR_ANSWER_JS
               + live_pages._button("e", "u", "s", 1) + live_pages._FILE_HINT
               + lite_pages.bar("p", lambda name, resource=1: name))
    for pattern, quote, places in zh_strings.JS_MESSAGES:
        assert zh_strings.js_regex(pattern, quote, places).search(scripts), pattern
    # the bars' texts shown only in some builds, and the chapters that cannot run in the browser
    cat = zh_strings.catalogue()
    for body in (f'<div class="sb-frame-player">{live_pages._NOTE}</div>',
                 lite_pages.no_lite_bar(["mujoco"], True), lite_pages.no_lite_bar(["a", "b"], False)):
        assert zh_strings.english_in_page("p", body)
        assert zh_strings.english_in_page("p", zh_strings.translate_body(body, cat)) == [], body


def test_live_modes_texts_are_in_its_scripts():
    """Each live-mode text of the catalogue is written by sb_live.js, the worker or the
    readout panel (its literal parts, a pattern's places aside)."""
    js = "".join((ROOT / "book" / "_live" / f).read_text(encoding="utf-8")
                 for f in ("sb_live.js", "sb_worker.js"))
    js = re.sub(r"\\u([0-9A-Fa-f]{4})", lambda m: chr(int(m.group(1), 16)), js)
    js = re.sub(r'"\s*\+\s*"', "", js)                  # "a " +\n "b" is "a b"
    js += (ROOT / "widgets" / "readouts.py").read_text(encoding="utf-8")
    for text in zh_strings.LIVE:
        for part in re.split(r"\{\w+\}", text):
            part = part.strip(" :…")
            if part:
                assert part in js or part.replace("'", "\\'") in js, (text, part)


def test_a_chinese_page_of_widgets_shows_no_english_and_keeps_its_numbers():
    cat = zh_strings.catalogue()
    body = page_of_widgets()
    before = zh_strings.english_in_page("p", body)
    for english in (QUESTION, "Your answer (3 numbers, m/s)", "Check", LABEL, "v near",
                    "Run live", "Edit in your browser", "Restore the book's version",
                    "Please type a number.", "Starting…"):
        assert any(repr(english)[:60] in b for b in before), english
    zh = zh_strings.translate_body(body, cat)
    assert zh_strings.english_in_page("p", zh) == []
    for chinese in ("旋翼桨毂的速度 v_Q（x, y, z）", "你的答案（3 个数，m/s）", ">检查<", ">门的转角 θ (deg)<",
                    "实时运行", "在浏览器中编辑", "恢复本书的版本", '"请输入一个数。"',
                    '"正确！" + text + " 与答案之差在 " + root.getAttribute("data-tolerance") + " 以内。"',
                    '"还不对：第 " + off.join(", ") + " 个分量的偏差超过 " + tolText + "。请再试一次。"',
                    "b.textContent='正在启动…'", "实验在不同 门的转角 θ (deg) 下的预先计算的图"):
        assert chinese in zh, chinese
    readouts = json.loads(re.search(r"var readouts = (\[.*?\]);\n", zh).group(1))
    assert "近点 v" in readouts[1] and "(0.00, 1.60," in readouts[1] and "|近点 v|" in readouts[1]
    # what the scripts and live mode read is untouched: answers, tolerances, settings, ids
    for attr in ("data-expected", "data-tolerance", "data-sb-experiment", "id", "for"):
        assert re.findall(rf' {attr}="[^"]*"', zh) == re.findall(rf' {attr}="[^"]*"', body), attr
    # the page's live mode gets the table it translates through
    table = json.loads(re.search(r'id="sb-strings">(.*?)</script>',
                                 zh_strings.live_strings(zh, cat)).group(1))
    assert table["strings"]["Run live"] == "实时运行" and LABEL in table["strings"]
    assert "Exercise 6.1: the coupling term at H" not in table["strings"]   # not live mode's


def test_the_check_names_an_untranslated_label():
    cat = zh_strings.catalogue()
    planted = "a planted label with no translation (m)"
    zh = zh_strings.translate_body(page_of_widgets(label=planted), cat)
    problems = zh_strings.english_in_page("p", zh)
    assert any(planted in p for p in problems) and len(problems) >= 2     # the label, its alt
    assert not any("door angle" in p for p in problems)
    # and one left English in a built page's inline script
    zh_ok = zh_strings.translate_body(page_of_widgets(), cat)
    assert zh_strings.english_in_page("p", zh_ok.replace("请输入一个数。", "Please type a number.")) \
        == ["p: code-drawn script in English: 'Please type a number.'"]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_live_modes_tr_in_chinese_and_english(tmp_path):
    """sb_live.js's tr: the page's table when <html lang> is Chinese, patterns with their
    places translated in turn; the English edition unchanged."""
    cat = zh_strings.catalogue()
    table = {"strings": cat.for_pages({"velocity_field", "probes"})}
    js = (ROOT / "book" / "_live" / "sb_live.js").read_text(encoding="utf-8")
    runner = tmp_path / "run.js"
    runner.write_text(
        "const table = process.argv[2], lang = process.argv[3];\n"
        "global.window = {}; global.NodeFilter = {SHOW_TEXT: 4};\n"
        "global.document = {currentScript: null, baseURI: 'http://h/book/', documentElement:"
        " {getAttribute: () => lang}, getElementById: (id) => id === 'sb-strings' ?"
        " {textContent: table} : null};\n"
        + js + "\nconst tr = window.sbLive.tr;\n"
        "console.log(JSON.stringify([tr('Run live'), tr('\\u25B6 Play door angle θ (deg)'),"
        " tr('downloading 3.5 of 27 MB'), tr('near point r (m): moves only the line probe: "
        "choose probe path = line'), tr('(0.00, 0.80, 0.00)'), tr(' v near ')]));\n",
        encoding="utf-8")
    run = lambda lang: json.loads(subprocess.run(  # noqa: E731
        ["node", str(runner), json.dumps(table, ensure_ascii=False), lang],
        check=True, capture_output=True, text=True).stdout)
    assert run("zh-CN") == ["实时运行", "▶ 播放 门的转角 θ (deg)", "正在下载 3.5 / 27 MB",
                            "近点 r (m)：只移动直线探针：请选择 探针路径 = 直线", "(0.00, 0.80, 0.00)",
                            " 近点 v "]
    assert run("en") == ["Run live", "▶ Play door angle θ (deg)", "downloading 3.5 of 27 MB",
                         "near point r (m): moves only the line probe: choose probe path = line",
                         "(0.00, 0.80, 0.00)", " v near "]


def test_update_without_a_built_book_leaves_the_catalogue_alone(tmp_path, capsys):
    """``update`` reads the strings off the built pages: with none there it stops, saying so,
    instead of dropping every page-only string and its translation."""
    before = zh_strings.CATALOGUE.read_bytes()
    assert zh_strings.update(tmp_path) == 2
    assert "make book" in capsys.readouterr().err
    assert zh_strings.CATALOGUE.read_bytes() == before
