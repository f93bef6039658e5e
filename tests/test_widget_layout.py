"""The narrow (phone) layout of every experiment (widgets/_narrow.py): readable and complete.

A phone's text column is about 330 px wide.  Every experiment built with ``narrow=True`` must
fill exactly that width, with no text smaller than 10.5 pt (14.6 px at 100 dpi: the book's
smallest print is 14 px), no plot, label or title cut by the figure's edge and no two panels
on top of each other, at its defaults and at random settings of its controls (bars rescale,
labels change length); and it must show the same numbers as the wide layout.
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from widgets import EXPERIMENTS
from widgets._narrow import NARROW_MIN_FONT, NARROW_WIDTH, figure_panels
from widget_helpers import shared

from test_widget_live import _close, settings


def _inside(exp, tol=1.5):
    """Every visible axes (tick labels, axis labels, title, legend) and figure text inside
    the figure; returns the offenders."""
    renderer = exp.canvas.get_renderer()
    w, h = exp.canvas.get_width_height()
    bad = []
    items = [(ax.get_title() or type(ax).__name__, ax.get_tightbbox(renderer))
             for ax in exp.figure.axes if ax.get_visible()]
    items += [(t.get_text(), t.get_window_extent(renderer)) for t in exp.figure.texts
              if t.get_visible() and t.get_text()]
    for name, b in items:
        if b is not None and (b.x0 < -tol or b.y0 < -tol or b.x1 > w + tol or b.y1 > h + tol):
            bad.append((name[:40], [round(v) for v in b.extents]))
    return bad


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_narrow_layout_fits_a_phone_column(name):
    cls = EXPERIMENTS[name]
    exp = shared(name, True)
    wide = shared(name)
    w, h = exp.canvas.get_width_height()
    assert w == round(NARROW_WIDTH * exp.dpi) == 330
    assert h > wide.canvas.get_width_height()[1]             # the panels are stacked
    assert len(exp.figure.axes) == len(wide.figure.axes)
    for values in [{}] + settings(cls, 7):      # 3 random settings, 1 in make test-fast
        if values:
            exp.set(**values)
            wide.set(**values)
        assert _close(exp.state(), wide.state()), values           # same physics
        renderer = exp.canvas.get_renderer()
        texts = [t for t in exp.figure.findobj(Text) if t.get_visible() and t.get_text()]
        small = [(t.get_text()[:20], t.get_fontsize()) for t in texts
                 if t.get_fontsize() < NARROW_MIN_FONT - 1e-9]
        assert not small, f"{name} {values}: text below {NARROW_MIN_FONT} pt: {small}"
        assert not _inside(exp), f"{name} {values}: cut by the edge: {_inside(exp)}"
        # no two panels overlap: their rows are one above the other
        panels = figure_panels(exp.figure, renderer)
        rows = [Bbox.union([ax.get_tightbbox(renderer) for ax in p]) for p in panels]
        rows.sort(key=lambda b: -b.y1)
        for upper, lower in zip(rows, rows[1:]):
            assert lower.y1 <= upper.y0 + 2, f"{name} {values}: panels overlap {rows}"


def test_narrow_must_be_a_bool():
    """frames(narrow="x") used to take any truthy value, and numpy's True was refused."""
    cls = EXPERIMENTS["kinetic_energy"]
    with pytest.raises(ValueError, match=r"^narrow: expected True or False"):
        cls(narrow="yes")
    exp = cls(narrow=np.bool_(False))
    try:
        assert exp.narrow is False
        with pytest.raises(ValueError, match=r"^narrow: expected True or False"):
            exp.frames(values=[0.0], narrow="x")
    finally:
        exp.close()


def test_static_player_carries_the_phone_frames_and_the_settings():
    import base64
    import json
    import re

    exp = EXPERIMENTS["kinetic_energy"](omega=-1.5)
    try:
        html = exp.static_player(values=[0.0, 0.4]).data
    finally:
        exp.close()
    listed = re.search(r'<script type="application/json" class="sb-narrow-frames">(.*?)</script>',
                       html, re.S)
    narrow = json.loads(listed.group(1))
    assert len(narrow) == 2
    png = base64.b64decode(narrow[0].split(",", 1)[1])
    assert int.from_bytes(png[16:20], "big") == 330                 # the narrow figure's width
    assert 'data-sb-wide-width="660"' in html and 'data-sb-control="ref_x"' in html
    settings_attr = re.search(r'data-sb-settings="([^"]*)"', html).group(1)
    assert json.loads(settings_attr.replace("&quot;", '"')) == {"omega": -1.5, "ref_x": 0.0}
