"""The same physics in other notations: the ``modern_robotics`` package (Lynch & Park) and
Pinocchio's linear-first order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

import spatialbook as sb

import modern_robotics as mr  # noqa: E402  (a test dependency: fail, do not skip, without it)

_c = st.floats(-2.0, 2.0, allow_nan=False)
vec3 = st.lists(_c, min_size=3, max_size=3).map(np.array)
vec6 = st.lists(_c, min_size=6, max_size=6).map(np.array)


_rotation = sb.rotation_from_quaternion


rotations = (st.lists(st.floats(-1, 1), min_size=4, max_size=4).map(np.array)
             .filter(lambda q: np.linalg.norm(q) > 0.1).map(_rotation))


@st.composite
def inertias_b(draw):
    a, b, t = draw(st.floats(0.01, 2)), draw(st.floats(0.01, 2)), draw(st.floats(0, 1))
    c = abs(a - b) + t * (a + b - abs(a - b))
    R = draw(rotations)
    return R @ np.diag([a, b, c]) @ R.T


masses = st.floats(0.1, 5.0)


def close(a, b, atol=1e-9):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=0, atol=atol)


# --- Modern Robotics ----------------------------------------------------------------------


@given(rotations, vec3)
def test_adjoint_equals_mr_and_is_our_inverse_motion_transform(R, p):
    T = mr.RpToTrans(R, p)
    close(sb.homogeneous(R, p), T, atol=0)
    close(sb.Ad(T), mr.Adjoint(T), atol=1e-12)
    # [Ad_T] of the pose of {b} in {a} maps V_b -> V_a: it undoes our X from {a} to {b}
    close(sb.Ad(T), sb.inverse_transform(sb.motion_transform(R, p)), atol=1e-12)
    close(sb.Ad(mr.TransInv(T)), sb.motion_transform(R, p), atol=1e-12)
    # wrenches: F_a = Ad_{T_ba}^T F_b = our force transform's inverse
    close(mr.Adjoint(mr.TransInv(T)).T, np.linalg.inv(sb.force_transform(R, p)), atol=1e-10)


@given(vec6)
def test_little_ad_equals_mr_and_motion_cross(V):
    close(sb.ad(V), mr.ad(V), atol=0)
    close(mr.ad(V), sb.motion_cross(V), atol=0)
    close(-mr.ad(V).T, sb.force_cross(V), atol=0)


@given(masses, inertias_b(), vec6, vec6)
def test_mr_body_dynamics_eq_8_40(m, I_b, V_b, Vdot_b):
    # F_b = G_b Vdot_b - [ad_Vb]^T G_b V_b, in the body frame at the COM
    G = np.zeros((6, 6))
    G[:3, :3], G[3:, 3:] = I_b, m * np.eye(3)
    close(sb.G_b(m, I_b), G, atol=0)
    F_mr = G @ Vdot_b - mr.ad(V_b).T @ G @ V_b
    close(sb.required_wrench(sb.G_b(m, I_b), V_b, Vdot_b), F_mr, atol=1e-9)
    # Newton and Euler (8.22, 8.23) read off the two halves
    w, v = V_b[:3], V_b[3:]
    close(F_mr[3:], m * (Vdot_b[3:] + np.cross(w, v)), atol=1e-9)
    close(F_mr[:3], I_b @ Vdot_b[:3] + np.cross(w, I_b @ w), atol=1e-9)
    # kinetic energy (8.33) and momentum (8.34)
    close(sb.kinetic_energy(G, V_b), 0.5 * V_b @ G @ V_b, atol=1e-12)


@given(masses, inertias_b(), rotations, vec3, vec6, vec6)
def test_mr_other_frame_eq_8_42_and_8_43(m, I_b, R_ab, p_ab, V_b, Vdot_b):
    # {b} at the COM, {a} any frame; T_ab = pose of {b} in {a}
    T_ab = mr.RpToTrans(R_ab, p_ab)
    Ad_ba = mr.Adjoint(mr.TransInv(T_ab))            # V_a -> V_b
    G_b = sb.G_b(m, I_b)
    G_a = Ad_ba.T @ G_b @ Ad_ba                       # (8.42)
    # ours: move the inertia from {b} to {a} with the motion transform {b} -> {a}
    close(sb.transform_inertia(mr.Adjoint(T_ab), G_b), G_a, atol=1e-9)
    close(sb.spatial_inertia(m, p_ab, R_ab @ I_b @ R_ab.T), G_a, atol=1e-9)
    # (8.43) in {a} is the same physics as (8.40) in {b}
    Ad_ab = mr.Adjoint(T_ab)
    V_a, Vdot_a = Ad_ab @ V_b, Ad_ab @ Vdot_b
    F_a = G_a @ Vdot_a - mr.ad(V_a).T @ G_a @ V_a
    F_b = G_b @ Vdot_b - mr.ad(V_b).T @ G_b @ V_b
    close(F_a, Ad_ba.T @ F_b, atol=1e-8)
    close(sb.required_wrench(G_a, V_a, Vdot_a), F_a, atol=1e-8)


@given(masses, inertias_b(), vec3)
def test_steiner_eq_8_27_and_rotation_eq_8_26(m, I_b, q):
    close(sb.steiner(I_b, m, q), I_b + m * (q @ q * np.eye(3) - np.outer(q, q)), atol=1e-12)
    moments, R_bc = sb.principal_axes(I_b)
    close(R_bc.T @ I_b @ R_bc, np.diag(moments), atol=1e-10)           # (8.26)


def test_door_in_mr_notation():
    # the door about its COM in its body frame, spinning and accelerating about z
    G = sb.G_b(sb.DOOR["mass"], sb.DOOR["inertia_com"])
    V_b, Vdot_b = np.array([0, 0, 2, 0, 0.8, 0]), np.array([0, 0, 3, 0, 1.2, 0])
    F_b = G @ Vdot_b - mr.ad(V_b).T @ G @ V_b
    close(F_b, [0, 0, 0.32, -3.2, 2.4, 0], atol=1e-12)
    T_ob = mr.RpToTrans(np.eye(3), sb.DOOR["com"])     # body frame seen from the hinge
    F_o = mr.Adjoint(mr.TransInv(T_ob)).T @ F_b
    close(F_o, [0, 0, 1.28, -3.2, 2.4, 0], atol=1e-12)


# --- Pinocchio's order (linear first) -----------------------------------------------------


@given(vec6)
def test_linear_first_round_trips(v):
    close(sb.from_linear_first(sb.to_linear_first(v)), v, atol=0)
    close(sb.to_linear_first(sb.from_linear_first(v)), v, atol=0)
    close(sb.to_linear_first(v), np.r_[v[3:], v[:3]], atol=0)


@given(rotations, vec3, vec6, vec6, masses, inertias_b())
def test_permuting_matrices_commutes_with_permuting_vectors(R, d, V, F, m, I_C):
    L, P = sb.to_linear_first, sb.matrix_to_linear_first
    X, Xf = sb.motion_transform(R, d), sb.force_transform(R, d)
    I = sb.spatial_inertia(m, d, I_C)
    for M, u in ((X, V), (Xf, F), (sb.motion_cross(V), F), (sb.force_cross(V), F), (I, V)):
        close(P(M) @ L(u), L(M @ u), atol=1e-12)
        close(P(P(M)), M, atol=0)
    # power, energy and transform products survive the change of order
    close(L(V) @ L(F), V @ F, atol=1e-12)
    close(0.5 * L(V) @ P(I) @ L(V), sb.kinetic_energy(I, V), atol=1e-10)
    close(P(X) @ P(Xf).T, np.eye(6), atol=1e-12)
    # Pinocchio's motion action in linear-first blocks: [[R^T, -R^T D], [0, R^T]]
    close(P(X)[:3, 3:], X[3:, :3], atol=0)
    close(P(X)[3:, :3], 0, atol=0)


def test_principal_axes_do_not_depend_on_the_eigen_solvers_signs(monkeypatch):
    """An eigen-solver may return any sign per eigenvector (Pyodide's BLAS and numpy's differ);
    principal_axes fixes them, so the axes are the same whatever the solver returns."""
    rng = np.random.default_rng(11)
    quats = rng.normal(size=(50, 4))
    R0 = sb.rotation_from_quaternion(quats / np.linalg.norm(quats, axis=-1, keepdims=True))
    I = R0 @ (np.sort(rng.uniform(1.0, 1.9, (50, 3)))[..., None] * np.eye(3)) @ np.swapaxes(R0, -1, -2)
    moments, R = sb.principal_axes(I)
    assert np.allclose(R @ (moments[..., None] * np.eye(3)) @ np.swapaxes(R, -1, -2), I, atol=1e-12)
    assert np.allclose(np.linalg.det(R), 1.0)
    lead = R[np.arange(50)[:, None], np.argmax(np.abs(R[..., :2]) > 1e-9, axis=-2), [0, 1]]
    assert np.all(lead > 0)
    eigh = np.linalg.eigh
    signs = rng.choice([-1.0, 1.0], size=(50, 1, 3))
    monkeypatch.setattr(np.linalg, "eigh", lambda a: (eigh(a)[0], eigh(a)[1] * signs))
    assert np.array_equal(sb.principal_axes(I)[1], R)
