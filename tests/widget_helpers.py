"""Small helpers shared by the widget tests (tests/test_widgets.py and tests/test_widget_*.py)."""

from __future__ import annotations

import math

import numpy as np


def finite(x) -> bool:
    """True if every number in a plain state (nested dicts, lists, floats, strings) is finite."""
    if isinstance(x, dict):
        return all(finite(v) for v in x.values())
    if isinstance(x, list):
        return all(finite(v) for v in x)
    if isinstance(x, str):
        return True
    return isinstance(x, float) and math.isfinite(x)


def uv(q) -> np.ndarray:
    """The (U, V) components of a matplotlib quiver as an (n, 2) array."""
    return np.column_stack([np.asarray(q.U, float), np.asarray(q.V, float)])


def settings(cls, seed: int, n: int = 3) -> list[dict]:
    """``n`` seeded random settings of an experiment's sliders (on their step grid) and choices."""
    from widgets import Choice, Slider

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        values = {}
        for c in cls.CONTROLS:
            if isinstance(c, Slider):
                k = int(rng.integers(0, int(round((c.max - c.min) / c.step)) + 1))
                values[c.name] = float(round(c.min + k * c.step, 10))
            elif isinstance(c, Choice):
                values[c.name] = c.options[int(rng.integers(0, len(c.options)))]
        out.append(values)
    return out


#: experiments built once per test process and shared (:func:`shared`), by (name, narrow)
_SHARED: dict = {}
#: what each shared experiment looked like when last handed out (:func:`_fingerprint`)
_HANDED: dict = {}


def _fingerprint(exp) -> tuple:
    """What a test could see of a shared experiment: its control values, the scene's and the
    full redraws' counters, the widget's picture and the canvas's pixels (a 2-ms hash).  Equal
    fingerprints: nothing was set, drawn or shown since it was handed out."""
    import hashlib

    picture = exp.image.value
    return (repr(exp.values()), exp._scene_serial[0], exp.blit.redraws, len(picture), hash(picture),
            hashlib.sha1(exp.canvas.buffer_rgba()).digest(), exp.figure.dpi)


def shared(name: str, narrow: bool = False):
    """The registered experiment ``name`` (wide, or the phone layout if ``narrow``), built once
    per test process and handed out at its defaults: every control set back to its declared
    value and the background invalidated, so what it draws and reads out is what a fresh
    instance draws (tests/test_widgets.py's ``test_blitting_leaves_no_stale_pixels`` compares a
    walked instance with a fresh one).  For tests that set controls and read the state, the
    pixels or the redraw count (counted from its value before a change, never from a fresh
    instance's); never ``close`` it.  A test that changes anything else (``set_scale``, a patched
    ``scene``) builds its own instance, or restores what it changed in a ``finally``.

    Building an experiment costs about as much as four full redraws (0.3-0.9 s of CPU); the
    library and widget tests built each one a dozen times per process.  An instance that
    nothing has set, drawn or shown since it was handed out (:func:`_fingerprint`: the refused
    values of test_widget_controls.py, the readers of the state) is handed out again as it is,
    without the full redraw (its 692 refused-value cases each paid one: about 0.15 s of CPU).
    """
    from widgets import EXPERIMENTS, Player

    cls = EXPERIMENTS[name]
    key = (name, narrow)
    exp = _SHARED.get(key)
    if exp is None or "_scene_of" in vars(exp) or exp.figure.dpi != cls.dpi:
        exp = _SHARED[key] = cls(narrow=narrow)       # first use, or left changed
    elif _HANDED.get(key) != _fingerprint(exp):
        defaults = {c.name: c.value for c in cls.CONTROLS if not isinstance(c, Player)}
        exp.invalidate()
        exp.set(**defaults)
    _HANDED[key] = _fingerprint(exp)
    return exp


def chinese_cases() -> list:
    """(name, narrow) of the Chinese edition's figure checks: every experiment wide and narrow;
    in ``make test-fast`` (tests/sampling.py) one layout each, wide and narrow by turns over the
    sorted names, so every experiment and both layouts are still reached (issue 34: the
    Chinese cases had added 64 s of CPU to the sampled run)."""
    import pytest

    from sampling import sampled
    from widgets import EXPERIMENTS

    names = sorted(EXPERIMENTS)
    return [pytest.param(n, narrow, id=f"{n}-{'narrow' if narrow else 'wide'}")
            for i, n in enumerate(names) for narrow in (False, True)
            if not sampled() or narrow == bool(i % 2)]


def chinese_table() -> dict:
    """The Chinese edition's figure strings (English -> Chinese) from the code strings'
    catalogue (``tools/zh_strings.py figure_table``), as the Chinese build draws with them."""
    import sys
    from pathlib import Path

    tools = str(Path(__file__).resolve().parent.parent / "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    from zh_strings import figure_table

    return figure_table()


def chinese(name: str, narrow: bool, table: dict | None = None):
    """A context manager giving the registered experiment ``name`` built and drawn in the Chinese
    edition's figure language (``widgets/figure_text.py``: its texts translated, CJK in the
    subset of Noto Sans CJK SC, measured with that font); the language stays on while the
    test sets controls (a text set later is translated too).  ``table`` replaces the
    catalogue's (a planted missing translation)."""
    import contextlib

    from widgets import EXPERIMENTS
    from widgets.figure_text import language

    @contextlib.contextmanager
    def made():
        with language(chinese_table() if table is None else table):
            exp = EXPERIMENTS[name](narrow=narrow)
            try:
                yield exp
            finally:
                exp.close()

    return made()
