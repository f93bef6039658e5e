"""Property-based tests (hypothesis) of the identities of spatial vector algebra.

Strategies: rotations from normalised quaternions, displacements, twists, wrenches, and
physical inertias (random principal moments that satisfy the triangle inequality, rotated
to random axes, with a random COM).  Each property would fail for the classic mistakes:
a sign flip in D, forces transformed with X (or X^T) instead of X^-T, a wrong pole of the
screw axis, a wrong Steiner term.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

import spatialbook as sb

# --- strategies ---------------------------------------------------------------------------

_coord = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)


def _vec(n, elements=_coord):
    return st.lists(elements, min_size=n, max_size=n).map(np.array)


vec3 = _vec(3)
displacements = _vec(3)
twists = _vec(6)
wrenches = _vec(6)


_quat_to_matrix = sb.rotation_from_quaternion


rotations = (
    st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=4, max_size=4)
    .map(np.array)
    .filter(lambda q: np.linalg.norm(q) > 0.1)
    .map(_quat_to_matrix)
)


@st.composite
def rotational_inertias(draw):
    """R diag(a, b, c) R^T with a, b > 0 and |a - b| <= c <= a + b (kg m^2)."""
    a = draw(st.floats(0.01, 2.0))
    b = draw(st.floats(0.01, 2.0))
    t = draw(st.floats(0.0, 1.0))
    c = abs(a - b) + t * (a + b - abs(a - b))
    R = draw(rotations)
    return R @ np.diag([a, b, c]) @ R.T


@st.composite
def bodies(draw):
    """(mass, com, inertia about the com) of a physical rigid body."""
    return draw(st.floats(0.1, 5.0)), draw(displacements), draw(rotational_inertias())


@st.composite
def spatial_inertias(draw):
    m, c, I_C = draw(bodies())
    return sb.spatial_inertia(m, c, I_C)


def close(a, b, atol=1e-9):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=0, atol=atol)


# --- transforms ---------------------------------------------------------------------------


@given(rotations, displacements)
def test_inverse_times_transform_is_identity(R, d):
    X = sb.motion_transform(R, d)
    close(sb.inverse_transform(X) @ X, np.eye(6), atol=1e-12)
    close(X @ sb.inverse_transform(X), np.eye(6), atol=1e-12)
    close(sb.inverse_transform(X), np.linalg.inv(X), atol=1e-10)
    close(sb.inverse_transform(X), sb.motion_transform(R.T, -R.T @ d), atol=1e-12)


@given(rotations, displacements)
def test_force_transform_is_inverse_transpose(R, d):
    X = sb.motion_transform(R, d)
    Xf = sb.force_transform(R, d)
    close(Xf, np.linalg.inv(X).T, atol=1e-10)
    close(sb.inverse_transform(Xf), np.linalg.inv(Xf), atol=1e-10)


@given(rotations, displacements, rotations, displacements, twists, wrenches)
def test_composition(R1, d1, R2, d2, V, F):
    # A -> B by (R1, d1) in A axes, then B -> C by (R2, d2) in B axes
    X_BA, X_CB = sb.motion_transform(R1, d1), sb.motion_transform(R2, d2)
    X_CA = sb.motion_transform(R1 @ R2, d1 + R1 @ d2)
    close(X_CB @ X_BA, X_CA, atol=1e-12)
    Xf_CA = sb.force_transform(R1 @ R2, d1 + R1 @ d2)
    close(sb.force_transform(R2, d2) @ sb.force_transform(R1, d1), Xf_CA, atol=1e-12)
    close(sb.transform_vectors(X_CB, sb.transform_vectors(X_BA, V)), X_CA @ V, atol=1e-11)


@given(rotations, displacements, twists, wrenches)
def test_power_is_invariant(R, d, V, F):
    X, Xf = sb.motion_transform(R, d), sb.force_transform(R, d)
    close(sb.power(X @ V, Xf @ F), sb.power(V, F), atol=1e-11)
    rot, trans = sb.power_terms(X @ V, Xf @ F)
    close(rot + trans, sb.power(V, F), atol=1e-11)


@given(displacements, twists, wrenches)
def test_shift_rules_match_the_transforms(d, V, F):
    close(sb.shift_twist(V, d), sb.motion_transform(np.eye(3), d) @ V, atol=1e-12)
    close(sb.shift_wrench(F, d), sb.force_transform(np.eye(3), d) @ F, atol=1e-12)
    # the shifted twist's linear part is the field value at the new point
    close(sb.shift_twist(V, d)[3:], sb.velocity_field(V, d), atol=1e-12)
    close(sb.shift_twist(V, d)[3:], V[3:] + np.cross(V[:3], d), atol=1e-12)


@given(rotations, displacements, twists, _vec(3))
def test_velocity_field_is_frame_independent(R, d, V, x):
    # the velocity of a point in space, computed from the twist at the old point or the new
    v_old = sb.velocity_field(V, x)
    V_new = sb.motion_transform(R, d) @ V
    v_new = sb.velocity_field(V_new, R.T @ (x - d))
    close(R @ v_new, v_old, atol=1e-11)


@given(vec3, vec3)
def test_skew_is_the_cross_product(a, b):
    close(sb.skew(a) @ b, np.cross(a, b), atol=1e-13)
    close(sb.unskew(sb.skew(a)), a, atol=0)


@given(st.floats(-4, 4), st.floats(-4, 4))
def test_axis_rotations_compose(s, t):
    for rot in (sb.rotation_x, sb.rotation_y, sb.rotation_z):
        close(rot(s) @ rot(t), rot(s + t), atol=1e-12)
        close(rot(s).T @ rot(s), np.eye(3), atol=1e-13)
        assert np.linalg.det(rot(s)) > 0


# --- inertia and energy -------------------------------------------------------------------


@given(bodies(), rotations, displacements, twists)
def test_kinetic_energy_and_momentum_under_any_change_of_point_and_axes(body, R, d, V):
    m, c, I_C = body
    I_O = sb.spatial_inertia(m, c, I_C)
    X = sb.motion_transform(R, d)
    I_new = sb.transform_inertia(X, I_O)
    V_new = X @ V
    close(sb.kinetic_energy(I_new, V_new), sb.kinetic_energy(I_O, V), atol=1e-9)
    # momentum is a force-like vector
    close(sb.spatial_momentum(I_new, V_new), sb.force_transform(R, d) @ sb.spatial_momentum(I_O, V), atol=1e-9)
    # congruence: I_old = X^T I_new X
    close(X.T @ I_new @ X, I_O, atol=1e-9)
    # the new inertia is the same body described from the new point and axes
    close(I_new, sb.spatial_inertia(m, R.T @ (c - d), R.T @ I_C @ R), atol=1e-9)
    # and its parts come back
    m2, c2, I2 = sb.inertia_parts(I_new)
    close(m2, m, atol=1e-12)
    close(c2, R.T @ (c - d), atol=1e-9)
    close(I2, R.T @ I_C @ R, atol=1e-9)


@given(bodies(), twists)
def test_kinetic_energy_splits_at_the_com(body, V):
    m, c, I_C = body
    I_O = sb.spatial_inertia(m, c, I_C)
    w = V[:3]
    v_C = sb.velocity_field(V, c)
    close(sb.kinetic_energy(I_O, V), 0.5 * m * v_C @ v_C + 0.5 * w @ I_C @ w, atol=1e-9)
    p = sb.spatial_momentum(I_O, V)
    close(p[3:], m * v_C, atol=1e-9)
    close(p[:3], I_C @ w + np.cross(c, m * v_C), atol=1e-9)       # l_O = I_C w + d x p


@given(bodies())
def test_steiner_is_the_parallel_axis_block(body):
    m, c, I_C = body
    I_O = sb.spatial_inertia(m, c, I_C)
    close(sb.steiner(I_C, m, c), I_O[:3, :3], atol=1e-12)
    close(sb.G_b(m, I_C), sb.spatial_inertia(m, [0, 0, 0], I_C), atol=0)


@given(rotational_inertias())
def test_principal_axes_diagonalise(I):
    moments, R = sb.principal_axes(I)
    close(R.T @ I @ R, np.diag(moments), atol=1e-10)
    close(np.linalg.det(R), 1.0, atol=1e-12)
    assert np.all(np.diff(moments) >= 0)


@given(spatial_inertias())
def test_cinert_round_trip(I):
    close(sb.from_cinert(sb.to_cinert(I)), I, atol=1e-13)


# --- cross products and Newton-Euler ------------------------------------------------------


@given(twists, twists, wrenches)
def test_cross_product_duality(V, U, F):
    close((sb.motion_cross(V) @ U) @ F + U @ (sb.force_cross(V) @ F), 0, atol=1e-11)
    close(sb.force_cross(V), -sb.motion_cross(V).T, atol=0)
    close(sb.motion_cross(V) @ U, -sb.motion_cross(U) @ V, atol=1e-12)     # V x U = -U x V
    close(sb.motion_cross(V) @ V, 0, atol=1e-12)


@given(rotations, displacements, twists, twists)
def test_motion_cross_is_covariant(R, d, V, U):
    # X (V x U) = (X V) x (X U): the cross product does not depend on the point or axes
    X = sb.motion_transform(R, d)
    close(X @ (sb.motion_cross(V) @ U), sb.motion_cross(X @ V) @ (X @ U), atol=1e-10)


@given(bodies(), rotations, displacements, twists, twists)
def test_newton_euler_same_physics_at_any_point(body, R, d, V, A):
    I_O = sb.spatial_inertia(*body)
    X, Xf = sb.motion_transform(R, d), sb.force_transform(R, d)
    I_new = sb.transform_inertia(X, I_O)
    F_O = sb.required_wrench(I_O, V, A)
    close(sb.required_wrench(I_new, X @ V, X @ A), Xf @ F_O, atol=1e-8)
    close(F_O, sb.inertial_wrench(I_O, A) + sb.bias_wrench(I_O, V), atol=1e-12)
    # at the COM it is Euler's and Newton's equations: tau_C = I_C alpha + w x I_C w, f = m a_C
    m, c, I_C = body
    X_C = sb.motion_transform(np.eye(3), c)
    F_C = sb.force_transform(np.eye(3), c) @ F_O
    w, alpha = V[:3], A[:3]
    close(F_C[:3], I_C @ alpha + np.cross(w, I_C @ w), atol=1e-8)
    close(F_C[3:], m * sb.material_acceleration(X_C @ V, X_C @ A), atol=1e-8)
    # power balance: V.F = dT/dt, with the inertia at a world-fixed point changing as
    # dI/dt = (V x*) I - I (V x) while the body moves (so dT/dt = V^T I A + 1/2 V^T Idot V)
    Idot = sb.force_cross(V) @ I_O - I_O @ sb.motion_cross(V)
    close(V @ I_O @ A + 0.5 * V @ Idot @ V, sb.power(V, F_O), atol=1e-8)


# --- screw and central axes ---------------------------------------------------------------


@given(twists.filter(lambda V: np.linalg.norm(V[:3]) > 0.1))
def test_on_axis_velocity_is_pitch_times_omega(V):
    ax = sb.screw_axis(V)
    for s in (0.0, 0.7, -1.3):                       # anywhere along the axis
        close(sb.velocity_field(V, ax.point + s * ax.direction), ax.pitch * V[:3], atol=1e-9)
    close(ax.point @ V[:3], 0, atol=1e-10)            # the offset is perpendicular to omega
    close(np.linalg.norm(ax.direction), 1, atol=1e-12)
    # the pitch does not depend on the reference point
    close(sb.screw_axis(sb.shift_twist(V, [0.3, -0.2, 0.5])).pitch, ax.pitch, atol=1e-9)


@given(wrenches.filter(lambda F: np.linalg.norm(F[3:]) > 0.1))
def test_torque_parallel_to_force_on_the_central_axis(F):
    ax = sb.central_axis(F)
    for s in (0.0, 1.1, -0.4):
        tau = sb.shift_wrench(F, ax.point + s * ax.direction)[:3]
        close(np.cross(tau, F[3:]), 0, atol=1e-9)
        close(tau, ax.pitch * F[3:], atol=1e-9)
    close(ax.point @ F[3:], 0, atol=1e-10)


# --- acceleration -------------------------------------------------------------------------


@given(twists, twists)
def test_spatial_and_material_acceleration_round_trip(V, A):
    classical = np.r_[A[:3], sb.material_acceleration(V, A)]
    close(sb.spatial_acceleration(V, classical), A, atol=1e-12)


@given(twists, twists, vec3)
def test_probe_formulas_are_inverse(V, A, u):
    rate = sb.field_rate_along_path(V, A, u)
    close(sb.probe_acceleration(V[:3], rate, u), A[3:], atol=1e-12)


@given(twists, twists, vec3)
def test_material_acceleration_field_matches_the_spatial_acceleration(V, A, d):
    # a_Q from the classical rule equals (X A)_lin + omega x v_Q at the point Q
    classical = np.r_[A[:3], sb.material_acceleration(V, A)]
    X = sb.motion_transform(np.eye(3), d)
    close(sb.acceleration_field(V, classical, d), sb.material_acceleration(X @ V, X @ A), atol=1e-10)


@given(rotations, vec3, vec3, vec3)
def test_rotating_frame_derivative_formula(R, nu, zdot, z):
    got = sb.rotating_frame_derivative(R, nu, zdot, z)
    close(got, R.T @ zdot - np.cross(R.T @ nu, R.T @ z), atol=1e-12)
    # the same as differentiating z^c = R(t)^T z(t) with Rdot = [nu] R
    h = 1e-6
    def zc(t):
        Rt = _expm_skew(nu * t) @ R
        return Rt.T @ (z + zdot * t)
    close((zc(h) - zc(-h)) / (2 * h), got, atol=1e-6)


def _expm_skew(w):
    """Rodrigues: exp([w]x)."""
    th = np.linalg.norm(w)
    K = sb.skew(w)
    if th < 1e-12:
        return np.eye(3) + K
    return np.eye(3) + np.sin(th) / th * K + (1 - np.cos(th)) / th**2 * K @ K


# --- joints -------------------------------------------------------------------------------


@given(vec3.filter(lambda n: np.linalg.norm(n) > 0.1), vec3, vec3, wrenches, st.floats(-3, 3))
def test_joint_torque_is_the_same_wherever_it_is_expressed(n, x_O, x_P, F_O, qdot):
    S_O = sb.revolute_axis(n, x_O, [0, 0, 0])
    S_P = sb.revolute_axis(n, x_O, x_P)
    F_P = sb.shift_wrench(F_O, x_P)
    close(sb.generalized_force(S_P, F_P), sb.generalized_force(S_O, F_O), atol=1e-9)
    close(S_P, sb.shift_twist(S_O, x_P), atol=1e-12)
    # power through the joint: P = qdot tau
    close(sb.power(S_P * qdot, F_P), qdot * sb.generalized_force(S_P, F_P), atol=1e-9)
    # points on the hinge line are at rest
    close(sb.velocity_field(S_O * qdot, x_O + 0.7 * n), 0, atol=1e-10)


# --- the invariants catch the classic mistakes --------------------------------------------


@given(rotations, displacements.filter(lambda d: np.linalg.norm(d) > 0.3), twists, wrenches)
def test_power_invariance_rejects_wrong_force_transforms(R, d, V, F):
    """Forces moved with X^T (spatialmath's old Ad^T bug), with the motion rule X itself, or with
    a sign-flipped D all break power invariance; only X* = X^-T keeps it."""
    X = sb.motion_transform(R, d)
    P = sb.power(V, F)
    close(sb.power(X @ V, sb.force_transform(R, d) @ F), P, atol=1e-10)
    wrong = {
        "X^T": X.T,
        "X": X,
        "sign of D": sb.force_transform(R, -d),
    }
    # each wrong rule fails for some (V, F): probe with basis vectors.  A wrong rule can coincide
    # with X* for a special X (a half turn with d perpendicular to its axis has X X = E, so
    # X^T = X^-T): there it is not wrong, and it is skipped.
    E6 = np.eye(6)
    X_star = sb.force_transform(R, d)
    for name, W in wrong.items():
        if np.allclose(W, X_star, atol=1e-6):
            continue
        gram = (X @ E6).T @ (W @ E6)          # power of basis pairs after the change
        assert not np.allclose(gram, E6, atol=1e-6), name
