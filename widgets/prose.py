"""Computed numbers in a chapter's prose that read the same in the book and in JupyterLab.

A chapter computes a value in a code cell and records it under a key with ``glue`` (the same call
as ``myst_nb.glue``, which it also makes, so the value is stored in the cell's outputs and nbval
keeps checking it); the prose shows it with the MyST inline expression role::

    The door turns at {eval}`N("ch08_omega", ".0f")` rad/s.

``N(key, fmt)`` is ``format(value, fmt)`` of the recorded value (without ``fmt``: a string as it
is, anything else as its ``repr``), returned as an object whose ``repr`` is that text, so it is
shown without quotes.  In JupyterLab, ``jupyterlab-myst`` evaluates the role with the live kernel
when the cell is run (and shows the stored result before that); ``tools/execute_notebooks.py``
evaluates every role after the chapter has run and stores the result in the markdown cell's
``metadata.user_expressions``, which the book's build renders (``tools/sb_eval.py``).

>>> glue("demo_speed", 1.23456, display=False)
>>> N("demo_speed", ".2f")
1.23
>>> glue("demo_vector", "(1.0, -2.0, 0.5)", display=False)
>>> N("demo_vector")
(1.0, -2.0, 0.5)
"""

from __future__ import annotations

from typing import Any

__all__ = ["glue", "N", "Shown", "VALUES"]

#: key -> the value last recorded under it by ``glue`` in this kernel.
VALUES: dict[str, Any] = {}


class Shown(str):
    """Text shown as it is: its ``repr`` is the text itself (no quotes)."""

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, p, cycle) -> None:   # IPython's text/plain
        p.text(str(self))


def glue(name: str, variable: Any, display: bool = True) -> None:
    """Record ``variable`` under ``name`` for ``N`` and glue it with ``myst_nb.glue``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"glue: name must be a non-empty string, got {name!r}")
    VALUES[name] = variable
    try:
        from IPython import get_ipython
        from myst_nb import glue as myst_glue
    except ImportError:          # no myst_nb: the prose still works through N
        return
    if get_ipython() is not None:   # outside a kernel there is no output to store
        myst_glue(name, variable, display=display)


def N(name: str, fmt: str = "") -> Shown:  # noqa: N802 (short on purpose: it sits in prose)
    """The recorded value of ``name`` as prose text, formatted with ``fmt``."""
    if name not in VALUES:
        raise ValueError(f"N: nothing was glued under {name!r} (yet); "
                         f"known keys: {sorted(VALUES)[:8]}{' ...' if len(VALUES) > 8 else ''}")
    value = VALUES[name]
    if fmt:
        return Shown(format(value, fmt))
    return Shown(value if isinstance(value, str) else repr(value))
