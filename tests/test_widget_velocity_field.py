"""Physics tests of E1, the velocity field of the hinged door (widgets/velocity_field.py,
book chapter 1).  ``check`` and ``DEGENERATE`` also drive the shared sweeps of tests/test_widgets.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb
from widget_helpers import uv
from widgets import EXPERIMENTS
from widgets.style import COLORS
from widgets.velocity_field import GRID3

#: settings where something vanishes; the shared test draws them
DEGENERATE = [dict(omega=0.0), dict(near=0.0, far=0.0), dict(probe_x=0.0, probe_y=0.0),
              dict(omega=0.0, near=0.0, probe_x=0.0, probe_y=0.0)]


def check(e, st):
    """Oracle: recompute from the control values what E1 must draw and read out."""
    V_O = np.array([0, 0, st["omega"], 0, 0, 0.0])
    R = sb.rotation_z(np.deg2rad(st["angle"]))
    np.testing.assert_allclose(uv(e.q_field), sb.velocity_field(V_O, GRID3)[:, :2], atol=1e-12)
    pts = np.array([[st["near"], 0, 0], [st["far"], 0, 0]]) @ R.T
    np.testing.assert_allclose(e.q_pts.get_offsets(), pts[:, :2], atol=1e-12)
    np.testing.assert_allclose(uv(e.q_pts), sb.velocity_field(V_O, pts)[:, :2], atol=1e-12)
    acc = sb.acceleration_field(V_O, np.zeros(6), pts)
    np.testing.assert_allclose(uv(e.q_acc), acc[:, :2], atol=1e-12)
    probe = np.array([st["probe_x"], st["probe_y"], 0])
    np.testing.assert_allclose(uv(e.q_probe)[0], sb.velocity_field(V_O, probe)[:2], atol=1e-12)
    # taught: speed = |omega| r, so doubling r doubles it; arrows tangent to the circles
    assert st["speed_near"] == pytest.approx(abs(st["omega"]) * st["near"], abs=1e-12)
    assert st["speed_far"] == pytest.approx(abs(st["omega"]) * st["far"], abs=1e-12)
    assert abs(st["v_dot_d_near"]) < 1e-12 and abs(st["v_dot_d_far"]) < 1e-12
    # the fixed probe reads the same field value at every door angle
    np.testing.assert_allclose(st["v_probe"], sb.velocity_field(V_O, probe), atol=1e-12)
    # every other number shown and drawn, by hand: v = w e_z x d, a = -w^2 d (steady spin)
    w, th = st["omega"], np.deg2rad(st["angle"])
    assert st["theta"] == pytest.approx(th, abs=1e-12)
    np.testing.assert_allclose(st["V_O"], V_O, atol=0)
    for key, x in (("near", pts[0]), ("far", pts[1])):
        np.testing.assert_allclose(st["x_" + key], x, atol=1e-12)
        np.testing.assert_allclose(st["v_" + key], [-w * x[1], w * x[0], 0], atol=1e-12)
        np.testing.assert_allclose(st["a_" + key], -w**2 * x, atol=1e-12)
    np.testing.assert_allclose(st["x_probe"], probe, atol=0)
    assert st["r_probe"] == pytest.approx(np.hypot(*probe[:2]), abs=1e-12)
    assert st["speed_probe"] == pytest.approx(abs(w) * st["r_probe"], abs=1e-12)
    edge = sb.DOOR["width"] * np.array([np.cos(th), np.sin(th)])
    np.testing.assert_allclose(e.door.get_xydata(), [[0, 0], edge], atol=1e-12)
    np.testing.assert_allclose(e.probe.get_xydata(), [probe[:2]], atol=0)
    np.testing.assert_allclose(e.q_probe.get_offsets(), [probe[:2]], atol=0)
    for circle, r in zip(e.circles, (st["near"], st["far"])):
        np.testing.assert_allclose(np.hypot(*circle.get_data()), r, atol=1e-12)
    np.testing.assert_allclose(e.speed_pts.get_offsets(),
                               [[st["near"], st["speed_near"]], [st["far"], st["speed_far"]],
                                [st["r_probe"], st["speed_probe"]]], atol=1e-12)


@pytest.fixture(scope="module")
def exp():
    e = EXPERIMENTS["velocity_field"]()
    yield e
    e.close()


def test_defaults_are_chapter_1s_door(exp):
    st = exp.state()
    np.testing.assert_allclose([st["v_near"], st["v_far"]], [[0, 0.8, 0], [0, 1.6, 0]], atol=1e-12)


def test_fixed_probe_reads_the_same_at_every_angle(exp):
    readings = []
    for a in (0.0, 90.0, 215.0):
        exp.set(angle=a)
        readings.append(exp.state()["v_probe"])
    np.testing.assert_allclose(readings, [readings[0]] * 3)
    exp.set(angle=0.0)


def test_centripetal_arrows_drawn_above_the_door(exp):
    """The acceleration arrows lie along the door bar; they are drawn above it at every angle."""
    e = exp
    assert e.q_acc.get_zorder() > e.door.get_zorder()
    purple = np.array([int(COLORS["purple"][i:i + 2], 16) for i in (1, 3, 5)])
    x0, y0, x1, y1 = np.round(e.door.axes.bbox.extents).astype(int)   # the top view only

    def n_purple():
        img = np.asarray(e.canvas.buffer_rgba())[..., :3].astype(int)
        img = img[img.shape[0] - y1:img.shape[0] - y0, x0:x1]        # rows run top-down
        return int((np.abs(img - purple).sum(-1) < 40).sum())

    for a in range(0, 360, 30):
        e.set(angle=float(a))
        with_door = n_purple()
        e.door.set_visible(False)
        e.update(live=False)
        without_door = n_purple()
        e.door.set_visible(True)
        assert with_door > 25, a       # the arrows show (a 660-px figure: ~50 purple px at 0 deg)
        assert with_door >= without_door - 3, a       # the door hides none of them (edge blend)
    e.set(angle=0.0)


def test_play_drives_the_angle(exp):
    exp.set(angle=90.0)
    play_before = exp.controls["play"].value
    frames = exp.frames("play", [0, 45, 180])        # the Play drives the angle slider
    assert len(set(frames)) == 3
    assert exp.state()["angle"] == 90.0 and exp.controls["play"].value == play_before
    exp.set(angle=0.0)
