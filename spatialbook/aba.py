"""Forward dynamics of a kinematic tree: the articulated-body algorithm, or CRBA and a solve
(book chapters 11 and 13).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._tree_aligned import _ARTICULATED, _ARTICULATED_FULL, _COLUMN, _Aligned, _aligned
from ._tree_blocks import _Arena, _aba_block, _crba_block, _in_blocks, _rnea_block
from ._tree_kernels import (
    _add_velocity_product, _articulated_outer, _crf, _force_back, _gravity_in_body, _joint_back, _matmul, _motion,
    _solve_spd, _solve_symmetric, _transforms, _turn_articulated,
)
from ._tree_world import _WORLD_STATES, _crba_world, _frames, _rnea_world, _world
from .crba import _crba
from .rnea import _rnea
from ._tree_checks import _broadcast, _G, _gravity, _joint_values, _rows
from ._checks import _finite_result
from .tree import Tree, _check_tree

#: ``forward_dynamics(method="auto")`` uses the ABA from this many degrees of freedom (measured).
_ABA_FROM_DOF = 12


#: Forward dynamics refuses a state whose pivot for some degree of freedom (the ABA's D_i, the
#: LDL^T pivots of H, a free body's articulated-inertia pivots) is at most this fraction of the
#: gross inertia that degree of freedom could move (``_dof_scales``).  Rounding leaves about
#: 1e-16 of that scale where the exact pivot is zero (a mass on its own hinge axis: H = -9e-18
#: for 0.49 kg m^2), and qdd = 1/pivot would then be rounding noise times 1e16; 1e-12 is far
#: above the noise and far below any body of a real robot (a 1 mm rod about its own 1 m axis: 1e-6).
_SINGULAR = 1e-12
_SCALES: dict = {}


def _dof_scales(tree: Tree) -> np.ndarray:
    """Per entry of qd, a q-independent scale of the inertia its joint moves (cached per tree):
    revolute (and a free joint's turns) sum over the subtree of tr(J_k) + m_k (R_k + |c_k|)^2,
    kg m^2, with J_k body k's rotational inertia about its origin, c_k its centre of mass and
    R_k the sum of the placement offsets from the joint to body k; prismatic (a free joint's
    slides) the subtree's mass, kg.  The units of H's diagonal, so that a pivot can be compared
    with it whatever the tree's size or units.  With no slide between the joint and its bodies
    it bounds H's diagonal entry at every q; a slide carries its bodies further as q grows.
    O(n): R_k = P_k - P_i, with P_k the offsets summed along the path from the base to k."""
    hit = _SCALES.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    I, n = tree.inertias, len(tree.parents)
    mass = I[:, 3, 3]
    spin = np.trace(I[:, :3, :3], axis1=1, axis2=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        arm = np.where(mass > 0, np.linalg.norm(I[:, :3, 3:], axis=(1, 2)) / np.sqrt(2) / mass, 0.0)
    offset = np.linalg.norm(tree.placements[:, 3:, :3], axis=(1, 2)) / np.sqrt(2)    # |d| of X_T = [[R^T, 0], [-R^T [d]x, R^T]]
    # R for body k below joint i is P_k - P_i, with P the offsets summed from the base down
    # (parents[i] < i, so one pass each way): the subtree sums of m, m a and tr J + m a^2 with
    # a = P + arm give sum_k tr J_k + m_k (a_k - P_i)^2 for every i in O(n).
    parents = [int(p) for p in tree.parents]
    depth = offset.copy()
    for k in range(n):
        if parents[k] >= 0:
            depth[k] += depth[parents[k]]
    a = depth + arm
    s0, s1, s2 = mass.copy(), mass * a, spin + mass * a * a
    for k in range(n - 1, 0, -1):
        if parents[k] >= 0:
            s0[parents[k]] += s0[k]
            s1[parents[k]] += s1[k]
            s2[parents[k]] += s2[k]
    turn = np.maximum(s2 - 2.0 * depth * s1 + depth * depth * s0, spin)
    scales = []
    for i, kind in enumerate(tree.kinds):
        if kind == "free":
            scales += [turn[i]] * 3 + [s0[i]] * 3
        else:
            scales.append(s0[i] if kind == "prismatic" else turn[i])
    out = np.array(scales)
    if len(_SCALES) > 64:
        _SCALES.clear()
    _SCALES[id(tree)] = (tree, out)
    return out


def _aba(tree: _Aligned, q, qd, tau, g, arena: _Arena, floor: np.ndarray | None = None) -> np.ndarray:
    """qdd (nv, b) from q (nq, b), qd, tau (nv, b), g (3, b): the articulated-body algorithm
    (Featherstone, RBDA Table 7.1), in aligned body coordinates, for the accelerations beyond
    those of qdd = 0.

    The first pass is the RNEA's outward pass with qdd = 0: velocities V_i and accelerations
    A0_i (the base accelerating at -g), and the wrenches p_i = I_i A0_i + V_i x* I_i V_i they
    take.  What qdd adds, a_i = X_i a_p + S_i qdd_i from a = 0 at the base, is then the ABA with
    no bias acceleration (c = 0): inward I^A_p += X^T (I^A - U U^T / D) X and
    p^A_p += X^T (p^A + U u / D), with U = I^A S, D = S^T U, u = tau - S^T p^A; outward
    qdd_i = (u_i - U_i^T X_i a_p) / D_i.  Articulated inertias are kept as their 21 numbers
    (``_ARTICULATED``), where the joint's turn is a few row operations.  With ``floor`` (nv,),
    the states where some pivot (D_i, or a free body's) is at most ``floor`` get qdd = nan."""
    parents, row, free, iq, iv = tree.parents, tree.row, tree.free, tree.iq, tree.iv
    n, b = len(parents), q.shape[1]
    X = _transforms(tree, q, arena)
    cos, sin = arena("cos", n, b), arena("sin", n, b)
    unturned = [i for i in range(n) if free[i] or tree.prismatic[i]]
    cos[unturned], sin[unturned] = 1.0, 0.0              # (their rows unused: no garbage in cos 2q)
    cos2, sin2 = arena("aba_cos2", n, b), arena("aba_sin2", n, b)
    np.multiply(sin, cos, out=sin2)
    sin2 *= 2.0                                          # sin 2q = 2 s c
    np.multiply(cos, cos, out=cos2)
    cos2 *= 2.0
    cos2 -= 1.0                                          # cos 2q = 2 c^2 - 1
    VA, pA = arena("aba_VA", n + 1, 6, 2, b), arena("aba_p", n, 6, b)     # VA[i] = [V_i, A0_i]; VA[n]: base
    VA[n] = 0.0
    np.negative(g, out=VA[n, 3:, 1])
    IA = arena("aba_IA", n, 21, b)
    IA[...] = tree.I21                                   # I^A_i = I_i (+ children, below)
    IVA, crf = arena("aba_IVA", 6, 2, b), arena("aba_crf", 6, b)
    for i in range(n):                                   # outward: V_i, A0_i, p_i
        V_i, A_i = VA[i, :, 0], VA[i, :, 1]
        if free[i]:                                      # V_i = qd, A0_i = X_i [0; -g]
            V_i[...] = qd[iv[i]:iv[i] + 6]
            A_i[:3] = 0.0
            np.negative(_gravity_in_body(tree.T[i], q[iq[i] + 3:iq[i] + 7], g, arena("grav", 3, b), arena), out=A_i[3:])
        else:
            _motion(X[i], VA[parents[i]], VA[i], arena)  # [X_i V_p, X_i A0_p]  (VA[-1] is the base)
            V_i[row[i]] += qd[iv[i]]
            _add_velocity_product(A_i, V_i, row[i], qd[iv[i]], arena)        # + (V_i x S_i) qd_i
        _matmul(tree.I[i], VA[i], IVA)
        np.add(IVA[:, 1], _crf(V_i, IVA[:, 0], crf, arena), out=pA[i])      # p_i = I_i A0_i + V_i x* I_i V_i
    U, D, u = arena("aba_U", n, 6, b), arena("aba_D", n, b), arena("aba_u", n, b)
    UD, outer, t21, back = arena("aba_UD", 6, b), arena("aba_outer", 21, b), arena("aba_t21", 21, b), arena("aba_back", 21, b)
    t6 = arena("aba_t6", 6, b)
    for i in reversed(range(n)):                         # inward: articulated inertias
        if free[i]:
            continue
        r, p = row[i], parents[i]
        np.take(IA[i], _COLUMN[r], axis=0, out=U[i])     # U_i = I^A_i S_i
        D[i] = U[i, r]                                   # D_i = S_i^T U_i
        np.subtract(tau[iv[i]], pA[i, r], out=u[i])      # u_i = tau_i - S_i^T p^A_i
        if p < 0:
            continue
        np.divide(U[i], D[i], out=UD)
        Ia = IA[i]
        Ia -= _articulated_outer(UD, U[i], outer, t21)   # I^a = I^A - U U^T / D
        if tree.prismatic[i]:                            # X_J^T I^a X_J on the 6x6 (rare)
            M = _matmul(_ARTICULATED_FULL, Ia, arena("aba_full", 36, b)).reshape(6, 6, b)
            _joint_back(X[i], M, arena)
            _joint_back(X[i], np.swapaxes(M, 0, 1), arena)
            _matmul(_ARTICULATED, M.reshape(36, b), Ia)
        else:
            _turn_articulated(Ia, cos[i], sin[i], cos2[i], sin2[i], arena)
        IA[p] += _matmul(tree.K[i], Ia, back)            # I^A_p += X_T^T (X_J^T I^a X_J) X_T
        pa = pA[i]
        pa += np.multiply(UD, u[i], out=t6)              # p^a = p^A + U u / D
        pA[p] += _force_back(X[i], pa, t6, arena)        # p^A_p += X^T p^a
    a, qdd = arena("aba_a", n + 1, 6, b), arena("aba_qdd", tree.nv, b)
    a[n] = 0.0                                           # the base: no acceleration beyond A0
    for i in range(n):                                   # outward: accelerations
        k = iv[i]
        if free[i]:                                      # I^A a = tau - p^A, with S = E: qdd = a
            M = _matmul(_ARTICULATED_FULL, IA[i], arena("aba_full", 36, b)).reshape(6, 6, b)
            pivots = arena("aba_pivots", 6, b)
            a[i] = _solve_symmetric(M, tau[k:k + 6] - pA[i], pivots)
            if floor is not None:
                D[i] = np.min(pivots - floor[k:k + 6, None], axis=0) + floor[k]   # checked with D below
            qdd[k:k + 6] = a[i]
            continue
        _motion(X[i], a[parents[i]], a[i], arena)        # a' = X_i a_p
        r = row[i]
        np.einsum("jb,jb->b", U[i], a[i], out=qdd[k])
        np.subtract(u[i], qdd[k], out=qdd[k])
        qdd[k] /= D[i]                                   # qdd_i = (u_i - U_i^T a') / D_i
        a[i, r] += qdd[k]                                # a_i = a' + S_i qdd_i
    if floor is not None:                                # near-singular: rounding decides qdd
        first = floor[list(iv)]
        qdd[:, np.any(D <= first[:, None], axis=0) | ~np.all(D > 0, axis=0)] = np.nan
    return qdd


def _crba_ldl(tree: _Aligned, q, qd, tau, g, arena: _Arena, floor: np.ndarray) -> np.ndarray:
    """qdd (nv, b) from q (nq, b), qd, tau (nv, b), g (3, b): C by the RNEA (qdd = 0), H by the
    CRBA, then H qdd = tau - C by LDL^T elimination in the block, states last
    (``_solve_symmetric``), whose pivots tell a near-singular H: nan in the states where a pivot
    is at most ``floor`` (nv,), the rule ``_aba`` applies to its D_i.  Measured against the
    LAPACK solve on (B, nv, nv) it replaced (CPU, 10^5 states, load 8): 2 dof 0.90x, 6 dof
    0.82-0.94x; 44 dof (``method="crba"`` only: ``auto`` takes the ABA there) about 2x, where
    LAPACK's batched Cholesky, for the pivots, cost as much as the solve itself."""
    zero = arena("ldl_zero", tree.nv, q.shape[1])
    zero[...] = 0.0
    rhs = np.subtract(tau, _rnea(tree, q, qd, zero, g, arena), out=arena("ldl_rhs", tree.nv, q.shape[1]))
    pivots = arena("ldl_pivots", tree.nv, q.shape[1])
    qdd = _solve_symmetric(_crba(tree, q, arena), rhs, pivots)
    qdd[:, np.any(pivots <= floor[:, None], axis=0) | ~np.all(pivots > 0, axis=0)] = np.nan
    return qdd


def forward_dynamics(tree, q, qd, tau, gravity=_G, method="auto") -> np.ndarray:
    """Joint accelerations qdd caused by joint forces tau: the solution of H(q) qdd = tau - C(q, qd).

    Two algorithms, equal to rounding:

    - ``method="crba"``: C = inverse_dynamics(tree, q, qd, 0, gravity) collects the velocity
      (Coriolis and centripetal) and gravity terms, H = mass_matrix(tree, q), then a dense
      solve (LDL^T, in blocks of states): O(n^2) memory and O(n^3) work per state.
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

    A tree whose H(q) is singular (some motion moves no mass: a massless leaf, a mass on its own
    hinge axis, coaxial hinges with nothing between them) raises ``ValueError`` naming the
    joint, in every method and batch size alike: a pivot of the solve (the ABA's D_i, an LDL^T
    pivot of H) at most 1e-12 of the inertia that joint could move (a bound from the tree's
    masses, inertias and link offsets) counts as zero, since rounding alone leaves about 1e-16
    of it where the exact pivot is zero, and qdd would then be rounding noise times 1e16.

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
    if q_.shape[0] == 0:                               # an empty batch: an empty answer
        return np.zeros(qd.shape)
    if method == "auto":
        method = "aba" if nv >= _ABA_FROM_DOF and q_.shape[0] > _WORLD_STATES else "crba"
    if method == "crba" and q_.shape[0] <= _WORLD_STATES:     # a few states: in base coordinates
        frames = _frames(_world(aligned), q_)            # found once, for C and H
        C = _rnea_world(aligned, q_, qd_, np.zeros_like(qd_), g_, frames)
        H = _crba_world(aligned, q_, frames)
        return _solved(tree, H, tau_ - C).reshape(qd.shape)
    # many states: the ABA, or the CRBA and LDL^T in blocks of states (``_crba_ldl``)
    floor = _SINGULAR * _dof_scales(tree)
    kernel, block = ((_aba, _aba_block(aligned)) if method == "aba" else
                     (_crba_ldl, min(_rnea_block(aligned), _crba_block(aligned))))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        qdd = _in_blocks(functools.partial(kernel, aligned, floor=floor), (nv,), q_, qd_, tau_, g_, block=block)
    finite = np.isfinite(qdd).all(axis=-1)
    if not finite.all():
        bad = np.flatnonzero(~finite)[:_WORLD_STATES]    # a few of the failed states tell why
        with np.errstate(over="ignore", invalid="ignore"):      # overflow first: not a wrong "singular"
            _finite_result(_rnea_world(aligned, q_[bad], qd_[bad], np.zeros_like(qd_[bad]), g_[bad]), _OVERFLOW_NAMES)
            H = _finite_result(_crba_world(aligned, q_[bad][:1]), _OVERFLOW_NAMES)
        raise ValueError(_singular(tree, H, "an articulated inertia is singular" if method == "aba" else
                                   "the mass matrix H(q) is singular"))
    return qdd.reshape(qd.shape)


def _solved(tree: Tree, H: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """qdd of H qdd = rhs (H: (B, nv, nv), states first), or a ValueError: the inputs overflow
    (H or rhs not finite), or H is singular: not positive definite, or so near singular that
    rounding decides qdd (an LDL^T pivot at most ``_SINGULAR`` times its degree of freedom's
    scale, the rule ``_crba_ldl`` and ``_aba`` apply), or qdd overflows.  The pivots are those of
    LAPACK's Cholesky factor (one call), the solve LAPACK's as before."""
    floor = _SINGULAR * _dof_scales(tree)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        try:
            pivots = np.square(np.diagonal(np.linalg.cholesky(H), axis1=-2, axis2=-1))
            qdd = _solve_spd(H, rhs[..., None])[..., 0]
            if (pivots > floor).all() and math.isfinite(np.add.reduce(qdd, axis=None)):
                return qdd
        except np.linalg.LinAlgError:
            pass
    _finite_result(rhs, _OVERFLOW_NAMES)                 # overflow first: not a wrong "singular"
    _finite_result(np.diagonal(H, axis1=-2, axis2=-1), _OVERFLOW_NAMES)
    raise ValueError(_singular(tree, H, "the mass matrix H(q) is singular"))


#: The arguments named when forward dynamics overflows.
_OVERFLOW_NAMES = "tree, q, qd, tau, gravity"


def _pivots(H: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """The LDL^T pivots (k, nv) of k symmetric matrices H (k, nv, nv), eliminated in order
    (no square roots, so that a negative pivot from rounding shows as one); a pivot at most
    ``floor`` eliminates nothing (its row is rounding noise: dividing by it would flag the rest)."""
    A = np.array(H, dtype=float).reshape(-1, H.shape[-1], H.shape[-1])
    d = np.empty(A.shape[:2])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(A.shape[-1]):
            d[:, j] = A[:, j, j]
            f = np.where(d[:, j, None] > floor[j], A[:, j + 1:, j] / A[:, j, j, None], 0.0)
            A[:, j + 1:, j + 1:] -= f[:, :, None] * A[:, None, j, j + 1:]
    return d


def _singular(tree: Tree, H: np.ndarray, what: str) -> str:
    """The message for a forward dynamics that cannot be solved, naming the joints that move no
    inertia beyond what the joints before them move (an LDL^T pivot of H at most ``_SINGULAR``
    times the joint's scale, or not a number, in some state: nothing with mass, or nothing off
    the axis, beyond the joint); if the pivots in that order find none, those eliminated leaves first."""
    floor = _SINGULAR * _dof_scales(tree)
    flagged = ~(_pivots(H, floor) > floor)
    if not flagged.any():                                # the ABA's order: leaves first
        flagged = ~(_pivots(H[..., ::-1, ::-1], floor[::-1]) > floor[::-1])[:, ::-1]
    dof = np.flatnonzero(np.any(flagged, axis=0))
    owner = np.repeat(np.arange(len(tree.kinds)), [6 if k == "free" else 1 for k in tree.kinds])
    names = list(dict.fromkeys(tree.joint_names[i] for i in owner[dof]))
    where = f" (joint{'s' if len(names) > 1 else ''} {', '.join(map(repr, names))} move{'' if len(names) > 1 else 's'} no inertia)" if names else ""
    return f"tree: expected bodies with mass along every joint; {what}{where}"
