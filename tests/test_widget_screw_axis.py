"""E2's velocity-field grid in the plane z = 0: the drawn arrows are the rigid-body field, and at
zero pitch the field vanishes on the hinge line (the instantaneous axis), nowhere else.

The oracle is the screw form of the field written out by hand, v(x) = h w n + w n x (x - x_O)
for the door's screw motion about the hinge line (unit n = e_z through O), not spatialbook.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb
from widgets import EXPERIMENTS
from widgets._base import arrow_segments_3d
from widgets.screw_axis import ARROW_FIELD, FIELD_GRID, OMEGA, scene

PITCHES = (-0.1, -0.03, 0.0, 0.05, 0.1)
REFS = (0.0, 0.3, 0.8)


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
