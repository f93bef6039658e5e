"""Every chapter notebook exists and carries its outputs (and no stored error).

    .venv/bin/python -m pytest tests/notebooks -q
"""

from __future__ import annotations

import copy

import nbformat
import pytest

from nbcheck import BOOK, ROOT, chapter_notebooks, check_file, expression_problems, output_problems

CHAPTERS = chapter_notebooks()


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_has_stored_outputs(path):
    problems = check_file(path)
    assert not problems, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(problems)


def test_the_toc_lists_every_chapter_notebook_and_only_those():
    on_disk = sorted((BOOK / "chapters").glob("*.ipynb"))
    listed = sorted(CHAPTERS)
    assert listed == on_disk, (
        f"book/_toc.yml and book/chapters/ disagree: not in the toc "
        f"{[p.name for p in on_disk if p not in listed]}, listed but missing "
        f"{[p.name for p in listed if p not in on_disk]}")
    assert len(CHAPTERS) >= 14                  # the book's fourteen chapters at least


def _executed_notebook():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# t"),
                nbformat.v4.new_code_cell("x = 1", execution_count=1),
                nbformat.v4.new_code_cell("print(x)", execution_count=2,
                                          outputs=[nbformat.v4.new_output("stream", name="stdout", text="1\n")]),
                nbformat.v4.new_code_cell("   ")]
    return nb


def test_checker_accepts_an_executed_notebook():
    assert output_problems(_executed_notebook()) == []


def test_checker_rejects_a_stripped_notebook():
    nb = _executed_notebook()
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.execution_count = None
            cell.outputs = []
    problems = output_problems(nb)
    assert len(problems) >= 2 and all("not executed" in p or "execution counts" in p for p in problems)


def test_checker_rejects_stored_errors_and_widget_state():
    nb = _executed_notebook()
    nb.cells[2].outputs.append(nbformat.v4.new_output("error", ename="ValueError", evalue="bad",
                                                      traceback=[]))
    nb.metadata["widgets"] = {}
    problems = output_problems(copy.deepcopy(nb))
    assert any("ValueError" in p for p in problems)
    assert any("widget" in p for p in problems)


def _glued_notebook(stored_text="0.35", prose='{eval}`N("k", ".2f")`'):
    nb = _executed_notebook()
    nb.cells[1].outputs = [nbformat.v4.new_output(
        "display_data", data={"application/papermill.record/text/plain": "0.3456"},
        metadata={"scrapbook": {"name": "k", "mime_prefix": "application/papermill.record/"}})]
    md = nbformat.v4.new_markdown_cell(f"The value is {prose} m.")
    md.metadata["user_expressions"] = [{"expression": 'N("k", ".2f")', "result": {
        "status": "ok", "data": {"text/plain": stored_text}, "metadata": {}}}]
    nb.cells.append(md)
    return nb


def test_expression_checker_accepts_fresh_results():
    assert expression_problems(_glued_notebook()) == []


def test_expression_checker_rejects_stale_missing_and_glue_roles():
    assert any("glued value gives '0.35'" in p for p in expression_problems(_glued_notebook("0.30")))
    assert any("do not match" in p
               for p in expression_problems(_glued_notebook(prose='{eval}`N("k", ".3f")`')))
    nb = _glued_notebook()
    nb.cells[-1].source += " Also {glue:text}`k:.1f`."
    assert any("{glue:" in p for p in expression_problems(nb))
