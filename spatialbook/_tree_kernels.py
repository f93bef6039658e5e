"""Unchecked kernels of the tree algorithms, per body on (k, b) blocks of states (component
first, state last), for many states per call; a few states go to ``_tree_world.py`` instead.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._tree_aligned import _OUTER_A, _OUTER_W, _Aligned
from ._tree_blocks import _Arena


# --- unchecked kernels (inside the loops over bodies; arrays (k, b), results in place) -------


class _X(NamedTuple):
    """X_i = X_J(q_i) X_T,i for a block of states: the constant X_T,i (T and its transpose Tt)
    and cos, sin of q_i (revolute) or q_i itself in s (prismatic: then c is None)."""
    T: np.ndarray
    Tt: np.ndarray
    c: np.ndarray | None
    s: np.ndarray


def _transforms(tree: _Aligned, q: np.ndarray, arena: _Arena) -> list[_X]:
    """X_i for every body; q is (nq, b)."""
    n, b = len(tree.parents), q.shape[1]
    c, s = arena("cos", n, b), arena("sin", n, b)
    X = []
    for i in range(len(tree.parents)):
        k = tree.iq[i]
        if tree.free[i]:
            X.append(None)                               # a free body's pose enters through gravity
        elif tree.prismatic[i]:
            X.append(_X(tree.T[i], tree.Tt[i], None, q[k]))
        else:
            _cos_sin(q[k], c[i], s[i])
            X.append(_X(tree.T[i], tree.Tt[i], c[i], s[i]))
    return X


def _cos_sin(q: np.ndarray, c: np.ndarray, s: np.ndarray) -> None:
    """c = cos q and s = sin q from t = tan(q/2): c = (1 - t^2)/(1 + t^2), s = 2t/(1 + t^2).

    As accurate (both formulas are well conditioned for every t) and several times faster:
    numpy vectorizes tan for float64 but evaluates cos and sin one value at a time."""
    np.multiply(q, 0.5, out=s)
    np.tan(s, out=s)                                     # s = t
    np.multiply(s, s, out=c)                             # c = t^2
    r = 1.0 / (1.0 + c)
    np.subtract(1.0, c, out=c)
    c *= r
    s *= 2.0 * r


#: Work per BLAS call in :func:`_matmul` (rows x columns x inner length).  OpenBLAS runs a
#: product this small on one thread; split across both cores of a busy machine, a product of a
#: few rows by very many columns is many times slower than on one.
_BLAS_WORK = 200_000


def _matmul(M: np.ndarray, U: np.ndarray, out: np.ndarray) -> np.ndarray:
    """out = M @ U for a constant matrix M and a batch of column vectors U (k, ...), computed as
    (U^T M^T)^T block by block of columns (one BLAS call each).  U and out are contiguous."""
    U2, out2 = U.reshape(U.shape[0], -1), out.reshape(out.shape[0], -1)
    Mt, step = M.T, max(256, _BLAS_WORK // M.size)
    for start in range(0, U2.shape[1], step):
        np.matmul(U2[:, start:start + step].T, Mt, out=out2[:, start:start + step].T)
    return out


def _motion(X: _X, U: np.ndarray, out: np.ndarray, arena: _Arena) -> np.ndarray:
    """out = X U for motion vectors U (6, ...): first X_T,i, then the joint's X_J(q_i)."""
    W = _matmul(X.T, U, out)
    c, s = X.c, X.s
    if c is None:                                        # translate by z q: v -= (z q) x w
        t = arena("motion1", *W.shape[1:])
        W[3] += np.multiply(s, W[1], out=t)
        W[4] -= np.multiply(s, W[0], out=t)
    else:                                                # turn by q about z: R^T on both halves
        x, y = W[0::3], W[1::3]                          # rows (0, 3) and (1, 4)
        sy, sx = arena("motion2", *x.shape), arena("motion3", *x.shape)
        np.multiply(s, y, out=sy)
        np.multiply(s, x, out=sx)
        y *= c
        y -= sx                                          # y' = c y - s x
        x *= c
        x += sy                                          # x' = c x + s y
    return W


def _joint_back(X: _X, F: np.ndarray, arena: _Arena) -> np.ndarray:
    """F = X_J^T F in place, along axis 0 of F (6, ...): the joint's part of ``_force_back``."""
    c, s = X.c, X.s
    if c is None:                                        # tau += (z q) x f
        t = arena("force1", *F.shape[1:])
        F[0] -= np.multiply(s, F[4], out=t)
        F[1] += np.multiply(s, F[3], out=t)
    else:                                                # R on both halves
        x, y = F[0::3], F[1::3]
        _turn_back(x, y, c, s, arena("force2", *x.shape), arena("force3", *x.shape))
    return F


def _turn_back(x: np.ndarray, y: np.ndarray, c, s, sy: np.ndarray, sx: np.ndarray) -> None:
    """(x, y) <- (c x - s y, s x + c y) in place: R_z(q)^T's action on the x and y rows of both
    halves of a force (c = cos q, s = sin q); ``sy``, ``sx`` scratch of x's shape."""
    np.multiply(s, y, out=sy)
    np.multiply(s, x, out=sx)
    y *= c
    y += sx                                              # y' = s x + c y
    x *= c
    x -= sy                                              # x' = c x - s y


def _force_back(X: _X, F: np.ndarray, out: np.ndarray, arena: _Arena) -> np.ndarray:
    """out = X^T F: wrenches F (6, ...) in body i's coordinates re-expressed in its parent's.
    F itself is overwritten (with X_J^T F) on the way."""
    return _matmul(X.Tt, _joint_back(X, F, arena), out)


def _articulated_outer(a: np.ndarray, w: np.ndarray, out: np.ndarray, t: np.ndarray) -> np.ndarray:
    """out (21, b) = the 21 numbers (``_ARTICULATED``) of the symmetric a w^T for parallel
    6-vectors a, w (6, b) (a = U / D, w = U in the ABA); t scratch (21, b)."""
    np.multiply(np.take(a, _OUTER_A, axis=0, out=t), np.take(w, _OUTER_W, axis=0, out=out), out=out)
    P1, P2, half_difference = out[8:12], out[12:16], t[:4]
    np.subtract(P1, P2, out=half_difference)
    P2 += P1
    P2 *= 0.5                                            # tC tA tB oC = (P1 + P2)/2
    np.multiply(half_difference, 0.5, out=P1)            # dC dA dB kC = (P1 - P2)/2
    return out


def _turn_articulated(p: np.ndarray, c, s, c2, s2, arena: _Arena) -> np.ndarray:
    """X_J^T M X_J in place on the 21 numbers p (21, b) of a symmetric M (``_ARTICULATED``) for
    a joint turned by q about z: four pairs turn by q (c, s), three by 2q (c2, s2)."""
    b = p.shape[-1]
    _turn_back(p[0:4], p[4:8], c, s, arena("turn4y", 4, b), arena("turn4x", 4, b))
    _turn_back(p[8:11], p[15:18], c2, s2, arena("turn3y", 3, b), arena("turn3x", 3, b))
    return p


def _add_velocity_product(A: np.ndarray, V: np.ndarray, row: int, qd: np.ndarray, arena: _Arena) -> None:
    """A += (V x S) qd for S = e_row: row 2 (revolute) V x S = [w x z; v x z], row 5 [0; w x z]."""
    if row == 2:                                         # (w x z, v x z) = (w_y, -w_x, 0), ...
        t = arena("velocity_product", 2, V.shape[1])
        A[0::3] += np.multiply(V[1::3], qd, out=t)
        A[1::3] -= np.multiply(V[0::3], qd, out=t)
    else:
        t = arena("velocity_product", V.shape[1])
        A[3] += np.multiply(V[1], qd, out=t)
        A[4] -= np.multiply(V[0], qd, out=t)


def _cross3(a: np.ndarray, b: np.ndarray, out: np.ndarray, t: np.ndarray) -> np.ndarray:
    """out = a x b for component-first arrays (3, ...); t is scratch shaped like out[0]."""
    for k, (i, j) in enumerate(((1, 2), (2, 0), (0, 1))):
        np.multiply(a[i], b[j], out=out[k])
        out[k] -= np.multiply(a[j], b[i], out=t)
    return out


def _crf(V: np.ndarray, F: np.ndarray, out: np.ndarray, arena: _Arena) -> np.ndarray:
    """out = V x* F = [w x tau + v x f; w x f] for (6, b) arrays."""
    b = V.shape[1]
    w, v = V[:3], V[3:]
    pairs = lambda a: a.reshape(2, 3, b).swapaxes(0, 1)  # noqa: E731  (3, 2, b): [tau | f]
    _cross3(w[:, None], pairs(F), pairs(out), arena("cross1", 2, b))        # [w x tau; w x f]
    out[:3] += _cross3(v, F[3:], arena("cross2", 3, b), arena("cross3", b))  # + [v x f; 0]
    return out


def _turn_inertia(p: np.ndarray, C: np.ndarray, S: np.ndarray, t: np.ndarray) -> np.ndarray:
    """X_J^T I X_J in place on the 10 numbers p = [d xz hx xy yz hy a zz hz m] (10, b) of a
    spatial inertia (``_TURN``), for a revolute joint turned by q about z: (d, xy) turn by 2q,
    (xz, yz) and (hx, hy) by q; C = [cos 2q, cos q, cos q] and S likewise (3, b); t scratch (2, 3, b)."""
    u, w = p[0:3], p[3:6]
    np.multiply(S, w, out=t[0])
    np.multiply(S, u, out=t[1])
    u *= C
    u -= t[0]                                            # x' = c x - s y
    w *= C
    w += t[1]                                            # y' = s x + c y
    return p


def _shift_inertia(p: np.ndarray, q: np.ndarray, t: np.ndarray) -> np.ndarray:
    """X_J^T I X_J in place on the 10 numbers p (as ``_turn_inertia``) for a prismatic joint
    moved by q along z: the origin shifts back by z q; t scratch (2, b)."""
    np.multiply(q, p[9], out=t[0])                       # m q
    np.multiply(p[8], 2.0, out=t[1])
    t[1] += t[0]
    t[1] *= q                                            # q (2 h_z + m q)
    p[6] += t[1]                                         # (xx + yy) / 2
    p[1] -= np.multiply(q, p[2], out=t[1])               # xz - q hx
    p[4] -= np.multiply(q, p[5], out=t[1])               # yz - q hy
    p[8] += t[0]                                         # h_z + m q
    return p


#: I S = column ``row`` of the spatial inertia, as a (6, 10) matrix on its 10 numbers
#: [d xz hx xy yz hy a zz hz m]: row 2 gives [xz, yz, zz, -hy, hx, 0] (I e_z over -[h]x e_z),
#: row 5 gives [hy, -hx, 0, 0, 0, m] ([h]x e_z over m e_z).
_AXIS_COLUMN = {2: np.zeros((6, 10)), 5: np.zeros((6, 10))}
_AXIS_COLUMN[2][[0, 1, 2, 3, 4], [1, 4, 7, 5, 2]] = [1.0, 1.0, 1.0, -1.0, 1.0]
_AXIS_COLUMN[5][[0, 1, 5], [5, 2, 9]] = [1.0, -1.0, 1.0]


def _inertia_times_axis(p: np.ndarray, row: int, out: np.ndarray) -> np.ndarray:
    """out = I S (6, b) for the inertia with 10 numbers p = [d xz hx xy yz hy a zz hz m] and
    S = e_row: column ``row`` of the 6x6."""
    return np.matmul(_AXIS_COLUMN[row], p, out=out)       # out may be a (6, b) view with rows apart


# --- the two algorithms on a block of states -------------------------------------------------


def _gravity_in_body(T: np.ndarray, quat: np.ndarray, g: np.ndarray, out: np.ndarray, arena: _Arena) -> np.ndarray:
    """out = R^T g (3, b): gravity in a free body's axes, R = R_T R_q (body -> base axes), with
    R_T from the placement T and R_q from the unit quaternions quat = [w, x, y, z] (4, b):
    R_q^T u = u - 2 w (r x u) + 2 r x (r x u) for r = [x, y, z]."""
    b = g.shape[1]
    u = _matmul(T[:3, :3], g, arena("grav_u", 3, b))     # R_T^T g (T's upper-left block is R_T^T)
    w, r = quat[0], quat[1:]
    ru, rru, t = arena("grav_ru", 3, b), arena("grav_rru", 3, b), arena("grav_t", b)
    _cross3(r, u, ru, t)
    _cross3(r, ru, rru, t)
    np.multiply(ru, w, out=ru)
    np.subtract(u, ru, out=out)
    out -= ru
    out += rru
    out += rru
    return out


#: Largest matrix :func:`_solve_spd` hands to LAPACK whole: OpenBLAS factors an n x n matrix on
#: several threads from n = 100 (getrf: m n >= 10^4), which on a busy machine costs a hundred
#: times the CPU time of one thread (measured, load 17: solve of a 100 x 100 matrix 12.7 ms of
#: CPU against 0.13 ms on one thread).
_ONE_THREAD_SOLVE = 96


def _solve_spd(H: np.ndarray, r: np.ndarray) -> np.ndarray:
    """x (..., n, m) with H x = r for symmetric positive definite H (..., n, n): np.linalg.solve
    up to ``_ONE_THREAD_SOLVE`` rows, above that by halves (block elimination, stable for such H):
    with H = [[A, B], [B^T, C]], x_2 = S^-1 (r_2 - B^T A^-1 r_1) for the Schur complement
    S = C - B^T A^-1 B (positive definite too) and x_1 = A^-1 r_1 - A^-1 B x_2, every factorization
    and product small enough for one thread.  Raises np.linalg.LinAlgError if a block is singular."""
    n = H.shape[-1]
    if n <= _ONE_THREAD_SOLVE:
        return np.linalg.solve(H, r)
    k = n // 2
    B, Bt = H[..., :k, k:], np.swapaxes(H[..., :k, k:], -1, -2)
    Y = _solve_spd(H[..., :k, :k], np.concatenate((B, r[..., :k, :]), axis=-1))   # A^-1 [B, r_1]
    AiB, Air = Y[..., :n - k], Y[..., n - k:]
    x2 = _solve_spd(H[..., k:, k:] - _product(Bt, AiB), r[..., k:, :] - _product(Bt, Air))
    return np.concatenate((Air - _product(AiB, x2), x2), axis=-2)


def _product(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """P @ Q (..., a, c) @ (..., c, d) in blocks of rows of at most ``_BLAS_WORK`` multiply-adds
    each (one thread, see :func:`_matmul`)."""
    rows = max(1, _BLAS_WORK // max(1, P.shape[-1] * Q.shape[-1]))
    if rows >= P.shape[-2]:
        return P @ Q
    return np.concatenate([P[..., s:s + rows, :] @ Q for s in range(0, P.shape[-2], rows)], axis=-2)


def _solve_symmetric(M: np.ndarray, rhs: np.ndarray, pivots: np.ndarray | None = None) -> np.ndarray:
    """x (k, b) with M x = rhs for symmetric positive definite M (k, k, b): elimination without
    pivoting (M = L D L^T, stable for such M) on whole rows of states, a few dozen numpy calls
    for a small k instead of one LAPACK call per state.  A singular M gives inf or nan.  The
    pivots D (k, b) are written into ``pivots`` if given (a near-singular M: one near zero)."""
    A, x = M.copy(), rhs.copy()
    k = len(x)
    for j in range(k):                                   # forward: zero column j below the pivot
        if pivots is not None:
            pivots[j] = A[j, j]
        f = A[j + 1:, j] / A[j, j]
        A[j + 1:, j + 1:] -= f[:, None] * A[j, None, j + 1:]
        x[j + 1:] -= f * x[j]
    for j in reversed(range(k)):                         # back substitution
        if j + 1 < k:
            x[j] -= np.einsum("ib,ib->b", A[j, j + 1:], x[j + 1:])
        x[j] /= A[j, j]
    return x


def _inertia_matrices(p: np.ndarray, out: np.ndarray) -> np.ndarray:
    """out (6, 6, b) = the spatial inertias whose 10 numbers are p = [d xz hx xy yz hy a zz hz m] (10, b)."""
    d, xz, hx, xy, yz, hy, a, zz, hz, m = p
    out[...] = 0.0
    np.add(a, d, out=out[0, 0])
    np.subtract(a, d, out=out[1, 1])
    out[2, 2] = zz
    out[0, 1] = out[1, 0] = xy
    out[0, 2] = out[2, 0] = xz
    out[1, 2] = out[2, 1] = yz
    out[3, 3] = out[4, 4] = out[5, 5] = m
    for r, c, v in ((0, 4, -hz), (0, 5, hy), (1, 3, hz), (1, 5, -hx), (2, 3, -hy), (2, 4, hx)):
        out[r, c] = v                                    # [h]x upper right, -[h]x lower left
        out[c, r] = v
    return out
