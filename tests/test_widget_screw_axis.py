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
from widgets.parts import arrow_segments_3d
from widgets.screw_axis import _PHI, ARROW_AXIS, ARROW_FIELD, ARROW_V, AXIS_S, FIELD_GRID, MATERIAL, OMEGA, scene

DEGENERATE = [dict(pitch=0.0), dict(pitch=0.0, ref_x=0.0)]
PITCHES = (-0.1, -0.03, 0.0, 0.05, 0.1)
REFS = (0.0, 0.3, 0.8)


def check(e, st):
    """Oracle: the twist of a screw of pitch h about the hinge line, moved to P."""
    h = st["pitch"]
    n = np.array([0, 0, 1.0])
    V_P = sb.shift_twist(OMEGA * np.r_[n, h * n], [st["ref_x"], 0, 0])
    np.testing.assert_allclose(st["V_P"], V_P, atol=1e-12)
    ax = sb.screw_axis(V_P)
    # taught: the recovered pitch is h and the axis is the hinge line, whatever P is
    assert st["recovered_pitch"] == pytest.approx(h, abs=1e-12)
    np.testing.assert_allclose(st["axis_point"], [0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(st["axis_direction"], ax.direction, atol=1e-12)
    # on-axis velocity h omega along the axis, drawn as arrows from the axis points
    on_axis = np.outer(AXIS_S, n)                           # the hinge line, by hand
    np.testing.assert_allclose(np.column_stack(e.axis_pts.get_data_3d()), on_axis, atol=1e-12)
    v_axis = sb.velocity_field(V_P, on_axis - [st["ref_x"], 0, 0])
    np.testing.assert_allclose(v_axis, np.tile(h * OMEGA * n, (len(on_axis), 1)), atol=1e-12)
    drawn = np.column_stack(e.v_axis.get_data_3d())
    np.testing.assert_allclose(drawn, np.column_stack(arrow_segments_3d(on_axis, v_axis, ARROW_AXIS)),
                               atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(drawn[1::7], on_axis + ARROW_AXIS * v_axis, atol=1e-12)
    assert st["on_axis_speed"] == pytest.approx(abs(h) * OMEGA, abs=1e-12)
    assert st["advance_per_turn"] == pytest.approx(2 * np.pi * h, abs=1e-12)
    # trajectories: start at the material points; circles (z constant) at h = 0, helices otherwise
    for line, p0 in zip(e.trajs, MATERIAL):
        x, y, z = line.get_data_3d()
        np.testing.assert_allclose([x[0], y[0], z[0]], p0, atol=1e-12)
        np.testing.assert_allclose(np.hypot(x, y), np.hypot(p0[0], p0[1]), atol=1e-12)
        assert z[-1] - z[0] == pytest.approx(3 * np.pi * h, abs=1e-12)
    np.testing.assert_allclose(e.advance.get_ydata(), h * _PHI, atol=1e-12)      # h per radian
    np.testing.assert_allclose(st["v_material"], sb.velocity_field(V_P, MATERIAL - [st["ref_x"], 0, 0]),
                               atol=1e-12)
    # every other number and line drawn, by hand: v(x) = omega e_z x x + h omega e_z
    w = OMEGA
    v_mat = np.column_stack([-w * MATERIAL[:, 1], w * MATERIAL[:, 0], np.full(len(MATERIAL), h * w)])
    np.testing.assert_allclose(st["v_material"], v_mat, atol=1e-12)
    np.testing.assert_allclose(np.column_stack(e.mat.get_data_3d()), MATERIAL, atol=0)
    np.testing.assert_allclose(np.column_stack(e.v_mat.get_data_3d()),
                               np.column_stack(arrow_segments_3d(MATERIAL, v_mat, ARROW_V, side=(0, 0, 1))),
                               atol=1e-12, equal_nan=True)
    for line, p0 in zip(e.trajs, MATERIAL):                # the helix x(phi) = R_z(phi) p0 + h phi e_z
        c, s = np.cos(_PHI), np.sin(_PHI)
        helix = np.column_stack([c * p0[0] - s * p0[1], s * p0[0] + c * p0[1], p0[2] + h * _PHI])
        np.testing.assert_allclose(np.column_stack(line.get_data_3d()), helix, atol=1e-12)
    np.testing.assert_allclose(np.column_stack(e.P.get_data_3d()), [[st["ref_x"], 0, 0]], atol=0)
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
        for h, ref_x in ((0.0, 0.4), (0.07, 0.1), (-0.05, 0.8)):
            e.set(pitch=h, ref_x=ref_x)
            s = e._scene
            drawn = np.column_stack(e.v_grid.get_data_3d())
            want = np.column_stack(arrow_segments_3d(
                s["grid"], s["v_grid"], ARROW_FIELD, side=np.cross([0.0, 0.0, 1.0], s["v_grid"])))
            np.testing.assert_allclose(drawn, want, atol=1e-12, equal_nan=True)
            # arrow tips: base + scale * closed-form field
            np.testing.assert_allclose(drawn[1::7], FIELD_GRID + ARROW_FIELD * _screw_field(h, FIELD_GRID),
                                       atol=1e-12)
            st = e.state()
            assert st["field_min_speed"] == pytest.approx(abs(h) * OMEGA, abs=1e-12)
    finally:
        e.close()
