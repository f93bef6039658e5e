"""A robot far from the world origin: the same joint-space numbers as at the origin.

H, tau, qdd and the centroidal momentum matrix A_G do not depend on where the robot stands;
a free joint's position of 5e6 m (a UTM coordinate) or a root placed 1e7 m away must not cost
their digits.  Computed about the world origin, the few-state algorithms (base coordinates)
lost them: H of the free door 1.5e-3 off at 5e6 m, a negative diagonal entry of H for 10 g links
at 1e7 m."""

import numpy as np
import pytest

import spatialbook as sb
from widgets.robots import robot_file

FAR = (5e6, -3e6, 2e3)


def _biped():
    return sb.Tree.from_urdf(robot_file("biped.urdf"), floating_base=True)


def _state(tree, seed):
    rng = np.random.default_rng(seed)
    q = np.zeros(tree.nq)
    q[3:7] = rng.normal(size=4)
    q[3:7] /= np.linalg.norm(q[3:7])
    q[7:] = rng.uniform(-0.5, 0.5, tree.nq - 7)
    return q, rng.normal(size=tree.nv), rng.normal(size=tree.nv)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_floating_robot_far_away_has_the_numbers_it_has_at_the_origin(seed):
    tree = _biped()
    q, qd, qdd = _state(tree, seed)
    far = q.copy()
    far[:3] += FAR                                     # the free joint's position, world axes
    H, H_far = sb.mass_matrix(tree, q), sb.mass_matrix(tree, far)
    scale = np.abs(H).max()
    # a position of 5e6 m is known to about 1e-9 m (its last bit), so the bodies' relative
    # positions are, and H to about 1e-9 of its size; about the world origin it was 1e-4 off
    np.testing.assert_allclose(H_far, H, rtol=0, atol=1e-8 * scale)
    tau = sb.inverse_dynamics(tree, q, qd, qdd)
    np.testing.assert_allclose(sb.inverse_dynamics(tree, far, qd, qdd), tau, rtol=0,
                               atol=1e-8 * np.abs(tau).max())
    for method in ("auto", "crba", "aba"):           # (H's condition number: ~1e3)
        np.testing.assert_allclose(sb.forward_dynamics(tree, far, qd, tau, method=method), qdd,
                                   rtol=0, atol=1e-5 * np.abs(qdd).max(), err_msg=method)
    A = sb.centroidal_momentum_matrix(tree, q)
    np.testing.assert_allclose(sb.centroidal_momentum_matrix(tree, far), A, rtol=0,
                               atol=1e-8 * np.abs(A).max())
    np.testing.assert_allclose(sb.center_of_mass(tree, far) - FAR, sb.center_of_mass(tree, q),
                               rtol=0, atol=1e-8)


def test_light_links_on_a_root_placed_far_away():
    """Three 10 g hinged links whose root placement is 1e7 m from the origin."""
    rng = np.random.default_rng(3)
    inertias = [sb.spatial_inertia(0.01, [0.05, 0, 0], np.diag([1e-6, 2e-5, 2e-5]))] * 3
    axes = [[0, 0, 1.0, 0, 0, 0], [0, 1.0, 0, 0, 0, 0], [0, 0, 1.0, 0, 0, 0]]
    steps = [sb.motion_transform(np.eye(3), [0.1, 0, 0])] * 2

    def tree(at):
        return sb.Tree([-1, 0, 1], [sb.motion_transform(np.eye(3), at)] + steps, axes, inertias)

    near, far = tree([0.0, 0.0, 0.0]), tree([1e7, 0.0, 0.0])
    q, qd, tau = rng.normal(size=(3, 3))
    H = sb.mass_matrix(near, q)
    # positions at 1e7 m carry 2e-9 m of rounding: 2e-8 of a 0.1 m link
    np.testing.assert_allclose(sb.mass_matrix(far, q), H, rtol=0, atol=1e-6 * np.abs(H).max())
    assert np.all(np.linalg.eigvalsh(sb.mass_matrix(far, q)) > 0)
    qdd = sb.forward_dynamics(near, q, qd, tau)
    np.testing.assert_allclose(sb.forward_dynamics(far, q, qd, tau), qdd, rtol=1e-6)
