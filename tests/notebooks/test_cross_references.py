"""A {eq} role names an equation of its own chapter only: JupyterLab (jupyterlab-myst) cannot
resolve another notebook's label and shows it as its raw name, so another chapter's equation is
linked instead, ``[chapter 11](#eq-ch11-composite)`` (README, "Numbers in the prose").  The book
build resolves both, so only this check (and the JupyterLab stage, minutes later) catches it.

    .venv/bin/python -m pytest tests/notebooks/test_cross_references.py -q
"""

from __future__ import annotations

import re

import nbformat
import pytest

from nbcheck import chapter_notebooks

CHAPTERS = chapter_notebooks()
ROLE = re.compile(r"\{eq\}`(eq-(ch\d\d)-[^`]*)`")


def foreign_eq_roles(nb, own: str) -> list[str]:
    """The {eq} roles of the markdown cells that name another chapter's label."""
    return [f"markdown cell {i}: {{eq}}`{m.group(1)}`" for i, cell in enumerate(nb.cells)
            if cell.cell_type == "markdown" for m in ROLE.finditer(cell.source) if m.group(2) != own]


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_eq_roles_name_only_the_chapters_own_equations(path):
    bad = foreign_eq_roles(nbformat.read(path, as_version=4), path.stem[:4])
    assert not bad, (f"{path.name}: link another chapter's equation as [chapter N](#eq-chNN-...), "
                     f"not with {{eq}} (JupyterLab shows it raw): {bad}")


def test_the_check_sees_a_foreign_role():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "own {eq}`eq-ch13-handle`, foreign {eq}`eq-ch11-composite`, a link [chapter 11](#eq-ch11-vel)")])
    assert foreign_eq_roles(nb, "ch13") == ["markdown cell 0: {eq}`eq-ch11-composite`"]
