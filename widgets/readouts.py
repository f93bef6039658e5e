"""The readout panel: numbers as text, the same in JupyterLab, frame players and live mode."""

from __future__ import annotations

import html
import math
from typing import Any, Sequence

import numpy as np

from .prose import DIGITS, _round_float


def plain(x: Any) -> Any:
    """Convert numpy scalars/arrays (and nested containers) to JSON-able Python floats/lists."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, (str, bool)) or x is None:
        return x
    a = np.asarray(x, dtype=float)
    a = np.where(a == 0.0, 0.0, a)          # no "-0.0" in readouts
    return a.tolist() if a.ndim else float(a)


def fmt_number(x: Any, digits: int = 3) -> str:
    """Readout text of a float (``0.853``) or a vector (``(0.00, 0.80, 0.00)``); strings escaped."""
    if isinstance(x, str):
        return html.escape(x)
    if isinstance(x, float):                  # a Python or numpy float: no array made
        return _fmt_float(x, digits)
    a = np.asarray(x, dtype=float)
    if a.ndim == 0:
        return _fmt_float(float(a), digits)
    vdigits = max(digits - 1, 1)                       # vectors one digit shorter (narrow panel)
    return "(" + ", ".join(_fmt_float(v, vdigits) for v in a.ravel().tolist()) + ")"


def _fmt_float(v: float, digits: int) -> str:
    """One number of :func:`fmt_number`: rounded to ``prose.DIGITS`` significant digits first
    (``prose.significant``: last-bit noise must not flip a rounding), then ``digits`` decimals.
    Floats only: a readout table formats 10-80 of them per change (E11: about a tenth of a
    change in the browser when each went through an array and significant's type checks)."""
    v = _round_float(float(v), DIGITS)
    if not math.isfinite(v):
        return "—"
    if abs(v) < 0.5 * 10.0 ** -digits:
        v = 0.0                                   # never print "-0.000"
    return f"{v:.{digits}f}"



_NOWRAP = "<span style='white-space:nowrap'>{}</span>"


def fmt_significant(x: float, figures: int = 2) -> str:
    """Readout text of a float to ``figures`` significant digits, for a number too small for a
    readout's fixed decimals (E11's H₇₇ in a table of 0.01), rounded to ``prose.DIGITS`` first
    as :func:`fmt_number` is.

    >>> fmt_significant(0.0048999999999), fmt_significant(1.445)
    ('0.0049', '1.4')
    """
    v = _round_float(float(x), DIGITS)
    return f"{v:.{figures}g}" if math.isfinite(v) else "—"


def value_cell(x: Any, digits: int = 3) -> str:
    """A readout value as HTML that a narrow (phone) panel may break only once: a vector is
    two unbreakable halves (a 6-vector: its angular and linear parts), a number unbreakable.

    >>> value_cell([0, 0, 2, 0, 0.8, 0]).count("nowrap")
    2
    """
    if isinstance(x, str):
        return html.escape(x)
    a = np.asarray(x, dtype=float).ravel()
    if np.ndim(x) == 0 or a.size <= 1:
        return _NOWRAP.format(fmt_number(x, digits))
    half = (a.size + 1) // 2
    vdigits = max(digits - 1, 1)
    first = ", ".join(_fmt_float(v, vdigits) for v in a[:half].tolist())
    second = ", ".join(_fmt_float(v, vdigits) for v in a[half:].tolist())
    return _NOWRAP.format(f"({first},") + " " + _NOWRAP.format(f"{second})")


def unit_cell(unit: str) -> str:
    """A unit as HTML: never broken inside ("kg m²"), only after a comma ("rad/s, m/s")."""
    return " ".join(_NOWRAP.format(part + ",") for part in unit.split(", ")[:-1]) \
        + (" " if ", " in unit else "") + _NOWRAP.format(unit.split(", ")[-1]) if unit else ""


def matrix_table(M, rows: Sequence[str], cols: Sequence[str], title: str, unit: str,
                 digits: int = 2) -> str:
    """A matrix readout (E4's I_P, E11's H) narrow enough for a phone's 330-px panel: numbers
    with ``digits`` decimals, small print, 2-px cell padding."""
    cell = "font-family:monospace;text-align:right;padding:0 2px"
    head = "".join(f"<th style='padding:0 2px'>{c}</th>" for c in cols)
    body = "".join(
        f"<tr><th style='padding:0 2px'>{r}</th>"
        + "".join(f"<td style='{cell}'>{fmt_number(M[i][j], digits)}</td>"
                  for j in range(len(cols))) + "</tr>"
        for i, r in enumerate(rows))
    return (f"<div style='margin-top:6px'><b>{title}</b> ({unit})"
            f"<table style='border-collapse:collapse;font-size:smaller'>"
            f"<tr><th></th>{head}</tr>{body}</table></div>")


def readout_table(rows: tuple, numbers: dict) -> str:
    """Readout rows ``(label, key, unit)`` of ``numbers`` as an HTML table (the panel beside
    the plot, and the text under each static frame)."""
    cells = "".join(
        f"<tr><td style='padding:1px 8px 1px 0'>{label}</td>"
        f"<td style='font-family:monospace;text-align:right'>{value_cell(numbers[key])}</td>"
        f"<td style='padding-left:4px'>{unit_cell(unit)}</td></tr>"
        for label, key, unit in rows
    )
    # class sb-rows: on a phone the book's style sheet lets a row's cells wrap (label, then value
    # and unit), so a long vector keeps its two lines instead of widening the table
    return f"<table class='sb-rows' style='border-collapse:collapse'>{cells}</table>"


def readout_html(title: str, table: str, notes: dict[str, str]) -> str:
    """The readout panel: the experiment's title, its table, then one line per note
    (``label -> why``), colours inherited so it suits any theme."""
    lines = "".join(f"<div style='font-size:smaller;opacity:0.8'>"
                    f"{html.escape(label)}: {html.escape(why)}</div>"
                    for label, why in notes.items())
    return (f"<div role='status' aria-label='{html.escape(title)} readouts'>"
            f"<b>{html.escape(title)}</b>{table}{lines}</div>")


def readout_text(rows: tuple, numbers: dict) -> str:
    """A one-line version of the first four readout rows."""
    return "; ".join(f"{label} = {fmt_number(numbers[key])} {unit}".strip()
                     for label, key, unit in rows[:4])
