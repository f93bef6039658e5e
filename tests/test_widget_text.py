"""Every text of every experiment's figure is readable where it is shown, and none overlaps another.

The wide figure is shown in the book's column (measured with headless Chromium at a 1280-px
viewport: ``COLUMN_PX``), never wider than it is drawn; the narrow figure (the phone layout,
``widgets/_narrow.py``) is shown 1:1 in a 390-px phone's column.  For every experiment of
``widgets.EXPERIMENTS``, wide and narrow, at its defaults and 3 seeded random settings of its
controls, each text the renderer draws (tick labels, axis labels, titles, legend entries and
titles, annotations, moving labels) must

* be at least ``MIN_WIDE_PX`` CSS px (wide) / ``MIN_NARROW_PX`` (narrow) tall in font size;
* not overlap any other drawn text (their boxes, rotated boxes for turned labels, may touch
  within ``TOLERANCE`` px), nor lie under a legend's frame (other than its own entries);
* lie inside the figure.

The texts are the ones ``Text.draw`` is called for in a full redraw (background, moving
artists and the on-top overlay), so tick labels outside the view, empty texts and hidden
artists do not count.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.legend import Legend
from matplotlib.text import Text

from widgets import EXPERIMENTS

#: Every drawing stack the book's figures are drawn with passes this check: the lock's
#: (matplotlib 3.11, the book's frames) and Pyodide's (matplotlib 3.8.4, live mode), the last in
#: the other-Pythons stage (tools/test_pythons.py).

#: the book's text column on a 1280-px desktop page (CSS px), measured in the built book
COLUMN_PX = 660
MIN_WIDE_PX = 12.0
MIN_NARROW_PX = 14.0
#: px two text boxes may share (anti-aliased edges) / a text may run past the figure's edge
TOLERANCE = 1.0


from sampling import count  # noqa: E402
from widget_helpers import chinese_cases, settings, shared  # noqa: E402


def drawn_texts(exp, legends: list | None = None) -> list[tuple[Text, object]]:
    """(text, window extent) of every text a full redraw of ``exp`` draws; the legends drawn
    are appended to ``legends`` as (legend, frame extent)."""
    seen: list = []
    original, original_legend = Text.draw, Legend.draw

    def draw(self, renderer):
        if self.get_visible() and self.get_text().strip():
            seen.append((self, self.get_window_extent(renderer)))
        return original(self, renderer)

    def draw_legend(self, renderer):
        if legends is not None and self.get_visible():
            legends.append((self, self.get_window_extent(renderer)))
        return original_legend(self, renderer)

    Text.draw, Legend.draw = draw, draw_legend
    try:
        exp.invalidate()
        exp._render(full=True)
    finally:
        Text.draw, Legend.draw = original, original_legend
    unique, ids = [], set()
    for t, box in seen:                      # a text drawn twice (overlay) counts once
        if id(t) not in ids:
            ids.add(id(t))
            unique.append((t, box))
    return unique


def _corners(text: Text, box) -> np.ndarray:
    """The 4 corners (px) of a text's box, turned with the text (its window extent is the
    axis-aligned box around the turned text)."""
    theta = math.radians(text.get_rotation() % 180.0)
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    W, H = box.width, box.height
    cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    if s < 1e-6 or c < 1e-6 or abs(c * c - s * s) < 0.2:
        w, h, theta = W, H, 0.0      # upright, vertical or near 45 degrees: the plain box
    else:
        w = (W * c - H * s) / (c * c - s * s)
        h = (H * c - W * s) / (c * c - s * s)
    u = np.array([math.cos(theta), math.sin(theta)])
    v = np.array([-u[1], u[0]])
    half = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    return np.array([[cx, cy] + a * u + b * v for a, b in half])


def overlap(p: np.ndarray, q: np.ndarray) -> float:
    """How deep two convex quadrilaterals overlap (px): the smallest overlap of their
    projections on the edges' normals (separating axis theorem); <= 0 when apart."""
    depth = math.inf
    for poly in (p, q):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            n = np.array([-edge[1], edge[0]])
            norm = np.hypot(*n)
            if norm == 0:
                continue
            n = n / norm
            a, b = p @ n, q @ n
            depth = min(depth, min(a.max(), b.max()) - max(a.min(), b.min()))
    return depth


def problems(exp, narrow: bool) -> list[str]:
    w, h = exp.canvas.get_width_height()
    scale = 1.0 if narrow else min(1.0, COLUMN_PX / w)      # shown at most as wide as drawn
    least = MIN_NARROW_PX if narrow else MIN_WIDE_PX
    legends: list = []
    texts = drawn_texts(exp, legends)
    out = []
    for legend, frame in legends:            # a legend hides what is under it
        own = {id(t) for t in (*legend.get_texts(), legend.get_title())}
        for t, box in texts:
            if id(t) in own:
                continue
            dx = min(frame.x1, box.x1) - max(frame.x0, box.x0)
            dy = min(frame.y1, box.y1) - max(frame.y0, box.y0)
            if min(dx, dy) > TOLERANCE:
                out.append(f"{t.get_text()!r} is under a legend by {min(dx, dy):.1f} px")
    for t, box in texts:
        px = t.get_fontsize() * exp.figure.dpi / 72.0 * scale
        if px < least - 1e-9:
            out.append(f"{t.get_text()!r}: {px:.1f} CSS px < {least:g}")
        if box.x0 < -TOLERANCE or box.y0 < -TOLERANCE or box.x1 > w + TOLERANCE \
                or box.y1 > h + TOLERANCE:
            out.append(f"{t.get_text()!r}: outside the {w}x{h} figure at "
                       f"{[round(v) for v in box.extents]}")
    corners = [_corners(t, box) for t, box in texts]
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            a, b = texts[i][1], texts[j][1]
            if a.x1 < b.x0 or b.x1 < a.x0 or a.y1 < b.y0 or b.y1 < a.y0:
                continue
            d = overlap(corners[i], corners[j])
            if d > TOLERANCE:
                out.append(f"{texts[i][0].get_text()!r} overlaps {texts[j][0].get_text()!r} "
                           f"by {d:.1f} px")
    return out


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_text_readable_inside_and_apart(name, narrow):
    cls = EXPERIMENTS[name]
    exp = shared(name, narrow)
    found = []
    # defaults and 3 random settings (1 in make test-fast), each setting every control
    for values in [{}] + settings(cls, 20 + sorted(EXPERIMENTS).index(name), count(3, 1)):
        if values:
            exp.set(**values)
        found += [f"{values or 'defaults'}: {p}" for p in problems(exp, narrow)]
    assert not found, f"{name} ({'narrow' if narrow else 'wide'}):\n" + "\n".join(found)


def test_the_checks_catch_overlaps_and_turned_boxes():
    """The overlap measure itself: apart, touching, crossing, and two 30-degree labels side by
    side whose upright boxes overlap but whose turned boxes do not."""
    sq = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    assert overlap(sq, sq + [20, 0]) < 0
    assert overlap(sq, sq + [10, 0]) == pytest.approx(0)
    assert overlap(sq, sq + [7, 3]) == pytest.approx(3)
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = Figure(figsize=(4, 2), dpi=100)
    canvas = FigureCanvasAgg(fig)
    a = fig.text(0.4, 0.5, "a long label", rotation=30, fontsize=12)
    b = fig.text(0.4, 0.3, "a long label", rotation=30, fontsize=12)
    r = canvas.get_renderer()
    ba, bb = a.get_window_extent(r), b.get_window_extent(r)
    assert ba.overlaps(bb)                                   # upright boxes overlap
    assert overlap(_corners(a, ba), _corners(b, bb)) < TOLERANCE   # the texts do not


# ---------------------------------------------------------------- the Chinese edition's figures


@pytest.mark.parametrize("name, narrow", chinese_cases())
def test_chinese_figure_text_readable_inside_apart_and_translated(name, narrow):
    """The same check on the Chinese edition's figures (issue 36; ``widgets/figure_text.py``),
    their CJK text measured with the font it is drawn in: defaults and a random setting (in
    ``make test-fast``: the defaults, one layout per experiment, ``chinese_cases``); and no text
    left in English, no glyph missing from the fonts (an empty box)."""
    import warnings

    from widget_helpers import chinese
    from widgets.figure_text import english_texts

    found = []
    with warnings.catch_warnings(record=True) as caught, chinese(name, narrow) as exp:
        warnings.simplefilter("always")
        for values in [{}] + settings(EXPERIMENTS[name], 40 + sorted(EXPERIMENTS).index(name),
                                      count(1, 0)):
            if values:
                exp.set(**values)
            found += [f"{values or 'defaults'}: {p}" for p in problems(exp, narrow)]
            found += [f"{values or 'defaults'}: English text {t!r}" for t in english_texts(exp.figure)]
    found += [f"missing glyph: {w.message}" for w in caught if "glyph" in str(w.message).lower()]
    assert not found, f"{name} ({'narrow' if narrow else 'wide'}, Chinese):\n" + "\n".join(found)


def test_chinese_check_fails_on_an_untranslated_figure_string():
    """A figure string planted without its translation is found (the check above and the
    Chinese build's warning both read ``english_texts`` / ``MISSES``), and the English figure
    drawn after a Chinese one is the same bytes as before (the language leaves nothing behind)."""
    from widget_helpers import chinese, chinese_table
    from widgets.figure_text import MISSES, english_texts

    before = EXPERIMENTS["power_split"]()
    png = before._encode(6)
    before.close()
    table = dict(chinese_table())
    assert table.pop("push point Q")
    with chinese("power_split", False, table) as exp:
        assert "push point Q" in english_texts(exp.figure)
        assert MISSES["push point Q"] > 0
        assert not [t for t in english_texts(exp.figure) if t != "push point Q"]
    after = EXPERIMENTS["power_split"]()
    assert after._encode(6) == png
    after.close()


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_text_beside_the_figure_has_a_chinese_translation(name):
    """The texts live mode and the Chinese pages show beside the figure (its title, alt text,
    control labels, hints and options, readout labels, the reasons a control is off), from the
    experiment's class: each needs its entry in book/locale/zh_CN/code_strings.po.  Selected by
    ``make test-experiment NAME=<name>`` (the figure's own texts are checked above)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import zh_strings

    entries, _, _ = zh_strings.load()
    missing = sorted(t for t, names in zh_strings._experiment_strings().items()
                     if name in names and not entries.get(t))
    assert not missing, (f"{name}: no Chinese for {missing}: run .venv/bin/python "
                         f"tools/zh_strings.py update, translate, then its import and check")


def test_the_reasons_a_control_is_off_are_found_for_the_catalogue():
    """The off-reasons come from each experiment's own ``inactive`` source (kept as
    ``_inactive_of`` behind the checked ``inactive``): the catalogue must still find them."""
    import sys
    from pathlib import Path

    from widgets import Probes

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import zh_strings

    reason = Probes(path="fixed").inactive({"path": "fixed", "nu": 0.0, "omega": 2.0, "u": 0.5})["u"]
    assert "probes" in zh_strings._experiment_strings().get(reason, set())
