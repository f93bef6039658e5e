"""The checks of a Tree's fields (once, when it is made) and of a state (once per public call).

Shared by the Tree (``tree.py``), the loaders' state conversions (``states.py``) and the
algorithms; they take a tree by its fields (``kinds``, ``joint_names``) and import no Tree.
"""

from __future__ import annotations

import numpy as np

from ._checks import STRUCTURE_TOL, as_array, as_spatial_inertia, batch_shape

_G = (0.0, 0.0, -9.81)
_ROTATION_TOL = 1e-6          # as for every rotation the package accepts
_UNIT_TOL = 1e-9              # |n| = 1 for a joint axis

#: Joint kinds: one degree of freedom each, except "free" (6: a floating body).
KINDS = ("revolute", "continuous", "prismatic", "free")


# --- checks on the tree (once, in Tree) ----------------------------------------------------


def _numbers(name: str, value) -> np.ndarray:
    """``value`` as an array of real numbers: no None, bools, complex numbers, text or objects."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected an array of real numbers, got a ragged sequence or a non-number") from None
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name}: expected real numbers (int or float), got dtype {raw.dtype} (shape {raw.shape})")
    return raw


def _body_count(**fields: np.ndarray) -> int:
    """n: the number of entries most fields agree on (a field that disagrees is then named)."""
    lengths = [arr.shape[0] if arr.ndim else -1 for arr in fields.values()]
    return max(lengths, key=lambda k: (lengths.count(k), k == lengths[0]))


def _check_parents(parents, n: int) -> np.ndarray:
    raw = _numbers("parents", parents)
    if raw.ndim != 1 or raw.shape[0] == 0:
        raise ValueError(f"parents: expected a non-empty 1-D sequence of body indices, got shape {raw.shape}")
    if raw.shape[0] != n:
        raise ValueError(
            f"parents: expected one entry per body, {n} as placements, axes and inertias have, got {raw.shape[0]}"
        )
    if raw.dtype.kind == "f":
        if not np.all(np.abs(raw) <= n) or np.any(raw != np.round(raw)):   # also NaN, inf, 1e308
            raise ValueError(f"parents: expected integer body indices, got {raw.tolist()}")
    p = raw.astype(int)
    bad = np.flatnonzero((p < -1) | (p >= np.arange(p.shape[0])))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"parents: expected parents[i] < i with -1 for the base, got parents[{i}] = {int(p[i])} "
            f"(parents = {p.tolist()}); number the bodies so that every parent comes first"
        )
    return p


def _tolerance(raw: np.ndarray, tol: float = STRUCTURE_TOL) -> float:
    """``tol`` for float64 and integer input; for lower precision (float32, float16) a few
    hundred of its rounding steps, since its numbers are only that close to the exact ones."""
    if raw.dtype.kind == "f" and raw.dtype.itemsize < 8:
        return max(tol, 200 * float(np.finfo(raw.dtype).eps))
    return tol


def _motion_transform_problem(X: np.ndarray, tol: float) -> str | None:
    """Why X is not a motion transform [[R^T, 0], [-R^T D, R^T]], or None if it is one."""
    scale = max(1.0, float(np.max(np.abs(X))))
    Rt, U, L, B = X[:3, :3], X[:3, 3:], X[3:, :3], X[3:, 3:]
    if not np.allclose(U, 0.0, rtol=0.0, atol=tol * scale):
        return "has a non-zero upper-right 3x3 block"
    if not np.allclose(Rt, B, rtol=0.0, atol=tol * scale):
        return "has two different diagonal 3x3 blocks"
    R = Rt.T
    if not np.allclose(R.T @ R, np.eye(3), rtol=0.0, atol=max(_ROTATION_TOL, tol)):
        return "has an R that is not orthonormal (R^T R != E)"
    if np.linalg.det(R) < 0:
        return "has a reflection (det R = -1), not a rotation"
    D = -R @ L
    if not np.allclose(D, -D.T, rtol=0.0, atol=tol * scale):
        return "has a lower-left block that is not -R^T [d]x for any d"
    return None


def _check_placements(placements, n: int) -> np.ndarray:
    tol = _tolerance(np.asarray(placements))
    X = _stack("placements", placements, (n, 6, 6))
    for i in range(n):
        problem = _motion_transform_problem(X[i], tol)
        if problem is None:
            continue
        what = f"placements: expected motion transforms [[R^T, 0], [-R^T D, R^T]] (motion_transform(R, d)), but placements[{i}]"
        swapped = X[i][_SWAP][:, _SWAP]
        if problem.startswith("has a non-zero upper-right") and _motion_transform_problem(swapped, tol) is None:
            raise ValueError(
                f"{what} {problem} and a zero lower-left one: it is a motion transform in LINEAR-FIRST order "
                f"(Pinocchio's SE3 action, Modern Robotics' [Ad]; their halves swapped), or a force transform. "
                f"This library orders 6-vectors angular first: convert with sb.matrix_to_linear_first(X) "
                f"(the swap is its own inverse; for [Ad_T] of a pose T use sb.inverse_transform(...) too), "
                f"or build it with sb.motion_transform(R, d)")
        raise ValueError(f"{what} {problem}")
    return X


_SWAP = np.r_[3:6, 0:3]


def _check_kinds(kinds, axes: np.ndarray, n: int) -> tuple:
    if kinds is None:
        if axes.ndim == 2 and axes.shape[1] == 6:
            return tuple("prismatic" if np.any(axes[i, 3:]) and not np.any(axes[i, :3]) else "revolute"
                         for i in range(axes.shape[0]))
        return ("revolute",) * n
    if isinstance(kinds, str) or not all(isinstance(k, str) for k in _iterable("kinds", kinds)):
        raise ValueError(f"kinds: expected a sequence of n = {n} joint kinds from {KINDS}, got {kinds!r:.80}")
    kinds = tuple(kinds)
    if len(kinds) != n:
        raise ValueError(f"kinds: expected one kind per body (n = {n}), got {len(kinds)}")
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        hint = " (a fixed joint: merge the body into its parent, as the loaders do)" if "fixed" in bad else ""
        raise ValueError(f"kinds: expected kinds from {KINDS}, got {bad[0]!r}{hint}")
    return kinds


def _iterable(name: str, value):
    try:
        return list(value)
    except TypeError:
        raise ValueError(f"{name}: expected a sequence, got a {type(value).__name__}") from None


def _check_names(names, n: int) -> tuple:
    if names is None:
        return tuple(f"joint{i}" for i in range(n))
    if isinstance(names, str):
        raise ValueError(f"joint_names: expected a sequence of n = {n} names, got the string {names!r:.40}")
    names = _iterable("joint_names", names)
    if len(names) != n or not all(isinstance(x, str) and x for x in names):
        raise ValueError(f"joint_names: expected n = {n} non-empty strings, got {names!r:.80}")
    if len(set(names)) != n:
        raise ValueError(f"joint_names: expected distinct names, got {names!r:.80}")
    return tuple(names)


def _check_offsets(offsets, n: int, kinds: tuple) -> np.ndarray:
    if offsets is None:
        return np.zeros(n)
    arr = as_array("offsets", _numbers("offsets", offsets), (n,))
    if arr.shape != (n,):
        raise ValueError(f"offsets: expected shape ({n},), one entry per joint, got {arr.shape}")
    if any(k == "free" and arr[i] != 0 for i, k in enumerate(kinds)):
        raise ValueError("offsets: expected 0 for free joints (their q is the pose itself)")
    return np.array(arr, dtype=float)


def _check_axes(axes, n: int, kinds: tuple = None) -> np.ndarray:
    unit_tol = _tolerance(np.asarray(axes), _UNIT_TOL) if np.asarray(axes).dtype.itemsize < 8 else _UNIT_TOL
    S = _stack("axes", axes, (n, 6))
    kinds = kinds or ("revolute",) * n
    for i in range(n):
        ang, lin = np.linalg.norm(S[i, :3]), np.linalg.norm(S[i, 3:])
        if kinds[i] == "free":
            if ang or lin:
                raise ValueError(f"axes: expected zeros for the free joint {i} (its six axes are the body's own), got {S[i].tolist()}")
            continue
        if ang == 0 and lin == 0:
            raise ValueError(
                f"axes: expected a joint axis, but axes[{i}] is zero: a fixed joint has no axis; merge body {i} into its parent "
                f"(add its inertia there, as Tree.from_urdf and Tree.from_mujoco do), or mark a free joint with kinds")
        unit = abs(max(ang, lin) - 1.0) <= unit_tol
        if min(ang, lin) > _UNIT_TOL or not unit:
            raise ValueError(
                f"axes: expected axes[{i}] revolute [n; 0] or prismatic [0; n] with a unit n (|n| = 1 within {unit_tol:g}), "
                f"got {S[i].tolist()}" + ("; normalise it: n / |n|" if min(ang, lin) <= _UNIT_TOL else ""))
        prismatic = lin > ang
        if (kinds[i] == "prismatic") != prismatic:
            raise ValueError(f"axes: expected an axis that fits kinds[{i}] = {kinds[i]!r}, got axes[{i}] = {S[i].tolist()}, "
                             f"which is {'prismatic [0; n]' if prismatic else 'revolute [n; 0]'}")
        S[i] /= max(ang, lin)                                # exact unit length (float32 input)
    return S


def _check_inertias(inertias, n: int) -> np.ndarray:
    tol = _tolerance(np.asarray(inertias))
    I = _stack("inertias", inertias, (n, 6, 6))
    for i in range(n):
        try:
            as_spatial_inertia(f"inertias: inertias[{i}]", _rounded(I[i], tol))
        except ValueError as err:
            swapped = I[i][_SWAP][:, _SWAP]
            try:
                as_spatial_inertia("swapped", _rounded(swapped, tol))
            except ValueError:
                raise err from None
            if np.allclose(I[i], swapped):
                raise
            raise ValueError(
                f"inertias: expected angular-first inertias, but inertias[{i}] is a spatial inertia in LINEAR-FIRST order ([[m E, -m C], [m C, I]], "
                f"Pinocchio's / Modern Robotics' order): this library orders 6-vectors angular first; convert it "
                f"with sb.matrix_to_linear_first(M) (the swap is its own inverse) or build it with "
                f"sb.spatial_inertia(mass, com, inertia_com)") from None
    return I


def _rounded(M: np.ndarray, tol: float) -> np.ndarray:
    """M symmetrised and with tiny entries (below tol of its scale) zeroed, for low-precision input."""
    if tol <= STRUCTURE_TOL:
        return M
    scale = max(1.0, float(np.max(np.abs(M))))
    M = 0.5 * (M + M.T)
    return np.where(np.abs(M) < tol * scale, 0.0, M)


def _stack(name: str, value, shape: tuple[int, ...]) -> np.ndarray:
    arr = as_array(name, _numbers(name, value), shape[1:])
    if arr.shape != shape:
        raise ValueError(
            f"{name}: expected shape {shape}, one entry per body (n = {shape[0]}), got shape {arr.shape}"
        )
    return np.array(arr, dtype=float)


# --- checks on the state (once per public call) --------------------------------------------


_LAYOUTS: dict = {}


def _layout(tree) -> tuple:
    """(nq, nv, quats, names) of a tree: quats (f, 4) the q entries of each free joint's
    quaternion and names their joints (cached by identity: a Tree never changes)."""
    hit = _LAYOUTS.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    free = [kind == "free" for kind in tree.kinds]
    starts = np.cumsum([0] + [7 if f else 1 for f in free])
    quats = np.array([np.arange(starts[i] + 3, starts[i] + 7) for i, f in enumerate(free) if f], dtype=int).reshape(-1, 4)
    out = (int(starts[-1]), sum(6 if f else 1 for f in free), quats,
           tuple(name for name, f in zip(tree.joint_names, free) if f))
    if len(_LAYOUTS) > 64:
        _LAYOUTS.clear()
    _LAYOUTS[id(tree)] = (tree, out)
    return out


def _joint_values(name: str, value, n: int, tree=None) -> np.ndarray:
    arr = _numbers(name, value)
    if arr.ndim == 0 or arr.shape[-1] != n:
        what = "one entry per joint of the tree"
        if tree is not None and "free" in tree.kinds:
            what = ("nq entries for q (1 per one-dof joint, 7 per free joint: position, quaternion w x y z)"
                    if name == "q" else "nv entries (1 per one-dof joint, 6 per free joint: [omega; v])")
        raise ValueError(f"{name}: expected an array of shape (..., {n}), {what}, got shape {arr.shape}")
    arr = as_array(name, arr, (n,))
    if name == "q" and tree is not None and _layout(tree)[3]:
        arr = _unit_quaternions(tree, arr)
    return arr


def _unit_quaternions(tree, q: np.ndarray, name: str = "q", unit: bool = True) -> np.ndarray:
    """q with each free joint's quaternion checked and normalised: unit to 1e-6 (as for
    rotations), or with ``unit=False`` any non-zero one (MuJoCo's reading of qpos, so that a
    rounded keyframe such as [0.7071, 0, 0, 0.7071] means 90 degrees about z)."""
    q = np.array(q, dtype=float)
    _, _, quats, joints = _layout(tree)
    if not joints:
        return q
    quat = q[..., quats]                                 # (..., f, 4)
    norm = np.linalg.norm(quat, axis=-1, keepdims=True)
    bad = np.abs(norm - 1.0) > _ROTATION_TOL if unit else norm < 1e-9
    if np.any(bad):
        f = int(np.argmax(bad.reshape(-1, len(joints)).any(axis=0)))
        k = int(quats[f, 0])
        where = f"in {name}[..., {k}:{k + 4}] (free joint {joints[f]!r})"
        if not unit:
            raise ValueError(f"{name}: expected a non-zero quaternion [w, x, y, z] {where}, got all zeros")
        worst = norm[..., f, 0].reshape(-1)
        raise ValueError(
            f"{name}: expected a unit quaternion [w, x, y, z] {where}, "
            f"got |quat| = {float(worst[np.argmax(np.abs(worst - 1.0))]):.9g}; normalise it")
    q[..., quats] = quat / norm
    return q


def _gravity(value) -> np.ndarray:
    return as_array("gravity", _numbers("gravity", value), (3,))


def _rows(*arrays: np.ndarray) -> list[np.ndarray]:
    """Checked (..., k) arrays with one batch shape -> (B, k) arrays, B = batch size."""
    return [arr.reshape(-1, arr.shape[-1]) for arr in arrays]


def _broadcast(*items: tuple[str, np.ndarray, int]) -> list[np.ndarray]:
    """Broadcast the checked arrays' batch axes against each other (naming them if they clash)."""
    first = items[0][1].shape[:items[0][1].ndim - items[0][2]]
    if all(arr.shape[:arr.ndim - core] == first for _, arr, core in items):
        return [arr for _, arr, _ in items]              # one batch shape already (the usual case)
    batch = batch_shape(*items)
    return [np.broadcast_to(arr, batch + arr.shape[arr.ndim - core:]) for _, arr, core in items]


def _joint_state(tree, q, qd) -> tuple[np.ndarray, np.ndarray]:
    """(q, qd) of a tree checked (``_joint_values``: shapes (..., nq) and (..., nv), each free
    joint's quaternion unit and normalised) and broadcast to one batch shape, naming q and qd if
    their batch axes clash.  ``tree`` is a checked Tree (its nq, nv and kinds are read)."""
    q = _joint_values("q", q, tree.nq, tree)
    qd = _joint_values("qd", qd, tree.nv, tree)
    return tuple(_broadcast(("q", q, 1), ("qd", qd, 1)))
