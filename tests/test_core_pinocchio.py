"""The linear-first bridge checked against the real Pinocchio library (PyPI ``pin``).

Pinocchio orders 6-vectors [linear; angular].  ``pin.SE3(R, p)`` is the placement aMb of a
frame b in a (R: b -> a, p: origin of b in a); ``aMb.action`` maps motion in b to motion in
a, which is Modern Robotics' Ad(T_ab) and our ``inverse_transform(motion_transform(R, p))``.
"""

import numpy as np
import pytest

import spatialbook as sb

pin = pytest.importorskip("pinocchio")

RNG = np.random.default_rng(7)
CASES = 25


def _rotation(rng):
    q = rng.normal(size=4)
    return pin.Quaternion(*(q / np.linalg.norm(q))).toRotationMatrix()


@pytest.fixture(params=range(CASES))
def case(request):
    rng = np.random.default_rng(request.param)
    R, p = _rotation(rng), rng.normal(size=3)
    return R, p, rng


def test_placement_action_is_our_inverse_motion_transform(case):
    R, p, _ = case
    ours = sb.inverse_transform(sb.motion_transform(R, p))
    np.testing.assert_allclose(sb.matrix_to_linear_first(ours), pin.SE3(R, p).action, atol=1e-12)


def test_placement_dual_action_is_our_inverse_force_transform(case):
    R, p, _ = case
    ours = sb.inverse_transform(sb.force_transform(R, p))
    np.testing.assert_allclose(sb.matrix_to_linear_first(ours), pin.SE3(R, p).dualAction, atol=1e-12)


def test_action_inverse_is_our_motion_transform(case):
    R, p, _ = case
    np.testing.assert_allclose(sb.matrix_to_linear_first(sb.motion_transform(R, p)),
                               pin.SE3(R, p).actionInverse, atol=1e-12)


def test_acting_on_a_twist_agrees_vector_by_vector(case):
    R, p, rng = case
    V_b = rng.normal(size=6)
    M = pin.SE3(R, p)
    V_a_pin = M.act(pin.Motion(sb.to_linear_first(V_b))).vector
    V_a_ours = sb.transform_vectors(sb.Ad(sb.homogeneous(R, p)), V_b)
    np.testing.assert_allclose(sb.from_linear_first(V_a_pin), V_a_ours, atol=1e-12)


def test_spatial_inertia_matches_pin_inertia(case):
    _, c, rng = case
    moments = np.sort(rng.uniform(0.1, 1.0, size=3))
    moments[2] = min(moments[2], moments[0] + moments[1])
    Q = _rotation(rng)
    I_C = Q @ np.diag(moments) @ Q.T
    m = float(rng.uniform(0.5, 5.0))
    ours = sb.spatial_inertia(m, c, I_C)
    np.testing.assert_allclose(sb.matrix_to_linear_first(ours), pin.Inertia(m, c, I_C).matrix(), atol=1e-12)


def test_cross_products_match_pin_motion_action(case):
    _, _, rng = case
    V = rng.normal(size=6)
    motion = pin.Motion(sb.to_linear_first(V))
    np.testing.assert_allclose(sb.matrix_to_linear_first(sb.motion_cross(V)), motion.action, atol=1e-12)
    np.testing.assert_allclose(sb.matrix_to_linear_first(sb.force_cross(V)), motion.dualAction, atol=1e-12)


def test_newton_euler_matches_pinocchio_algebra(case):
    _, c, rng = case
    m = 2.0
    I = sb.spatial_inertia(m, c, sb.DOOR["inertia_com"])
    V, A = rng.normal(size=6), rng.normal(size=6)
    inertia = pin.Inertia(m, c, sb.DOOR["inertia_com"])
    v, a = pin.Motion(sb.to_linear_first(V)), pin.Motion(sb.to_linear_first(A))
    F_pin = (inertia * a).vector + v.cross(inertia * v).vector
    np.testing.assert_allclose(sb.from_linear_first(F_pin), sb.required_wrench(I, V, A), atol=1e-12)


def test_the_door_in_pinocchio_gives_the_book_wrench():
    inertia = pin.Inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    v = pin.Motion(np.zeros(3), np.array([0, 0, 2.0]))
    a = pin.Motion(np.zeros(3), np.array([0, 0, 3.0]))
    F = sb.from_linear_first((inertia * a).vector + v.cross(inertia * v).vector)
    np.testing.assert_allclose(F, [0, 0, 1.28, -3.2, 2.4, 0], atol=1e-12)
