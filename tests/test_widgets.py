"""Tests of the widgets package: registry and interface, sweeps of every control with the drawn
arrays checked against spatialbook, taught invariants, degenerate settings, leaks, frames.

Run headless (MPLBACKEND=Agg).  No browser: each experiment's pure ``scene`` and its artists
are inspected directly.
"""

from __future__ import annotations

import gc
import json
import math

import ipywidgets
import numpy as np
import pytest

import spatialbook as sb
from widgets import EXPERIMENTS, Experiment
from widgets._base import COLORS, Choice, Player, Slider, arrow_segments_3d

NAMES = ["velocity_field", "screw_axis", "power_split", "spatial_inertia", "probes", "newton_euler",
         "principal_axes", "bifold_door"]
DOOR = sb.DOOR
I_O = sb.spatial_inertia(DOOR["mass"], DOOR["com"], DOOR["inertia_com"])


@pytest.fixture(scope="module")
def exps():
    """One instance of each experiment, shared by the module (construction is the slow part)."""
    return {name: EXPERIMENTS[name]() for name in NAMES}


def _finite(x) -> bool:
    if isinstance(x, dict):
        return all(_finite(v) for v in x.values())
    if isinstance(x, list):
        return all(_finite(v) for v in x)
    if isinstance(x, str):
        return True
    return isinstance(x, float) and math.isfinite(x)


def _sweep_values(spec, n=7):
    vals = spec.sweep(n)
    if isinstance(spec, (Slider, Player)):
        assert vals[0] == pytest.approx(spec.min) and vals[-1] == pytest.approx(spec.max)
    return vals


def _uv(q):
    return np.column_stack([np.asarray(q.U, float), np.asarray(q.V, float)])


# ------------------------------------------------------------------------ per-experiment oracles
# Each oracle recomputes with spatialbook, from the control values alone, what the figure must
# draw and the invariants that must hold, and compares with the artists and with .state().


def check_velocity_field(e, st):
    V_O = np.array([0, 0, st["omega"], 0, 0, 0.0])
    R = sb.rotation_z(np.deg2rad(st["angle"]))
    from widgets.velocity_field import GRID3
    np.testing.assert_allclose(_uv(e.q_field), sb.velocity_field(V_O, GRID3)[:, :2], atol=1e-12)
    pts = np.array([[st["near"], 0, 0], [st["far"], 0, 0]]) @ R.T
    np.testing.assert_allclose(e.q_pts.get_offsets(), pts[:, :2], atol=1e-12)
    np.testing.assert_allclose(_uv(e.q_pts), sb.velocity_field(V_O, pts)[:, :2], atol=1e-12)
    acc = sb.acceleration_field(V_O, np.zeros(6), pts)
    np.testing.assert_allclose(_uv(e.q_acc), acc[:, :2], atol=1e-12)
    probe = np.array([st["probe_x"], st["probe_y"], 0])
    np.testing.assert_allclose(_uv(e.q_probe)[0], sb.velocity_field(V_O, probe)[:2], atol=1e-12)
    # taught: speed = |omega| r, so doubling r doubles it; arrows tangent to the circles
    assert st["speed_near"] == pytest.approx(abs(st["omega"]) * st["near"], abs=1e-12)
    assert st["speed_far"] == pytest.approx(abs(st["omega"]) * st["far"], abs=1e-12)
    assert abs(st["v_dot_d_near"]) < 1e-12 and abs(st["v_dot_d_far"]) < 1e-12
    # the fixed probe reads the same field value at every door angle
    np.testing.assert_allclose(st["v_probe"], sb.velocity_field(V_O, probe), atol=1e-12)


def check_screw_axis(e, st):
    from widgets.screw_axis import ARROW_AXIS, MATERIAL, OMEGA
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
    on_axis = np.asarray(e._scene["on_axis"])
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
    from widgets.screw_axis import _PHI
    np.testing.assert_allclose(e.advance.get_ydata(), h * _PHI, atol=1e-12)      # h per radian
    np.testing.assert_allclose(st["v_material"], sb.velocity_field(V_P, MATERIAL - [st["ref_x"], 0, 0]),
                               atol=1e-12)


def check_power_split(e, st):
    from widgets.power_split import PUSH_FORCE, PUSH_POINT
    f = sb.rotation_z(np.deg2rad(st["push_angle"])) @ [0, PUSH_FORCE, 0]
    # an independent route: wrench at the hinge from tau_O = x_Q x f (via shift_wrench from Q)
    F_O = sb.shift_wrench(np.r_[np.zeros(3), f], -PUSH_POINT)
    x_P = np.array([st["ref_x"], 0, 0])
    V_P = sb.shift_twist([0, 0, st["omega"], 0, 0, 0], x_P)
    F_P = sb.shift_wrench(F_O, x_P)
    rot, trans = sb.power_terms(V_P, F_P)
    heights = [b.get_height() for b in e.bars]
    np.testing.assert_allclose(heights, [rot, trans, sb.power(V_P, F_P)], atol=1e-12)
    np.testing.assert_allclose(_uv(e.q_f)[0], f[:2], atol=1e-12)
    np.testing.assert_allclose(_uv(e.q_v)[0], V_P[3:5], atol=1e-12)
    # taught: the sum does not depend on P; it equals the power at the hinge
    total_O = sb.power([0, 0, st["omega"], 0, 0, 0], F_O)
    assert st["total_power"] == pytest.approx(total_O, abs=1e-12)
    assert st["rotational_power"] + st["translational_power"] == pytest.approx(total_O, abs=1e-12)
    assert st["hinge_torque"] == pytest.approx(F_O[2], abs=1e-12)
    # the line of action passes through Q
    p, d = np.array(st["line_point"]), np.array(st["line_direction"])
    assert np.linalg.norm(np.cross(PUSH_POINT - p, d)) < 1e-12


def check_spatial_inertia(e, st):
    x_P = np.array([st["ref_x"], 0, 0])
    # independent route: assemble eq. 5.5 directly at P (instead of transforming I_O)
    I_P = sb.spatial_inertia(DOOR["mass"], np.asarray(DOOR["com"]) - x_P, DOOR["inertia_com"])
    np.testing.assert_allclose(e.im.get_array(), I_P, atol=1e-12)
    np.testing.assert_allclose(st["I_P"], I_P, atol=1e-12)
    V_P = sb.shift_twist([0, 0, st["omega"], 0, 0, 0], x_P)
    T = sb.kinetic_energy(I_O, [0, 0, st["omega"], 0, 0, 0])
    assert st["kinetic_energy"] == pytest.approx(float(T), abs=1e-12)      # unchanged
    assert st["kinetic_energy"] == pytest.approx(float(sb.kinetic_energy(I_P, V_P)), abs=1e-12)
    # coupling blocks are +-m D, zero exactly at the COM
    D = sb.skew(np.asarray(DOOR["com"]) - x_P)
    np.testing.assert_allclose(st["mD"], DOOR["mass"] * D, atol=1e-12)
    np.testing.assert_allclose(np.asarray(st["I_P"])[3:, :3], -DOOR["mass"] * D, atol=1e-12)


def check_probes(e, st):
    w = np.array([0, 0, st["omega"]])
    x_P = np.array([0.4, 0, 0])
    V_P = sb.shift_twist(np.r_[w, 0, 0, 0], x_P)
    a_P = sb.acceleration_field(np.r_[w, 0, 0, 0], np.zeros(6), x_P)
    u = {"material": V_P[3:], "fixed": np.zeros(3), "line": np.array([st["u"], 0, 0])}[st["path"]]
    vdot = {"material": a_P, "fixed": np.zeros(3), "line": np.cross(w, u)}[st["path"]]
    np.testing.assert_allclose(st["vdot_P"], vdot, atol=1e-12)
    np.testing.assert_allclose(st["omega_x_u"], np.cross(w, u), atol=1e-12)
    # taught: all three probes agree on the door's spatial acceleration, zero
    np.testing.assert_allclose(st["A_P_lin"], 0, atol=1e-12)
    np.testing.assert_allclose(st["A_P"], 0, atol=1e-12)
    np.testing.assert_allclose(sb.probe_acceleration(w, vdot, u), st["A_P_lin"], atol=1e-12)
    # eq. 5.2: the frame's rotation adds -nu x v_P to the coordinate rate
    nu = np.array([0, 0, st["nu"]])
    np.testing.assert_allclose(st["frame_rate"],
                               sb.rotating_frame_derivative(np.eye(3), nu, vdot, V_P[3:]), atol=1e-12)
    drawn = {k: _uv(q)[0] for q, k in zip(e.quivers, e.keys)}
    for k in e.keys:
        np.testing.assert_allclose(drawn[k], np.asarray(st[k])[:2], atol=1e-12)
    np.testing.assert_allclose([b.get_height() for b in e.bar_x],
                               [st[k][0] for k in ("vdot_P", "omega_x_u", "A_P_lin", "frame_rate")],
                               atol=1e-12)


def check_newton_euler(e, st):
    V_O = np.array([0, 0, st["omega"], 0, 0, 0.0])
    A_O = np.array([0, 0, st["alpha"], 0, 0, 0.0])
    F_O = sb.required_wrench(I_O, V_O, A_O)
    if st["reference"] == "hinge":
        I, V, A = I_O, V_O, A_O
        expected_total = F_O
    else:
        X = sb.motion_transform(np.eye(3), DOOR["com"])
        I, V, A = sb.transform_inertia(X, I_O), X @ V_O, X @ A_O
        expected_total = sb.shift_wrench(F_O, DOOR["com"])    # the force-transform rule
    np.testing.assert_allclose([b.get_height() for b in e.b_in], sb.inertial_wrench(I, A), atol=1e-12)
    np.testing.assert_allclose([b.get_height() for b in e.b_bias], sb.bias_wrench(I, V), atol=1e-12)
    np.testing.assert_allclose(e.total.get_ydata(), expected_total, atol=1e-12)
    np.testing.assert_allclose(st["total"], np.add(st["inertial"], st["bias"]), atol=1e-12)
    # taught: f is the same at the hinge and at the COM, and f = m a_C
    np.testing.assert_allclose(st["f"], F_O[3:], atol=1e-12)
    np.testing.assert_allclose(st["f"], DOOR["mass"] * np.asarray(st["a_C"]), atol=1e-12)
    assert st["hinge_torque"] == pytest.approx(F_O[2], abs=1e-12)
    np.testing.assert_allclose(_uv(e.q_f)[0], F_O[3:5], atol=1e-12)


from test_widget_principal_axes import check_principal_axes  # noqa: E402  (E7's oracle)
from test_widget_bifold import DEGENERATE_BIFOLD, check_bifold_door  # noqa: E402  (E8's oracle)

CHECKS = {name: globals()[f"check_{name}"] for name in NAMES}


# ------------------------------------------------------------------------------------ tests


def test_registry_and_interface(exps):
    assert list(EXPERIMENTS) == NAMES
    for name, e in exps.items():
        assert isinstance(e, Experiment)
        assert e.controls and all(isinstance(c, ipywidgets.Widget) for c in e.controls.values())
        assert isinstance(e.widget, ipywidgets.Widget)
        assert e.main_control in e.controls
        st = e.state()
        json.dumps(st)
        assert _finite(st), name
        assert set(e.values()) <= set(st)
        assert e.image.value[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<table" in e.readout.value


def test_state_keys_do_not_shadow_controls(exps):
    for e in exps.values():
        numbers = e._scene["numbers"]
        for key in set(numbers) & set(e.controls):         # only an echo of the control
            assert numbers[key] == e.controls[key].value, (type(e).__name__, key)
        assert all(key in numbers for _, key, _ in e.READOUTS)


def test_scene_defaults_match_controls():
    import inspect
    for cls in EXPERIMENTS.values():
        sig = inspect.signature(cls.scene)
        for spec in cls.CONTROLS:
            if isinstance(spec, Player):
                continue
            assert sig.parameters[spec.name].default == spec.value, (cls.name, spec.name)


def test_defaults_reproduce_the_curriculum(exps):
    st = exps["newton_euler"].state()
    np.testing.assert_allclose(st["total"], [0, 0, 1.28, -3.2, 2.4, 0], atol=1e-12)
    np.testing.assert_allclose(st["bias"], [0, 0, 0, -3.2, 0, 0], atol=1e-12)
    np.testing.assert_allclose(st["inertial"], [0, 0, 1.28, 0, 2.4, 0], atol=1e-12)
    np.testing.assert_allclose(st["a_C"], [-1.6, 1.2, 0], atol=1e-12)
    st = exps["probes"].state()
    assert st["path"] == "material" and st["nu"] == 0.0
    np.testing.assert_allclose(st["x_P"], [0.4, 0, 0])
    np.testing.assert_allclose(st["vdot_P"], [-1.6, 0, 0], atol=1e-12)
    np.testing.assert_allclose(st["vdot_fixed"], [0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(st["vdot_line"], np.cross([0, 0, 2], [0.5, 0, 0]), atol=1e-12)
    assert exps["spatial_inertia"].state()["kinetic_energy"] == pytest.approx(0.853333, abs=1e-6)
    np.testing.assert_allclose(exps["spatial_inertia"].state()["mD"], 0, atol=1e-12)
    st = exps["velocity_field"].state()
    np.testing.assert_allclose([st["v_near"], st["v_far"]], [[0, 0.8, 0], [0, 1.6, 0]], atol=1e-12)
    assert exps["power_split"].state()["total_power"] == pytest.approx(8.0)
    assert exps["screw_axis"].state()["pitch"] == 0.0


@pytest.mark.parametrize("name", NAMES)
def test_sweep_every_control(exps, name):
    """Every control across its whole range, ends included: no exception, drawn = core, invariants."""
    e = exps[name]
    check = CHECKS[name]
    defaults = e.values()
    for spec in e.CONTROLS:
        for v in _sweep_values(spec):
            e.set(**{spec.name: v})
            st = e.state()
            assert _finite(st), (name, spec.name, v)
            if isinstance(spec, Player):
                assert st[spec.target] == pytest.approx(v)
            check(e, st)
        e.set(**defaults)
    check(e, e.state())


DEGENERATE = {
    "velocity_field": [dict(omega=0.0), dict(near=0.0, far=0.0), dict(probe_x=0.0, probe_y=0.0),
                       dict(omega=0.0, near=0.0, probe_x=0.0, probe_y=0.0)],
    "screw_axis": [dict(pitch=0.0), dict(pitch=0.0, ref_x=0.0)],
    "power_split": [dict(ref_x=0.8), dict(omega=0.0), dict(omega=0.0, ref_x=0.8, push_angle=60.0)],
    "spatial_inertia": [dict(ref_x=0.4), dict(omega=0.0), dict(omega=0.0, ref_x=0.4)],
    "probes": [dict(path=p, omega=0.0, u=0.0, nu=0.0) for p in ("material", "fixed", "line")],
    "newton_euler": [dict(alpha=0.0), dict(alpha=0.0, omega=0.0),
                     dict(alpha=0.0, omega=0.0, reference="COM")],
    "principal_axes": [dict(theta=0.0), dict(theta=45.0), dict(theta=90.0)],
    "bifold_door": DEGENERATE_BIFOLD,
}


@pytest.mark.parametrize("name", NAMES)
def test_degenerate_settings_draw_sensibly(exps, name):
    e = exps[name]
    defaults = e.values()
    for values in DEGENERATE[name]:
        e.set(**values)
        st = e.state()
        assert _finite(st), (name, values)
        assert "nan" not in e.readout.value.lower()
        CHECKS[name](e, st)
    e.set(**defaults)


def test_taught_special_cases(exps):
    e = exps["power_split"]
    e.set(ref_x=0.8)                               # P on the line of action
    st = e.state()
    np.testing.assert_allclose(st["tau_P"], 0, atol=1e-12)
    assert st["rotational_power"] == pytest.approx(0, abs=1e-12)
    assert st["translational_power"] == pytest.approx(8.0)
    e.set(ref_x=0.0)
    e = exps["newton_euler"]
    e.set(alpha=0.0)                               # only the centripetal pull remains
    np.testing.assert_allclose(e.state()["total"], [0, 0, 0, -3.2, 0, 0], atol=1e-12)
    e.set(alpha=3.0, reference="COM")
    st = e.state()
    np.testing.assert_allclose(st["tau"], [0, 0, 0.32], atol=1e-12)
    np.testing.assert_allclose(st["f"], [-3.2, 2.4, 0], atol=1e-12)
    e.set(reference="hinge")
    e = exps["probes"]
    e.set(nu=1.0)                                  # basis rotation alone: -nu x v_P
    np.testing.assert_allclose(e.state()["frame_term"], [0.8, 0, 0], atol=1e-12)
    e.set(nu=0.0)
    e = exps["velocity_field"]                     # the fixed probe reads the same at every angle
    readings = []
    for a in (0.0, 90.0, 215.0):
        e.set(angle=a)
        readings.append(e.state()["v_probe"])
    np.testing.assert_allclose(readings, [readings[0]] * 3)
    e.set(angle=0.0)


def test_door_top_view_helper():
    """The shared "door from above" axes: equal aspect, limits, x/y in m, title, door bar, hinge."""
    from matplotlib.figure import Figure
    from widgets._base import DOOR_WIDTH, door_top_view
    fig = Figure()
    ax, door = door_top_view(fig, (0.1, 0.1, 0.8, 0.8), (-0.5, 1.0), (-0.4, 0.6), "t",
                             hinge_label=(0.05, -0.1), door_lw=3, door_alpha=0.4, door_zorder=2)
    assert ax.get_aspect() == 1.0 and ax.get_title() == "t"
    assert ax.get_xlim() == (-0.5, 1.0) and ax.get_ylim() == (-0.4, 0.6)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x (m)", "y (m)")
    np.testing.assert_allclose(door.get_xydata(), [[0, 0], [DOOR_WIDTH, 0]])
    assert DOOR_WIDTH == DOOR["width"]
    assert door.get_color() == COLORS["door"] and door.get_linewidth() == 3
    assert door.get_alpha() == 0.4 and door.get_zorder() == 2
    hinge = [l for l in ax.lines if l is not door]
    assert len(hinge) == 1 and list(hinge[0].get_xydata()[0]) == [0, 0]
    assert [t.get_text() for t in ax.texts] == ["hinge O"]


def test_centripetal_arrows_drawn_above_the_door(exps):
    """E1: the acceleration arrows lie along the door bar; they are drawn above it at every angle."""
    e = exps["velocity_field"]
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
        assert with_door > 50, a                      # the arrows show
        assert with_door >= without_door - 3, a       # the door hides none of them (edge blend)
    e.set(angle=0.0)


def test_set_rejects_unknown_controls(exps):
    with pytest.raises(KeyError):
        exps["probes"].set(not_a_control=1)


def test_construction_displays_nothing(capsys):
    e = EXPERIMENTS["power_split"]()
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    e.close()


def test_no_pyplot_figure_and_no_leaks(exps):
    """A few hundred updates create no widget, no artist, no figure and no lasting objects."""
    import matplotlib.pyplot as plt

    def n_widgets():
        return len(ipywidgets.widgets.widget._instances)

    for name, n in (("velocity_field", 200), ("screw_axis", 100), ("spatial_inertia", 100)):
        e = exps[name]
        spec = e._specs[e.main_control]
        vals = spec.sweep(25)
        for v in vals[:3]:                         # warm caches first
            e.set(**{e.main_control: v})
        n_art = len(e.figure.findobj())
        n_w = n_widgets()
        gc.collect()
        n_obj = len(gc.get_objects())
        for i in range(n):
            e.set(**{e.main_control: vals[i % len(vals)]})
        gc.collect()
        grown = len(gc.get_objects()) - n_obj
        assert grown < n // 4, (name, grown)       # a leak of one object per update would show
        assert len(e.figure.findobj()) == n_art
        assert n_widgets() == n_w
        e.set(**{e.main_control: spec.value})
    assert plt.get_fignums() == []


def test_frames_distinct_and_control_restored(exps):
    for name, e in exps.items():
        spec = e._specs[e.main_control]
        before = e.controls[e.main_control].value
        vals = spec.sweep(5)[:3]                  # not both ends: 0 and 360 deg look alike
        frames = e.frames(values=vals)
        assert len(frames) == len(vals)
        assert all(f[:8] == b"\x89PNG\r\n\x1a\n" for f in frames)
        assert len(set(frames)) == len(frames), name
        assert e.controls[e.main_control].value == before
    e = exps["velocity_field"]
    e.set(angle=90.0)
    play_before = e.controls["play"].value
    frames = e.frames("play", [0, 45, 180])        # the Play drives the angle slider
    assert len(set(frames)) == 3
    assert e.state()["angle"] == 90.0 and e.controls["play"].value == play_before
    e.set(angle=0.0)
    e = exps["newton_euler"]
    frames = e.frames("reference")                 # a choice control sweeps its options
    assert len(frames) == 2 and frames[0] != frames[1]
    assert e.controls["reference"].value == "hinge"


def test_default_sweep_covers_the_range(exps):
    for e in exps.values():
        spec = e._specs[e.main_control]
        vals = e.sweep_values()
        assert vals[0] == pytest.approx(spec.min) and vals[-1] == pytest.approx(spec.max)
        assert len(vals) >= 11


def test_static_player(exps):
    pytest.importorskip("widgets.static_html")
    e = exps["power_split"]
    out = e.static_player(values=[0.0, 0.4, 0.8])
    text = out.data if hasattr(out, "data") else str(out)
    assert "range" in text and "data:image/png;base64" in text
    assert e.controls["ref_x"].value == 0.0


RANDOM_STATES = 4


@pytest.mark.parametrize("name", NAMES)
def test_blitting_leaves_no_stale_pixels(exps, name):
    """After a random walk over the controls, the blitted picture equals a fresh full draw."""
    rng = np.random.default_rng(7)
    e = exps[name]
    defaults = e.values()
    specs = [s for s in e.CONTROLS if not isinstance(s, Player)]
    for _ in range(RANDOM_STATES):
        for _ in range(3):
            spec = specs[rng.integers(len(specs))]
            vals = spec.sweep(9)
            e.set(**{spec.name: vals[rng.integers(len(vals))]})
        fresh = EXPERIMENTS[name](**e.values())
        assert fresh.image.value == e.image.value, (name, e.values())
        fresh.close()
        blitted = e.image.value
        e.invalidate()                             # a full redraw gives the same pixels
        e.update()
        assert e.image.value == blitted, name
    e.set(**defaults)
