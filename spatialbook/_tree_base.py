"""The CRBA in base coordinates, for many states per call (blocks of states, states last).

The body-by-body CRBA of ``crba.py`` (``_crba``) carries each wrench I^c_i S_i toward the root
one joint at a time (a turn and a 6x6 product per joint passed: 228 carries for the 44-dof
humanoid).  Here every quantity is expressed once in the coordinates of the base of its subtree
(the body of a free joint, whose own axes are its six joint axes, or the world for a root with
one degree of freedom), so that nothing is carried and composite inertias are plain sums
(RBDA section 6.2 in ground coordinates; Pinocchio's CRBA works likewise):

    G_i = G_p G_T,i G_J(q_i)           (3x4 pose [R_i p_i] of body i in base coordinates)
    S_i = [R_i z; p_i x R_i z]          (revolute; prismatic [0; R_i z])
    P_i' = G_i P_i G_i^T                (P = [[Sigma, h], [h^T, m]]: the pseudo-inertia)
    P^c_i = P_i' + sum over children c of P^c_c
    F_i = I^c_i S_i = [J w + h x v; w x h + m v]   for S_i = [w; v], J = tr(Sigma) 1 - Sigma
    H_ji = H_ij = S_j^T F_i             (j = i or an ancestor of i)

The pseudo-inertia of a body about its origin holds its second moments Sigma = integral of
r r^T dm = tr(J)/2 1 - J (kg m^2), its first moment h = m c (kg m) and its mass m (kg); unlike
the 6x6 spatial inertia it changes frame by a congruence with the 4x4 pose, so that
Sigma' = G P G^T (rows u, w: G_u . (P G^T)_w, four terms each) and h' = G P e_4.  A free
body's own block of H is its composite inertia in its own axes; its block against a body i
below it is F_i (six rows).  Units as ``mass_matrix``: kg m^2, kg m, kg.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._tree_aligned import _Aligned
from ._tree_blocks import _Arena
from ._tree_kernels import _cross3


class _Base(NamedTuple):
    """Per-tree constants of ``_crba_base``."""
    GTt: np.ndarray         # (n, 4, 4) G_T,i^T (4x4 pose of joint frame i in its parent's axes, transposed)
    P: np.ndarray           # (n, 4, 4) the pseudo-inertias [[Sigma, h], [h^T, m]] in aligned body axes
    mass: np.ndarray        # (n, 1) the mass of each body's subtree, kg
    prismatic: np.ndarray   # the prismatic bodies
    rev: np.ndarray         # the revolute bodies, as a slice if consecutive
    q_rev: np.ndarray       # their entries in q
    rows: tuple             # per one-dof body j: (j, k, v): bodies j..j+k-1 are its subtree, v its entry of qd
    free_rows: tuple        # per free body f: (f, k, v): bodies f+1..f+k are below it, v its first entry


_BASE: dict = {}
#: Mean number of joints above a body from which ``_crba_base`` is used (``_base_ready``).
_BASE_DEPTH = 3


def _base_ready(tree: _Aligned) -> bool:
    """True if ``_crba_base`` applies and pays: every subtree a run of consecutive bodies
    (depth-first numbering, which the rows of H here need), and on average at least
    ``_BASE_DEPTH`` joints above a body (the wrenches ``_crba`` would carry; below that the carry
    costs less than the poses.  Measured, CPU time per state: the bifold door, 0.5 joints above
    a body, 0.13 us by ``_crba`` against 0.23; a 6-body chain, 2.5, 0.76 against 0.78; the 44-dof
    humanoid, 5.8, 11.3 against 7.8)."""
    carried = sum(len(sub) - 1 for sub in tree.subtree)
    return carried >= _BASE_DEPTH * len(tree.parents) and all(
        tuple(sub) == tuple(range(sub[0], sub[0] + len(sub))) for sub in tree.subtree)


def _base(tree: _Aligned) -> _Base:
    """The constants of an aligned tree (cached by identity: _Aligned is cached too)."""
    hit = _BASE.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    n = len(tree.parents)
    R = np.swapaxes(tree.T[:, :3, :3], 1, 2)             # T = [[R^T, 0], [-R^T [d]x, R^T]]
    D = -R @ tree.T[:, 3:, :3]                           # [d]x
    GT = np.zeros((n, 4, 4))
    GT[:, :3, :3], GT[:, 3, 3] = R, 1.0
    GT[:, :3, 3] = np.stack((D[:, 2, 1], D[:, 0, 2], D[:, 1, 0]), axis=-1)
    Ps = np.zeros((n, 4, 4))
    for i, M in enumerate(tree.I):                       # P = [[tr(J)/2 1 - J, h], [h^T, m]]
        J, h = M[:3, :3], np.array([M[2, 4], M[0, 5], M[1, 3]])
        Ps[i, :3, :3] = 0.5 * np.trace(J) * np.eye(3) - J
        Ps[i, :3, 3] = Ps[i, 3, :3] = h
        Ps[i, 3, 3] = M[3, 3]
    mass = tree.I[:, 3, 3].copy()
    for i in reversed(range(n)):
        if tree.parents[i] >= 0:
            mass[tree.parents[i]] += mass[i]
    rev = np.array([i for i in range(n) if not (tree.free[i] or tree.prismatic[i])], dtype=int)
    consecutive = rev.size and np.array_equal(rev, np.arange(rev[0], rev[-1] + 1))
    out = _Base(np.ascontiguousarray(np.swapaxes(GT, 1, 2)), Ps, mass[:, None],
                np.array([i for i in range(n) if tree.prismatic[i]], dtype=int),
                slice(int(rev[0]), int(rev[-1]) + 1) if consecutive else rev,
                np.array([tree.iq[i] for i in rev], dtype=int),
                tuple((j, len(tree.subtree[j]), tree.iv[j]) for j in range(n) if not tree.free[j]),
                tuple((f, len(tree.subtree[f]) - 1, tree.iv[f]) for f in range(n) if tree.free[f]))
    if len(_BASE) > 64:
        _BASE.clear()
    _BASE[id(tree)] = (tree, out)
    return out


#: Scratch numbers per body and state of ``_crba_base`` (cut from one buffer by ``_Carve``).
_SCRATCH = 38
#: Scratch numbers per block of ``_crba_base``: 16 MB, 1408 states of the 44-dof humanoid
#: (measured there, CPU time per state, load 6-8: 768 to 1536 states per block alike within the
#: noise, 8.4-8.6 us; 512 and 2048 slower, 9.0 and 9.6 us).
_BASE_SCRATCH = 2**21


def _base_block(tree: _Aligned) -> int:
    """States per block of ``_crba_base``: its scratch near ``_BASE_SCRATCH`` numbers, between
    256 and 8192 states."""
    return int(min(8192, max(256, _BASE_SCRATCH // (_SCRATCH * len(tree.parents) + 8))))


class _Carve:
    """Scratch arrays cut one after another from one flat buffer (``arena``'s signature).

    One large buffer instead of a dozen: numpy asks the OS for huge pages for buffers of 4 MiB
    and more, so a call's fresh scratch costs a few page faults instead of thousands."""

    def __init__(self, flat: np.ndarray):
        self.flat, self.at = flat, 0

    def __call__(self, name: str, *shape: int) -> np.ndarray:
        size = int(np.prod(shape))
        out = self.flat[self.at:self.at + size].reshape(shape)
        self.at += size
        return out


def _crba_base(tree: _Aligned, q: np.ndarray, arena: _Arena, out: np.ndarray) -> np.ndarray:
    """H (nv, nv, b) from q (nq, b), written into ``out`` (an (nv, nv, b) block of zeros, as for
    ``_crba``), by the equations of the module docstring; ``_base_ready(tree)`` must hold.

    H_ij = S_i^T I^c_j S_j for i above or at j, in the base coordinates of the subtree (m for
    positions, kg m^2 / kg m / kg for H as ``mass_matrix``).  The bifold door of ``mass_matrix``,
    folded by 90 degrees (one state: q is (nq, 1)):

    >>> import numpy as np, spatialbook as sb
    >>> from spatialbook._tree_aligned import _aligned
    >>> from spatialbook._tree_blocks import _Arena
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> X_T2 = sb.motion_transform(np.eye(3), [sb.DOOR["width"], 0, 0])
    >>> bifold = _aligned(sb.Tree([-1, 0], [np.eye(6), X_T2], [[0, 0, 1, 0, 0, 0]] * 2, [I_O, I_O]))
    >>> _crba_base(bifold, np.array([[0.3], [np.pi / 2]]), _Arena(), np.zeros((2, 2, 1)))[..., 0].round(6)
    array([[2.133333, 0.426667],
           [0.426667, 0.426667]])
    """
    c = _base(tree)
    n, b = len(tree.parents), q.shape[1]
    arena = _Carve(arena("base", _SCRATCH * n * b + 8 * b))   # one buffer: fresh pages come in a few huge pages
    cos, sin = arena("base_cos", n, b), arena("base_sin", n, b)
    if c.q_rev.size:                                     # cos q, sin q of the revolute joints
        qr = q[c.q_rev]                                  # (np.cos and np.sin: measured 8 % faster here than
        if isinstance(c.rev, slice):                     # ``_cos_sin``'s tan(q/2))
            np.cos(qr, out=cos[c.rev])
            np.sin(qr, out=sin[c.rev])
        else:
            cos[c.rev], sin[c.rev] = np.cos(qr), np.sin(qr)
    G = arena("base_G", n, 4, 3, b)                      # G[i, l]: column l of [R_i p_i] (3, b)
    turn = arena("base_turn", 2, 3, b)
    for i in range(n):
        p, Gi = tree.parents[i], G[i]
        if tree.free[i]:                                 # a free body is its subtree's base
            Gi[...] = 0.0
            Gi[0, 0], Gi[1, 1], Gi[2, 2] = 1.0, 1.0, 1.0
            continue
        if p < 0 or tree.free[p]:                        # on the base: G_T itself
            Gi[...] = c.GTt[i, :, :3, None]
        else:                                            # G_p G_T: (4, 4) @ (4, 3b)
            np.matmul(c.GTt[i], G[p].reshape(4, 3 * b), out=Gi.reshape(4, 3 * b))
        if tree.prismatic[i]:                            # then G_J: slide along z, p' = p + q z
            Gi[3] += np.multiply(q[tree.iq[i]], Gi[2], out=turn[0])
            continue
        xy = Gi[:2]                                      # or turn columns 0, 1 by q about z:
        np.multiply(xy[::-1], sin[i], out=turn)          # [s y, s x]
        xy *= cos[i]
        xy[0] += turn[0]                                 # x' = c x + s y
        xy[1] -= turn[1]                                 # y' = c y - s x
    N = arena("base_N", n, 4, 3, b)                      # N = P G^T: Sigma'_uw = sum_l G[l, u] N[l, w]
    np.matmul(c.P, G.reshape(n, 4, 3 * b), out=N.reshape(n, 4, 3 * b))
    Cb = arena("base_Cb", n, 9, b)                       # [Sxx Syy Szz Sxy Sxz Syz hx hy hz] per body
    for k, (u, w) in enumerate(((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))):
        np.einsum("nlb,nlb->nb", G[:, :, u], N[:, :, w], out=Cb[:, k])
    Cb[:, 6:] = N[:, 3]                                  # h' = G P e_4
    for i in reversed(range(n)):                         # composite: leaves first, a plain sum
        p = tree.parents[i]
        if p >= 0:
            Cb[p] += Cb[i]
    C = N.reshape(-1)[:9 * n * b].reshape(9, n, b)       # the same, component first (N is done with)
    C[...] = np.swapaxes(Cb, 0, 1)
    pos = arena("base_pos", 3, n, b)
    S = Cb.reshape(-1)[:6 * n * b].reshape(6, n, b)      # (Cb is done with)
    t = Cb.reshape(-1)[6 * n * b:7 * n * b].reshape(n, b)
    w, v = S[:3], S[3:]
    w[...] = np.swapaxes(G[:, 2], 0, 1)                  # revolute: S = [R z; p x R z]
    pos[...] = np.swapaxes(G[:, 3], 0, 1)
    _cross3(pos, w, v, t)
    if c.prismatic.size:                                 # prismatic: S = [0; R z]
        v[:, c.prismatic] = w[:, c.prismatic]
        w[:, c.prismatic] = 0.0
    Sig, h = C[:6], C[6:]
    F = G.reshape(-1)[:6 * n * b].reshape(6, n, b)       # (G is done with)
    nn, ff = F[:3], F[3:]
    _cross3(h, v, nn, t)                                  # n = h x v + tr(Sigma) w - Sigma w
    tr = np.add(Sig[0], Sig[1], out=cos)                 # (cos is done with)
    tr += Sig[2]
    for k, (d, o1, o2) in enumerate(((0, (3, 1), (4, 2)), (1, (3, 0), (5, 2)), (2, (4, 0), (5, 1)))):
        e = nn[k]
        np.subtract(tr, Sig[d], out=pos[0])
        e += np.multiply(pos[0], w[k], out=t)
        e -= np.multiply(Sig[o1[0]], w[o1[1]], out=t)
        e -= np.multiply(Sig[o2[0]], w[o2[1]], out=t)
    _cross3(w, h, ff, t)                                  # f = w x h + m v
    ff += np.multiply(c.mass, v, out=pos)
    H = out
    for j, k, iv in c.rows:                              # H_ji = S_j^T F_i over j's subtree
        np.einsum("ckb,cb->kb", F[:, j:j + k], S[:, j], out=H[iv, iv:iv + k])
        if k > 1:
            H[iv + 1:iv + k, iv] = H[iv, iv + 1:iv + k]
    for f, k, iv in c.free_rows:                         # S = E: the composite inertia, then F_i
        Sg, hf, mf = C[:6, f], C[6:, f], float(c.mass[f, 0])
        B6 = H[iv:iv + 6, iv:iv + 6]
        np.add(Sg[1], Sg[2], out=B6[0, 0])               # J = tr(Sigma) 1 - Sigma
        np.add(Sg[0], Sg[2], out=B6[1, 1])
        np.add(Sg[0], Sg[1], out=B6[2, 2])
        for (a, e), s in zip(((0, 1), (0, 2), (1, 2)), (3, 4, 5)):
            np.negative(Sg[s], out=B6[a, e])
            B6[e, a] = B6[a, e]
        for (a, e), val in (((0, 4), -hf[2]), ((0, 5), hf[1]), ((1, 3), hf[2]), ((1, 5), -hf[0]),
                            ((2, 3), -hf[1]), ((2, 4), hf[0])):
            B6[a, e] = val                               # [h]x upper right, its transpose lower left
            B6[e, a] = val
        B6[3, 3] = B6[4, 4] = B6[5, 5] = mf
        if k:
            H[iv:iv + 6, iv + 6:iv + 6 + k] = F[:, f + 1:f + 1 + k]
            H[iv + 6:iv + 6 + k, iv:iv + 6] = np.swapaxes(F[:, f + 1:f + 1 + k], 0, 1)
    return H
