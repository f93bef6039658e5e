"""Where the bodies of a kinematic tree are, and how fast a body moves: poses and Jacobians
(book chapter 12).

Conventions as everywhere in the package (``spatialbook.__doc__``) and for trees
(``spatialbook.tree``): body i's frame is fixed in body i; joint i turns it (revolute, about
S_i = [n; 0] through its origin), slides it (prismatic, S_i = [0; n]) or frees it (a free joint,
q_i = [p; quat]) relative to joint i's frame, which is its parent's frame moved by the placement
X_T,i.  "World" is the base's frame.  Left superscripts name frames: ^iX_0 is the motion transform
from world coordinates to body i's, ^0X_i its inverse.

- ``body_poses``: each body's axes R_0i (body -> world components) and origin p_i (world).
  ``motion_transform(R_0i, p_i)`` is ^iX_0.
- ``jacobian``: the body's twist as a linear function of qd, V = J qd, the sum over the joints on
  its path of their motion subspaces carried to one frame (eq-ch12-twist-sum): J_s (world origin,
  world axes), J_b (the body's origin and axes) or the mixed form (its origin, world axes).
"""

from __future__ import annotations

import numpy as np

from ._checks import batch_shape
from ._kernels import _skew, _vee
from .transforms import _check_plucker, _motion_blocks
from ._tree_checks import _joint_values
from .tree import Tree, _check_tree


def _rotation_about(n: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Rotation by ``angle`` (rad, shape (...)) about the unit vector n (3,): Rodrigues' formula
    R = E + sin(a) [n]x + (1 - cos(a)) [n]x^2, batched over the angle's shape."""
    N = _skew(n)
    s, c = np.sin(angle)[..., None, None], np.cos(angle)[..., None, None]
    return np.eye(3) + s * N + (1.0 - c) * (N @ N)


def _quaternion_rotation(quat: np.ndarray) -> np.ndarray:
    """R (rotated axes -> reference components) of unit quaternions [w, x, y, z], shape (..., 4)."""
    w, x, y, z = np.moveaxis(quat, -1, 0)
    R = np.empty(quat.shape[:-1] + (3, 3))
    R[..., 0, 0], R[..., 0, 1], R[..., 0, 2] = 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)
    R[..., 1, 0], R[..., 1, 1], R[..., 1, 2] = 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)
    R[..., 2, 0], R[..., 2, 1], R[..., 2, 2] = 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)
    return R


def _placement_pose(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, d) of a motion transform X = motion_transform(R, d): X's diagonal block is R^T and its
    lower-left block -R^T [d]x."""
    R = np.swapaxes(X[..., :3, :3], -1, -2)
    return R, _vee(-R @ X[..., 3:, :3])


def _dof_slices(tree: Tree) -> tuple[list[slice], list[slice]]:
    """Each joint's entries of q and of qd."""
    q_at, v_at, k, j = [], [], 0, 0
    for kind in tree.kinds:
        nq, nv = (7, 6) if kind == "free" else (1, 1)
        q_at.append(slice(k, k + nq))
        v_at.append(slice(j, j + nv))
        k, j = k + nq, j + nv
    return q_at, v_at


def _poses(tree: Tree, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """body_poses on checked input: R (..., n, 3, 3), p (..., n, 3)."""
    n = len(tree.parents)
    batch = q.shape[:-1]
    R = np.empty(batch + (n, 3, 3))
    p = np.empty(batch + (n, 3))
    q_at, _ = _dof_slices(tree)
    for i, (parent, kind) in enumerate(zip(tree.parents, tree.kinds)):
        R_T, d_T = _placement_pose(tree.placements[i])          # joint frame in the parent's
        qi = q[..., q_at[i]]
        if kind == "free":                                       # body in the joint frame
            R_J, d_J = _quaternion_rotation(qi[..., 3:]), qi[..., :3]
        elif kind == "prismatic":
            R_J, d_J = np.broadcast_to(np.eye(3), batch + (3, 3)), qi * tree.axes[i, 3:]
        else:
            R_J, d_J = _rotation_about(tree.axes[i, :3], qi[..., 0]), np.zeros(batch + (3,))
        R_pi = R_T @ R_J                                          # body axes -> parent axes
        p_pi = d_T + (R_T @ d_J[..., None])[..., 0]              # body origin in the parent
        if parent < 0:
            R[..., i, :, :], p[..., i, :] = R_pi, p_pi
        else:
            R[..., i, :, :] = R[..., parent, :, :] @ R_pi
            p[..., i, :] = p[..., parent, :] + (R[..., parent, :, :] @ p_pi[..., None])[..., 0]
    return R, p


def body_poses(tree, q) -> tuple[np.ndarray, np.ndarray]:
    """Every body's orientation and position in world coordinates (forward kinematics).

    Outward from the base, each body's pose in its parent's frame is the placement X_T,i
    followed by the joint's motion: R_pi = R_T,i R_J(q_i) and p_pi = d_T,i + R_T,i d_J(q_i)
    (revolute: R_J a turn by q_i about n, d_J = 0; prismatic: R_J = E, d_J = n q_i; free:
    R_J from the quaternion, d_J = p), then R_0i = R_0p R_pi and p_i = p_p + R_0p p_pi.

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., nq)
        Joint positions (rad, m; a free joint's [x, y, z, qw, qx, qy, qz]).

    Returns
    -------
    R : ndarray, shape (..., n, 3, 3)
        R[..., i, :, :] maps body i's components to world components (its columns are body i's
        axes in world coordinates).
    p : ndarray, shape (..., n, 3)
        Body i's origin in world coordinates, m.  ``motion_transform(R, p)`` gives ^iX_0, the
        motion transform from world coordinates to body i's, for every body at once.

    Examples
    --------
    The bifold door folded by 90 degrees: the second leaf's hinge is 0.8 m out along x, and its
    axes are turned by q_1 + q_2 about z.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> X_T2 = sb.motion_transform(np.eye(3), [0.8, 0, 0])
    >>> bifold = sb.Tree([-1, 0], [np.eye(6), X_T2], [[0, 0, 1, 0, 0, 0]] * 2, [I_O, I_O])
    >>> R, p = sb.body_poses(bifold, [np.pi / 2, np.pi / 2])
    >>> p.round(12) + 0.0
    array([[0. , 0. , 0. ],
           [0. , 0.8, 0. ]])
    >>> np.allclose(R[1], sb.rotation_z(np.pi))
    True
    """
    tree = _check_tree(tree)
    q = _joint_values("q", q, tree.nq, tree)
    return _poses(tree, q)


def _body_index(tree: Tree, body) -> int:
    n = len(tree.parents)
    if isinstance(body, str):
        if body not in tree.joint_names:
            raise ValueError(f"body: expected a body index 0..{n - 1} or one of the joint names "
                             f"{list(tree.joint_names)!r:.200}, got {body!r:.60}")
        return tree.joint_names.index(body)
    if isinstance(body, (bool, np.bool_)) or not isinstance(body, (int, np.integer)) or not 0 <= body < n:
        text = repr(body)
        raise ValueError(f"body: expected a body index 0..{n - 1} (an int) or a joint name, "
                         f"got {text if len(text) <= 60 else 'a ' + type(body).__name__}")
    return int(body)


_FRAMES = ("space", "body", "mixed")


def _check_frame(frame) -> str:
    if not isinstance(frame, str) or frame not in _FRAMES:
        raise ValueError(f"frame: expected 'space', 'body' or 'mixed', got {frame!r:.60}")
    return frame


def _check_placement(placement) -> np.ndarray:
    X = _check_plucker("placement", placement)
    if not np.allclose(X[..., :3, 3:], 0.0, atol=1e-12 * max(1.0, float(np.max(np.abs(X), initial=0.0)))):
        raise ValueError("placement: expected a motion transform (upper-right block 0), got a force transform")
    return X


def _path(tree: Tree, i: int) -> list[int]:
    """The joints from the base to body i, root first."""
    path = []
    while i >= 0:
        path.append(i)
        i = int(tree.parents[i])
    return path[::-1]


def jacobian(tree, q, body, frame="space", placement=None) -> np.ndarray:
    """The Jacobian of a body (or of a frame h fixed in it): its twist is V = J qd.

    Unrolling the outward velocity recursion V_i = X_i V_p + S_i qd_i from the fixed base gives
    the sum over the joints j on the body's path, each joint's motion subspace carried to one
    frame (chapter 12, eq-ch12-twist-sum)::

        space  J_s = [ ^0X_j S_j ... ]             world origin, world axes   (MR's J_s)
        body   J_b = ^hX_0 J_s                     h's origin, h's axes       (MR's J_b)
        mixed  J_m = diag(R_0h, R_0h) J_b          h's origin, world axes

    with ^hX_0 = placement ^iX_0.  Columns of joints off the path are zero; a free joint on the
    path contributes six columns (its S is the identity in its body's coordinates).  The linear
    part of J_s qd is the velocity of the body-fixed point passing through the world origin;
    that of J_b qd and J_m qd is the velocity of h's origin.  Pinocchio's WORLD, LOCAL and
    LOCAL_WORLD_ALIGNED Jacobians are these three with the rows (and a free joint's columns)
    linear first; MuJoCo's ``mj_jacBody`` gives the mixed form's rows (jacp, jacr).

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., nq)
    body : int or str
        The body's index (body i is moved by joint i) or its joint's name.
    frame : {"space", "body", "mixed"}
    placement : array_like, shape (..., 6, 6), optional
        ^hX_i, the motion transform from body i's coordinates to a frame h fixed in body i (a
        tool, a flange welded to the last link).  Default: h is body i's own frame.

    Returns
    -------
    ndarray, shape (..., 6, nv)
        Rows angular first; units 1 (angular rows of revolute columns), m (linear rows of
        revolute columns), 1 (linear rows of prismatic columns).

    Examples
    --------
    The bifold door's second leaf, its hinges along z: in the world frame each column is the
    hinge's screw axis [n; -n x p] (the first hinge at the origin, the second 0.8 m out).

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> X_T2 = sb.motion_transform(np.eye(3), [0.8, 0, 0])
    >>> bifold = sb.Tree([-1, 0], [np.eye(6), X_T2], [[0, 0, 1, 0, 0, 0]] * 2, [I_O, I_O])
    >>> sb.jacobian(bifold, [0.0, 0.3], body=1).round(12) + 0.0
    array([[ 0. ,  0. ],
           [ 0. ,  0. ],
           [ 1. ,  1. ],
           [ 0. ,  0. ],
           [ 0. , -0.8],
           [ 0. ,  0. ]])

    At the second leaf's hinge (mixed: its origin, world axes) the second column has no linear part:

    >>> sb.jacobian(bifold, [0.0, 0.3], body=1, frame="mixed")[:, 1].round(12) + 0.0
    array([0., 0., 1., 0., 0., 0.])
    """
    tree = _check_tree(tree)
    q = _joint_values("q", q, tree.nq, tree)
    i = _body_index(tree, body)
    frame = _check_frame(frame)
    X_hi = np.eye(6) if placement is None else _check_placement(placement)
    batch = batch_shape(("q", q, 1), ("placement", X_hi, 2))
    R, p = _poses(tree, q)
    _, v_at = _dof_slices(tree)
    J = np.zeros(batch + (6, tree.nv))
    for j in _path(tree, i):
        X_0j = _motion_blocks(np.swapaxes(R[..., j, :, :], -1, -2), -(np.swapaxes(R[..., j, :, :], -1, -2)
                                                                      @ p[..., j, :, None])[..., 0])
        S = np.eye(6) if tree.kinds[j] == "free" else tree.axes[j][:, None]
        J[..., :, v_at[j]] = X_0j @ S                              # ^0X_j S_j
    if frame == "space":
        return J
    X_h0 = X_hi @ _motion_blocks(R[..., i, :, :], p[..., i, :])   # ^hX_0 = ^hX_i ^iX_0
    J_b = X_h0 @ J
    if frame == "body":
        return J_b
    R_0h = np.swapaxes(X_h0[..., :3, :3], -1, -2)                 # h's axes in world coordinates
    return np.concatenate([R_0h @ J_b[..., :3, :], R_0h @ J_b[..., 3:, :]], axis=-2)
