"""Kinematic trees: inverse dynamics, the mass matrix and forward dynamics (book chapter 11).

A tree has n bodies numbered 0..n-1, each attached to its parent by one joint with one degree
of freedom (revolute or prismatic), or to the base by a free joint with six (a floating body:
legged robots, humanoids; its state convention is in ``Tree``'s docstring, nq != nv then);
``parents[i] < i`` and -1 is the fixed base.  Body i's coordinates are those of a
frame fixed in body i; "X_i" is the motion transform from the PARENT's coordinates to body i's
(conventions: ``spatialbook.__doc__``):

    X_i = X_J(q_i) X_T,i

- ``X_T,i`` (``placements[i]``): parent coordinates -> joint i's frame at q_i = 0, built as
  ``motion_transform(R, d)`` with R mapping joint-frame components to parent-frame components
  and d the joint frame's origin in parent coordinates (m).
- ``X_J(q_i)``: joint frame -> body i.  A revolute joint with axis S_i = [n; 0] turns body i's
  axes by q_i (rad) about n, so X_J = motion_transform(Rot(n, q_i), 0); a prismatic joint with
  S_i = [0; n] moves the origin by n q_i (m), so X_J = motion_transform(E, n q_i).  Either way
  S_i has the same components in the joint frame and in body i, and V_J = S_i qd_i.

The three algorithms, each a loop over the n bodies; a batch of states is handled by whole-array
operations (large batches in blocks of thousands of states, see ``_in_blocks``):

- ``inverse_dynamics``: the recursive Newton–Euler algorithm (RNEA).  Outward,
  V_i = X_i V_p + S_i qd_i and A_i = X_i A_p + S_i qdd_i + (V_i x S_i) qd_i, with the base at
  V = 0 and A = -[0; g] (gravity as a fictitious upward acceleration of the base, book
  chapter 8); F_i = I_i A_i + V_i x* I_i V_i.  Inward, tau_i = S_i^T F_i and
  F_p += X_i^T F_i (X_i^T is the force transform from body i back to its parent).
- ``mass_matrix``: the composite-rigid-body algorithm (CRBA).  Composite inertias
  I^c_p += X_i^T I^c_i X_i (the congruence of chapter 6), then H_ii = S_i^T I^c_i S_i and, along
  the path to the root, H_ji = H_ij = S_j^T (X^T ... I^c_i S_i).
- ``forward_dynamics``: H qdd = tau - C, where C = inverse_dynamics(q, qd, 0).

A free body i has V_i = qd_i (its twist in its own coordinates) and A_i = qdd_i + X_i [0; -g]
(only its orientation enters, through gravity); its six joint forces are tau_i = F_i, and its
6x6 block of H is its composite inertia I^c_i.

Units: q_i in rad (revolute) or m (prismatic), tau_i in N m or N, lengths m, masses kg.

Implementation: two evaluations of the same equations.  For up to ``_LEVELWISE_STATES`` states
per call, the bodies at one depth of the tree are handled together (stacked 6x6 transforms,
``_rnea_levels``, ``_crba_levels``), so a call costs a few dozen numpy calls per level of the
tree rather than about a hundred per body.  For more states, the per-body recursions below (the
reference form, closest to the equations) run on blocks of states, each numpy call working on
thousands of states.  The articulated-body algorithm (``_aba``) is per body.  Measured (two
shared, loaded cores): one 44-dof state, tau about 4x faster a level at a time than per body
(1.3 ms against 5.2 ms); from a few dozen states on, the per-body form wins, because numpy's
products of stacked 6x6 matrices cost far more per state than the per-body form's row
operations (44 dof, 1024 states: H 62 against 148 us per state, tau 20 against 66).

Once per tree, each body's axes are turned so that its joint axis is z (a change
of body coordinates, which leaves tau, H and qdd unchanged): then S_i is a unit column and
X_J(q_i) mixes only the x and y components.  Inside the algorithms a batch of 6-vectors is a
(6, b) array, component first, so that the constant part X_T,i acts on all of them in one matrix
product.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from ._checks import STRUCTURE_TOL, as_array, as_spatial_inertia, batch_shape
from ._kernels import _skew

_G = (0.0, 0.0, -9.81)
_ROTATION_TOL = 1e-6          # as for every rotation the package accepts
_UNIT_TOL = 1e-9              # |n| = 1 for a joint axis


class _TreeFields(NamedTuple):
    parents: np.ndarray
    placements: np.ndarray
    axes: np.ndarray
    inertias: np.ndarray
    kinds: tuple = None
    joint_names: tuple = None
    offsets: np.ndarray = None


#: Joint kinds: one degree of freedom each, except "free" (6: a floating body).
KINDS = ("revolute", "continuous", "prismatic", "free")


class Tree(_TreeFields):
    """A kinematic tree of n bodies with one joint each (a named tuple, checked once here).

    Parameters
    ----------
    parents : sequence of int, shape (n,)
        ``parents[i]`` is the body that joint i attaches body i to; ``parents[i] < i``, and -1
        means the fixed base.
    placements : array_like, shape (n, 6, 6)
        ``placements[i]`` = X_T,i, the motion transform from the parent's coordinates to joint
        i's frame at q = 0: ``motion_transform(R, d)`` with R joint-frame -> parent-frame
        components and d the joint frame's origin in parent coordinates (m).  For a body on
        the base, "parent" means the base (world) frame.  Angular part first: a Pinocchio
        (linear-first) matrix is recognised and refused with the converter to use.
    axes : array_like, shape (n, 6)
        ``axes[i]`` = S_i, joint i's motion axis in body i's coordinates: revolute [n; 0]
        (a hinge along n through body i's origin) or prismatic [0; n], with n a unit vector
        (to 1e-9; float32 input to 2e-5, then normalised; the loaders normalise any non-zero
        axis, as Pinocchio and MuJoCo do); all zeros for a free joint.
    inertias : array_like, shape (n, 6, 6)
        Body i's spatial inertia about its own origin, in its own axes (``spatial_inertia``).
    kinds : sequence of str, optional
        Per joint "revolute", "continuous" (a revolute joint without limits; it matters only
        for Pinocchio's q), "prismatic" or "free"; by default revolute or prismatic as
        ``axes`` say.  A free joint (6 degrees of freedom) needs ``parents[i] == -1``.
    joint_names : sequence of str, optional
        n distinct names (default "joint0", "joint1", ...).
    offsets : array_like, shape (n,), optional
        For each one-dof joint, the source model's joint value at q_i = 0 (MuJoCo's
        ``qpos0``; used by ``mujoco_state``); 0 for free joints.  Default zeros.

    State (q has nq entries, qd, qdd and tau have nv; nq = nv unless there are free joints)
    ------------------------------------------------------------------------------------
    Joints in body order; a one-dof joint takes one entry of q and of qd.  A FREE joint takes
    7 entries of q and 6 of qd:

    - q: [p; quat], body i's origin p in the joint frame (the parent's frame moved by X_T,i),
      m, and its orientation as a unit quaternion [w, x, y, z] (its rotation R maps body axes
      to joint-frame axes);
    - qd: the body's twist in its own coordinates, angular first, [omega; v] (rad/s, m/s;
      v is the velocity of the body origin); qdd its time derivative (the body's spatial
      acceleration in body coordinates); tau the wrench [n; f] (N m, N) applied through the
      joint, in body coordinates, about the body origin.

    MuJoCo's free-joint qvel is [v in world axes; omega in body axes] and Pinocchio's v is
    [v; omega] in body axes (linear first, quaternion [x, y, z, w]): ``mujoco_state`` and
    ``pinocchio_state`` convert.  ``nq``, ``nv`` and ``joint_names`` tell the sizes.

    The fields are stored as read-only arrays (``parents`` as int, ``kinds`` and
    ``joint_names`` as tuples of str).  Bad input raises ``ValueError`` naming the field.
    ``Tree.from_mujoco(model)`` and ``Tree.from_urdf(path_or_xml)`` build a Tree from a
    robot description.

    Examples
    --------
    The door of chapter 8 as a one-body tree: hinge along z through the body origin O.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree(parents=[-1], placements=[sb.motion_transform(np.eye(3), [0, 0, 0])],
    ...                axes=[[0, 0, 1, 0, 0, 0]], inertias=[I_O])
    >>> door.parents, door.axes.shape, door.kinds, door.nq, door.nv
    (array([-1]), (1, 6), ('revolute',), 1, 1)

    The door flying free: 7 position numbers, 6 velocity numbers.

    >>> free = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I_O], kinds=["free"])
    >>> free.nq, free.nv
    (7, 6)
    """

    __slots__ = ()

    def __new__(cls, parents, placements, axes, inertias, kinds=None, joint_names=None, offsets=None):
        parents = _numbers("parents", parents)
        placements = _numbers("placements", placements)
        axes = _numbers("axes", axes)
        inertias = _numbers("inertias", inertias)
        n = _body_count(parents=parents, placements=placements, axes=axes, inertias=inertias)
        parents = _check_parents(parents, n)
        placements = _check_placements(placements, n)
        kinds = _check_kinds(kinds, axes, n)
        axes = _check_axes(axes, n, kinds)
        inertias = _check_inertias(inertias, n)
        for i, kind in enumerate(kinds):
            if kind == "free" and parents[i] != -1:
                raise ValueError(f"kinds: expected a free joint to attach its body to the base (parents[i] = -1), "
                                 f"but kinds[{i}] is free and parents[{i}] = {int(parents[i])}")
        joint_names = _check_names(joint_names, n)
        offsets = _check_offsets(offsets, n, kinds)
        for arr in (parents, placements, axes, inertias, offsets):
            arr.flags.writeable = False
        return super().__new__(cls, parents, placements, axes, inertias, kinds, joint_names, offsets)

    @classmethod
    def _make(cls, iterable):          # _replace goes through here: keep it checked
        return cls(*iterable)

    @property
    def nq(self) -> int:
        """The number of entries of ``q`` (1 per one-dof joint, 7 per free joint)."""
        return sum(7 if k == "free" else 1 for k in self.kinds)

    @property
    def nv(self) -> int:
        """The number of entries of ``qd``, ``qdd`` and ``tau`` (1 per one-dof joint, 6 per free joint)."""
        return sum(6 if k == "free" else 1 for k in self.kinds)

    @classmethod
    def from_mujoco(cls, model) -> "Tree":
        """The Tree of a ``mujoco.MjModel`` (see :func:`spatialbook.loaders.tree_from_mujoco`)."""
        from .loaders import tree_from_mujoco
        return tree_from_mujoco(model)

    @classmethod
    def from_urdf(cls, source, floating_base: bool = False, mimic: str = "refuse", balance_inertia: bool = False) -> "Tree":
        """The Tree of a URDF file path or XML text (see :func:`spatialbook.loaders.tree_from_urdf`)."""
        from .loaders import tree_from_urdf
        return tree_from_urdf(source, floating_base=floating_base, mimic=mimic, balance_inertia=balance_inertia)

    def mujoco_state(self, q, qd=None):
        """(qpos, qvel) of MuJoCo from this tree's (q, qd) (see :func:`spatialbook.loaders.mujoco_state`)."""
        from .loaders import mujoco_state
        return mujoco_state(self, q, qd)

    def state_from_mujoco(self, qpos, qvel=None):
        """(q, qd) of this tree from MuJoCo's (qpos, qvel); the inverse of ``mujoco_state``."""
        from .loaders import state_from_mujoco
        return state_from_mujoco(self, qpos, qvel)

    def pinocchio_state(self, q, qd=None):
        """(q, v) of Pinocchio from this tree's (q, qd) (see :func:`spatialbook.loaders.pinocchio_state`)."""
        from .loaders import pinocchio_state
        return pinocchio_state(self, q, qd)

    def state_from_pinocchio(self, q, v=None):
        """(q, qd) of this tree from Pinocchio's (q, v); the inverse of ``pinocchio_state``."""
        from .loaders import state_from_pinocchio
        return state_from_pinocchio(self, q, v)


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


def _check_tree(tree) -> Tree:
    if not isinstance(tree, Tree):
        raise ValueError(f"tree: expected a spatialbook.Tree(parents, placements, axes, inertias), got {type(tree).__name__}")
    return tree


def _joint_values(name: str, value, n: int, tree: Tree | None = None) -> np.ndarray:
    arr = _numbers(name, value)
    if arr.ndim == 0 or arr.shape[-1] != n:
        what = "one entry per joint of the tree"
        if tree is not None and "free" in tree.kinds:
            what = ("nq entries for q (1 per one-dof joint, 7 per free joint: position, quaternion w x y z)"
                    if name == "q" else "nv entries (1 per one-dof joint, 6 per free joint: [omega; v])")
        raise ValueError(f"{name}: expected an array of shape (..., {n}), {what}, got shape {arr.shape}")
    arr = as_array(name, arr, (n,))
    if name == "q" and tree is not None and "free" in tree.kinds:
        arr = _unit_quaternions(tree, arr)
    return arr


def _unit_quaternions(tree: Tree, q: np.ndarray, name: str = "q", unit: bool = True) -> np.ndarray:
    """q with each free joint's quaternion checked and normalised: unit to 1e-6 (as for
    rotations), or with ``unit=False`` any non-zero one (MuJoCo's reading of qpos, so that a
    rounded keyframe such as [0.7071, 0, 0, 0.7071] means 90 degrees about z)."""
    q = np.array(q, dtype=float)
    k = 0
    for kind, joint in zip(tree.kinds, tree.joint_names):
        if kind == "free":
            quat = q[..., k + 3:k + 7]
            norm = np.linalg.norm(quat, axis=-1, keepdims=True)
            where = f"in {name}[..., {k + 3}:{k + 7}] (free joint {joint!r})"
            if unit and np.any(np.abs(norm - 1.0) > _ROTATION_TOL):
                raise ValueError(
                    f"{name}: expected a unit quaternion [w, x, y, z] {where}, "
                    f"got |quat| = {float(norm.flat[np.argmax(np.abs(norm - 1.0))]):.9g}; normalise it")
            if not unit and np.any(norm < 1e-9):
                raise ValueError(f"{name}: expected a non-zero quaternion [w, x, y, z] {where}, got all zeros")
            quat /= norm
        k += 7 if kind == "free" else 1
    return q


def _gravity(value) -> np.ndarray:
    return as_array("gravity", _numbers("gravity", value), (3,))


def _rows(*arrays: np.ndarray) -> list[np.ndarray]:
    """Checked (..., k) arrays with one batch shape -> (B, k) arrays, B = batch size."""
    return [arr.reshape(-1, arr.shape[-1]) for arr in arrays]


def _broadcast(*items: tuple[str, np.ndarray, int]) -> list[np.ndarray]:
    """Broadcast the checked arrays' batch axes against each other (naming them if they clash)."""
    batch = batch_shape(*items)
    return [np.broadcast_to(arr, batch + arr.shape[arr.ndim - core:]) for _, arr, core in items]


# --- evaluation in blocks of states ---------------------------------------------------------
#
# Layout: inside the algorithms a batch of 6-vectors is a (6, b) array (component first), so
# each component is one contiguous row and a constant 6x6 matrix acts on all b vectors in one
# matrix product.  A large batch is evaluated in blocks of ``_STATES_PER_BLOCK`` states (each
# block one vectorized evaluation): a block's arrays stay in the CPU cache, and they are taken
# from an ``_Arena`` of buffers reused block after block, because numpy would allocate every
# large intermediate afresh, and the OS then maps in zeroed pages, which costs more than the
# arithmetic on them.

#: States per block in :func:`_in_blocks`.
_STATES_PER_BLOCK = 8192
#: Scratch numbers per block of the CRBA (its H and the carried wrenches grow as n^2 per state).
_CRBA_SCRATCH = 2**22


def _crba_block(tree) -> int:
    """States per block for the CRBA: its scratch (H, the wrenches carried toward the root)
    stays near ``_CRBA_SCRATCH`` numbers (32 MB), at least 256 and at most ``_STATES_PER_BLOCK``."""
    per_state = tree.nv * tree.nv + 12 * sum(len(sub) for sub in tree.subtree) + 20 * len(tree.parents)
    return int(min(_STATES_PER_BLOCK, max(256, _CRBA_SCRATCH // per_state)))


def _rnea_block(tree) -> int:
    """States per block for the RNEA: scratch (about 18 numbers per body and state) near
    ``_CRBA_SCRATCH`` numbers, between 1024 and ``_STATES_PER_BLOCK`` (measured: 44 dof runs
    faster at 4096 states per block than at 8192, a 6-body chain at 8192)."""
    return int(min(_STATES_PER_BLOCK, max(1024, _CRBA_SCRATCH // (18 * len(tree.parents) + 40))))


def _aba_block(tree) -> int:
    """States per block for the ABA: it keeps a 6x6 articulated inertia (and about 28 more
    numbers) per body and state; scratch near ``_CRBA_SCRATCH`` numbers, at least 512."""
    return int(min(_STATES_PER_BLOCK, max(512, _CRBA_SCRATCH // (64 * len(tree.parents) + 64))))


#: ``forward_dynamics(method="auto")`` uses the ABA from this many degrees of freedom (measured).
_ABA_FROM_DOF = 12


class _Arena:
    """Named scratch arrays, reused: ``arena("V", 6, b)`` is a contiguous (6, b) array."""

    def __init__(self):
        self._flat: dict[str, np.ndarray] = {}

    def __call__(self, name: str, *shape: int) -> np.ndarray:
        size = math.prod(shape)
        flat = self._flat.get(name)
        if flat is None or flat.size < size:
            flat = self._flat[name] = np.empty(size)
        return flat[:size].reshape(shape)


def _in_blocks(kernel, shape: tuple[int, ...], *inputs: np.ndarray, block: int = 0) -> np.ndarray:
    """``kernel(*columns, arena)`` on blocks of states, gathered into a (B,) + shape array.

    ``inputs`` are checked (B, k) arrays (batch first); each block of them is handed to the
    kernel transposed, as contiguous (k, b) arrays, and the kernel returns shape + (b,)."""
    B = inputs[0].shape[0]
    out = np.empty((B,) + shape)
    arena = _Arena()
    step = block or _STATES_PER_BLOCK
    for start in range(0, B, step):
        block = slice(start, start + step)
        columns = []
        for k, arr in enumerate(inputs):
            col = arena(f"in{k}", arr.shape[1], len(range(*block.indices(B))))
            col[...] = arr[block].T
            columns.append(col)
        out[block] = np.moveaxis(kernel(*columns, arena), -1, 0)
    return out


# --- the tree in aligned body coordinates (once per tree) ------------------------------------
#
# Each body's axes are turned once per tree so that its joint axis is z: S_i = e_z (revolute,
# row 2) or e_z of the linear part (prismatic, row 5), and X_J(q_i) changes only the x and y
# rows.  That is a change of body coordinates, so tau, H and qdd are unchanged; the q = 0
# placements and the inertias are re-expressed to match.


class _Aligned(NamedTuple):
    """A tree in aligned body coordinates (constant per tree)."""
    parents: tuple
    prismatic: tuple        # per body: True for a prismatic joint
    row: tuple              # per body: the row of S_i = e_row (2 revolute, 5 prismatic)
    T: np.ndarray           # (n, 6, 6) X_T,i between aligned frames
    Tt: np.ndarray          # (n, 6, 6) its transpose, contiguous
    I: np.ndarray           # (n, 6, 6) inertias in aligned body axes
    I_params: np.ndarray    # (n, 10, 1) the same as [xx yy zz xy xz yz hx hy hz m]
    congruence: np.ndarray  # (n, 10, 10) X_T,i^T (.) X_T,i acting on those 10 numbers
    subtree: tuple          # per body: its subtree's bodies, itself first (children's in order)
    slot: tuple             # per body: where its subtree starts in its parent's subtree
    free: tuple             # per body: True for a free joint (6 dof; no alignment)
    iq: tuple               # per body: its first entry in q
    iv: tuple               # per body: its first entry in qd, qdd, tau
    nq: int
    nv: int
    levels: tuple           # the one-dof bodies by depth: (bodies, parents (n for the base)) arrays


def _axis_frame(n: np.ndarray) -> np.ndarray:
    """A rotation Q whose third column is the unit vector n (its columns: new axes, old coords)."""
    a = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = a - (a @ n) * n
    x /= np.linalg.norm(x)
    return np.column_stack((x, np.cross(n, x), n))


_INERTIA_ROWS = np.array([0, 1, 2, 0, 0, 1])
_INERTIA_COLS = np.array([0, 1, 2, 1, 2, 2])


def _inertia_params(M: np.ndarray) -> np.ndarray:
    """[Ixx Iyy Izz Ixy Ixz Iyz hx hy hz m] of [[I, [h]x], [-[h]x, m E]] (h = m c)."""
    return np.concatenate((M[_INERTIA_ROWS, _INERTIA_COLS], [M[2, 4], M[0, 5], M[1, 3], M[3, 3]]))


def _inertia_matrix(p: np.ndarray) -> np.ndarray:
    M = np.zeros((6, 6))
    M[_INERTIA_ROWS, _INERTIA_COLS] = M[_INERTIA_COLS, _INERTIA_ROWS] = p[:6]
    M[:3, 3:] = _skew(p[6:9])
    M[3:, :3] = -M[:3, 3:]
    M[3:, 3:] = p[9] * np.eye(3)
    return M


@functools.lru_cache(maxsize=64)
def _aligned_cached(n: int, parents: bytes, placements: bytes, axes: bytes, inertias: bytes, free: tuple) -> _Aligned:
    parents_ = np.frombuffer(parents, dtype=int)
    X_T = np.frombuffer(placements).reshape(n, 6, 6)
    S = np.frombuffer(axes).reshape(n, 6)
    I = np.frombuffer(inertias).reshape(n, 6, 6)
    prismatic = tuple(bool(np.any(S[i, 3:])) and not free[i] for i in range(n))
    P = np.zeros((n, 6, 6))                  # P_i = diag(Q_i, Q_i): aligned -> given body axes
    for i in range(n):
        Q = np.eye(3) if free[i] else _axis_frame(S[i, 3:] if prismatic[i] else S[i, :3])
        P[i, :3, :3] = P[i, 3:, 3:] = Q
    T = np.stack([P[i].T @ X_T[i] @ (P[parents_[i]] if parents_[i] >= 0 else np.eye(6)) for i in range(n)])
    I_al = np.stack([P[i].T @ I[i] @ P[i] for i in range(n)])
    basis = [_inertia_matrix(e) for e in np.eye(10)]
    congruence = np.stack([np.column_stack([_inertia_params(T[i].T @ M @ T[i]) for M in basis]) for i in range(n)])
    subtree, slot = [[i] for i in range(n)], [0] * n
    for i in reversed(range(n)):
        p = int(parents_[i])
        if p >= 0:
            slot[i] = len(subtree[p])
            subtree[p] += subtree[i]
    iq = np.concatenate(([0], np.cumsum([7 if f else 1 for f in free])))
    iv = np.concatenate(([0], np.cumsum([6 if f else 1 for f in free])))
    depth = [0] * n                          # bodies on the base at depth 0
    for i in range(n):
        depth[i] = 0 if parents_[i] < 0 else depth[parents_[i]] + 1
    levels = []
    for d in range(max(depth) + 1):
        bodies = np.array([i for i in range(n) if depth[i] == d and not free[i]], dtype=int)
        if bodies.size:
            levels.append((bodies, np.array([parents_[i] if parents_[i] >= 0 else n for i in bodies], dtype=int)))
    return _Aligned(tuple(int(p) for p in parents_), prismatic, tuple(5 if pr else 2 for pr in prismatic),
                    T, np.ascontiguousarray(np.swapaxes(T, 1, 2)), I_al,
                    np.stack([_inertia_params(M) for M in I_al])[:, :, None], congruence,
                    tuple(tuple(s) for s in subtree), tuple(slot), tuple(free),
                    tuple(int(k) for k in iq[:-1]), tuple(int(k) for k in iv[:-1]), int(iq[-1]), int(iv[-1]),
                    tuple(levels))


def _aligned(tree: Tree) -> _Aligned:
    n = len(tree.parents)
    return _aligned_cached(n, tree.parents.astype(int).tobytes(), tree.placements.tobytes(),
                           tree.axes.tobytes(), tree.inertias.tobytes(), tuple(k == "free" for k in tree.kinds))


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


def _rnea(tree: _Aligned, q, qd, qdd, g, arena: _Arena) -> np.ndarray:
    """tau (nv, b) from q (nq, b), qd, qdd (nv, b) and g (3, b), in aligned body coordinates."""
    parents, row, free, iq, iv = tree.parents, tree.row, tree.free, tree.iq, tree.iv
    n, b = len(parents), q.shape[1]
    X = _transforms(tree, q, arena)
    VA, F = arena("VA", n + 1, 6, 2, b), arena("F", n, 6, b)   # VA[i] = [V_i, A_i]; VA[n]: base
    VA[n] = 0.0                                          # the base at rest,
    np.negative(g, out=VA[n, 3:, 1])                     # accelerating at -g
    IVA, crf = arena("IVA", 6, 2, b), arena("crf", 6, b)
    for i in range(n):                                   # outward
        V_i, A_i = VA[i, :, 0], VA[i, :, 1]
        if free[i]:                                      # V_i = qd, A_i = qdd + X_i [0; -g]
            V_i[...] = qd[iv[i]:iv[i] + 6]
            A_i[...] = qdd[iv[i]:iv[i] + 6]
            A_i[3:] -= _gravity_in_body(tree.T[i], q[iq[i] + 3:iq[i] + 7], g, arena("grav", 3, b), arena)
        else:
            _motion(X[i], VA[parents[i]], VA[i], arena)  # [X_i V_p, X_i A_p]  (VA[-1] is the base)
            k = iv[i]
            V_i[row[i]] += qd[k]                         # V_i = X_i V_p + S_i qd_i
            A_i[row[i]] += qdd[k]                        # A_i = X_i A_p + S_i qdd_i + (V_i x S_i) qd_i
            _add_velocity_product(A_i, V_i, row[i], qd[k], arena)
        _matmul(tree.I[i], VA[i], IVA)                   # [I_i V_i, I_i A_i]
        np.add(IVA[:, 1], _crf(V_i, IVA[:, 0], crf, arena), out=F[i])   # F_i = I_i A_i + V_i x* I_i V_i
    tau, back = arena("tau", tree.nv, b), arena("back", 6, b)
    for i in reversed(range(n)):                         # inward
        if free[i]:
            tau[iv[i]:iv[i] + 6] = F[i]                  # tau = S^T F_i with S = E
            continue
        tau[iv[i]] = F[i, row[i]]                        # tau_i = S_i^T F_i
        if parents[i] >= 0:
            F[parents[i]] += _force_back(X[i], F[i], back, arena)   # F_p += X_i^T F_i
    return tau


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


def _crba(tree: _Aligned, q, arena: _Arena) -> np.ndarray:
    """H (nv, nv, b) from q (nq, b), in aligned body coordinates."""
    parents, row, subtree, slot, free, iv = tree.parents, tree.row, tree.subtree, tree.slot, tree.free, tree.iv
    n, b = len(parents), q.shape[1]
    X = _transforms(tree, q, arena)
    Ic, back = arena("Ic", n, 10, b), arena("Ic_back", 10, b)
    Ic[...] = tree.I_params                              # I^c_i = I_i + (children, added below)
    H = arena("H", tree.nv, tree.nv, b)
    H[...] = 0.0
    # F[i]: the wrenches I^c_j S_j of every body j in i's subtree, in i's coordinates
    F = [arena(f"F{i}", 6, len(subtree[i]), b) for i in range(n)]
    for i in reversed(range(n)):                         # leaves first
        v = iv[i]
        cols = [iv[j] for j in subtree[i][1:]]           # the one-dof joints below i
        if free[i]:                                      # S = E: H_ii = I^c_i, H_ij = I^c_j S_j carried to i
            H[v:v + 6, v:v + 6] = _inertia_matrices(Ic[i], arena("Ic6", 6, 6, b))
            if cols:
                H[v:v + 6, cols] = F[i][:, 1:]
                H[cols, v:v + 6] = np.swapaxes(F[i][:, 1:], 0, 1)
            continue                                     # a free body sits on the base
        _composite_times_axis(Ic[i], row[i], F[i][:, 0])
        cols = [v] + cols
        H[v, cols] = F[i][row[i]]                        # H_ij = S_i^T (X^T ... I^c_j S_j)
        H[cols, v] = F[i][row[i]]
        p = parents[i]
        if p >= 0:
            Ic[p] += _inertia_back(X[i], Ic[i], back, arena)        # I^c_p += X_i^T I^c_i X_i
            carried = _force_back(X[i], F[i], arena("F_back", *F[i].shape), arena)
            F[p][:, slot[i]:slot[i] + len(subtree[i])] = carried     # ... carried toward the root
    return H


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
    tmp66, back66 = arena("aba_tmp66", 6, 6, b), arena("aba_back66", 6, 6, b)
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
        np.subtract(IA[i], UD[:, None] * U[i][None, :], out=Ia)             # I^a = I^A - U U^T / D
        np.einsum("jkb,kb->jb", Ia, c[i], out=pa)
        pa += pA[i]
        pa += UD * u[i]                                  # p^a = p^A + I^a c + U u / D
        _force_back(X[i], Ia, tmp66, arena)              # X^T I^a
        np.copyto(back66, np.swapaxes(tmp66, 0, 1))      # (X^T I^a)^T = I^a X
        IA[p] += _force_back(X[i], back66, tmp66, arena)  # X^T I^a X
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


# --- the same algorithms a depth level at a time, for a few states ---------------------------
#
# For one state (or a handful) the kernels above cost about a hundred small numpy calls per
# body, whatever the batch.  Here the bodies at one depth of the tree are handled together:
# their transforms are stacked (k, B, 6, 6) matrices, built for all bodies at once, so a call
# costs a few dozen numpy calls per LEVEL.  Same equations, same aligned coordinates.

#: Up to this many states, inverse_dynamics and mass_matrix go a level at a time (measured).
_LEVELWISE_STATES = 8


def _dense_transforms(tree: _Aligned, q: np.ndarray) -> np.ndarray:
    """X (n, B, 6, 6): X_i = X_J(q_i) X_T,i for the one-dof bodies (identity for free ones),
    from q (B, nq)."""
    n, B = len(tree.parents), q.shape[0]
    one = [i for i in range(n) if not tree.free[i]]
    qi = q[:, [tree.iq[i] for i in one]].T                # (m, B)
    J = np.zeros((len(one), B, 6, 6))
    idx = np.arange(6)
    J[:, :, idx, idx] = 1.0
    prism = np.array([tree.prismatic[i] for i in one], dtype=bool)
    c, s = np.cos(qi), np.sin(qi)
    rev = ~prism
    for r0 in (0, 3):                                     # diag(Rz^T, Rz^T)
        J[rev, :, r0, r0] = c[rev]
        J[rev, :, r0 + 1, r0 + 1] = c[rev]
        J[rev, :, r0, r0 + 1] = s[rev]
        J[rev, :, r0 + 1, r0] = -s[rev]
    J[prism, :, 3, 1] = qi[prism]                         # -[z q]x in the lower left
    J[prism, :, 4, 0] = -qi[prism]
    X = np.zeros((n, B, 6, 6))
    X[:, :, idx, idx] = 1.0
    if one:
        X[one] = J @ tree.T[one][:, None]
    return X


def _dense_S(tree: _Aligned) -> np.ndarray:
    S = np.zeros((len(tree.parents), 6))
    for i in range(len(tree.parents)):
        if not tree.free[i]:
            S[i, tree.row[i]] = 1.0
    return S


# V x* F = [w x n + v x f; w x f] as 9 cross-product components gathered from V and F, then
# summed into 6 by a constant matrix: a handful of numpy calls for any stack of vectors.
_P1, _P2 = [1, 2, 0], [2, 0, 1]
_CRF_V1 = np.array([0, 1, 2, 3, 4, 5, 0, 1, 2])[np.r_[_P1, np.add(_P1, 3), np.add(_P1, 6)]]
_CRF_V2 = np.array([0, 1, 2, 3, 4, 5, 0, 1, 2])[np.r_[_P2, np.add(_P2, 3), np.add(_P2, 6)]]
_CRF_F1 = np.array([0, 1, 2, 3, 4, 5, 3, 4, 5])[np.r_[_P1, np.add(_P1, 3), np.add(_P1, 6)]]
_CRF_F2 = np.array([0, 1, 2, 3, 4, 5, 3, 4, 5])[np.r_[_P2, np.add(_P2, 3), np.add(_P2, 6)]]
_CRF_SUM = np.zeros((9, 6))
_CRF_SUM[[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 0, 1, 2, 3, 4, 5]] = 1.0


def _crf_times(V: np.ndarray, F: np.ndarray) -> np.ndarray:
    """V x* F for (..., 6): [w x n + v x f; w x f]."""
    return (V[..., _CRF_V1] * F[..., _CRF_F2] - V[..., _CRF_V2] * F[..., _CRF_F1]) @ _CRF_SUM


def _velocity_product_matrix(S: np.ndarray) -> np.ndarray:
    """C^T with V x S = C V = -crm(S) V, for the rows V @ C^T."""
    from .dynamics import _crm
    return np.swapaxes(-_crm(S), -1, -2)


def _free_gravity(tree: _Aligned, q: np.ndarray, g: np.ndarray, i: int) -> np.ndarray:
    """R^T g (B, 3) for free body i: R = R_T R_q (see _gravity_in_body)."""
    u = g @ tree.T[i][:3, :3].T
    quat = q[:, tree.iq[i] + 3:tree.iq[i] + 7]
    w, r = quat[:, :1], quat[:, 1:]
    ru = np.cross(r, u)
    return u - 2 * w * ru + 2 * np.cross(r, ru)


def _rnea_levels(tree: _Aligned, q, qd, qdd, g) -> np.ndarray:
    """tau (B, nv) from q (B, nq), qd, qdd (B, nv), g (B, 3), a depth level at a time."""
    n, B = len(tree.parents), q.shape[0]
    X = _dense_transforms(tree, q)
    VA, F = np.zeros((n + 1, B, 6, 2)), np.zeros((n, B, 6))   # VA[i] = [V_i, A_i]; VA[n]: base
    VA[n, :, 3:, 1] = -g                                  # the base accelerates at -g
    for i in range(n):
        if tree.free[i]:
            k = tree.iv[i]
            VA[i, :, :, 0], VA[i, :, :, 1] = qd[:, k:k + 6], qdd[:, k:k + 6]
            VA[i, :, 3:, 1] -= _free_gravity(tree, q, g, i)
            IVA = tree.I[i] @ VA[i]
            F[i] = IVA[..., 1] + _crf_times(VA[i, ..., 0], IVA[..., 0])
    for bodies, par, cols, Sl, Ct, dup in _level_data(tree):      # outward
        Y = X[bodies] @ VA[par]                           # [X V_p, X A_p]  (k, B, 6, 2)
        qdl = qd[:, cols].T[..., None]                    # (k, B, 1)
        Y[..., 0] += Sl * qdl                             # V = X V_p + S qd
        Y[..., 1] += Sl * qdd[:, cols].T[..., None] + (Y[..., None, :, 0] @ Ct)[..., 0, :] * qdl   # A = X A_p + S qdd + (V x S) qd
        VA[bodies] = Y
        IY = tree.I[bodies][:, None] @ Y
        F[bodies] = IY[..., 1] + _crf_times(Y[..., 0], IY[..., 0])  # F = I A + V x* I V
    tau = np.empty((B, tree.nv))
    for bodies, par, cols, Sl, Ct, dup in reversed(_level_data(tree)):   # inward
        Fl = F[bodies]
        tau[:, cols] = (Fl * Sl).sum(axis=-1).T           # tau = S^T F
        back = (Fl[..., None, :] @ X[bodies])[..., 0, :]  # X^T F (as rows: F^T X)
        inner = par < n
        if dup:
            np.add.at(F, par[inner], back[inner])
        elif inner.all():
            F[par] += back
        else:
            F[par[inner]] += back[inner]
    for i in range(n):
        if tree.free[i]:
            tau[:, tree.iv[i]:tree.iv[i] + 6] = F[i]
    return tau


_LEVEL_DATA: dict = {}


def _level_data(tree: _Aligned) -> list:
    """Per level: bodies, parents (n for the base), their qd columns, S rows (k, 1, 6), the
    velocity-product matrices C^T (k, 1, 6, 6), and whether two bodies share a parent."""
    key = id(tree)
    hit = _LEVEL_DATA.get(key)
    if hit is not None and hit[0] is tree:
        return hit[1]
    S = _dense_S(tree)
    iv = np.array(tree.iv)
    n = len(tree.parents)
    out = []
    for bodies, par in tree.levels:
        inner = par[par < n]
        out.append((bodies, par, iv[bodies], S[bodies][:, None, :], _velocity_product_matrix(S[bodies])[:, None],
                    len(set(inner.tolist())) != len(inner)))
    if len(_LEVEL_DATA) > 64:
        _LEVEL_DATA.clear()
    _LEVEL_DATA[key] = (tree, out)
    return out


def _crba_levels(tree: _Aligned, q) -> np.ndarray:
    """H (B, nv, nv) from q (B, nq), a depth level at a time: composite inertias inward, then
    every body's I^c_i S_i carried toward the root one step for all bodies at once."""
    n, B = len(tree.parents), q.shape[0]
    X, S = _dense_transforms(tree, q), _dense_S(tree)
    Ic = np.broadcast_to(tree.I[:, None], (n, B, 6, 6)).copy()
    for bodies, par in reversed(tree.levels):
        Xl = X[bodies]
        back = np.swapaxes(Xl, -1, -2) @ Ic[bodies] @ Xl  # X^T I^c X
        inner = par < n
        np.add.at(Ic, par[inner], back[inner])
    H = np.zeros((B, tree.nv, tree.nv))
    iv = np.array(tree.iv)
    one = np.array([i for i in range(n) if not tree.free[i]], dtype=int)
    parents = np.array(tree.parents)
    for i in range(n):
        if tree.free[i]:
            H[:, iv[i]:iv[i] + 6, iv[i]:iv[i] + 6] = Ic[i]
    if one.size == 0:
        return H
    Fc = (Ic[one] @ S[one][:, None, :, None])[..., 0]    # (m, B, 6): I^c_i S_i
    H[:, iv[one], iv[one]] = np.einsum("mbj,mj->bm", Fc, S[one])
    cur = one.copy()
    while True:                                           # carry to the parent, all at once
        Fc = (np.swapaxes(X[cur], -1, -2) @ Fc[..., None])[..., 0]
        cur = parents[cur]
        keep = cur >= 0
        if not keep.any():
            break
        one, cur, Fc = one[keep], cur[keep], Fc[keep]
        fr = np.array([tree.free[c] for c in cur], dtype=bool)
        sub = ~fr
        if sub.any():
            h = np.einsum("mbj,mj->bm", Fc[sub], S[cur[sub]])
            H[:, iv[cur[sub]], iv[one[sub]]] = h
            H[:, iv[one[sub]], iv[cur[sub]]] = h
        for k in np.flatnonzero(fr):                      # a free ancestor: all six rows
            c, j = cur[k], one[k]
            H[:, iv[c]:iv[c] + 6, iv[j]] = Fc[k]
            H[:, iv[j], iv[c]:iv[c] + 6] = Fc[k]
        one, cur, Fc = one[sub], cur[sub], Fc[sub]
        if cur.size == 0:
            break
    return H


# --- public functions --------------------------------------------------------------------


def inverse_dynamics(tree, q, qd, qdd, gravity=_G) -> np.ndarray:
    """Joint forces tau that produce joint accelerations qdd at (q, qd): the RNEA.

    Outward from the base (V = 0, A = -[0; g]) in each body's coordinates::

        X_i = X_J(q_i) X_T,i
        V_i = X_i V_p + S_i qd_i
        A_i = X_i A_p + S_i qdd_i + (V_i x S_i) qd_i
        F_i = I_i A_i + V_i x* (I_i V_i)

    then inward, leaves first: tau_i = S_i^T F_i and F_p += X_i^T F_i.  F_i is the wrench that
    joint i transmits to body i (its share along S_i is tau_i; the rest is the bearing's
    constraint wrench), referred to body i's origin in body i's axes.

    Parameters
    ----------
    tree : Tree
    q, qd, qdd : array_like, shape (..., n)
        Joint positions (rad or m), rates (rad/s or m/s), accelerations (rad/s^2 or m/s^2).
        Leading axes batch and broadcast against each other.
    gravity : array_like, shape (3,) or (..., 3)
        Acceleration of gravity in base coordinates, m/s^2; default (0, 0, -9.81).

    Returns
    -------
    ndarray, shape (..., n)
        tau_i in N m (revolute) or N (prismatic).

    Examples
    --------
    The door of chapter 8 (hinge along z): omega = 2 rad/s, alpha = 3 rad/s^2 needs 1.28 N m,
    with or without gravity along its vertical hinge.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [I_O])
    >>> sb.inverse_dynamics(door, [0.0], [2.0], [3.0]).round(12)
    array([1.28])
    >>> sb.inverse_dynamics(door, [[0.0], [1.0]], [2.0], [3.0], gravity=[0, 0, 0]).round(12)
    array([[1.28],
           [1.28]])

    The bifold door: a second leaf hinged at the first one's free edge (0.8 m out along x).
    Turning both rigidly together (qd_2 = qdd_2 = 0, leaves in line) takes tau_1 = H_11 alpha,
    and the second hinge must hold its leaf with tau_2 = H_21 alpha:

    >>> X_T2 = sb.motion_transform(np.eye(3), [sb.DOOR["width"], 0, 0])
    >>> bifold = sb.Tree([-1, 0], [np.eye(6), X_T2], [[0, 0, 1, 0, 0, 0]] * 2, [I_O, I_O])
    >>> sb.inverse_dynamics(bifold, [0.0, 0.0], [2.0, 0.0], [3.0, 0.0]).round(12)
    array([10.24,  3.2 ])
    """
    tree = _check_tree(tree)
    nq, nv = tree.nq, tree.nv
    q = _joint_values("q", q, nq, tree)
    qd, qdd = (_joint_values(name, v, nv, tree) for name, v in (("qd", qd), ("qdd", qdd)))
    g = _gravity(gravity)
    q, qd, qdd, g = _broadcast(("q", q, 1), ("qd", qd, 1), ("qdd", qdd, 1), ("gravity", g, 1))
    rows = _rows(q, qd, qdd, g)
    if rows[0].shape[0] <= _LEVELWISE_STATES:
        return _rnea_levels(_aligned(tree), *rows).reshape(qd.shape)
    aligned = _aligned(tree)
    tau = _in_blocks(functools.partial(_rnea, aligned), (nv,), *rows, block=_rnea_block(aligned))
    return tau.reshape(qd.shape)


def mass_matrix(tree, q) -> np.ndarray:
    """Joint-space mass matrix H(q) (symmetric, positive definite): the CRBA.

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
        Units kg m^2 (revolute-revolute), kg m (mixed), kg (prismatic-prismatic).

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
    (rows,) = _rows(q)
    if rows.shape[0] <= _LEVELWISE_STATES:
        return _crba_levels(_aligned(tree), rows).reshape(q.shape[:-1] + (nv, nv))
    aligned = _aligned(tree)
    H = _in_blocks(functools.partial(_crba, aligned), (nv, nv), rows, block=_crba_block(aligned))
    return H.reshape(q.shape[:-1] + (nv, nv))


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
      to 8 states per call (then both H and C are computed a tree level at a time).  Measured (two
      shared cores, 10^4 states, random revolute/prismatic trees): 5 dof CRBA 1.15x faster;
      11 dof ABA 1.3x; 23 dof ABA 1.9x; 43 dof ABA 3.8x (0.44 s against 1.7 s).  For one state
      per call both take about the same time (Python overhead per body dominates).

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
        method = "aba" if nv >= _ABA_FROM_DOF and q_.shape[0] > _LEVELWISE_STATES else "crba"
    if method == "crba" and q_.shape[0] <= _LEVELWISE_STATES:     # a few states: a level at a time
        C = _rnea_levels(aligned, q_, qd_, np.zeros_like(qd_), g_)
        H = _crba_levels(aligned, q_)
        try:
            return np.linalg.solve(H, (tau_ - C)[..., None])[..., 0].reshape(qd.shape)
        except np.linalg.LinAlgError:
            raise ValueError(_singular(tree, H, "the mass matrix H(q) is singular")) from None
    if method == "aba":
        with np.errstate(divide="ignore", invalid="ignore"):
            qdd = _in_blocks(functools.partial(_aba, aligned), (nv,), q_, qd_, tau_, g_, block=_aba_block(aligned))
        if not np.all(np.isfinite(qdd)):
            bad = ~np.all(np.isfinite(qdd), axis=-1)
            raise ValueError(_singular(tree, _crba_levels(aligned, q_[bad][:1]), "an articulated inertia is singular"))
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
