"""The 3-D parts of widgets/parts.py (bare_3d_axes, turn_view, project, Tubes3D, Arrow3D, Triad):
what they draw against matplotlib's own 3-D projection and against geometry worked out here."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure
from mpl_toolkits.mplot3d import proj3d

from widgets.blit import BlitFigure
from widgets.parts import (Arrow3D, Triad, Tubes3D, bare_3d_axes, project, turn_view,
                           view_direction)

VIEWS = [(e, a) for e in range(-30, 91, 15) for a in range(-180, 180, 20)]


class _Host:
    """What a part needs of an experiment: ``_moving`` (the blitter's)."""

    def __init__(self):
        self.blit = BlitFigure(Figure(figsize=(4.0, 4.0), dpi=100))
        self.canvas = self.blit.canvas

    def _moving(self, artist, depends=None):
        return self.blit.moving(artist, depends)


@pytest.fixture()
def host():
    h = _Host()
    h.ax = bare_3d_axes(h.blit.figure, (0.0, 0.0, 1.0, 1.0), (0.1, -0.2, 0.4), 1.2, 20, -55)
    return h


def test_project_is_matplotlibs_projection_and_the_ball_stays_inside(host):
    """project() = mplot3d's proj_transform through ax.M, at every view; the ball of the
    axes' radius projects inside the axes' square; moving toward the viewer moves nothing."""
    ax = host.ax
    rng = np.random.default_rng(3)
    u = rng.normal(size=(400, 3))
    ball = (0.1, -0.2, 0.4) + 1.2 * u / np.linalg.norm(u, axis=1, keepdims=True)
    for elev, azim in VIEWS:
        toward = turn_view(ax, elev, azim)
        np.testing.assert_allclose(toward, view_direction(elev, azim))
        xs, ys, _ = proj3d.proj_transform(*ball.T, ax.M)
        np.testing.assert_allclose(project(ax, ball), np.c_[xs, ys], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(project(ax, ball + 0.5 * toward), project(ax, ball), atol=1e-12)
        px = ax.transData.transform(project(ax, ball))
        box = ax.bbox
        assert np.all(px >= (box.x0, box.y0)) and np.all(px <= (box.x1, box.y1)), (elev, azim)


def test_tubes_are_drawn_far_to_near(host):
    ax = host.ax
    tubes = Tubes3D(host, ax, "grey")
    segs = np.array([[[0, 0, 0], [0, 0, 1]], [[1, 0, 0], [1, 1, 0]], [[-1, 0, 0], [-1, 0, 1]]], float)
    for elev, azim in VIEWS[::7]:
        toward = turn_view(ax, elev, azim)
        tubes.set(segs, toward)
        depth = segs.mean(axis=1) @ toward
        assert np.all(np.diff(depth[tubes.order]) >= 0)
        drawn = np.asarray(tubes.lines.get_segments())
        assert len(drawn) == 2 * len(segs)
        np.testing.assert_allclose(drawn[1::2].reshape(-1, 2),
                                   project(ax, segs[tubes.order].reshape(-1, 3)))
        lw = tubes.lines.get_linewidths()
        assert np.all(lw[0::2] > lw[1::2])                 # each edge under a narrower core


def test_arrow_head_lies_across_the_view_and_the_scale_is_stated(host):
    ax = host.ax
    arrow = Arrow3D(host, ax, 0.25, "m/s", "green", "v")
    assert arrow.label == "v (1 m/s ↦ 0.25 m)"
    v = np.array([0.3, -1.2, 0.8])
    for elev, azim in VIEWS[::5]:
        toward = turn_view(ax, elev, azim)
        arrow.set((0.1, 0.2, 0.3), v, toward)
        p = arrow.points
        np.testing.assert_allclose(p[1] - p[0], 0.25 * v)           # shaft: scale × vector
        across = p[3] - p[5]
        assert abs(across @ toward) < 1e-12 and abs(across @ v) < 1e-12
        assert np.linalg.norm(across) > 0.2 * 0.25 * np.linalg.norm(v)


def test_triad_labels_never_overlap(host):
    """At every view of the grid, the labels shown are apart (their boxes do not meet), none
    lies on an arrow of the triad, and a label is hidden exactly where its axis points within
    30 degrees of the viewer (it was hidden, too, where it would meet another label: E2's y)."""
    ax, fig = host.ax, host.blit.figure
    triad = Triad(host, ax, 0.3)
    r = host.canvas.get_renderer()
    t = np.linspace(0.0, 1.0, 50)[:, None]
    for elev, azim in VIEWS:
        toward = turn_view(ax, elev, azim)
        triad.set((0.0, 0.0, 0.0), np.eye(3), toward)
        boxes = [t_.get_window_extent(r) for t_ in triad.labels if t_.get_visible()]
        assert boxes, (elev, azim)
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert not a.overlaps(b), (elev, azim)
        for k, label in enumerate(triad.labels):
            end_on = abs(toward[k]) >= np.cos(np.radians(30))
            assert label.get_visible() != end_on, (elev, azim, k)
        for arrow in triad.arrows:
            p = ax.transData.transform(project(ax, arrow.points))
            for a, b in zip(p[:-1], p[1:]):
                if np.isfinite(a).all() and np.isfinite(b).all():
                    on = a + t * (b - a)
                    for box in boxes:
                        inside = ((on[:, 0] > box.x0) & (on[:, 0] < box.x1)
                                  & (on[:, 1] > box.y0) & (on[:, 1] < box.y1))
                        assert not inside.any(), (elev, azim)
    fig.canvas.draw()
