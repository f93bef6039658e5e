"""Tests of E7, ``widgets.principal_axes``: the door's inertia in a turned frame {c}.

The oracles do not reuse the widget's path (sb.transform_inertia of the 6x6 inertia): they use
the closed form of a turn about y, numpy's own eigen-solver, and MuJoCo's compiler, which
diagonalises a ``fullinertia`` into ``body_inertia`` and ``body_iquat``.  ``check`` (with ``DEGENERATE``)
is also the oracle of the generic sweeps in tests/test_widgets.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import spatialbook as sb
from widgets import EXPERIMENTS
from widgets.principal_axes import CORNERS_B, HEIGHT, WIDTH, PrincipalAxes, scene

DOOR = sb.DOOR
IXX, IYY, IZZ = np.diag(DOOR["inertia_com"])


#: settings where the products of inertia vanish or peak; the shared test draws them
DEGENERATE = [dict(theta=0.0), dict(theta=45.0), dict(theta=90.0)]


def closed_form(theta_deg):
    """I_c for a turn by theta about y, written out: R_cb = R_y(theta), I_c = R_cb I_b R_cb^T."""
    c, s = np.cos(np.deg2rad(theta_deg)), np.sin(np.deg2rad(theta_deg))
    return np.array([[c * c * IXX + s * s * IZZ, 0.0, s * c * (IZZ - IXX)],
                     [0.0, IYY, 0.0],
                     [s * c * (IZZ - IXX), 0.0, s * s * IXX + c * c * IZZ]])


def _direction_2d(line):
    """Unit direction (x, z) of a dashed principal-axis line drawn from -u to u."""
    xy = np.asarray(line.get_xydata(), float)
    d = xy[1] - xy[0]
    return d / np.linalg.norm(d)


def check(e, st):
    """Oracle: numbers from the closed form and numpy's eigh; drawn artists from the same."""
    theta = st["theta"]
    I_c = closed_form(theta)
    np.testing.assert_allclose(st["I_c"], I_c, atol=1e-12)
    np.testing.assert_allclose([st["I_xx"], st["I_zz"], st["I_xz"], st["I_yy"]],
                               [I_c[0, 0], I_c[2, 2], I_c[0, 2], I_c[1, 1]], atol=1e-12)
    # principal moments: the eigenvalues, and the same at every angle (the door's own diagonal)
    np.testing.assert_allclose(st["moments"], np.linalg.eigvalsh(I_c), atol=1e-12)
    np.testing.assert_allclose(st["moments"], np.sort([IXX, IYY, IZZ]), atol=1e-12)
    assert st["trace"] == pytest.approx(IXX + IYY + IZZ, abs=1e-12)
    # principal axes: a proper rotation that diagonalises I_c
    R = np.asarray(st["axes"])
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-12)
    assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(R.T @ I_c @ R, np.diag(st["moments"]), atol=1e-12)
    np.testing.assert_allclose(I_c @ R, R * np.asarray(st["moments"]), atol=1e-12)
    assert st["offdiag_max"] == pytest.approx(abs(I_c[0, 2]), abs=1e-12)
    # drawn: the door's corners, the marker, the heat map, the two in-plane axes
    c, s = np.cos(np.deg2rad(theta)), np.sin(np.deg2rad(theta))
    corners_xz = np.column_stack([c * CORNERS_B[:, 0] + s * CORNERS_B[:, 2],
                                  -s * CORNERS_B[:, 0] + c * CORNERS_B[:, 2]])
    np.testing.assert_allclose(np.asarray(e.door.get_xy())[:4], corners_xz, atol=1e-12)
    hinge = np.array([[-WIDTH / 2, -HEIGHT / 2], [-WIDTH / 2, HEIGHT / 2]])   # the hinge edge (x, z)
    np.testing.assert_allclose(np.column_stack(e.hinge.get_data()),
                               np.column_stack([c * hinge[:, 0] + s * hinge[:, 1],
                                                -s * hinge[:, 0] + c * hinge[:, 1]]), atol=1e-12)
    assert list(e.marker.get_xdata()) == [theta, theta]
    np.testing.assert_allclose(np.asarray(e.heat.get_array()).reshape(3, 3), I_c, atol=1e-12)
    for line in e.paxes:                        # each dashed line is an eigenvector of I_c
        dx, dz = _direction_2d(line)
        u = np.array([dx, 0.0, dz])
        Iu = I_c @ u
        assert np.linalg.norm(Iu - (u @ Iu) * u) < 1e-12
    d0, d1 = (_direction_2d(line) for line in e.paxes)
    assert abs(d0 @ d1) < 1e-12                 # the two drawn axes are perpendicular


@pytest.fixture(scope="module")
def exp():
    e = EXPERIMENTS["principal_axes"]()
    yield e
    e.close()


def test_registered_as_the_seventh_experiment():
    assert EXPERIMENTS["principal_axes"] is PrincipalAxes
    assert list(EXPERIMENTS).index("principal_axes") >= 6
    assert PrincipalAxes.main_control == "theta"


def test_state_matches_scene_and_the_closed_form(exp):
    for theta in (0.0, 30.0, 45.0, 90.0, 135.0, 180.0):
        exp.set(theta=theta)
        st = exp.state()
        json.dumps(st)
        numbers = scene(theta)["numbers"]
        for key, value in numbers.items():
            np.testing.assert_allclose(st[key], value, atol=0, err_msg=key)
        check(exp, st)
    exp.set(theta=30.0)


def test_products_of_inertia_vanish_only_when_edges_line_up():
    diagonal = [t for t in range(0, 181, 5) if scene(float(t))["numbers"]["offdiag_max"] < 1e-12]
    assert diagonal == [0, 90, 180]
    peak = max(range(0, 181, 5), key=lambda t: abs(scene(float(t))["numbers"]["I_xz"]))
    assert peak in (45, 135)
    assert abs(scene(45.0)["numbers"]["I_xz"]) == pytest.approx(0.5 * (IXX - IZZ), abs=1e-12)


def test_principal_axes_turn_with_the_door():
    """The in-plane principal axes are the door's own x and z axes, seen from {c}."""
    for theta in (10.0, 30.0, 60.0, 120.0):
        s = scene(theta)
        R_cb = sb.rotation_y(np.deg2rad(theta))
        axes = s["axes"]
        k_min = int(np.argmin(s["numbers"]["moments"]))          # I_zz: smallest, the door's z
        k_max = int(np.argmax(s["numbers"]["moments"]))          # I_yy: largest, the normal
        assert abs(abs(axes[:, k_min] @ R_cb[:, 2]) - 1) < 1e-12
        assert abs(abs(axes[:, k_max] @ R_cb[:, 1]) - 1) < 1e-12


def test_mujoco_compiler_finds_the_same_principal_frame():
    """An independent engine: MuJoCo diagonalises a fullinertia at compile time."""
    mujoco = pytest.importorskip("mujoco")
    for theta in (0.0, 30.0, 45.0, 100.0):
        st = scene(theta)["numbers"]
        I_c = np.asarray(st["I_c"])
        full = " ".join(repr(float(v)) for v in (I_c[0, 0], I_c[1, 1], I_c[2, 2],
                                                    I_c[0, 1], I_c[0, 2], I_c[1, 2]))
        model = mujoco.MjModel.from_xml_string(
            f"<mujoco><worldbody><body><freejoint/><inertial pos='0 0 0' mass='2' "
            f"fullinertia='{full}'/></body></worldbody></mujoco>")
        np.testing.assert_allclose(np.sort(model.body_inertia[1]), st["moments"], atol=1e-9)
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, model.body_iquat[1])
        R = R.reshape(3, 3)                      # columns: MuJoCo's principal axes in {c}
        np.testing.assert_allclose(R.T @ I_c @ R, np.diag(model.body_inertia[1]), atol=1e-9)


def test_particle_sums_agree_in_the_turned_frame():
    """-sum m_i [r_i]^2 over the door's particles turned by theta equals I_c (grid-corrected)."""
    nx, nz = 40, 60
    m_i, p_i = sb.door_particles(nx, nz)
    r_b = p_i - (m_i[:, None] * p_i).sum(0) / m_i.sum()
    for theta in (30.0, 70.0):
        r_c = r_b @ sb.rotation_y(np.deg2rad(theta)).T
        x, y, z = r_c.T
        # the midpoint grid sums m x_b^2 low by (1 - 1/nx^2) and m z_b^2 low by (1 - 1/nz^2):
        # correct the two second moments in the door's axes, then turn them
        Sxx = np.sum(m_i * r_b[:, 0] ** 2) / (1 - 1 / nx**2)
        Szz = np.sum(m_i * r_b[:, 2] ** 2) / (1 - 1 / nz**2)
        c, s = np.cos(np.deg2rad(theta)), np.sin(np.deg2rad(theta))
        Sx_c, Sz_c, Sxz_c = c * c * Sxx + s * s * Szz, s * s * Sxx + c * c * Szz, -s * c * (Sxx - Szz)
        I_corr = np.array([[Sz_c, 0, -Sxz_c], [0, Sx_c + Sz_c, 0], [-Sxz_c, 0, Sx_c]])
        np.testing.assert_allclose(I_corr, scene(theta)["numbers"]["I_c"], atol=1e-12)
        I_sum = np.array([[np.sum(m_i * (y**2 + z**2)), -np.sum(m_i * x * y), -np.sum(m_i * x * z)],
                          [-np.sum(m_i * x * y), np.sum(m_i * (x**2 + z**2)), -np.sum(m_i * y * z)],
                          [-np.sum(m_i * x * z), -np.sum(m_i * y * z), np.sum(m_i * (x**2 + y**2))]])
        np.testing.assert_allclose(I_sum, scene(theta)["numbers"]["I_c"], atol=1e-3)


def test_static_player_needs_no_kernel(exp):
    out = exp.static_player(values=[0.0, 45.0, 90.0])
    text = out.data if hasattr(out, "data") else str(out)
    assert text.count("data:image/png;base64") == 3 + 3        # wide + phone frames
    assert 'type="range"' in text or "range" in text
    assert "I_xz" in text                        # the per-frame readouts
    assert exp.controls["theta"].value == 30.0   # the control is restored
    frames = exp.frames(values=[0.0, 45.0, 90.0])
    assert len(set(frames)) == 3
