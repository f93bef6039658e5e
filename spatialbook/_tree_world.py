"""The tree algorithms in world (base) coordinates, for a few states per call.

Every body's pose in the base frame is found first (the homogeneous 4x4 poses composed toward
the root by pointer jumping: ceil(log2(depth + 1)) batched products, not one per body or level).
In base coordinates the recursions of the RNEA and the CRBA become sums over the tree's
ancestor relation, which are products with constant 0/1 matrices (Featherstone's RBDA 5.3 and
Pinocchio's world-frame algorithms; chapter 11 derives them in body coordinates):

    V_i = sum_{j <= i} S_j qd_j                        (j <= i: joint j on the path to body i)
    A_i = [0; -g] + sum_{j <= i} (S_j qdd_j + V_p(j) x S_j qd_j)
    F_i = I_i A_i + V_i x* I_i V_i,    tau_j = S_j^T sum_{k >= j} F_k
    H_ij = S_i^T I^c_j S_j (i <= j),   I^c_j = sum_{k >= j} I_k

with S_j, V, A, F and I all in base coordinates at the base origin.  A call costs a few dozen
numpy calls whatever the tree's size or depth, which is what a single state needs (the body-
by-body kernels of ``_tree_kernels.py`` cost a hundred calls per body, paid back only over
thousands of states).  Arrays are state first: (B, n, ...).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._tree_aligned import _Aligned
from ._tree_kernels import _product


#: Up to this many states per call, the algorithms run in base coordinates here (measured on the
#: 44-dof humanoid, CPU time: tau 0.6 ms against 4.0 ms per call at 8 states, 2.9 against 4.3 at 32;
#: H 0.5 against 2.0 at 8, 1.0 against 2.1 at 16, 3.9 against 2.3 at 32).
_WORLD_STATES = 16


class _World(NamedTuple):
    """Per-tree constants of the world-frame algorithms."""
    GT: np.ndarray          # (n, 4, 4) X_T,i as a homogeneous pose: joint frame in the parent's frame
    jumps: tuple            # pointer-jumping index arrays (n + 1,), one per round; n is the base
    revolute: np.ndarray    # bodies with a revolute joint
    prismatic: np.ndarray   # bodies with a prismatic joint
    free: np.ndarray        # bodies with a free joint
    q_rev: np.ndarray       # their entries in q
    q_pri: np.ndarray
    q_free: np.ndarray      # (f, 7): p and quaternion entries of each free joint
    owner: np.ndarray       # (nv,) the body each velocity entry moves
    parent_of: np.ndarray   # (nv,) that body's parent (n for the base)
    v_rev: np.ndarray       # velocity entries of the revolute, prismatic and free joints
    v_pri: np.ndarray
    v_free: np.ndarray      # (f, 6)
    anc: np.ndarray         # (n, nv): anc[i, j] = 1 if entry j moves a body on the path to i (inclusive)
    desc: np.ndarray        # (n, n): desc[i, k] = 1 if k is i or below it
    upper: np.ndarray       # (nv, nv): 1 if owner i is above owner j, 1/2 on one body, else 0
    I: np.ndarray           # (n, 6, 6) inertias in aligned body coordinates
    column: np.ndarray      # (nv,) the column of [[R, 0], [[p]x R, R]] that is each joint's axis
    eye4: np.ndarray        # (n, 4, 4) identities


_WORLD: dict = {}


def _world(tree: _Aligned) -> _World:
    """The world-frame constants of an aligned tree (cached by identity: _Aligned is cached too)."""
    hit = _WORLD.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    n, nv = len(tree.parents), tree.nv
    parents = np.array([p if p >= 0 else n for p in tree.parents])
    GT = np.zeros((n, 4, 4))
    R = np.swapaxes(tree.T[:, :3, :3], 1, 2)             # T = [[R^T, 0], [-R^T [d]x, R^T]]
    D = -R @ tree.T[:, 3:, :3]                           # [d]x
    GT[:, :3, :3], GT[:, 3, 3] = R, 1.0
    GT[:, :3, 3] = np.stack((D[:, 2, 1], D[:, 0, 2], D[:, 1, 0]), axis=-1)
    ptr, jumps = np.append(parents, n), []
    while np.any(ptr[:n] != n):
        jumps.append(ptr)
        ptr = ptr[ptr]
    kinds = [("free" if tree.free[i] else "prismatic" if tree.prismatic[i] else "revolute") for i in range(n)]
    pick = lambda kind: np.array([i for i in range(n) if kinds[i] == kind], dtype=int)  # noqa: E731
    rev, pri, free = pick("revolute"), pick("prismatic"), pick("free")
    owner = np.repeat(np.arange(n), [6 if f else 1 for f in tree.free])
    below = np.eye(n, dtype=bool)                        # below[i, k]: k is i or in i's subtree
    for i in reversed(range(n)):
        if tree.parents[i] >= 0:
            below[tree.parents[i]] |= below[i]
    anc = below[owner].T.astype(float)                   # (n, nv)
    strict = below & ~np.eye(n, dtype=bool)
    upper = strict[owner][:, owner] + 0.5 * (owner[:, None] == owner[None, :])
    out = _World(GT, tuple(jumps), rev, pri, free,
                 np.array([tree.iq[i] for i in rev], dtype=int), np.array([tree.iq[i] for i in pri], dtype=int),
                 np.array([np.arange(tree.iq[i], tree.iq[i] + 7) for i in free], dtype=int).reshape(-1, 7),
                 owner, parents[owner],
                 np.array([tree.iv[i] for i in rev], dtype=int), np.array([tree.iv[i] for i in pri], dtype=int),
                 np.array([np.arange(tree.iv[i], tree.iv[i] + 6) for i in free], dtype=int).reshape(-1, 6),
                 anc, below.astype(float), upper, tree.I,
                 np.concatenate([np.arange(6) if f else [tree.row[i]] for i, f in enumerate(tree.free)]).astype(int),
                 np.broadcast_to(np.eye(4), (n, 4, 4)).copy())
    if len(_WORLD) > 64:
        _WORLD.clear()
    _WORLD[id(tree)] = (tree, out)
    return out


# constants: a motion cross product matrix V x = crm(V) and [p]x are linear in V and p, so
# they are products with constant matrices; R(quat) is linear in the quaternion's products.
def _crm_basis() -> np.ndarray:
    out = np.zeros((6, 6, 6))
    for k in range(3):
        e = np.zeros(3)
        e[k] = 1.0
        W = np.cross(e, np.eye(3), axisb=0).T            # [e]x: column c is e x e_c
        out[k, :3, :3] = out[k, 3:, 3:] = W
        out[k + 3, 3:, :3] = W
    return out


_CRM = _crm_basis().reshape(6, 36)                       # crm(V) = (V @ _CRM).reshape(6, 6)
_CRF = (-np.swapaxes(_crm_basis(), 1, 2)).reshape(6, 36)  # V x* = -crm(V)^T
_SKEW = _crm_basis()[:3, :3, :3].reshape(3, 9)           # [p]x = (p @ _SKEW).reshape(3, 3)
_QUAT = np.zeros((4, 4, 9))                              # R(quat) = (quat quat^T).ravel() @ _QUAT
for (_a, _b), _r, _c in (((0, 0), 0, 0), ((1, 1), 0, 0), ((2, 2), 0, 0), ((3, 3), 0, 0)):
    pass
_SIGNS = {0: (1, 1, -1, -1), 4: (1, -1, 1, -1), 8: (1, -1, -1, 1)}     # diagonal: ww +- xx +- yy +- zz
for _r, _sg in _SIGNS.items():
    _QUAT[[0, 1, 2, 3], [0, 1, 2, 3], _r] = _sg
for _r, (_a, _b, _sg) in {1: (1, 2, 1), 3: (1, 2, 1), 2: (1, 3, 1), 6: (1, 3, 1), 5: (2, 3, 1), 7: (2, 3, 1)}.items():
    _QUAT[_a, _b, _r] = _QUAT[_b, _a, _r] = 1.0                       # 2 xy, 2 xz, 2 yz
for _r, _k, _sg in ((1, 3, -1), (3, 3, 1), (2, 2, 1), (6, 2, -1), (5, 1, -1), (7, 1, 1)):
    _QUAT[0, _k, _r] = _QUAT[_k, 0, _r] = _sg                          # -+ 2 w z, +- 2 w y, -+ 2 w x
_QUAT = _QUAT.reshape(16, 9)
_PHASE = np.array([0.0, np.pi / 2, -np.pi / 2, 0.0])     # cos(q + phase) = [c, -s, s, c]


def _poses(w: _World, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R (B, n, 3, 3) and p (B, n, 3): every body's axes and origin in the base frame."""
    B, n = q.shape[0], w.GT.shape[0]
    J = np.repeat(w.eye4[None], B, axis=0)
    J16 = J.reshape(B, n, 16)
    if w.revolute.size:                                  # X_J = turn by q about z: R_J = Rz(q)
        J16[:, w.revolute[:, None], [0, 1, 4, 5]] = np.cos(q[:, w.q_rev, None] + _PHASE)
    if w.prismatic.size:                                 # move by q along z
        J16[:, w.prismatic, 11] = q[:, w.q_pri]
    if w.free.size:                                      # [p; quat]: R_J from the unit quaternion
        qf = q[:, w.q_free]                              # (B, f, 7)
        J16[:, w.free[:, None], [3, 7, 11]] = qf[..., :3]
        quat = qf[..., 3:]
        J16[:, w.free[:, None], [0, 1, 2, 4, 5, 6, 8, 9, 10]] = (quat[..., :, None] * quat[..., None, :]).reshape(B, -1, 16) @ _QUAT
    M = np.empty((B, n + 1, 4, 4))
    np.matmul(w.GT, J, out=M[:, :n])
    M[:, n] = w.eye4[0]
    for ptr in w.jumps:                                  # M_i: body i in the frame of ptr_i
        M = M[:, ptr] @ M
    return M[:, :n, :3, :3], M[:, :n, :3, 3]


def _frames(w: _World, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """S (B, nv, 6): every joint's motion axis in base coordinates; X (B, n, 6, 6): the motion
    transforms from the base to each body, [[R^T, 0], [-R^T [p]x, R^T]]; and p (B, n, 3).

    "Base coordinates" here are the base's axes about the mean of the bodies' origins, not about
    the base origin: tau and H do not depend on the point (gravity is a pure translation, the
    same at every point), and about a far point (a free joint's position of 5e6 m, a root
    placed far away) the products X^T I X would be of order m |p|^2 and lose the digits of H
    (1.5e-3 off at 5e6 m)."""
    R, p = _poses(w, q)
    p = p - p.mean(axis=1, keepdims=True)
    B, n = p.shape[:2]
    Rt = np.swapaxes(R, -1, -2)
    PRt = Rt @ (p @ _SKEW).reshape(B, n, 3, 3)           # R^T [p]x = -([p]x R)^T
    X = np.zeros((B, n, 6, 6))
    X[..., :3, :3] = Rt
    X[..., 3:, 3:] = Rt
    Z = X.copy()                                         # rows: the columns of [[R, 0], [[p]x R, R]]
    np.negative(PRt, out=X[..., 3:, :3])
    Z[..., :3, 3:] = X[..., 3:, :3]
    return Z[:, w.owner, w.column], X, p


def _rnea_world(tree: _Aligned, q, qd, qdd, g, frames=None) -> np.ndarray:
    """tau (B, nv) from q (B, nq), qd, qdd (B, nv), g (B, 3), in base coordinates
    (``frames``: ``_frames`` of q if already found, as forward dynamics shares them with the CRBA)."""
    w = _world(tree)
    B, n = q.shape[0], len(tree.parents)
    S, X, _ = _frames(w, q) if frames is None else frames
    Sqd = S * qd[..., None]
    V = np.zeros((B, n + 1, 6))                          # V[:, n]: the base, at rest
    np.matmul(w.anc, Sqd, out=V[:, :n])
    bias = ((V[:, w.parent_of] @ _CRM).reshape(B, -1, 6, 6) @ Sqd[..., None])[..., 0]   # V_p x S qd
    bias += S * qdd[..., None]
    VA = np.empty((B, n, 6, 2))
    VA[..., 0] = V[:, :n]
    np.matmul(w.anc, bias, out=VA[..., 1])
    VA[..., 3:, 1] -= g[:, None, :]                      # the base accelerates at -g
    body = X @ VA                                        # [V, A] in body coordinates
    IVA = w.I @ body
    F = IVA[..., 1] + ((body[..., 0] @ _CRF).reshape(B, n, 6, 6) @ IVA[..., :1])[..., 0]   # I A + V x* I V
    F = (np.swapaxes(X, -1, -2) @ F[..., None])[..., 0]  # in base coordinates (X^T: force transform)
    total = w.desc @ F                                   # the wrench through each joint
    return np.einsum("bjk,bjk->bj", S, total[:, w.owner])


def _crba_world(tree: _Aligned, q, frames=None) -> np.ndarray:
    """H (B, nv, nv) from q (B, nq): H_ij = S_i^T I^c S_j with I^c the composite inertia of the
    deeper of the two bodies (zero when neither body is above the other), in base coordinates
    (``frames`` as for ``_rnea_world``)."""
    w = _world(tree)
    B, n = q.shape[0], len(tree.parents)
    S, X, _ = _frames(w, q) if frames is None else frames
    I = np.swapaxes(X, -1, -2) @ w.I @ X                 # X^T I X: the bodies' inertias in base coordinates
    Ic = _product(w.desc, I.reshape(B, n, 36)).reshape(B, n, 6, 6)      # (in one-thread blocks)
    F = (Ic[:, w.owner] @ S[..., None])[..., 0]          # I^c S_j
    T = (S @ np.swapaxes(F, -1, -2)) * w.upper
    return T + np.swapaxes(T, -1, -2)
