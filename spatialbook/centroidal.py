"""The whole robot as one body: its centre of mass and its centroidal momentum (book chapter 12).

The spatial momentum of a tree is the sum of its bodies' momenta, h = sum_i I_i V_i (each
referred to one point, in one set of axes).  In world coordinates a joint j moves everything
beyond it rigidly with the twist ^0X_j S_j qd_j, so the momentum is a sum over joints of the
composite inertia of the subtree beyond j (chapter 11's I^c_j, here in world coordinates) times
that twist:  h_0 = sum_j I^c_j,0 (^0X_j S_j) qd_j.  Referred to the centre of mass G (world axes)
it is the centroidal momentum h_G = [l_G; M v_G] = A_G(q) qd, A_G the centroidal momentum matrix.
With no external force h_G is constant; gravity changes only its linear part, by M g per second.
"""

from __future__ import annotations

import numpy as np

from ._kernels import _skew, _vee
from .kinematics import _dof_slices, _poses
from .transforms import _motion_blocks
from ._tree_checks import _joint_state, _joint_values
from ._checks import _finite_result
from .tree import Tree, _check_tree


def _world_inertias(tree: Tree, R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """I_i in world coordinates (about the world origin, world axes): ^iX_0^T I_i ^iX_0."""
    X = _motion_blocks(R, p)
    return np.swapaxes(X, -1, -2) @ tree.inertias @ X


def _mass_and_com(tree: Tree, I_total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    M = I_total[..., 5, 5]
    if np.any(M <= 0.0):
        raise ValueError("tree: expected bodies with mass (the total mass is 0, so there is no centre of mass)")
    return M, _vee(I_total[..., :3, 3:]) / M[..., None]          # upper-right block M [c]x


def center_of_mass(tree, q) -> np.ndarray:
    """The centre of mass of the whole tree, in world coordinates (m).

    c = sum_i m_i c_i / sum_i m_i, read off the sum of the bodies' spatial inertias in world
    coordinates, whose upper-right block is M [c]x (chapter 6).

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    The bifold door: two 2-kg leaves, each with its centre of mass 0.4 m out from its hinge.
    Straight, the centre of mass is at x = 0.8 m; folded back flat, at x = 0.4 m.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> X_T2 = sb.motion_transform(np.eye(3), [0.8, 0, 0])
    >>> bifold = sb.Tree([-1, 0], [np.eye(6), X_T2], [[0, 0, 1, 0, 0, 0]] * 2, [I_O, I_O])
    >>> sb.center_of_mass(bifold, [[0.0, 0.0], [0.0, np.pi]]).round(12) + 0.0
    array([[0.8, 0. , 0. ],
           [0.4, 0. , 0. ]])
    """
    tree = _check_tree(tree)
    q = _joint_values("q", q, tree.nq, tree)
    R, p = _poses(tree, q)
    return _mass_and_com(tree, _world_inertias(tree, R, p).sum(axis=-3))[1]


def _centroidal_matrix(tree: Tree, q: np.ndarray) -> np.ndarray:
    R, p = _poses(tree, q)
    # about the mean of the bodies' origins, not the world origin: A_G (about G) does not depend
    # on the point, and n_G = n_O - c x f about a far origin cancels the digits of A_G
    p = p - p.mean(axis=-2, keepdims=True)
    I0 = _world_inertias(tree, R, p)
    Ic = I0.copy()                                                # composite inertias, world frame
    for i in range(len(tree.parents) - 1, -1, -1):
        if tree.parents[i] >= 0:
            Ic[..., tree.parents[i], :, :] += Ic[..., i, :, :]
    M, c = _mass_and_com(tree, I0.sum(axis=-3))
    _, v_at = _dof_slices(tree)
    A0 = np.zeros(q.shape[:-1] + (6, tree.nv))                    # momentum about the world origin
    for j, kind in enumerate(tree.kinds):
        Rt = np.swapaxes(R[..., j, :, :], -1, -2)
        X_0j = _motion_blocks(Rt, -(Rt @ p[..., j, :, None])[..., 0])
        S = np.eye(6) if kind == "free" else tree.axes[j][:, None]
        A0[..., :, v_at[j]] = Ic[..., j, :, :] @ (X_0j @ S)
    A_G = A0.copy()                                               # n_G = n_O - c x f
    A_G[..., :3, :] -= _skew(c) @ A0[..., 3:, :]
    return A_G


def centroidal_momentum_matrix(tree, q) -> np.ndarray:
    """A_G(q), the centroidal momentum matrix: h_G = A_G qd (Orin and Goswami's map).

    h_G = [l_G; M v_G] is the tree's spatial momentum about its centre of mass G, in world axes,
    angular first: l_G its angular momentum about G, M v_G its linear momentum.  Column block j
    is the composite inertia of the subtree beyond joint j (world coordinates) times joint j's
    motion subspace in world coordinates, ^0X_j S_j, moved from the world origin to G
    (n_G = n_O - c x f).  Pinocchio's ``ccrba`` gives the same matrix with its rows linear first
    (and a free joint's columns in its own order).

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., 6, nv)
        Units: kg m^2 (angular rows of revolute columns), kg m, kg.

    Examples
    --------
    The door of chapter 8 about its hinge: turning at omega the door has l_G = I_C,z omega about
    its centre of mass and linear momentum m v_C = m omega x_C along y.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [I_O])
    >>> (sb.centroidal_momentum_matrix(door, [0.0]) @ [2.0]).round(6) + 0.0
    array([0.      , 0.      , 0.213333, 0.      , 1.6     , 0.      ])
    """
    tree = _check_tree(tree)
    q = _joint_values("q", q, tree.nq, tree)
    return _finite_result(_centroidal_matrix(tree, q), "tree, q")


def centroidal_momentum(tree, q, qd) -> np.ndarray:
    """h_G = A_G(q) qd: the tree's angular momentum about its centre of mass and its linear
    momentum, world axes, angular first, [l_G; M v_G] (kg m^2/s, kg m/s).

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., nq)
    qd : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (..., 6)

    Examples
    --------
    A free door, spun about its own centre of mass's vertical axis at 2 rad/s and drifting at
    0.5 m/s along x: l_G = I_C,z omega, and M v_G = 1 kg m/s.

    >>> import numpy as np, spatialbook as sb
    >>> I_C = sb.spatial_inertia(sb.DOOR["mass"], [0, 0, 0], sb.DOOR["inertia_com"])
    >>> free = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I_C], kinds=["free"])
    >>> q = [0, 0, 0, 1, 0, 0, 0]
    >>> sb.centroidal_momentum(free, q, [0, 0, 2.0, 0.5, 0, 0]).round(6) + 0.0
    array([0.      , 0.      , 0.213333, 1.      , 0.      , 0.      ])
    """
    tree = _check_tree(tree)
    q, qd = _joint_state(tree, q, qd)
    return _finite_result((_centroidal_matrix(tree, q) @ qd[..., None])[..., 0], "tree, q, qd")
