"""Unchecked kernels of the tree algorithms, per body on (k, b) blocks of states (component
first, state last), for many states per call; a few states go to ``_tree_world.py`` instead.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._tree_aligned import _Aligned
from ._tree_blocks import _Arena


# --- unchecked kernels (inside the loops over bodies; arrays (k, b), results in place) -------


class _X(NamedTuple):
    """X_i = X_J(q_i) X_T,i for a block of states: the constant X_T,i (T, its transpose Tt and
    its congruence L on inertias) and cos, sin of q_i (revolute) or q_i itself in s (prismatic:
    then c is None)."""
    T: np.ndarray
    Tt: np.ndarray
    L: np.ndarray
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
            X.append(_X(tree.T[i], tree.Tt[i], tree.congruence[i], None, q[k]))
        else:
            _cos_sin(q[k], c[i], s[i])
            X.append(_X(tree.T[i], tree.Tt[i], tree.congruence[i], c[i], s[i]))
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


def _force_back(X: _X, F: np.ndarray, out: np.ndarray, arena: _Arena) -> np.ndarray:
    """out = X^T F: wrenches F (6, ...) in body i's coordinates re-expressed in its parent's.
    F itself is overwritten (with X_J^T F) on the way."""
    c, s = X.c, X.s
    if c is None:                                        # tau += (z q) x f
        t = arena("force1", *F.shape[1:])
        F[0] -= np.multiply(s, F[4], out=t)
        F[1] += np.multiply(s, F[3], out=t)
    else:                                                # R on both halves
        x, y = F[0::3], F[1::3]
        sy, sx = arena("force2", *x.shape), arena("force3", *x.shape)
        np.multiply(s, y, out=sy)
        np.multiply(s, x, out=sx)
        y *= c
        y += sx                                          # y' = s x + c y
        x *= c
        x -= sy                                          # x' = c x - s y
    return _matmul(X.Tt, F, out)


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


def _inertia_back(X: _X, p: np.ndarray, out: np.ndarray, arena: _Arena) -> np.ndarray:
    """out = X^T I X on the 10 numbers p (10, b) of a spatial inertia: body i -> parent."""
    xx, yy, zz, xy, xz, yz, hx, hy, hz, m = p
    r = arena("inertia_turned", 10, p.shape[1])          # X_J^T I X_J
    if X.c is None:                                      # shift the origin back by z q
        q = X.s
        r[...] = p
        t = arena("inertia1", p.shape[1])
        np.multiply(q, m, out=t)
        r[8] += t                                        # h_z + m q
        t += hz
        t += hz
        t *= q                                           # q (2 h_z + m q)
        r[0] += t
        r[1] += t
        r[4] -= np.multiply(q, hx, out=t)
        r[5] -= np.multiply(q, hy, out=t)
    else:                                                # turn back by q about z
        c, s = X.c, X.s
        c2, s2, a, d, t = (arena(f"inertia{k}", p.shape[1]) for k in range(5))
        np.multiply(c, c, out=c2)
        c2 -= np.multiply(s, s, out=t)                   # cos 2q
        np.multiply(s, c, out=s2)
        s2 *= 2.0                                        # sin 2q
        np.add(xx, yy, out=a)
        a *= 0.5                                         # (xx + yy) / 2
        np.subtract(xx, yy, out=d)
        d *= 0.5                                         # (xx - yy) / 2
        np.multiply(c2, d, out=t)
        t -= np.multiply(s2, xy, out=r[2])               # u = cos2q d - sin2q xy
        np.add(a, t, out=r[0])                           # xx' = a + u
        np.subtract(a, t, out=r[1])                      # yy' = a - u
        np.multiply(s2, d, out=r[3])
        r[3] += np.multiply(c2, xy, out=t)               # xy' = sin2q d + cos2q xy
        x, y = p[4::2][:2], p[5::2][:2]                  # (xz, hx) and (yz, hy) turn as x and y
        rx, ry = r[4::2][:2], r[5::2][:2]
        t2 = arena("inertia5", 2, p.shape[1])
        np.multiply(c, x, out=rx)
        rx -= np.multiply(s, y, out=t2)                  # x' = c x - s y
        np.multiply(s, x, out=ry)
        ry += np.multiply(c, y, out=t2)                  # y' = s x + c y
        r[2] = zz
        r[8] = hz
        r[9] = m
    return _matmul(X.L, r, out)


def _composite_times_axis(p: np.ndarray, row: int, out: np.ndarray) -> np.ndarray:
    """out = I S for the inertia with 10 numbers p (10, b) and S = e_row: column ``row`` of the 6x6."""
    xx, yy, zz, xy, xz, yz, hx, hy, hz, m = p
    if row == 2:                                         # [I e_z; -[h]x e_z] = [I e_z; z x h]
        out[0], out[1], out[2], out[3], out[4], out[5] = xz, yz, zz, -hy, hx, 0.0
    else:                                                # [[h]x e_z; m e_z]
        out[0], out[1], out[2], out[3], out[4], out[5] = hy, -hx, 0.0, 0.0, 0.0, m
    return out


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


def _inertia_matrices(p: np.ndarray, out: np.ndarray) -> np.ndarray:
    """out (6, 6, b) = the spatial inertias whose 10 numbers are p (10, b)."""
    xx, yy, zz, xy, xz, yz, hx, hy, hz, m = p
    out[...] = 0.0
    out[0, 0], out[1, 1], out[2, 2] = xx, yy, zz
    out[0, 1] = out[1, 0] = xy
    out[0, 2] = out[2, 0] = xz
    out[1, 2] = out[2, 1] = yz
    out[3, 3] = out[4, 4] = out[5, 5] = m
    for r, c, v in ((0, 4, -hz), (0, 5, hy), (1, 3, hz), (1, 5, -hx), (2, 3, -hy), (2, 4, hx)):
        out[r, c] = v                                    # [h]x upper right, -[h]x lower left
        out[c, r] = v
    return out
