"""The mass matrix of a kinematic tree: the composite-rigid-body algorithm (book chapter 11).

Composite inertias I^c_p += X_i^T I^c_i X_i (the congruence of chapter 6), leaves first; then
H_ii = S_i^T I^c_i S_i and, along the path to the root, H_ji = H_ij = S_j^T (X^T ... I^c_i S_i).
A free joint's 6x6 block is the composite inertia of everything beyond it.  For many states of a
deep tree the same H is found in base coordinates instead (``_tree_base.py``: composite
inertias summed without a change of frame, H_ij = S_i^T I^c_j S_j with nothing carried).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._tree_aligned import _Aligned, _aligned
from ._tree_base import _base_block, _base_ready, _crba_base
from ._tree_blocks import _Arena, _crba_block, _in_blocks
from ._tree_kernels import _cos_sin, _inertia_matrices, _inertia_times_axis, _matmul, _shift_inertia, _turn_back, _turn_inertia
from ._tree_world import _WORLD_STATES, _crba_world
from ._tree_checks import _joint_values, _rows
from ._checks import MAX_ENTRIES, _finite_result, _too_many
from .tree import _check_tree


def _crba(tree: _Aligned, q, arena: _Arena, out: np.ndarray | None = None) -> np.ndarray:
    """H (nv, nv, b) from q (nq, b), in aligned body coordinates, written into ``out`` if given
    (an (nv, nv, b) block of zeros: the result's block, states last, so that H is never copied
    and each entry's states are one contiguous row)."""
    parents, row, subtree, slot, free, iv, iq = tree.parents, tree.row, tree.subtree, tree.slot, tree.free, tree.iv, tree.iq
    n, b = len(parents), q.shape[1]
    C, S = arena("C", n, 3, b), arena("S", n, 3, b)      # [cos 2q, cos q, cos q], [sin 2q, sin q, sin q]
    turned = [i for i in range(n) if not (free[i] or tree.prismatic[i])]
    c1, s1 = arena("c1", len(turned), b), arena("s1", len(turned), b)
    _cos_sin(q[[iq[i] for i in turned]], c1, s1)
    C[:, 1], S[:, 1] = 0.0, 0.0
    C[turned, 1], S[turned, 1] = c1, s1
    C[:, 2], S[:, 2] = C[:, 1], S[:, 1]
    np.multiply(S[:, 1], C[:, 1], out=S[:, 0])
    S[:, 0] *= 2.0                                       # sin 2q = 2 s c
    np.multiply(C[:, 1], C[:, 1], out=C[:, 0])
    C[:, 0] *= 2.0
    C[:, 0] -= 1.0                                       # cos 2q = 2 c^2 - 1
    Ic = arena("Ic", n, 10, b)
    Ic[...] = tree.I_params                              # I^c_i = I_i + (children, added below)
    back, t = arena("Ic_back", 10, b), arena("turn", 2, 3, b)
    if out is None:
        H = arena("H", tree.nv, tree.nv, b)
        H[...] = 0.0
    else:
        H = out                                          # zeros already (np.zeros: no pass over it here)
    # F[i] (6, k, b): the wrenches I^c_j S_j of the k bodies j in i's subtree (itself first), in
    # i's coordinates, component first: a turn is then on whole rows, and X_T^T one product
    F = [arena(f"F{i}", 6, len(subtree[i]), b) for i in range(n)]
    for i in reversed(range(n)):                         # leaves first
        v, Fi, r, k = iv[i], F[i], row[i], len(subtree[i])
        cols = tree.below[i]                             # the one-dof joints below i
        if free[i]:                                      # S = E: H_ii = I^c_i, H_ij = I^c_j S_j carried to i
            H[v:v + 6, v:v + 6] = _inertia_matrices(Ic[i], arena("Ic6", 6, 6, b))
            if k > 1:
                H[v:v + 6, cols] = Fi[:, 1:]
                H[cols, v:v + 6] = np.swapaxes(Fi[:, 1:], 0, 1)
            continue                                     # a free body sits on the base
        _inertia_times_axis(Ic[i], r, Fi[:, 0])
        H[v, v] = Fi[r, 0]
        if k > 1:
            H[v, cols] = Fi[r, 1:]                       # H_ij = S_i^T (X^T ... I^c_j S_j)
            H[cols, v] = Fi[r, 1:]
        p = parents[i]
        if p < 0:
            continue
        if tree.prismatic[i]:                            # I^c_p += X_T^T (X_J^T I^c_i X_J) X_T
            _shift_inertia(Ic[i], q[iq[i]], t[0, :2])
        else:
            _turn_inertia(Ic[i], C[i], S[i], t)
        Ic[p] += _matmul(tree.congruence[i], Ic[i], back)
        if tree.prismatic[i]:                            # F <- X_J^T F: tau += (z q) x f
            qi, w = q[iq[i]], arena("carry", k, b)
            Fi[0] -= np.multiply(qi, Fi[4], out=w)
            Fi[1] += np.multiply(qi, Fi[3], out=w)
        else:                                            # turn by q about z: R on both halves
            _turn_back(Fi[0::3], Fi[1::3], C[i, 1], S[i, 1], arena("carry_y", 2, k, b), arena("carry_x", 2, k, b))
        K = len(subtree[p])                              # then X_T^T F into the parent's, one product
        _matmul(tree.Tt[i], Fi.reshape(6, k * b), F[p].reshape(6, K * b)[:, slot[i] * b:(slot[i] + k) * b])
    return H


def mass_matrix(tree, q) -> np.ndarray:
    """Joint-space mass matrix H(q), symmetric and positive semi-definite: the CRBA.

    H is positive definite unless some nonzero qd moves no mass (a massless leaf link, or two
    coaxial hinges with only massless bodies between them); then it is singular.

    Kinetic energy T = 1/2 qd^T H qd.  Composite inertias are summed toward the root by the
    congruence of chapter 6, leaves first: I^c_i = I_i + sum over children c of
    X_c^T I^c_c X_c.  Then H_ii = S_i^T I^c_i S_i, and for each ancestor j of i,
    H_ji = H_ij = S_j^T F with F = I^c_i S_i carried toward the root by F <- X_k^T F.

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., n)

    Returns
    -------
    ndarray, shape (..., n, n)
        Units kg m^2 (revolute-revolute), kg m (mixed), kg (prismatic-prismatic).  For more
        than a few states the array is laid out with the states last in memory (it is computed
        that way, and is not copied into C order): ``np.ascontiguousarray`` gives C order.

    Examples
    --------
    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [I_O])
    >>> sb.mass_matrix(door, [0.0]).round(6)      # I_O,z = 8/75 + 2 * 0.4^2
    array([[0.426667]])

    The bifold door (second leaf hinged at x = 0.8 m on the first), folded by 90 degrees:

    >>> X_T2 = sb.motion_transform(np.eye(3), [sb.DOOR["width"], 0, 0])
    >>> bifold = sb.Tree([-1, 0], [np.eye(6), X_T2], [[0, 0, 1, 0, 0, 0]] * 2, [I_O, I_O])
    >>> sb.mass_matrix(bifold, [0.3, np.pi / 2]).round(6)
    array([[2.133333, 0.426667],
           [0.426667, 0.426667]])
    """
    tree = _check_tree(tree)
    nv = tree.nv
    q = _joint_values("q", q, tree.nq, tree)
    if math.prod(q.shape[:-1]) * nv * nv > MAX_ENTRIES:    # H itself: nv^2 numbers a state
        raise _too_many("q", q.shape, f" in H (nv^2 = {nv * nv} a state)", math.prod(q.shape[:-1]) * nv * nv)
    (rows,) = _rows(q)
    aligned = _aligned(tree)
    if rows.shape[0] <= _WORLD_STATES:
        H = _crba_world(aligned, rows)
        _finite_result(np.diagonal(H, axis1=-2, axis2=-1), "tree, q")
        return H.reshape(q.shape[:-1] + (nv, nv))
    if _base_ready(aligned):                             # in base coordinates: nothing carried (``_tree_base.py``)
        H = _in_blocks(functools.partial(_crba_base, aligned), (nv, nv), rows, block=_base_block(aligned), into=True)
    else:
        H = _in_blocks(functools.partial(_crba, aligned), (nv, nv), rows, block=_crba_block(aligned), into=True)
    _finite_result(np.diagonal(H, axis1=-2, axis2=-1), "tree, q")      # the diagonal bounds the rest (H >= 0)
    return H.reshape(q.shape[:-1] + (nv, nv))
