"""E2's velocity-field grid in the plane z = 0: the drawn arrows are the rigid-body field, and at
zero pitch the field vanishes on the hinge line (the instantaneous axis), nowhere else.

The oracle is the screw form of the field written out by hand, v(x) = h w n + w n x (x - x_O)
for the door's screw motion about the hinge line (unit n = e_z through O), not spatialbook.
``check`` and ``DEGENERATE`` also drive the shared sweeps of tests/test_widgets.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb
from widgets import EXPERIMENTS
from widgets.screw_axis import (_PHI, ARROW_AXIS, ARROW_FIELD, ARROW_V, AXIS_S, DOOR_OUTLINE,
                                FIELD_GRID, MATERIAL, OMEGA, REACH, ZLIM, _reach_over_the_ranges,
                                scene)

DEGENERATE = [dict(pitch=0.0), dict(pitch=0.0, ref_x=0.0), dict(pitch=0.0, elev=90.0, azim=-90.0)]
PITCHES = (-0.1, -0.03, 0.0, 0.05, 0.1)
REFS = (0.0, 0.3, 0.8)


def toward_of(elev, azim):
    """Unit vector toward the viewer of a view at elev, azim (deg), by hand."""
    e, a = np.deg2rad(elev), np.deg2rad(azim)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


def screen(ax, points):
    """3-D points (n, 3) where the 3-D axes' projection ax.M puts them (its 2-D data coords)."""
    p = np.asarray(points, float).reshape(-1, 3)
    h = np.asarray(ax.M) @ np.vstack([p.T, np.ones(len(p))])
    return (h[:2] / h[3]).T


def arrows(starts, vectors, scale, toward, head=0.25):
    """The drawn points of arrows, by hand: shaft start -> start + scale v, NaN, then two head
    strokes back from the tip, spread across the view (along toward x v)."""
    out = []
    for p, v in zip(np.atleast_2d(starts), np.atleast_2d(vectors)):
        d = scale * np.asarray(v, float)
        L = np.linalg.norm(d)
        tip = p + d
        if L == 0:
            out += [p, tip, [np.nan] * 3, tip, tip, tip, [np.nan] * 3]
            continue
        u = d / L
        side = np.cross(toward, v)
        side = side - (side @ u) * u
        side = side / np.linalg.norm(side) if np.linalg.norm(side) > 0 else 0 * side
        back = tip - head * L * u
        out += [p, tip, [np.nan] * 3, back + 0.5 * head * L * side, tip,
                back - 0.5 * head * L * side, [np.nan] * 3]
    return np.array(out, float)


def drawn(e, line, points):
    """The 2-D data of a drawn line equal the view's projection of ``points`` (by hand)."""
    np.testing.assert_allclose(np.column_stack(line.get_data()).astype(float),
                               screen(e.ax3d, points), atol=1e-9, equal_nan=True)


def check(e, st):
    """Oracle: the twist of a screw of pitch h about the hinge line, moved to P."""
    h = st["pitch"]
    n = np.array([0, 0, 1.0])
    V_P = sb.shift_twist(OMEGA * np.r_[n, h * n], [st["ref_x"], 0, 0])
    np.testing.assert_allclose(st["V_P"], V_P, atol=1e-12)
    ax = sb.screw_axis(V_P)
    # the view: the controls' elevation and azimuth, the projection the parts used is the view's
    a3 = e.ax3d
    assert (a3.elev, a3.azim) == (st["elev"], st["azim"])
    np.testing.assert_allclose(a3.M, a3.get_proj(), rtol=0, atol=1e-12)
    toward = toward_of(st["elev"], st["azim"])
    p = np.array([[0.3, -0.2, 0.5]])                         # orthographic along toward
    np.testing.assert_allclose(screen(a3, p + 0.7 * toward), screen(a3, p), atol=1e-12)
    # taught: the recovered pitch is h and the axis is the hinge line, whatever P is
    assert st["recovered_pitch"] == pytest.approx(h, abs=1e-12)
    np.testing.assert_allclose(st["axis_point"], [0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(st["axis_direction"], ax.direction, atol=1e-12)
    drawn(e, e.axis_line.line, np.outer(ZLIM, n))            # the axis, along the hinge line
    # on-axis velocity h omega along the axis, drawn as arrows from the axis points
    on_axis = np.outer(AXIS_S, n)                           # the hinge line, by hand
    drawn(e, e.axis_pts.line, on_axis)
    v_axis = sb.velocity_field(V_P, on_axis - [st["ref_x"], 0, 0])
    np.testing.assert_allclose(v_axis, np.tile(h * OMEGA * n, (len(on_axis), 1)), atol=1e-12)
    drawn(e, e.v_axis.line, arrows(on_axis, v_axis, ARROW_AXIS, toward))
    assert st["on_axis_speed"] == pytest.approx(abs(h) * OMEGA, abs=1e-12)
    assert st["advance_per_turn"] == pytest.approx(2 * np.pi * h, abs=1e-12)
    np.testing.assert_allclose(e.advance.get_ydata(), h * _PHI, atol=1e-12)      # h per radian
    np.testing.assert_allclose(st["v_material"], sb.velocity_field(V_P, MATERIAL - [st["ref_x"], 0, 0]),
                               atol=1e-12)
    # every other number and line drawn, by hand: v(x) = omega e_z x x + h omega e_z
    w = OMEGA
    v_mat = np.column_stack([-w * MATERIAL[:, 1], w * MATERIAL[:, 0], np.full(len(MATERIAL), h * w)])
    np.testing.assert_allclose(st["v_material"], v_mat, atol=1e-12)
    drawn(e, e.mat.line, MATERIAL)
    drawn(e, e.v_mat.line, arrows(MATERIAL, v_mat, ARROW_V, toward))
    drawn(e, e.v_grid.line, arrows(FIELD_GRID, _screw_field(h, FIELD_GRID), ARROW_FIELD, toward))
    drawn(e, e.grid_pts.line, FIELD_GRID)
    drawn(e, e.door_line.line, DOOR_OUTLINE)
    for line, p0 in zip(e.trajs, MATERIAL):                # the helix x(phi) = R_z(phi) p0 + h phi e_z
        c, s = np.cos(_PHI), np.sin(_PHI)
        helix = np.column_stack([c * p0[0] - s * p0[1], s * p0[0] + c * p0[1], p0[2] + h * _PHI])
        np.testing.assert_allclose(line.points, helix, atol=1e-12)
        drawn(e, line.line, helix)
        assert helix[-1, 2] - helix[0, 2] == pytest.approx(3 * np.pi * h, abs=1e-12)
    drawn(e, e.P.line, [[st["ref_x"], 0, 0]])
    np.testing.assert_allclose(st["v_P"], [0, w * st["ref_x"], h * w], atol=1e-12)
    np.testing.assert_allclose(st["v_on_axis"], [0, 0, h * w], atol=1e-12)
    assert st["field_min_speed"] == pytest.approx(abs(h) * w, abs=1e-12)    # at the hinge line
    np.testing.assert_allclose(st["field_min_point"], [0, 0, 0], atol=0)


def test_default_pitch_is_zero():
    e = EXPERIMENTS["screw_axis"]()
    assert e.state()["pitch"] == 0.0
    e.close()


def _screw_field(h, x):
    """Closed form of the field of a screw about the z axis through the origin."""
    x = np.asarray(x, float)
    return np.column_stack([-OMEGA * x[:, 1], OMEGA * x[:, 0], np.full(len(x), h * OMEGA)])


@pytest.mark.parametrize("h", PITCHES)
@pytest.mark.parametrize("ref_x", REFS)
def test_grid_is_the_rigid_body_field(h, ref_x):
    s = scene(pitch=h, ref_x=ref_x)
    np.testing.assert_array_equal(s["grid"], FIELD_GRID)
    assert np.all(s["grid"][:, 2] == 0.0)                         # the plane z = 0
    np.testing.assert_allclose(s["v_grid"], _screw_field(h, FIELD_GRID), atol=1e-12)
    # the same numbers as spatialbook's field of the twist the scene reports at P
    V_P = np.asarray(s["numbers"]["V_P"])
    np.testing.assert_allclose(s["v_grid"], sb.velocity_field(V_P, FIELD_GRID - [ref_x, 0, 0]),
                               atol=1e-12)


def test_field_does_not_depend_on_the_reference_point():
    for h in PITCHES:
        fields = [scene(pitch=h, ref_x=x)["v_grid"] for x in REFS]
        for v in fields[1:]:
            np.testing.assert_allclose(v, fields[0], atol=1e-12)


def test_zero_pitch_zero_velocity_only_on_the_axis():
    s = scene(pitch=0.0)
    speed = np.linalg.norm(s["v_grid"], axis=1)
    dist = np.hypot(FIELD_GRID[:, 0], FIELD_GRID[:, 1])          # distance to the hinge line
    on_axis = dist < 1e-12
    assert on_axis.sum() == 1                                     # the grid contains the axis
    assert speed[on_axis][0] == 0.0
    assert np.all(speed[~on_axis] > 0.25)
    np.testing.assert_allclose(speed, OMEGA * dist, atol=1e-12)   # |v| = |w| r
    # arrows tangent to circles about the axis: v . (x - x_axis) = 0
    np.testing.assert_allclose(np.sum(s["v_grid"] * FIELD_GRID, axis=1), 0.0, atol=1e-12)
    n = s["numbers"]
    assert n["field_min_speed"] == 0.0
    np.testing.assert_allclose(n["field_min_point"], [0, 0, 0], atol=0)


@pytest.mark.parametrize("h", [p for p in PITCHES if p != 0.0])
def test_nonzero_pitch_no_point_at_rest(h):
    s = scene(pitch=h)
    v = s["v_grid"]
    # every arrow carries the same axial part h w: the field has no zero
    np.testing.assert_allclose(v[:, 2], h * OMEGA, atol=1e-12)
    speed = np.linalg.norm(v, axis=1)
    assert speed.min() == pytest.approx(abs(h) * OMEGA, abs=1e-12)
    assert s["numbers"]["field_min_speed"] == pytest.approx(abs(h) * OMEGA, abs=1e-12)
    np.testing.assert_allclose(s["numbers"]["field_min_point"], [0, 0, 0], atol=1e-12)


def test_drawn_grid_arrows_match_the_scene():
    e = EXPERIMENTS["screw_axis"]()
    try:
        for h, ref_x, azim, elev in ((0.0, 0.4, -60.0, 18.0), (0.07, 0.1, 30.0, 60.0),
                                     (-0.05, 0.8, 150.0, -20.0)):
            e.set(pitch=h, ref_x=ref_x, azim=azim, elev=elev)
            toward = toward_of(elev, azim)
            want = arrows(FIELD_GRID, _screw_field(h, FIELD_GRID), ARROW_FIELD, toward)
            np.testing.assert_allclose(e.v_grid.points, want, atol=1e-12, equal_nan=True)
            # arrow tips: base + scale * closed-form field
            np.testing.assert_allclose(e.v_grid.points[1::7],
                                       FIELD_GRID + ARROW_FIELD * _screw_field(h, FIELD_GRID),
                                       atol=1e-12)
            # the heads lie across the view: normal to the direction toward the viewer
            head = e.v_grid.points[3::7] - e.v_grid.points[5::7]
            np.testing.assert_allclose(head @ toward, 0.0, atol=1e-12)
            st = e.state()
            assert st["field_min_speed"] == pytest.approx(abs(h) * OMEGA, abs=1e-12)
    finally:
        e.close()


def test_the_view_holds_everything_drawn():
    """REACH is the fitted ball (stored), and every drawn point lies inside it at any setting."""
    assert _reach_over_the_ranges() == REACH
    e = EXPERIMENTS["screw_axis"]()
    try:
        for h, x in ((0.1, 0.0), (-0.1, 0.8), (0.1, 0.8)):
            e.set(pitch=h, ref_x=x)
            for part in (e.v_grid, e.v_axis, e.v_mat, e.axis_line, *e.trajs, e.door_line, e.P):
                pts = part.points[~np.isnan(part.points[:, 0])]
                assert np.all(np.linalg.norm(pts, axis=1) <= REACH), part
    finally:
        e.close()


def test_turning_the_view_changes_no_number():
    e = EXPERIMENTS["screw_axis"]()
    try:
        e.set(pitch=0.04, ref_x=0.6)
        before = {k: v for k, v in e.state().items() if k not in ("azim", "elev")}
        e.set(azim=100.0, elev=70.0)
        after = {k: v for k, v in e.state().items() if k not in ("azim", "elev")}
        assert after == before
    finally:
        e.close()
