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

Stored numbers carry only the digits that mean something
---------------------------------------------------------
A number that lands in a stored output is compared by nbval on every reader's machine, whose
BLAS kernel and SIMD code round the last bits differently (``0.5`` here, ``0.49999999999999994``
there).  So ``glue`` stores ``significant(value, digits)``: rounded to ``digits`` significant
digits (10 by default: far more than any prose shows, and far fewer than the 15-17 a double
carries, so a last-bit difference cannot reach them, while a 1e-6 change of the physics does).
An ill-conditioned number (a ratio of two round-off-sized errors, a finite-difference residual, a
difference of nearly equal numbers) is glued with fewer digits and a comment saying why.  A
magnitude below ``TINY`` (1e-12; every quantity of the book's door is 1e-3..1e3 in SI units) is
round-off, stored as 0: say "below 1e-12" in the prose instead of printing dust.  Each glue
record carries its declared digits in its output metadata (``spatialbook.digits``), which
``tests/notebooks`` checks against the stored text.

>>> glue("demo_speed", 1.23456, display=False)
>>> N("demo_speed", ".2f")
1.23
>>> glue("demo_half", 0.49999999999999994, display=False)   # one kernel's 0.5
>>> N("demo_half")
0.5
>>> glue("demo_vector", "(1.0, -2.0, 0.5)", display=False)
>>> N("demo_vector")
(1.0, -2.0, 0.5)
"""

from __future__ import annotations

import ast
import json
import math
import os
from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = ["glue", "N", "Shown", "VALUES", "significant", "stored_values", "DIGITS", "TINY"]

#: Significant digits kept in a stored number unless the author declares fewer.
DIGITS = 10
#: Magnitudes below this are round-off in this book's SI numbers, stored as 0.
TINY = 1e-12

#: key -> the value last recorded under it by ``glue`` in this kernel.
VALUES: dict[str, Any] = {}


class Shown(str):
    """Text shown as it is: its ``repr`` is the text itself (no quotes)."""

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, p, cycle) -> None:   # IPython's text/plain
        p.text(str(self))


def _check_digits(digits) -> int:
    if isinstance(digits, bool) or not isinstance(digits, Integral) or not 1 <= digits <= 15:
        raise ValueError(f"digits must be an integer from 1 to 15, got {digits!r}")
    return int(digits)


def _round_float(x: float, digits: int) -> float:
    if not math.isfinite(x):
        return x
    if abs(x) < TINY:
        return 0.0                                   # round-off, and never "-0.0"
    return float(f"{x:.{digits - 1}e}") + 0.0


def significant(value: Any, digits: int = DIGITS) -> Any:
    """``value`` with every float rounded to ``digits`` significant digits, the rest unchanged.

    Floats (Python or numpy) become Python floats; numpy float arrays stay arrays (rounded);
    lists, tuples and dicts are rounded item by item.  Integers, booleans and strings are exact
    and returned as they are.  Magnitudes below ``TINY`` become 0.0, and -0.0 becomes 0.0.

    >>> significant(0.49999999999999994)
    0.5
    >>> significant([1/3, 2], digits=3)
    [0.333, 2]
    >>> significant(np.array([4.6e-16, -2/3]), digits=4)
    array([ 0.    , -0.6667])
    """
    digits = _check_digits(digits)
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        return value
    if isinstance(value, (Integral, np.integer)):
        return value
    if isinstance(value, (Real, np.floating)):
        return _round_float(float(value), digits)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            if value.dtype.kind == "c":
                return significant(value.real, digits) + 1j * significant(value.imag, digits)
            flat = [_round_float(float(x), digits) for x in value.ravel()]
            return np.array(flat, dtype=value.dtype).reshape(value.shape)
        return value
    if isinstance(value, dict):
        return {k: significant(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [significant(v, digits) for v in value]
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


def _is_numeric(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_, str, bytes)):
        return False
    if isinstance(value, (Real, np.number)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "iuf"
    if isinstance(value, (list, tuple)):
        return any(_is_numeric(v) for v in value)
    return False


def glue(name: str, variable: Any, display: bool = True, digits: int = DIGITS) -> None:
    """Record ``variable`` under ``name`` for ``N`` and glue it as ``myst_nb.glue`` does.

    Numbers are stored as ``significant(variable, digits)`` (see the module's notes): give an
    ill-conditioned number fewer ``digits`` and say why in a comment beside the call.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"glue: name must be a non-empty string, got {name!r}")
    try:
        digits = _check_digits(digits)
    except ValueError as err:
        raise ValueError(f"glue: {err}") from None
    value = significant(variable, digits)
    VALUES[name] = value
    try:
        from IPython import get_ipython
        from IPython.core.formatters import format_display_data
        from IPython.display import display as ipy_display
        from myst_nb.ext.glue import GLUE_PREFIX
    except ImportError:          # no myst_nb: the prose still works through N
        return
    if get_ipython() is None:    # outside a kernel there is no output to store
        return
    # what myst_nb.glue does, plus the declared digits in the record's metadata
    mimebundle, metadata = format_display_data(value)
    prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = dict(name=name, mime_prefix=prefix)
    if _is_numeric(value):
        metadata["spatialbook"] = {"digits": digits}
    ipy_display({prefix + k: v for k, v in mimebundle.items()}, raw=True, metadata=metadata)


#: Shown after a number that the open notebook's saved outputs hold but this kernel has not
#: computed yet (JupyterLab, running a chapter cell by cell from the top).
STORED_MARK = " (stored)"

_STORED_CACHE: dict[str, tuple[float, dict[str, Any]]] = {}


def stored_values(path: str | os.PathLike | None = None) -> dict[str, Any]:
    """key -> value glued in the SAVED outputs of a notebook (default: the kernel's own).

    JupyterLab starts a notebook's kernel with ``JPY_SESSION_NAME`` set to the notebook's path;
    a kernel without it (nbval, ``tools/execute_notebooks.py``, a script) has no stored values.
    Read once per change of the file; values are parsed from the stored text (``repr``).
    """
    path = os.fspath(path) if path is not None else os.environ.get("JPY_SESSION_NAME", "")
    if not path.endswith(".ipynb") or not os.path.isfile(path):
        return {}
    mtime = os.path.getmtime(path)
    cached = _STORED_CACHE.get(path)
    if cached and cached[0] == mtime:
        return cached[1]
    values: dict[str, Any] = {}
    try:
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
    except (OSError, ValueError):
        return {}
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            record = out.get("metadata", {}).get("scrapbook")
            if not record:
                continue
            text = out.get("data", {}).get(record.get("mime_prefix", "") + "text/plain")
            text = "".join(text) if isinstance(text, list) else text
            try:
                values[record["name"]] = ast.literal_eval(text)
            except (ValueError, SyntaxError, TypeError, KeyError):
                continue
    _STORED_CACHE[path] = (mtime, values)
    return values


def _text(value: Any, fmt: str) -> str:
    if fmt:
        return format(value, fmt)
    return value if isinstance(value, str) else repr(value)


def N(name: str, fmt: str = "") -> Shown:  # noqa: N802 (short on purpose: it sits in prose)
    """The recorded value of ``name`` as prose text, formatted with ``fmt``.

    A key this kernel has not glued yet (a cell below has not run) shows the value the open
    notebook's saved outputs hold, followed by `` (stored)`` (see ``stored_values``); a key
    found nowhere (misspelled, or glued by no cell) raises ``ValueError``.
    """
    if name in VALUES:
        return Shown(_text(VALUES[name], fmt))
    stored = stored_values()
    if name in stored:
        return Shown(_text(stored[name], fmt) + STORED_MARK)
    raise ValueError(f"N: nothing was glued under {name!r} (yet); "
                     f"known keys: {sorted(VALUES)[:8]}{' ...' if len(VALUES) > 8 else ''}")
