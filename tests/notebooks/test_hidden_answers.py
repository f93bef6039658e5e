"""Cells hidden in the book (tag ``remove-input``) are collapsed in JupyterLab too
(``metadata.jupyter.source_hidden``), so an exercise's answer cell does not show its code right
under the question.  tools/execute_notebooks.py sets the flag whenever it re-executes a chapter.

    .venv/bin/python -m pytest tests/notebooks/test_hidden_answers.py -q
"""

from __future__ import annotations

import sys

import nbformat
import pytest

from nbcheck import ROOT, chapter_notebooks

sys.path.insert(0, str(ROOT / "tools"))

import execute_notebooks  # noqa: E402

CHAPTERS = chapter_notebooks()


def unhidden_removed_inputs(nb) -> list[int]:
    """Indices of the cells tagged remove-input whose source JupyterLab would show."""
    return [i for i, cell in enumerate(nb.cells)
            if "remove-input" in cell.metadata.get("tags", [])
            and not cell.metadata.get("jupyter", {}).get("source_hidden", False)]


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_removed_inputs_are_hidden_in_jupyterlab(path):
    nb = nbformat.read(path, as_version=4)
    bad = unhidden_removed_inputs(nb)
    assert not bad, (f"{path.relative_to(ROOT)}: cells {bad} are tagged remove-input but not "
                     "metadata.jupyter.source_hidden (re-execute with tools/execute_notebooks.py)")


def test_the_tool_hides_exactly_the_removed_inputs(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["remove-input"]}),
                nbformat.v4.new_code_cell("y = 2"),
                nbformat.v4.new_code_cell("z = 3", metadata={"tags": ["remove-cell"]}),
                nbformat.v4.new_code_cell("print(x + y)",
                                          metadata={"tags": ["remove-input", "nbval-ignore-output"]})]
    path = tmp_path / "t.ipynb"
    nbformat.write(nb, path)
    assert unhidden_removed_inputs(nb) == [0, 3]
    assert execute_notebooks.main([str(path)]) == 0
    done = nbformat.read(path, as_version=4)
    assert unhidden_removed_inputs(done) == []
    assert [c.metadata.get("jupyter", {}).get("source_hidden", False) for c in done.cells] == \
        [True, False, False, True]
    assert done.cells[3].outputs[0]["text"] == "3\n"      # outputs stay
