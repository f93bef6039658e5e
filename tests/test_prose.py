"""widgets.prose: the numbers of the prose (glue, N) and what they store."""

from __future__ import annotations

import pytest

import widgets.prose as prose
from widgets.prose import N, glue


@pytest.fixture
def fresh_values(monkeypatch):
    monkeypatch.setattr(prose, "VALUES", {})
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)


def test_glue_rounds_to_the_declared_digits(fresh_values):
    glue("t_half", 0.49999999999999994, display=False)
    glue("t_ratio", 15.301237862223, display=False, digits=3)
    glue("t_dust", -4.6e-16, display=False)
    glue("t_vec", [1 / 3, 2], display=False)
    assert N("t_half") == "0.5"
    assert N("t_ratio") == "15.3"
    assert N("t_dust") == "0.0"
    assert prose.VALUES["t_vec"] == [0.3333333333, 2]
    with pytest.raises(ValueError, match="digits"):
        glue("t_bad", 1.0, display=False, digits=20)


def test_a_key_not_yet_glued_shows_the_stored_value_marked(fresh_values, monkeypatch):
    """JupyterLab, a chapter run cell by cell: prose above the glue shows the saved number."""
    from pathlib import Path
    BOOK = Path(__file__).resolve().parent.parent / "book"
    chapter = BOOK / "chapters" / "ch01_velocity_field.ipynb"
    monkeypatch.setenv("JPY_SESSION_NAME", str(chapter))
    stored = prose.stored_values()
    assert stored["ch01_mass"] == 2.0
    assert N("ch01_mass", ".2f") == "2.00" + prose.STORED_MARK
    glue("ch01_mass", 2.0, display=False)                # once computed: the kernel's value
    assert N("ch01_mass", ".2f") == "2.00"
    with pytest.raises(ValueError, match="nothing was glued"):
        N("ch01_masss")                                  # misspelled: an error, not a guess


def test_no_stored_values_outside_jupyterlab(fresh_values):
    assert prose.stored_values() == {}
    with pytest.raises(ValueError, match="nothing was glued"):
        N("ch01_mass")
