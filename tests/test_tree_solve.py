"""Forward dynamics by CRBA + solve on trees of more than 96 degrees of freedom, where the solve
goes by halves (``_solve_spd``: block elimination, so that no factorization runs on several
BLAS threads).  The answers are checked by identities, not against the old solve: the ABA (an
independent algorithm) gives the same qdd, and the RNEA maps qdd back to the joint forces."""

import numpy as np
import pytest

import spatialbook as sb
from spatialbook._tree_kernels import _ONE_THREAD_SOLVE, _solve_spd


def chain(n, seed, massless_leaf=False):
    """An unbranched chain of n hinges with random placements, axes and inertias."""
    rng = np.random.default_rng(seed)
    placements, axes, inertias = [], [], []
    for k in range(n):
        R = sb.rotation_z(rng.uniform(-np.pi, np.pi)) @ sb.rotation_x(rng.uniform(-np.pi, np.pi))
        placements.append(sb.motion_transform(R, rng.uniform(-0.2, 0.2, 3)))
        axis = rng.normal(size=3)
        axes.append(np.r_[axis / np.linalg.norm(axis), 0.0, 0.0, 0.0])
        mass = 0.0 if (massless_leaf and k == n - 1) else rng.uniform(0.5, 2.0)
        inertias.append(sb.spatial_inertia(mass, rng.uniform(-0.1, 0.1, 3), np.diag(rng.uniform(0.015, 0.025, 3)) * (mass > 0)))
    return sb.Tree(list(range(-1, n - 1)), placements, axes, inertias)


@pytest.mark.parametrize("n, states", [(_ONE_THREAD_SOLVE + 1, 1), (130, 3), (130, 20), (205, 2)])
def test_crba_solve_by_halves_satisfies_the_equations_of_motion(n, states):
    tree = chain(n, seed=n + states)
    rng = np.random.default_rng(states)
    q, qd, tau = rng.normal(size=(3, states, n))
    g = np.array([0.0, 0.0, -9.81])
    qdd = sb.forward_dynamics(tree, q, qd, tau, g, method="crba")
    scale = np.abs(tau).max() + np.abs(sb.inverse_dynamics(tree, q, qd, np.zeros_like(qd), g)).max()
    assert np.allclose(sb.inverse_dynamics(tree, q, qd, qdd, g), tau, rtol=0, atol=1e-9 * scale)
    aba = sb.forward_dynamics(tree, q, qd, tau, g, method="aba")
    assert np.allclose(qdd, aba, rtol=1e-7, atol=1e-7 * np.abs(aba).max())


@pytest.mark.parametrize("n", [_ONE_THREAD_SOLVE, _ONE_THREAD_SOLVE + 1, 150, 300])
def test_solve_by_halves_solves(n):
    rng = np.random.default_rng(n)
    M = rng.normal(size=(2, n, n))
    H = M @ np.swapaxes(M, -1, -2) + 0.5 * np.eye(n)     # symmetric positive definite
    r = rng.normal(size=(2, n, 3))
    x = _solve_spd(H, r)
    assert x.shape == r.shape
    assert np.abs(H @ x - r).max() < 1e-9 * np.abs(H).max() * np.abs(x).max()


def test_singular_mass_matrix_still_raises_naming_the_joint():
    tree = chain(_ONE_THREAD_SOLVE + 5, seed=1, massless_leaf=True)
    n = tree.nv
    with pytest.raises(ValueError, match="tree: expected bodies with mass along every joint"):
        sb.forward_dynamics(tree, np.zeros((2, n)), np.zeros((2, n)), np.ones((2, n)), method="crba")


def _mass_on_its_own_hinge():
    """The only mass sits on the (skew) hinge axis: H = 0 exactly, rounding leaves -9e-18."""
    n = np.array([1.0, 2, 3]) / np.linalg.norm([1.0, 2, 3])
    return sb.Tree([-1], [np.eye(6)], [np.r_[n, 0, 0, 0]], [sb.point_mass_inertia(1.0, 0.7 * n)])


def _mass_on_the_first_hinge_axis():
    """A massless body on a z hinge, then an x hinge carrying a point on the z axis: the z
    hinge moves nothing (H_00 = 0 up to rounding, in some states a tiny positive)."""
    I6 = np.eye(6)
    return sb.Tree([-1, 0], [I6, I6], [[0, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]],
                   [np.zeros((6, 6)), sb.point_mass_inertia(1.0, [0, 0, 1])])


@pytest.mark.parametrize("method", ["auto", "crba", "aba"])
@pytest.mark.parametrize("states", [None, 1, 40, 2000])
@pytest.mark.parametrize("make", [_mass_on_its_own_hinge, _mass_on_the_first_hinge_axis])
def test_near_singular_mass_matrix_is_refused_whatever_the_rounding(make, states, method):
    """Exactly singular trees whose H rounds to a tiny nonzero: forward dynamics refuses in
    every method and batch size, naming joint0 (it used to return qdd of 1e17 or 1e32)."""
    tree = make()
    shape = (tree.nv,) if states is None else (states, tree.nv)
    with pytest.raises(ValueError, match=r"singular.*\(joint 'joint0' moves no inertia\)"):
        sb.forward_dynamics(tree, np.zeros(shape), np.zeros(shape), np.ones(shape), method=method)


@pytest.mark.parametrize("method", ["crba", "aba"])
def test_small_but_regular_inertias_are_solved(method):
    """The tolerance is relative to the tree's own scale: a 1 mg, 1 mm pendulum is solved
    (the same answer as at 1 kg, 1 m scaled), not refused."""
    for m, L in ((1.0, 1.0), (1e-6, 1e-3)):
        tree = sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [sb.point_mass_inertia(m, [L, 0, 0])])
        qdd = sb.forward_dynamics(tree, [0.0], [0.0], [m * L * L], np.zeros(3), method=method)
        np.testing.assert_allclose(qdd, [1.0])


def branched_tree(n, seed, free_root=True, slides=True):
    """A random tree of n bodies (a free root or a hinge, then hinges, and slides if asked, on
    random parents)."""
    rng = np.random.default_rng(seed)
    parents = [-1] + [int(rng.integers(0, k)) for k in range(1, n)]
    kinds = ["free" if free_root else "revolute"] + [
        str(rng.choice(["revolute", "prismatic"] if slides else ["revolute"])) for _ in range(n - 1)]
    placements, axes, inertias = [], [], []
    for kind in kinds:
        R = sb.rotation_z(rng.uniform(-np.pi, np.pi)) @ sb.rotation_x(rng.uniform(-np.pi, np.pi))
        placements.append(sb.motion_transform(R, rng.uniform(-0.5, 0.5, 3)))
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        axes.append(np.zeros(6) if kind == "free" else
                    np.r_[axis, 0.0, 0.0, 0.0] if kind == "revolute" else np.r_[0.0, 0.0, 0.0, axis])
        inertias.append(sb.spatial_inertia(rng.uniform(0.5, 2.0), rng.uniform(-0.3, 0.3, 3),
                                           np.diag(rng.uniform(0.02, 0.03, 3))))
    return sb.Tree(parents, placements, axes, inertias, kinds=kinds)


def _dof_scales_by_paths(tree):
    """``_dof_scales`` as its docstring defines it: for each joint, walk every body's path to
    the base and sum the bodies whose path passes the joint (O(n^3) for a chain)."""
    I = tree.inertias
    mass, spin = I[:, 3, 3], np.trace(I[:, :3, :3], axis1=1, axis2=2)
    arm = np.linalg.norm(I[:, :3, 3:], axis=(1, 2)) / np.sqrt(2) / mass
    offset = np.linalg.norm(tree.placements[:, 3:, :3], axis=(1, 2)) / np.sqrt(2)
    scales = []
    for i, kind in enumerate(tree.kinds):
        turn = slide = 0.0
        for k in range(len(tree.parents)):
            R, j = 0.0, k
            while j > i:
                R, j = R + offset[j], int(tree.parents[j])
            if j == i:
                turn += spin[k] + mass[k] * (R + arm[k]) ** 2
                slide += mass[k]
        scales += ([turn] * 3 + [slide] * 3 if kind == "free" else [slide if kind == "prismatic" else turn])
    return np.array(scales)


@pytest.mark.parametrize("seed, free_root", [(1, True), (2, False), (3, True)])
def test_singularity_scale_is_the_path_sum_and_bounds_the_mass_matrix(seed, free_root):
    """The scale that forward dynamics measures its pivots against, summed in one pass each way
    down and up the tree, equals the definition walked path by path (slides included); on a
    tree of hinges, where no q carries a body further than its placements, it bounds every
    diagonal entry of H(q) from above (the inertia a joint can move), and the bound is reached
    by a free joint's slides (the subtree's mass)."""
    from spatialbook.aba import _dof_scales
    tree = branched_tree(30, seed, free_root)
    assert np.allclose(_dof_scales(tree), _dof_scales_by_paths(tree), rtol=1e-12, atol=0)
    hinges = branched_tree(30, seed, free_root, slides=False)
    scales = _dof_scales(hinges)
    assert np.allclose(scales, _dof_scales_by_paths(hinges), rtol=1e-12, atol=0)
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(50, hinges.nq))
    if free_root:
        q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
    diagonal = np.diagonal(sb.mass_matrix(hinges, q), axis1=-2, axis2=-1)
    assert (diagonal <= scales * (1 + 1e-12)).all()
    if free_root:
        assert np.allclose(diagonal[:, 3:6], hinges.inertias[:, 3, 3].sum(), rtol=1e-12)


def test_singularity_scale_of_a_long_chain_takes_linear_time():
    """2000 bodies: the path-by-path definition would walk about 1.3e9 steps; the sums take one
    pass each way (this test would run for minutes if they did not)."""
    from spatialbook.aba import _dof_scales
    tree = chain(2000, seed=5)
    scales = _dof_scales(tree)
    assert scales.shape == (2000,) and np.all(np.diff(scales) < 0)   # each joint moves what the next one does, and more
