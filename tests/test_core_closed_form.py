"""Closed-form unit tests: every public function of spatialbook against numbers worked out by
hand, and every number of the book's worked examples (the door of chapter 8, experiment E5 of
chapter 7, the seed's usage of chapter 6).

Each test is tagged with the public functions it pins down; the last test fails if a public
function has no closed-form test.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb

COVERED: set[str] = set()


def covers(*names):
    """Register the public functions a test checks in closed form."""
    COVERED.update(names)

    def mark(fn):
        return fn

    return mark


def close(actual, expected, atol=1e-12):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float), rtol=0, atol=atol)


# The door, written out from its definition in chapter 6 (never from sb).
M, A_W, C_H = 2.0, 0.8, 1.2                      # mass, width a, height c
I_C_DIAG = [M * C_H**2 / 12, M * (A_W**2 + C_H**2) / 12, M * A_W**2 / 12]
V_O = [0, 0, 2, 0, 0, 0]                         # hinge fixed, omega = 2 e_z
A_O = [0, 0, 3, 0, 0, 0]                         # alpha = 3 e_z
F_O = [0, 0, 1.28, -3.2, 2.4, 0]
F_C = [0, 0, 0.32, -3.2, 2.4, 0]


def door_I_O():
    return sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])


# --- the door (book chapter 8) ------------------------------------------------------------


@covers("DOOR", "plate_inertia")
def test_door_data_and_plate_inertia():
    assert sb.DOOR["mass"] == M and sb.DOOR["width"] == A_W and sb.DOOR["height"] == C_H
    close(sb.DOOR["com"], [0.4, 0, 0])
    close(sb.DOOR["hinge_axis"], [0, 0, 1])
    assert sb.DOOR["omega"] == 2.0 and sb.DOOR["alpha"] == 3.0
    close(sb.DOOR["inertia_com"], np.diag(I_C_DIAG), atol=1e-15)
    close(sb.plate_inertia(M, A_W, C_H), np.diag(I_C_DIAG), atol=1e-15)
    assert sb.DOOR["inertia_com"][2, 2] == pytest.approx(8 / 75, abs=1e-15)     # I_C,z = 8/75
    # the plate sits exactly on the triangle inequality: I_y = I_x + I_z
    Ix, Iy, Iz = np.diag(sb.DOOR["inertia_com"])
    assert Iy == pytest.approx(Ix + Iz, abs=1e-15)


@covers("spatial_inertia")
def test_door_inertia_about_the_hinge():
    I_O = door_I_O()
    assert I_O[2, 2] == pytest.approx(8 / 75 + M * 0.4**2, abs=1e-14)    # I_O,z = I_C,z + m 0.4^2
    D = np.array([[0, 0, 0], [0, 0, -0.4], [0, 0.4, 0]])                 # [d]x for d = (0.4, 0, 0)
    close(I_O[:3, :3], np.diag(I_C_DIAG) - M * D @ D, atol=1e-14)
    close(I_O[:3, 3:], M * D)
    close(I_O[3:, :3], -M * D)
    close(I_O[3:, 3:], M * np.eye(3))
    # at the COM the spatial inertia is block diagonal
    close(sb.spatial_inertia(M, [0, 0, 0], np.diag(I_C_DIAG)), np.diag(I_C_DIAG + [M] * 3))


@covers("required_wrench", "inertial_wrench", "bias_wrench")
def test_door_newton_euler_at_the_hinge():
    I_O = door_I_O()
    close(sb.required_wrench(I_O, V_O, A_O), F_O, atol=1e-14)
    # -3.2 e_x (centripetal) comes entirely from V x* (I V) ...
    close(sb.bias_wrench(I_O, V_O), [0, 0, 0, -3.2, 0, 0], atol=1e-14)
    # ... while 2.4 e_y and 1.28 e_z come from I A
    close(sb.inertial_wrench(I_O, A_O), [0, 0, 1.28, 0, 2.4, 0], atol=1e-14)


@covers("motion_transform", "transform_inertia")
def test_door_seed_usage_at_the_com():
    # the seed's own usage: X = motion_transform(identity, DOOR["com"]), then the same at the COM
    X = sb.motion_transform(np.eye(3), sb.DOOR["com"])
    I_O = door_I_O()
    I_C = sb.transform_inertia(X, I_O)
    close(I_C, np.diag(I_C_DIAG + [M] * 3), atol=1e-14)
    V_C, A_C = X @ V_O, X @ A_O
    close(V_C, [0, 0, 2, 0, 0.8, 0], atol=1e-15)
    close(A_C, [0, 0, 3, 0, 1.2, 0], atol=1e-15)
    F = sb.required_wrench(I_C, V_C, A_C)
    close(F, F_C, atol=1e-14)
    # tau_C = I_C,z alpha = 0.32 e_z, same f as at the hinge
    assert F[2] == pytest.approx(8 / 75 * 3, abs=1e-14)
    close(F[3:], np.asarray(F_O)[3:], atol=1e-14)


@covers("force_transform", "shift_wrench", "generalized_force", "revolute_axis")
def test_door_wrench_moves_to_the_com_by_the_force_rule():
    X_star = sb.force_transform(np.eye(3), sb.DOOR["com"])
    close(X_star @ F_O, F_C, atol=1e-14)
    close(sb.shift_wrench(F_O, sb.DOOR["com"]), F_C, atol=1e-14)
    # the hinge torque S^T F is 1.28 N m whichever point the wrench is expressed at
    S_O = sb.revolute_axis([0, 0, 1], [0, 0, 0], [0, 0, 0])
    S_C = sb.revolute_axis([0, 0, 1], [0, 0, 0], [0.4, 0, 0])
    close(S_O, [0, 0, 1, 0, 0, 0])
    close(S_C, [0, 0, 1, 0, 0.4, 0])
    assert float(sb.generalized_force(S_O, F_O)) == pytest.approx(1.28, abs=1e-14)
    assert float(sb.generalized_force(S_C, F_C)) == pytest.approx(1.28, abs=1e-14)
    # several dofs: one column per dof
    S = np.stack([S_C, [0, 0, 0, 1, 0, 0]], axis=-1)
    close(sb.generalized_force(S, F_C), [1.28, -3.2], atol=1e-14)
    # a tilted, offset hinge: axis normalised, S = [n; n x (x_P - x_O)]
    close(sb.revolute_axis([0, 0, 5], [1, 1, 0], [1, 2, 3]), [0, 0, 1, -1, 0, 0])


@covers("material_acceleration", "acceleration_field")
def test_door_com_acceleration_is_m_a_C_equal_f():
    a_C = sb.material_acceleration([0, 0, 2, 0, 0.8, 0], [0, 0, 3, 0, 1.2, 0])
    close(a_C, [-1.6, 1.2, 0], atol=1e-15)
    close(M * a_C, np.asarray(F_O)[3:], atol=1e-14)                       # m a_C = f
    # same acceleration from the classical rule a_C = a_O + alpha x d + omega x (omega x d)
    close(sb.acceleration_field(V_O, A_O, [0.4, 0, 0]), [-1.6, 1.2, 0], atol=1e-15)


# --- experiment E5 (book chapter 7) -------------------------------------------------------


@covers("spatial_acceleration", "probe_acceleration", "field_rate_along_path", "velocity_field")
def test_e5_three_probes_read_zero_spatial_acceleration():
    omega = 2.0
    x_P = np.array([0.4, 0, 0])
    V_P = sb.shift_twist([0, 0, omega, 0, 0, 0], x_P)                     # twist referred to x_P
    close(V_P, [0, 0, 2, 0, 0.8, 0])
    # 1) material point: centripetal -1.6 e_x, checked against the trajectory itself
    a_P = sb.acceleration_field([0, 0, omega, 0, 0, 0], np.zeros(6), x_P)
    close(a_P, [-1.6, 0, 0], atol=1e-15)
    h = 1e-4
    traj = [sb.rotation_z(omega * t) @ x_P for t in (-h, 0.0, h)]
    close((traj[0] - 2 * traj[1] + traj[2]) / h**2, a_P, atol=1e-6)
    A_P = sb.spatial_acceleration(V_P, np.r_[0, 0, 0, a_P])
    close(A_P, np.zeros(6), atol=1e-15)
    # 2) fixed probe at x_P: the field there is steady, vdot = 0
    V_O6 = [0, 0, omega, 0, 0, 0]
    rate_fixed = (sb.velocity_field(V_O6, x_P) - sb.velocity_field(V_O6, x_P)) / h
    close(rate_fixed, 0)
    close(sb.probe_acceleration([0, 0, omega], rate_fixed, [0, 0, 0]), 0)
    # 3) probe on a straight line at constant u: vdot = omega x u, then (A_P)_lin = 0
    u = np.array([0.3, -0.5, 0.2])
    rate_line = (sb.velocity_field(V_O6, x_P + u * h) - sb.velocity_field(V_O6, x_P - u * h)) / (2 * h)
    close(rate_line, np.cross([0, 0, omega], u), atol=1e-12)
    close(sb.field_rate_along_path(V_P, np.zeros(6), u), np.cross([0, 0, omega], u), atol=1e-15)
    close(sb.probe_acceleration([0, 0, omega], rate_line, u), 0, atol=1e-12)
    # a probe that moves with the material point (u = v_P, vdot = a_P) is back to chapter 7, eq. (eq-ch07-def)
    close(sb.probe_acceleration([0, 0, omega], a_P, V_P[3:]), A_P[3:], atol=1e-15)


@covers("rotating_frame_derivative")
def test_e5_basis_rotation_correction_alone():
    # a constant world vector seen from axes turning at nu about z: dz^c/dt = -nu^c x z^c
    nu = 1.5
    z = np.array([1.0, 2.0, 0.5])
    for angle in (0.0, 0.7):
        R = sb.rotation_z(angle)
        got = sb.rotating_frame_derivative(R, [0, 0, nu], [0, 0, 0], z)
        h = 1e-5
        fd = (sb.rotation_z(angle + nu * h).T @ z - sb.rotation_z(angle - nu * h).T @ z) / (2 * h)
        close(got, fd, atol=1e-9)
        close(got, -np.cross([0, 0, nu], R.T @ z), atol=1e-15)
    # no frame rotation: just the re-expressed rate
    R = sb.rotation_x(0.4)
    close(sb.rotating_frame_derivative(R, [0, 0, 0], [1, 2, 3], z), R.T @ [1, 2, 3], atol=1e-15)


# --- transforms ----------------------------------------------------------------------------


@covers("skew", "unskew")
def test_skew_and_unskew():
    close(sb.skew([1, 2, 3]), [[0, -3, 2], [3, 0, -1], [-2, 1, 0]])
    close(sb.skew([1, 2, 3]) @ [4, 5, 6], np.cross([1, 2, 3], [4, 5, 6]))
    close(sb.unskew([[0, -3, 2], [3, 0, -1], [-2, 1, 0]]), [1, 2, 3])


@covers("rotation_x", "rotation_y", "rotation_z")
def test_axis_rotations_columns_are_new_axes():
    c, s = np.cos(0.3), np.sin(0.3)
    close(sb.rotation_x(0.3), [[1, 0, 0], [0, c, -s], [0, s, c]], atol=1e-15)
    close(sb.rotation_y(0.3), [[c, 0, s], [0, 1, 0], [-s, 0, c]], atol=1e-15)
    close(sb.rotation_z(0.3), [[c, -s, 0], [s, c, 0], [0, 0, 1]], atol=1e-15)
    # quarter turns: right-handed (x -> y about z, y -> z about x, z -> x about y)
    close(sb.rotation_z(np.pi / 2) @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    close(sb.rotation_x(np.pi / 2) @ [0, 1, 0], [0, 0, 1], atol=1e-15)
    close(sb.rotation_y(np.pi / 2) @ [0, 0, 1], [1, 0, 0], atol=1e-15)
    assert sb.rotation_z([0.1, 0.2, 0.3]).shape == (3, 3, 3)


@covers("motion_transform", "inverse_transform")
def test_motion_transform_blocks_and_inverse():
    R = sb.rotation_z(np.pi / 2)
    d = np.array([1.0, 2.0, 3.0])
    D = np.array([[0, -3, 2], [3, 0, -1], [-2, 1, 0]])
    X = sb.motion_transform(R, d)
    close(X[:3, :3], R.T, atol=1e-15)
    close(X[:3, 3:], 0)
    close(X[3:, :3], -R.T @ D, atol=1e-15)
    close(X[3:, 3:], R.T, atol=1e-15)
    Xi = sb.inverse_transform(X)
    close(Xi[:3, :3], R, atol=1e-15)
    close(Xi[3:, :3], D @ R, atol=1e-15)                                 # X^-1 = [[R, 0], [D R, R]]
    close(Xi @ X, np.eye(6), atol=1e-14)
    # the door: v_C = v_O + omega x d
    close(sb.motion_transform(np.eye(3), [0.4, 0, 0]) @ V_O, [0, 0, 2, 0, 0.8, 0])
    # pure rotation: the twist of a door spinning about world z, seen in axes turned 90 deg
    close(sb.motion_transform(R, [0, 0, 0]) @ [1, 0, 0, 0, 1, 0], [0, -1, 0, 1, 0, 0], atol=1e-15)


@covers("force_transform", "inverse_transform")
def test_force_transform_blocks():
    R = sb.rotation_x(0.5)
    d = np.array([1.0, 2.0, 3.0])
    D = sb.skew(d)
    Xf = sb.force_transform(R, d)
    close(Xf[:3, :3], R.T)
    close(Xf[:3, 3:], -R.T @ D, atol=1e-15)
    close(Xf[3:, :3], 0)
    close(Xf[3:, 3:], R.T)
    close(sb.inverse_transform(Xf) @ Xf, np.eye(6), atol=1e-14)
    close(sb.inverse_transform(Xf)[:3, 3:], D @ R, atol=1e-15)
    # a pure force of 1 N along y at the origin has torque (d x f reversed) about a point on x
    close(sb.force_transform(np.eye(3), [1, 0, 0]) @ [0, 0, 0, 0, 1, 0], [0, 0, -1, 0, 1, 0])


@covers("transform_vectors", "shift_twist")
def test_transform_vectors_and_shift_twist():
    X = sb.motion_transform(np.eye(3), [0.4, 0, 0])
    close(sb.transform_vectors(X, [[0, 0, 2, 0, 0, 0], [0, 0, 1, 0, 0, 0]]), [[0, 0, 2, 0, 0.8, 0], [0, 0, 1, 0, 0.4, 0]])
    # one transform per vector
    Xs = np.stack([X, sb.motion_transform(np.eye(3), [0.8, 0, 0])])
    close(sb.transform_vectors(Xs, [0, 0, 2, 0, 0, 0]), [[0, 0, 2, 0, 0.8, 0], [0, 0, 2, 0, 1.6, 0]])
    close(sb.shift_twist(V_O, [0.4, 0, 0]), [0, 0, 2, 0, 0.8, 0])
    close(sb.shift_twist([1, 0, 0, 0, 0, 0], [0, 1, 0]), [1, 0, 0, 0, 0, 1])


# --- the field, screw axis and central axis -----------------------------------------------


@covers("velocity_field")
def test_velocity_field_doubles_with_distance():
    v = sb.velocity_field(V_O, [[0.4, 0, 0], [0.8, 0, 0], [0, 0, 1.0]])
    close(v, [[0, 0.8, 0], [0, 1.6, 0], [0, 0, 0]])
    close(sb.velocity_field([0, 0, 0, 1, 2, 3], [[5, 6, 7]]), [[1, 2, 3]])      # pure translation


@covers("screw_axis", "Axis")
def test_screw_axis_closed_form():
    ax = sb.screw_axis([0, 0, 2, 0, 0.8, 0])            # door at its COM: axis is the hinge
    assert isinstance(ax, sb.Axis)
    close(ax.point, [-0.4, 0, 0], atol=1e-15)
    close(ax.direction, [0, 0, 1])
    assert float(ax.pitch) == 0.0
    ax = sb.screw_axis([0, 0, 2, 0, 0, 1.0])            # a screw of pitch 0.5 m/rad
    assert float(ax.pitch) == pytest.approx(0.5)
    close(ax.point, 0)
    ax = sb.screw_axis([0, 0, 0, 3, 0, 4])              # pure translation
    assert np.isinf(ax.pitch)
    close(ax.direction, [0.6, 0, 0.8])


@covers("central_axis")
def test_central_axis_closed_form():
    ax = sb.central_axis(F_O)                           # f x tau / |f|^2 = (0.192, 0.256, 0)
    close(ax.point, [0.192, 0.256, 0], atol=1e-15)
    close(ax.direction, [-0.8, 0.6, 0], atol=1e-15)
    assert float(ax.pitch) == 0.0
    ax = sb.central_axis([1, 0, 0, 2, 0, 0])            # a wrench (screw) of pitch 0.5 m
    assert float(ax.pitch) == pytest.approx(0.5)
    ax = sb.central_axis([0, 0, 5, 0, 0, 0])            # a pure couple
    assert np.isinf(ax.pitch)
    close(ax.direction, [0, 0, 1])


# --- inertia ------------------------------------------------------------------------------


@covers("inertia_parts")
def test_inertia_parts_inverts_eq_5_5():
    m, c, I_C = sb.inertia_parts(door_I_O())
    assert float(m) == M
    close(c, [0.4, 0, 0], atol=1e-15)
    close(I_C, np.diag(I_C_DIAG), atol=1e-14)


@covers("spatial_momentum", "kinetic_energy")
def test_door_momentum_and_energy():
    I_O = door_I_O()
    I_Oz = 8 / 75 + M * 0.16
    close(sb.spatial_momentum(I_O, V_O), [0, 0, I_Oz * 2, 0, M * 0.8, 0], atol=1e-14)   # p = m v_C
    assert float(sb.kinetic_energy(I_O, V_O)) == pytest.approx(0.5 * I_Oz * 4, abs=1e-14)
    # translation only: T = 1/2 m v^2
    assert float(sb.kinetic_energy(I_O, [0, 0, 0, 3, 0, 0])) == pytest.approx(9.0)


@covers("kinetic_energy_terms")
def test_kinetic_energy_terms_closed_form():
    """Chapter 6, eq. (eq-ch06-energy-split): rotation 1/2 I_z w^2, coupling m v.(w x d),
    translation 1/2 m v^2, written out by hand for the door (d = x_C - x_P along x)."""
    I_O, w = door_I_O(), 2.0
    for x_P in (0.0, 0.4, 0.8, 1.3):
        d = A_W / 2 - x_P                               # from P to the COM, along x
        X = sb.motion_transform(np.eye(3), [x_P, 0, 0])
        I_P, V_P = sb.transform_inertia(X, I_O), X @ V_O     # v_P = w x_P e_y
        rot, coup, trans = sb.kinetic_energy_terms(I_P, V_P)
        v = w * x_P
        assert float(rot) == pytest.approx(0.5 * (I_C_DIAG[2] + M * d**2) * w**2, abs=1e-13)
        assert float(coup) == pytest.approx(M * v * w * d, abs=1e-13)     # v e_y . (w e_z x d e_x)
        assert float(trans) == pytest.approx(0.5 * M * v**2, abs=1e-13)
        assert float(rot + coup + trans) == pytest.approx(0.5 * (I_C_DIAG[2] + M * 0.16) * w**2, abs=1e-13)
    # a pure translation has only the translation term; a massless inertia gives zeros
    assert [float(t) for t in sb.kinetic_energy_terms(I_O, [0, 0, 0, 3, 0, 0])] == pytest.approx([0, 0, 9.0])
    close(sb.kinetic_energy_terms(np.zeros((6, 6)), V_O), [0, 0, 0])
    # batched over reference points
    X = sb.motion_transform(np.eye(3), [[0, 0, 0], [A_W / 2, 0, 0]])
    close(np.stack(sb.kinetic_energy_terms(sb.transform_inertia(X, I_O), X @ V_O)),
          [[0.5 * (I_C_DIAG[2] + M * 0.16) * 4, 0.5 * I_C_DIAG[2] * 4], [0, 0], [0, 0.5 * M * 0.64]], atol=1e-13)


def test_unchecked_twins_equal_the_public_functions():
    """spatialbook.unchecked: the same arithmetic, bit for bit, with no checks."""
    from spatialbook import unchecked as fast
    I_O = door_I_O()
    X = sb.motion_transform(sb.rotation_z(0.3), [0.2, -0.1, 0.5])
    V, A, F = np.array([0.1, 0.2, 2.0, 0.3, -0.4, 0.5]), np.array(A_O, float), np.array(F_O)
    pairs = {
        "motion_transform": ((sb.rotation_z(0.3), np.array([0.2, -0.1, 0.5])),),
        "transform_inertia": ((X, I_O),), "spatial_momentum": ((I_O, V),),
        "kinetic_energy": ((I_O, V),), "kinetic_energy_terms": ((I_O, V),),
        "inertial_wrench": ((I_O, A),), "bias_wrench": ((I_O, V),),
        "required_wrench": ((I_O, V, A),), "power": ((V, F),), "power_terms": ((V, F),),
    }
    assert set(pairs) == set(fast.__all__)
    for name, (args,) in pairs.items():
        np.testing.assert_array_equal(np.asarray(getattr(fast, name)(*args)),
                                      np.asarray(getattr(sb, name)(*args)), err_msg=name)


@covers("box_inertia", "rod_inertia", "point_mass_inertia")
def test_shape_builders():
    close(sb.box_inertia(12.0, [1, 2, 3]), np.diag([13.0, 10.0, 5.0]))
    close(sb.rod_inertia(3.0, 2.0), np.diag([0.0, 1.0, 1.0]))
    P = sb.point_mass_inertia(2.0, [1, 0, 0])
    close(P, sb.spatial_inertia(2.0, [1, 0, 0], np.zeros((3, 3))))
    close(P[:3, :3], np.diag([0, 2.0, 2.0]))
    # a cube: all moments m a^2 / 6
    close(sb.box_inertia(6.0, [1, 1, 1]), np.eye(3))


# --- dynamics -----------------------------------------------------------------------------


@covers("motion_cross", "force_cross")
def test_cross_product_matrices():
    V = np.array([1, 2, 3, 4, 5, 6.0])
    W, Vv = sb.skew(V[:3]), sb.skew(V[3:])
    Z = np.zeros((3, 3))
    close(sb.motion_cross(V), np.block([[W, Z], [Vv, W]]))
    close(sb.force_cross(V), np.block([[W, Vv], [Z, W]]))
    # a body-fixed motion vector: a unit axis along y carried by rotation about z turns to -x
    close(sb.motion_cross([0, 0, 1, 0, 0, 0]) @ [0, 1, 0, 0, 0, 0], [-1, 0, 0, 0, 0, 0])


@covers("power", "power_terms")
def test_power_split():
    assert float(sb.power(V_O, F_O)) == pytest.approx(2.56, abs=1e-14)
    rot, trans = sb.power_terms([0, 0, 2, 0, 0.8, 0], F_C)
    assert float(rot) == pytest.approx(0.64, abs=1e-14)
    assert float(trans) == pytest.approx(1.92, abs=1e-14)
    assert float(rot + trans) == pytest.approx(2.56, abs=1e-14)
    rot, trans = sb.power_terms(V_O, F_O)
    assert (float(rot), float(trans)) == pytest.approx((2.56, 0.0), abs=1e-14)


# --- notation bridges ---------------------------------------------------------------------


@covers("to_cinert", "from_cinert")
def test_cinert_layout():
    c = sb.to_cinert(door_I_O())
    # rotational inertia about the hinge (parallel axis along y and z), m d, m
    close(c, [0.24, I_C_DIAG[1] + M * 0.16, 8 / 75 + M * 0.16, 0, 0, 0, M * 0.4, 0, 0, M], atol=1e-14)
    # off-diagonal entries land in Ixy, Ixz, Iyz order
    I = np.array([[3.0, 0.1, 0.2], [0.1, 4.0, 0.3], [0.2, 0.3, 5.0]])
    c = sb.to_cinert(sb.spatial_inertia(1.0, [0, 0, 0], I))
    close(c, [3, 4, 5, 0.1, 0.2, 0.3, 0, 0, 0, 1])
    close(sb.from_cinert(c), sb.spatial_inertia(1.0, [0, 0, 0], I))


@covers("homogeneous", "Ad", "ad", "G_b")
def test_modern_robotics_blocks():
    R, p = sb.rotation_z(0.3), np.array([0.4, 0.0, 0.1])
    T = sb.homogeneous(R, p)
    close(T, np.block([[R, p[:, None]], [np.zeros((1, 3)), np.ones((1, 1))]]))
    close(sb.Ad(T), np.block([[R, np.zeros((3, 3))], [sb.skew(p) @ R, R]]), atol=1e-15)
    V = [1, 2, 3, 4, 5, 6]
    close(sb.ad(V), sb.motion_cross(V))
    close(sb.G_b(2.0, sb.DOOR["inertia_com"]), np.diag(I_C_DIAG + [2.0] * 3))


@covers("steiner", "principal_axes")
def test_steiner_and_principal_axes():
    close(sb.steiner(sb.DOOR["inertia_com"], 2.0, [0.4, 0, 0]), np.diag([0.24, I_C_DIAG[1] + 0.32, 8 / 75 + 0.32]), atol=1e-14)
    R0 = sb.rotation_x(0.4) @ sb.rotation_z(0.9)
    I = R0 @ np.diag([1.0, 2.0, 2.5]) @ R0.T
    moments, R = sb.principal_axes(I)
    close(moments, [1.0, 2.0, 2.5], atol=1e-12)
    close(R.T @ I @ R, np.diag([1.0, 2.0, 2.5]), atol=1e-12)
    assert np.linalg.det(R) == pytest.approx(1.0)


@covers("to_linear_first", "from_linear_first", "matrix_to_linear_first")
def test_linear_first_order():
    close(sb.to_linear_first([1, 2, 3, 4, 5, 6]), [4, 5, 6, 1, 2, 3])
    close(sb.from_linear_first([4, 5, 6, 1, 2, 3]), [1, 2, 3, 4, 5, 6])
    X = sb.motion_transform(sb.rotation_z(0.3), [1, 2, 3])
    Xp = sb.matrix_to_linear_first(X)
    # Pinocchio's motion action in linear-first order: [[R^T, -R^T D], [0, R^T]] acting on [v; w]
    close(Xp[:3, :3], X[3:, 3:])
    close(Xp[:3, 3:], X[3:, :3])
    close(Xp[3:, :3], 0)


# --- particles ----------------------------------------------------------------------------


@covers("door_particles", "particle_inertia_com")
def test_particle_grid_closed_form():
    m, r = sb.door_particles(4, 6)
    assert m.shape == (24,) and r.shape == (24, 3)
    close(m.sum(), 2.0, atol=1e-15)
    close(r.mean(axis=0), [0.4, 0, 0], atol=1e-15)
    M_, c, I = sb.particle_inertia_com(m, r)
    # a grid of n equal cells along a length L has second moment L^2 (1 - 1/n^2) / 12
    Ix = M * C_H**2 * (1 - 1 / 36) / 12
    Iz = M * A_W**2 * (1 - 1 / 16) / 12
    close(I, np.diag([Ix, Ix + Iz, Iz]), atol=1e-14)
    assert M_ == pytest.approx(2.0)


@covers("particle_kinetic_energy", "particle_momentum", "particle_accelerations", "particle_wrench")
def test_two_particles_closed_form():
    m = np.array([1.0, 3.0])
    r = np.array([[1.0, 0, 0], [0, 2.0, 0]])
    V = [0, 0, 2, 0, 0, 0]
    # speeds 2 and 4 m/s: T = 1/2 (1*4 + 3*16) = 26 J
    assert sb.particle_kinetic_energy(m, r, V) == pytest.approx(26.0)
    # p = (1*(0,2,0) + 3*(-4,0,0)) ; L_z = 1*1*2 + 3*2*4
    close(sb.particle_momentum(m, r, V), [0, 0, 26, -12, 2, 0])
    close(sb.particle_accelerations(r, V, np.zeros(6)), [[-4, 0, 0], [0, -8, 0]])
    close(sb.particle_wrench(m, r, V, np.zeros(6)), [0, 0, 0, -4, -24, 0])


@covers("rotation_from_quaternion")
def test_rotation_from_quaternion_closed_form():
    c, s_ = np.cos(0.6 / 2), np.sin(0.6 / 2)
    close(sb.rotation_from_quaternion([c, s_, 0, 0]), sb.rotation_x(0.6))
    close(sb.rotation_from_quaternion([c, 0, s_, 0]), sb.rotation_y(0.6))
    close(sb.rotation_from_quaternion([2 * c, 0, 0, 2 * s_]), sb.rotation_z(0.6))   # normalised
    close(sb.rotation_from_quaternion([[1, 0, 0, 0], [0, 0, 0, 1]]),
          [np.eye(3), np.diag([-1.0, -1.0, 1.0])])                                   # batched
    with pytest.raises(ValueError, match="quaternion"):
        sb.rotation_from_quaternion([0, 0, 0, 0])


@covers("Tree", "inverse_dynamics", "mass_matrix", "forward_dynamics")
def test_bifold_door_closed_form():
    """Two door leaves on vertical hinges, the second at the first one's free edge (l = a):
    the planar two-link arm.  With c = a/2 the COM offset and I_z = m a^2/12 about the COM,
    H11 = 2 I_z + m c^2 + m (l^2 + c^2 + 2 l c cos q2), H12 = I_z + m (c^2 + l c cos q2),
    H22 = I_z + m c^2, and with h = m l c sin q2 the velocity terms are
    C1 = -h (2 qd1 qd2 + qd2^2), C2 = h qd1^2.  Gravity along the hinges adds nothing."""
    I_O = door_I_O()
    bifold = sb.Tree([-1, 0], [np.eye(6), sb.motion_transform(np.eye(3), [A_W, 0, 0])],
                     [[0, 0, 1, 0, 0, 0]] * 2, [I_O, I_O])
    q2, qd, qdd = 0.7, np.array([2.0, -1.5]), np.array([3.0, 0.5])
    Iz, c, l = M * A_W**2 / 12, A_W / 2, A_W
    H = np.array([[2 * Iz + M * c**2 + M * (l**2 + c**2 + 2 * l * c * np.cos(q2)), Iz + M * (c**2 + l * c * np.cos(q2))],
                  [Iz + M * (c**2 + l * c * np.cos(q2)), Iz + M * c**2]])
    h = M * l * c * np.sin(q2)
    C = np.array([-h * (2 * qd[0] * qd[1] + qd[1] ** 2), h * qd[0] ** 2])
    close(sb.mass_matrix(bifold, [0.4, q2]), H)
    close(sb.inverse_dynamics(bifold, [0.4, q2], qd, qdd), H @ qdd + C)
    close(sb.forward_dynamics(bifold, [0.4, q2], qd, H @ qdd + C), qdd)
    # the one-leaf tree is the door of chapter 8: 1.28 N m at omega = 2, alpha = 3
    door = sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [I_O])
    close(sb.inverse_dynamics(door, [0.0], [2.0], [3.0]), [1.28])


@covers("Tree", "inverse_dynamics", "mass_matrix")
def test_door_on_a_vertical_slider_closed_form():
    """A carriage of mass m1 sliding up a vertical rail (prismatic along z) carries the door
    on a vertical hinge: H = diag(m1 + m, I_O,z), and holding the carriage against gravity
    takes tau_1 = (m1 + m)(qdd_1 + 9.81)."""
    m1 = 5.0
    carriage = sb.spatial_inertia(m1, [0, 0, 0], np.diag([0.1, 0.1, 0.1]))
    tree = sb.Tree([-1, 0], [np.eye(6), np.eye(6)], [[0, 0, 0, 0, 0, 1], [0, 0, 1, 0, 0, 0]],
                   [carriage, door_I_O()])
    I_Oz = I_C_DIAG[2] + M * (A_W / 2) ** 2
    close(sb.mass_matrix(tree, [0.3, 1.1]), np.diag([m1 + M, I_Oz]))
    close(sb.inverse_dynamics(tree, [0.3, 1.1], [0.2, 2.0], [-1.0, 3.0]), [(m1 + M) * (-1.0 + 9.81), I_Oz * 3.0])


@covers("body_poses", "jacobian", "center_of_mass", "centroidal_momentum_matrix", "centroidal_momentum")
def test_bifold_door_kinematics_and_momentum_closed_form():
    """The bifold door (two leaves, hinges along z, the second at the first one's free edge,
    l = 0.8 m out): leaf 2's origin is l (cos q1, sin q1, 0) and its axes are turned by q1 + q2;
    the space Jacobian's columns are the hinges' screw axes [e_z; -e_z x p_i]; at leaf 2's hinge
    (mixed: its origin, world axes) the first column gains the linear part e_z x p_2.  Each
    leaf's centre of mass moves on circles, so the centre of mass and the momentum are sums of
    plane vectors; l_G,z = sum (I_C,z w_i + m ((c_i - G) x v_i)_z)."""
    l, c = A_W, A_W / 2
    bifold = sb.Tree([-1, 0], [np.eye(6), sb.motion_transform(np.eye(3), [l, 0, 0])],
                     [[0, 0, 1, 0, 0, 0]] * 2, [door_I_O(), door_I_O()])
    q1, q2, w1, w2 = 0.4, -1.1, 1.5, -0.7
    e = lambda a: np.array([np.cos(a), np.sin(a), 0.0])            # noqa: E731
    ez = np.array([0.0, 0.0, 1.0])
    R, p = sb.body_poses(bifold, [q1, q2])
    close(p, [[0, 0, 0], l * e(q1)])
    close(R[1], [[np.cos(q1 + q2), -np.sin(q1 + q2), 0], [np.sin(q1 + q2), np.cos(q1 + q2), 0], [0, 0, 1]])
    p2 = l * e(q1)
    close(sb.jacobian(bifold, [q1, q2], 1), np.column_stack([np.r_[ez, 0, 0, 0], np.r_[ez, -np.cross(ez, p2)]]))
    close(sb.jacobian(bifold, [q1, q2], 1, frame="mixed"),
          np.column_stack([np.r_[ez, np.cross(ez, p2)], np.r_[ez, 0, 0, 0]]))
    close(sb.jacobian(bifold, [q1, q2], "joint0", frame="body"), np.column_stack([np.r_[ez, 0, 0, 0], np.zeros(6)]))
    c1, c2 = c * e(q1), p2 + c * e(q1 + q2)
    G = (c1 + c2) / 2
    close(sb.center_of_mass(bifold, [q1, q2]), G)
    v1, v2 = w1 * np.cross(ez, c1), w1 * np.cross(ez, p2) + (w1 + w2) * np.cross(ez, c2 - p2)
    l_G = I_C_DIAG[2] * (2 * w1 + w2) + M * (np.cross(c1 - G, v1) + np.cross(c2 - G, v2))[2]
    h_G = np.r_[0, 0, l_G, M * (v1 + v2)]
    close(sb.centroidal_momentum(bifold, [q1, q2], [w1, w2]), h_G)
    close(sb.centroidal_momentum_matrix(bifold, [q1, q2]) @ [w1, w2], h_G)


@covers("configuration_rate", "integrate")
def test_free_body_screw_motion_closed_form():
    """A free body at the origin moving with the body twist [w e_z; v e_x] for t seconds turns
    by w t about z while its origin runs along a circle of radius v / w:
    p = (v / w)(sin wt, 1 - cos wt, 0), quat = (cos wt/2, 0, 0, sin wt/2); at t = 0 the rates
    are p' = v e_x and quat' = 1/2 (1, 0) (x) (0, w e_z) = (0, 0, 0, w / 2)."""
    free = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [door_I_O()], kinds=["free"])
    w, v = 1.3, 0.6
    qd = [0, 0, w, v, 0, 0]
    start = [0, 0, 0, 1, 0, 0, 0]
    close(sb.configuration_rate(free, start, qd), [v, 0, 0, 0, 0, 0, w / 2])
    for t in (0.01, 0.9, 2.5):
        close(sb.integrate(free, start, qd, t),
              [v / w * np.sin(w * t), v / w * (1 - np.cos(w * t)), 0, np.cos(w * t / 2), 0, 0, np.sin(w * t / 2)])


def _rk4_steps(tree, q, qd, acceleration, duration, n):
    for k in range(n):
        q, qd = sb.rk4_step(tree, q, qd, acceleration, duration / n, t=k * duration / n)
    return q, qd


@covers("rk4_step")
def test_rk4_step_closed_form_and_fourth_order():
    """(a) With no acceleration one step of any length is the exact screw motion (every stage's
    theta is parallel to the twist, so the brackets vanish).  (b) A free body dropped with a
    drift and no spin: RK4 integrates the constant acceleration exactly, p = p0 + u t + g t^2/2,
    v = u + g t.  (c) A torque-free body spinning at w about a principal axis through its centre
    of mass while it drifts at u (world): R = R_z(w t), p = u t, its body twist
    [w e_z; R_z(-w t) u]; the error after one second shrinks 16-fold per halving of the step.
    (d) A tumbling door (centre of mass off the body origin): h_G is constant, and what the
    steps leave of its change shrinks 16-fold per halving too; two free bodies in one tree step as
    each does alone.  Without the stage correction
    L(theta, xi) the slopes in (c) and (d) drop to 2, without its [theta, [theta, xi]]/12 term
    to 3 (measured)."""
    free = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [door_I_O()], kinds=["free"])
    w, v = 1.3, 0.6
    start = [0, 0, 0, 1, 0, 0, 0]
    for t in (0.01, 0.9, 2.5):
        q1, qd1 = sb.rk4_step(free, start, [0, 0, w, v, 0, 0], lambda t, q, qd: np.zeros(6), t)
        close(q1, [v / w * np.sin(w * t), v / w * (1 - np.cos(w * t)), 0, np.cos(w * t / 2), 0, 0, np.sin(w * t / 2)])
        close(qd1, [0, 0, w, v, 0, 0])

    g, u, p0 = np.array([0.0, 0.0, -9.81]), np.array([0.4, 0.0, 2.0]), np.array([0.1, 0.2, 1.0])
    centred = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [sb.spatial_inertia(M, [0, 0, 0], np.diag(I_C_DIAG))],
                      kinds=["free"])

    def falling(t, q, qd):
        return sb.forward_dynamics(centred, q, qd, np.zeros(6), gravity=g)

    q1, qd1 = _rk4_steps(centred, np.r_[p0, 1, 0, 0, 0], np.r_[0, 0, 0, u], falling, 0.8, 3)
    close(q1, np.r_[p0 + u * 0.8 + g * 0.32, 1, 0, 0, 0])
    close(qd1, np.r_[0, 0, 0, u + g * 0.8])
    # a batch of steps (dt and t as arrays) is the steps one at a time
    qb, qdb = sb.rk4_step(centred, np.r_[p0, 1, 0, 0, 0], np.r_[0, 0, 0, u], falling, [0.1, 0.2], t=[0.0, 1.0])
    for i, h in enumerate((0.1, 0.2)):
        qi, qdi = sb.rk4_step(centred, np.r_[p0, 1, 0, 0, 0], np.r_[0, 0, 0, u], falling, h, t=float(i))
        close(qb[i], qi, atol=1e-15)
        close(qdb[i], qdi, atol=1e-15)

    def torque_free(tree):
        return lambda t, q, qd: sb.forward_dynamics(tree, q, qd, np.zeros(tree.nv), gravity=[0, 0, 0])

    w, u = 2.0, np.array([1.0, 0.5, 0.0])
    exact_q = np.r_[u, np.cos(w / 2), 0, 0, np.sin(w / 2)]
    exact_qd = np.r_[0, 0, w, sb.rotation_z(w).T @ u]
    errors = []
    for n in (10, 20, 40):
        q1, qd1 = _rk4_steps(centred, [0, 0, 0, 1, 0, 0, 0], np.r_[0, 0, w, u], torque_free(centred), 1.0, n)
        errors.append(max(np.abs(q1 - exact_q).max(), np.abs(qd1 - exact_qd).max()))
    slopes = np.log2(np.array(errors[:-1]) / errors[1:])
    assert errors[0] < 1e-3 and np.all((slopes > 3.7) & (slopes < 4.3)), (errors, slopes)

    q0, qd0 = [0, 0, 0, 1, 0, 0, 0], [1.0, 2.0, 3.0, 0.3, -0.2, 0.5]
    # two free bodies in one tree (two roots): each steps as it would alone (the correction is per joint)
    pair = sb.Tree([-1, -1], [np.eye(6)] * 2, [np.zeros(6)] * 2, [door_I_O(), sb.spatial_inertia(M, [0, 0, 0],
                   np.diag(I_C_DIAG))], kinds=["free", "free"])
    q2, qd2 = sb.rk4_step(pair, np.r_[q0, 0.1, 0, 0, 0.6, 0.8, 0, 0], np.r_[qd0, 0, 0, w, u], torque_free(pair), 0.3)
    qa, qda = sb.rk4_step(free, q0, qd0, torque_free(free), 0.3)
    qb, qdb = sb.rk4_step(centred, [0.1, 0, 0, 0.6, 0.8, 0, 0], np.r_[0, 0, w, u], torque_free(centred), 0.3)
    close(q2, np.r_[qa, qb])
    close(qd2, np.r_[qda, qdb])
    h0 = sb.centroidal_momentum(free, q0, qd0)
    errors = []
    for n in (10, 20, 40):
        q1, qd1 = _rk4_steps(free, q0, qd0, torque_free(free), 1.0, n)
        errors.append(np.abs(sb.centroidal_momentum(free, q1, qd1) - h0).max())
    slopes = np.log2(np.array(errors[:-1]) / errors[1:])
    assert errors[0] < 1e-2 and np.all((slopes > 3.7) & (slopes < 4.3)), (errors, slopes)


def test_every_public_function_has_a_closed_form_test():
    public = {name for name in sb.__all__ if callable(getattr(sb, name)) or name == "DOOR"}
    missing = sorted(public - COVERED)
    assert not missing, f"public functions without a closed-form test: {missing}"
    assert not (COVERED - set(sb.__all__)), "COVERED names something that is not public"
