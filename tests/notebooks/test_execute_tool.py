"""tools/execute_notebooks.py stores every {eval} result in its markdown cell, after the last
code cell (so a number may be shown above the cell that computes it), and refuses a failing one.

    .venv/bin/python -m pytest tests/notebooks/test_execute_tool.py -q
"""

from __future__ import annotations

import sys

import nbformat

from nbcheck import ROOT, expression_problems

sys.path.insert(0, str(ROOT / "tools"))

import execute_notebooks  # noqa: E402


def _notebook(path, expression='N("k", ".2f")'):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"Above its cell: {{eval}}`{expression}` m."),
        nbformat.v4.new_code_cell('from widgets.prose import N, glue\nglue("k", 0.3456, display=False)'),
        nbformat.v4.new_markdown_cell('Below: {eval}`N("k", ".3f")` and {eval}`N("k")`.'),
    ]
    nbformat.write(nb, path)


def test_results_are_stored_in_jupyterlab_myst_format(tmp_path):
    path = tmp_path / "t.ipynb"
    _notebook(path)
    assert execute_notebooks.main([str(path)]) == 0
    nb = nbformat.read(path, as_version=4)
    first, last = nb.cells[0].metadata["user_expressions"], nb.cells[2].metadata["user_expressions"]
    assert first == [{"expression": 'N("k", ".2f")',
                      "result": {"status": "ok", "data": {"text/plain": "0.35"}, "metadata": {}}}]
    assert [e["result"]["data"]["text/plain"] for e in last] == ["0.346", "0.3456"]
    assert expression_problems(nb) == []


def test_a_failing_expression_fails_and_leaves_the_file(tmp_path):
    path = tmp_path / "t.ipynb"
    _notebook(path, expression='N("no_such_key")')
    before = path.read_bytes()
    assert execute_notebooks.main([str(path)]) == 1
    assert path.read_bytes() == before
