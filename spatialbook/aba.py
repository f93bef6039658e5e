"""Forward dynamics of a kinematic tree: the articulated-body algorithm, or CRBA and a solve
(book chapters 11 and 13).
"""

from __future__ import annotations

import functools

import numpy as np

from ._tree_aligned import _Aligned, _aligned
from ._tree_blocks import _Arena, _aba_block, _crba_block, _in_blocks, _rnea_block
from ._tree_kernels import (
    _add_symmetric, _add_velocity_product, _crf, _force_back, _gravity_in_body, _inertia_back, _matmul, _motion, _transforms,
)
from ._tree_world import _WORLD_STATES, _crba_world, _rnea_world
from .crba import _crba
from .rnea import _rnea
from ._tree_checks import _broadcast, _G, _gravity, _joint_values, _rows
from .tree import Tree, _check_tree

#: ``forward_dynamics(method="auto")`` uses the ABA from this many degrees of freedom (measured).
_ABA_FROM_DOF = 12


def _aba(tree: _Aligned, q, qd, tau, g, arena: _Arena) -> np.ndarray:
    """qdd (nv, b) from q (nq, b), qd, tau (nv, b), g (3, b): the articulated-body algorithm
    (Featherstone, RBDA Table 7.1), in aligned body coordinates, with the base accelerating
    at -g.  Articulated inertias are full symmetric 6x6 matrices (6, 6, b)."""
    parents, row, free, iq, iv = tree.parents, tree.row, tree.free, tree.iq, tree.iv
    n, b = len(parents), q.shape[1]
    X = _transforms(tree, q, arena)
    V, c, pA = arena("aba_V", n, 6, b), arena("aba_c", n, 6, b), arena("aba_p", n, 6, b)
    IA = arena("aba_IA", n, 6, 6, b)
    IV, t6 = arena("aba_IV", 6, b), arena("aba_t6", 6, b)
    for i in range(n):                                   # outward: velocities, bias terms
        c[i] = 0.0
        if free[i]:
            V[i] = qd[iv[i]:iv[i] + 6]
        else:
            if parents[i] >= 0:
                _motion(X[i], V[parents[i]], V[i], arena)
            else:
                V[i] = 0.0
            V[i, row[i]] += qd[iv[i]]
            _add_velocity_product(c[i], V[i], row[i], qd[iv[i]], arena)      # c_i = V_i x S_i qd_i
        IA[i] = tree.I[i][:, :, None]                    # I^A_i = I_i (+ children, below)
        _matmul(tree.I[i], V[i], IV)
        _crf(V[i], IV, pA[i], arena)                     # p^A_i = V_i x* I_i V_i
    U, D, u = arena("aba_U", n, 6, b), arena("aba_D", n, b), arena("aba_u", n, b)
    Ia, pa = arena("aba_Ia", 6, 6, b), arena("aba_pa", 6, b)
    back21 = arena("aba_back21", 21, b)
    for i in reversed(range(n)):                         # inward: articulated inertias
        if free[i]:
            continue
        r = row[i]
        U[i] = IA[i, :, r]                               # U_i = I^A_i S_i
        D[i] = U[i, r]                                   # D_i = S_i^T U_i
        np.subtract(tau[iv[i]], pA[i, r], out=u[i])      # u_i = tau_i - S_i^T p^A_i
        p = parents[i]
        if p < 0:
            continue
        Dinv = np.divide(1.0, D[i], out=arena("aba_Dinv", b))
        UD = np.multiply(U[i], Dinv, out=arena("aba_UD", 6, b))
        np.multiply(UD[:, None], U[i][None, :], out=Ia)
        np.subtract(IA[i], Ia, out=Ia)                   # I^a = I^A - U U^T / D
        np.einsum("jkb,kb->jb", Ia, c[i], out=pa)
        pa += pA[i]
        pa += np.multiply(UD, u[i], out=t6)              # p^a = p^A + I^a c + U u / D
        _add_symmetric(IA[p], _inertia_back(X[i], Ia, tree.Tt2[i], back21, arena))   # I^A_p += X^T I^a X
        pA[p] += _force_back(X[i], pa, t6, arena)        # X^T p^a
    A, qdd = arena("aba_A", n, 6, b), arena("aba_qdd", tree.nv, b)
    base = arena("aba_base", 6, b)
    base[:3] = 0.0
    np.negative(g, out=base[3:])
    for i in range(n):                                   # outward: accelerations
        k = iv[i]
        if free[i]:                                      # I^A a = tau - p^A, with S = E
            rhs = tau[k:k + 6] - pA[i]
            A[i] = np.linalg.solve(np.moveaxis(IA[i], -1, 0), rhs.T[..., None])[..., 0].T
            grav = _gravity_in_body(tree.T[i], q[iq[i] + 3:iq[i] + 7], g, arena("grav", 3, b), arena)
            qdd[k:k + 6] = A[i]
            qdd[k + 3:k + 6] += grav                     # qdd = a_i - X_i a_base, X_i a_base = [0; -R^T g]
            continue
        _motion(X[i], A[parents[i]] if parents[i] >= 0 else base, A[i], arena)
        A[i] += c[i]                                     # a' = X_i a_p + c_i
        r = row[i]
        np.einsum("jb,jb->b", U[i], A[i], out=qdd[k])
        np.subtract(u[i], qdd[k], out=qdd[k])
        qdd[k] /= D[i]                                   # qdd_i = (u_i - U_i^T a') / D_i
        A[i, r] += qdd[k]                                # a_i = a' + S_i qdd_i
    return qdd


def forward_dynamics(tree, q, qd, tau, gravity=_G, method="auto") -> np.ndarray:
    """Joint accelerations qdd caused by joint forces tau: the solution of H(q) qdd = tau - C(q, qd).

    Two algorithms, equal to rounding:

    - ``method="crba"``: C = inverse_dynamics(tree, q, qd, 0, gravity) collects the velocity
      (Coriolis and centripetal) and gravity terms, H = mass_matrix(tree, q), then a dense
      solve: O(n^2) memory and O(n^3) work per state.
    - ``method="aba"``: the articulated-body algorithm (Featherstone, RBDA ch. 7), O(n): outward
      the velocities and bias wrenches, inward the articulated inertias
      I^A_p += X^T (I^A - U U^T / D) X with U = I^A S, D = S^T U, outward the accelerations
      qdd_i = (tau_i - S^T p^A_i - U^T a'_i) / D_i.
    - ``method="auto"`` (default): ABA from 12 degrees of freedom, CRBA below, and CRBA for up
      to 16 states per call (then both H and C are computed in base coordinates, a few dozen
      numpy calls whatever the tree).  Measured (two shared cores, 10^4 states, random
      revolute/prismatic trees): 5 dof CRBA 1.15x faster; 11 dof ABA 1.3x; 23 dof ABA 1.9x;
      43 dof ABA 3.8x (0.44 s against 1.7 s).

    Batched over leading axes.

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., nq)
    qd, tau : array_like, shape (..., nv)
    gravity : array_like, shape (3,) or (..., 3), m/s^2 in base coordinates
    method : {"auto", "aba", "crba"}

    Returns
    -------
    ndarray, shape (..., nv): qdd in rad/s^2 or m/s^2 (a free joint's: the time derivative
    of its body twist [omega; v], rad/s^2 and m/s^2).

    Examples
    --------
    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [I_O])
    >>> sb.forward_dynamics(door, [0.0], [2.0], [1.28]).round(12)
    array([3.])
    >>> sb.forward_dynamics(door, [0.0], [2.0], [1.28], method="aba").round(12)
    array([3.])
    """
    tree = _check_tree(tree)
    if not isinstance(method, str) or method not in ("auto", "aba", "crba"):
        raise ValueError(f"method: expected 'auto', 'aba' or 'crba', got {method!r:.40}")
    nq, nv = tree.nq, tree.nv
    q = _joint_values("q", q, nq, tree)
    qd, tau = (_joint_values(name, v, nv, tree) for name, v in (("qd", qd), ("tau", tau)))
    g = _gravity(gravity)
    q, qd, tau, g = _broadcast(("q", q, 1), ("qd", qd, 1), ("tau", tau, 1), ("gravity", g, 1))
    aligned = _aligned(tree)
    q_, qd_, tau_, g_ = _rows(q, qd, tau, g)
    if method == "auto":
        method = "aba" if nv >= _ABA_FROM_DOF and q_.shape[0] > _WORLD_STATES else "crba"
    if method == "crba" and q_.shape[0] <= _WORLD_STATES:     # a few states: in base coordinates
        C = _rnea_world(aligned, q_, qd_, np.zeros_like(qd_), g_)
        H = _crba_world(aligned, q_)
        try:
            return np.linalg.solve(H, (tau_ - C)[..., None])[..., 0].reshape(qd.shape)
        except np.linalg.LinAlgError:
            raise ValueError(_singular(tree, H, "the mass matrix H(q) is singular")) from None
    if method == "aba":
        with np.errstate(divide="ignore", invalid="ignore"):
            qdd = _in_blocks(functools.partial(_aba, aligned), (nv,), q_, qd_, tau_, g_, block=_aba_block(aligned))
        if not np.all(np.isfinite(qdd)):
            bad = ~np.all(np.isfinite(qdd), axis=-1)
            raise ValueError(_singular(tree, _crba_world(aligned, q_[bad][:1]), "an articulated inertia is singular"))
        return qdd.reshape(qd.shape)
    C = _in_blocks(lambda q, qd, g, arena: _rnea(aligned, q, qd, np.zeros_like(qd), g, arena), (nv,), q_, qd_, g_,
                   block=_rnea_block(aligned))
    H = _in_blocks(functools.partial(_crba, aligned), (nv, nv), q_, block=_crba_block(aligned))
    try:
        return np.linalg.solve(H, (tau_ - C)[..., None])[..., 0].reshape(qd.shape)
    except np.linalg.LinAlgError:
        raise ValueError(_singular(tree, H, "the mass matrix H(q) is singular")) from None


def _singular(tree: Tree, H: np.ndarray, what: str) -> str:
    """The message for a forward dynamics that cannot be solved, naming the joints that move no
    inertia at all (H_ii = 0 in some state: nothing with mass, or nothing off the axis, beyond the joint)."""
    diagonal = np.diagonal(H, axis1=-2, axis2=-1).reshape(-1, H.shape[-1])
    scale = max(1.0, float(np.max(np.abs(diagonal), initial=0.0)))
    dof = np.flatnonzero(np.any(diagonal <= 1e-12 * scale, axis=0))
    owner = np.repeat(np.arange(len(tree.kinds)), [6 if k == "free" else 1 for k in tree.kinds])
    names = list(dict.fromkeys(tree.joint_names[i] for i in owner[dof]))
    where = f" (joint{'s' if len(names) > 1 else ''} {', '.join(map(repr, names))} move{'' if len(names) > 1 else 's'} no inertia)" if names else ""
    return f"tree: expected bodies with mass along every joint; {what}{where}"
