"""The build tool itself: warnings are errors, broken references fail, missing files fail.

Each test builds a tiny book in a temporary copy (jupyter_book.yml and the Sphinx extension
of this repository, a two-page book/), never the real one.

    .venv/bin/python -m pytest tests/book -q
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import build_book  # noqa: E402

INTRO = """# Tiny book

A numbered equation:

$$
v_Q = v_P + \\omega \\times d
$$ (eq-test-field)

It is {eq}`eq-test-field`. The {term}`spatial velocity <Spatial velocity>` (空间速度).
"""
GLOSSARY = """# Glossary

```{glossary}
Spatial velocity
  空间速度. The 6-vector $[\\omega; v_P]$.
```
"""
TOC = """format: jb-book
root: intro
chapters:
  - file: glossary
{extra}"""


def make_book(tmp: Path, intro: str = INTRO, extra: str = "") -> Path:
    (tmp / "tools").mkdir(parents=True)
    config = yaml.safe_load((ROOT / "jupyter_book.yml").read_text(encoding="utf-8"))
    for name in config["sphinx"].get("local_extensions", {}):   # sb_offline_assets, sb_eval, ...
        shutil.copy(ROOT / "tools" / f"{name}.py", tmp / "tools")
    # files the extensions read or import beside themselves (the math typeset with Node.js)
    for name in ("sb_settle.js", "sb_math_render.js", "live_compile.py", "pyodide_dist.py"):
        shutil.copy(ROOT / "tools" / name, tmp / "tools")
    shutil.copy(ROOT / "jupyter_book.yml", tmp)
    book = tmp / "book"
    book.mkdir()
    (book / "_static").mkdir()                          # the favicon the configuration names
    shutil.copy(ROOT / "book" / "_static" / "favicon.svg", book / "_static")
    (book / "intro.md").write_text(intro, encoding="utf-8")
    (book / "glossary.md").write_text(GLOSSARY, encoding="utf-8")
    (book / "_toc.yml").write_text(TOC.format(extra=extra), encoding="utf-8")
    return tmp


def _eval_notebook(stored_expression: str | None) -> str:
    """A chapter whose prose shows {eval}`N("k", ".2f")`, with a stored result (or none)."""
    nb = nbformat.v4.new_notebook()
    md = nbformat.v4.new_markdown_cell('# Chapter\n\nThe speed is {eval}`N("k", ".2f")` m/s.')
    if stored_expression is not None:
        md.metadata["user_expressions"] = [{"expression": stored_expression, "result": {
            "status": "ok", "data": {"text/plain": "0.35"}, "metadata": {}}}]
    nb.cells = [md]
    return nbformat.writes(nb)


def _add_chapters(root: Path, chapters: dict[str, str | None]) -> None:
    """book/chapters/<name>.ipynb with :func:`_eval_notebook` (its stored expression)."""
    (root / "book" / "chapters").mkdir()
    for name, stored in chapters.items():
        (root / "book" / "chapters" / f"{name}.ipynb").write_text(_eval_notebook(stored),
                                                                   encoding="utf-8")


def test_good_book_builds_offline_renders_evals_and_allow_missing_skips(tmp_path):
    root = make_book(tmp_path, extra="  - file: chapters/not_written_yet\n  - file: chapters/ch\n")
    _add_chapters(root, {"ch": 'N("k", ".2f")'})
    assert build_book.missing_entries(root / "book", root / "book" / "_toc.yml") == [
        "chapters/not_written_yet"]
    assert build_book.build(root, allow_missing=True, quiet=True) == 0
    html = root / "book" / "_build" / "html"
    page = (html / "intro.html").read_text(encoding="utf-8")
    assert 'id="equation-eq-test-field"' in page and "(1)" in page
    assert build_book.offline_problems(html) == []
    # the math arrives typeset, with MathML for screen readers, its fonts from the site
    assert page.count("<mjx-container") >= 1 and "<mjx-assistive-mml" in page
    assert "tex-chtml" not in page and "window.MathJax" not in page
    assert 'url("mathjax/output/chtml/fonts/woff-v2/' in page
    assert "unpkg" not in page and "jsdelivr" not in page and "cdnjs" not in page
    # the theme's icons drawn in the page, FontAwesome's stylesheet linked, its script not loaded
    assert "fontawesome.js" not in page and 'class="svg-inline--fa fa-magnifying-glass' in page
    assert 'href="_static/sb_fontawesome.css"' in page and (html / "_static" / "sb_fontawesome.css").is_file()
    chapter = (html / "chapters" / "ch.html").read_text(encoding="utf-8")
    assert '<span class="pasted-text">0.35</span> m/s' in chapter


#: one book, six planted faults: each must fail the build with its own message (the build runs
#: with --keep-going, so one fault cannot hide another; one build instead of five, issue 34)
FAULTS = {
    "a toc entry without a file": "reference to nonexisting document 'chapters/not_written_yet'",
    "an {eq} to no equation": "equation not found: eq-test-does-not-exist",
    "a {term} not in the glossary": "term not in glossary: 'Wrench'",
    "an {eval} with no stored result": "missing.ipynb:10004: WARNING: {eval}`N(\"k\", \".2f\")`: no stored result",
    "an {eval} whose stored result is for other prose":
        "stale.ipynb:10004: WARNING: {eval}`N(\"k\", \".2f\")`: the stored result 1 of cell 0 is for "
        "'N(\"k\", \".3f\")'",
    "a formula MathJax cannot typeset":
        "intro.html: MathJax cannot typeset '\\\\undefinedmacro x': Undefined control sequence "
        "\\undefinedmacro",
}


def test_each_planted_fault_fails_the_build_with_its_message(tmp_path, capfd):
    intro = (INTRO + "\nSee {eq}`eq-test-does-not-exist`.\n\nA {term}`wrench <Wrench>`.\n"
             "\nA slip: {math}`\\undefinedmacro x`.\n")
    root = make_book(tmp_path, intro=intro, extra="  - file: chapters/not_written_yet\n"
                     "  - file: chapters/missing\n  - file: chapters/stale\n")
    _add_chapters(root, {"missing": None, "stale": 'N("k", ".3f")'})
    assert build_book.build(root, quiet=True) != 0
    out = capfd.readouterr()
    said = out.out + out.err
    unsaid = [fault for fault, message in FAULTS.items() if message not in said]
    assert not unsaid, f"the build did not report {unsaid}:\n{said[-3000:]}"


def test_external_reference_detector(tmp_path):
    (tmp_path / "a.html").write_text(
        '<script src="https://cdn.jsdelivr.net/npm/x.js"></script>'
        '<link rel="stylesheet" href="//cdnjs.cloudflare.com/y.css">'
        '<a href="https://example.org">a plain link is fine</a>'
        '<script src="_static/local.js"></script>', encoding="utf-8")
    (tmp_path / "b.css").write_text("@font-face { src: url(https://fonts.example/f.woff2) }")
    found = build_book.external_references(tmp_path)
    assert len(found) == 3, found
    assert not any("example.org" in f for f in found)


def test_the_theme_hands_its_scroll_region_measuring_to_the_book():
    """The installed pydata-sphinx-theme's script (the lock's version) has the function that
    tools/sb_offline_assets.py hands to book/_static/sb_a11y.js: the patched function calls
    ``window.sbScrollables`` first and keeps the theme's own code after it (for a page without
    the book's script); the rest of the script is unchanged; another script is refused."""
    import pydata_sphinx_theme
    import sb_offline_assets

    path = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
            / "static" / "scripts" / "pydata-sphinx-theme.js")
    js = path.read_text(encoding="utf-8")
    out = sb_offline_assets.hand_scrollables_to_book(js)
    m = sb_offline_assets.THEME_SCROLLABLES.search(js)
    head = f"function {m.group('name')}(){{"
    assert out.count("window.sbScrollables") == 2
    assert out[:m.start()] == js[:m.start()]
    assert out[m.start():].startswith(head + "if(window.sbScrollables){window.sbScrollables();return}")
    assert out.endswith(js[m.start() + len(head):])
    assert len(out) - len(js) == len("if(window.sbScrollables){window.sbScrollables();return}")
    with pytest.raises(ValueError, match="js: expected pydata-sphinx-theme"):
        sb_offline_assets.hand_scrollables_to_book(js.replace('"main-content"', '"other"'))


def test_the_themes_icons_are_drawn_as_its_fontawesome_script_draws_them():
    """Every solid icon the installed theme's templates name is in its bundled FontAwesome
    (the lock's version), drawn as that script's SVG: a title becomes the SVG's label, an icon
    without one is hidden from screen readers; an icon the bundle lacks is refused (KeyError:
    the build warns and leaves it)."""
    import re

    import pydata_sphinx_theme
    import sb_offline_assets as sa

    theme = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
    js = (theme / "static" / "scripts" / "fontawesome.js").read_text(encoding="utf-8")
    icons = sa.fontawesome_icons(js)
    named = {m for t in theme.rglob("*.html")
             for m in re.findall(r"fa-solid fa-([a-z0-9-]+)", t.read_text(encoding="utf-8"))}
    assert {"magnifying-glass", "bars", "sun", "moon", "circle-half-stroke"} <= named
    assert named <= icons.keys(), named - icons.keys()
    assert icons["search"] == icons["magnifying-glass"]             # an alias
    width, height, path = icons["magnifying-glass"]
    assert (width, height) == (512, 512) and path.startswith("M") and path.endswith("z")
    assert "--fa-font-solid:" in sa.fontawesome_css(js) and ".svg-inline--fa{" in sa.fontawesome_css(js)

    counter = [0]
    plain = sa.icon_svg("fa-solid fa-bars", "", icons, counter)
    assert plain.startswith('<svg class="svg-inline--fa fa-bars" aria-hidden="true" focusable="false"')
    assert f'viewBox="0 0 {icons["bars"][0]} {icons["bars"][1]}"' in plain
    assert f'<path fill="currentColor" d="{icons["bars"][2]}"></path></svg>' in plain
    titled = sa.icon_svg("theme-switch fa-solid fa-sun   fa-lg", ' data-mode="light" title="Light &amp; day"',
                         icons, counter)
    assert titled.startswith('<svg class="svg-inline--fa fa-sun theme-switch fa-lg" data-mode="light" '
                             'aria-labelledby="svg-inline--fa-title-sun-1"')
    assert '<title id="svg-inline--fa-title-sun-1">Light &amp; day</title>' in titled
    assert "aria-hidden" not in titled
    with pytest.raises(KeyError):
        sa.icon_svg("fa-solid fa-no-such-icon", "", icons, counter)
    with pytest.raises(ValueError, match="solid pack"):
        sa.fontawesome_icons("var x = 1;")
