"""Skew matrices, rotations and the motion / force transforms (book chapters 2 and 4).

Conventions (stated once for the package, see ``spatialbook.__doc__``): 6-vectors
are angular part first; ``rotation`` R maps NEW-frame components to OLD-frame
components; ``displacement`` d = x_new - x_old points from the OLD reference
point to the NEW one, written in OLD axes.
"""

from __future__ import annotations

import numpy as np

from ._kernels import _cross, _largest, _normalised, _skew, _vee
from ._checks import _allclose, _scale, batch_shape, as_array, as_matrix6, as_rotation, as_scalar, as_vector3, as_vector6


def skew(v) -> np.ndarray:
    """Skew-symmetric matrix [v]x, so that ``skew(v) @ u == cross(v, u)``.

    Parameters
    ----------
    v : array_like, shape (..., 3)
        Any 3-vector (units carry over to the matrix).

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> import spatialbook as sb
    >>> sb.skew([1, 2, 3])
    array([[ 0., -3.,  2.],
           [ 3.,  0., -1.],
           [-2.,  1.,  0.]])
    """
    return _skew(as_vector3("v", v))


def unskew(S) -> np.ndarray:
    """The vector v of a skew matrix S = [v]x (inverse of :func:`skew`).

    >>> import spatialbook as sb
    >>> sb.unskew(sb.skew([1, 2, 3]))
    array([1., 2., 3.])
    """
    S = as_array("S", S, (3, 3))
    if not _allclose(S, -np.swapaxes(S, -1, -2), 1e-9 * max(1.0, _scale(S)), 1e-5):
        raise ValueError("S: expected a skew-symmetric 3x3 matrix (S^T = -S)")
    return _vee(S)


def _axis_rotation(angle, i: int, j: int, name: str) -> np.ndarray:
    t = as_scalar(name, angle)
    c, s = np.cos(t), np.sin(t)
    R = np.zeros(t.shape + (3, 3))
    k = 3 - i - j
    R[..., k, k] = 1.0
    R[..., i, i] = c
    R[..., j, j] = c
    R[..., i, j] = -s
    R[..., j, i] = s
    return R


def rotation_x(angle) -> np.ndarray:
    """Rotation by ``angle`` (rad) about x: the new frame's axes in old coordinates (R new->old).

    >>> import spatialbook as sb
    >>> sb.rotation_x(0.0) + 0.0
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    return _axis_rotation(angle, 1, 2, "angle")


def rotation_y(angle) -> np.ndarray:
    """Rotation by ``angle`` (rad) about y (R new->old; columns are the new axes).

    >>> import numpy as np, spatialbook as sb
    >>> np.round(sb.rotation_y(np.pi / 2) @ [1.0, 0.0, 0.0], 12) + 0.0
    array([ 0.,  0., -1.])
    """
    return _axis_rotation(angle, 2, 0, "angle")


def rotation_z(angle) -> np.ndarray:
    """Rotation by ``angle`` (rad) about z (R new->old; columns are the new axes).

    A door turned by ``angle`` about its vertical hinge has body axes ``rotation_z(angle)``
    seen from the world.  Batches over the shape of ``angle``.

    >>> import numpy as np, spatialbook as sb
    >>> np.round(sb.rotation_z(np.pi / 2) @ [1.0, 0.0, 0.0], 12) + 0.0
    array([0., 1., 0.])
    """
    return _axis_rotation(angle, 0, 1, "angle")


def rotation_from_quaternion(quaternion) -> np.ndarray:
    """Rotation matrix (R new->old) of a quaternion [w, x, y, z]; it is normalised here.

    >>> import numpy as np, spatialbook as sb
    >>> half = np.pi / 4                       # 90 degrees about z
    >>> np.allclose(sb.rotation_from_quaternion([np.cos(half), 0, 0, np.sin(half)]), sb.rotation_z(np.pi / 2))
    True
    """
    q = as_array("quaternion", quaternion, (4,))
    largest = _largest(q)
    if np.any(largest == 0):
        raise ValueError("quaternion: expected a non-zero quaternion [w, x, y, z]")
    w, x, y, z = np.moveaxis(_normalised(q, largest), -1, 0)
    R = np.empty(q.shape[:-1] + (3, 3))
    R[..., 0, 0], R[..., 0, 1], R[..., 0, 2] = 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)
    R[..., 1, 0], R[..., 1, 1], R[..., 1, 2] = 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)
    R[..., 2, 0], R[..., 2, 1], R[..., 2, 2] = 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)
    return R


def _motion_blocks(R: np.ndarray, d: np.ndarray) -> np.ndarray:
    Rt = np.swapaxes(R, -1, -2)
    X = np.zeros(np.broadcast_shapes(R.shape[:-2], d.shape[:-1]) + (6, 6))
    X[..., :3, :3] = Rt
    X[..., 3:, 3:] = Rt
    X[..., 3:, :3] = -Rt @ _skew(d)
    return X


def motion_transform(rotation, displacement) -> np.ndarray:
    """Motion transform X (chapter 2, eq. (eq-ch02-X)): spatial velocity in OLD coordinates -> NEW coordinates.

    ``X = [[R^T, 0], [-R^T D, R^T]]`` with D = [d]x.  It shifts the reference point by d
    (v_new = v_old + omega x d) and then re-expresses both 3-blocks in the new axes.

    Parameters
    ----------
    rotation : array_like, shape (..., 3, 3)
        R, NEW-frame components -> OLD-frame components (columns: new axes in old coordinates).
    displacement : array_like, shape (..., 3)
        d = x_new - x_old in metres, in OLD axes.

    Returns
    -------
    ndarray, shape (..., 6, 6)
        Acts on angular-first twists [omega (rad/s); v (m/s)].

    Examples
    --------
    The door spins at 2 rad/s about its hinge O; its COM C lies 0.4 m along x:

    >>> import numpy as np, spatialbook as sb
    >>> X_CO = sb.motion_transform(np.eye(3), [0.4, 0, 0])
    >>> X_CO @ [0, 0, 2, 0, 0, 0]
    array([0. , 0. , 2. , 0. , 0.8, 0. ])
    """
    R = as_rotation("rotation", rotation)
    d = as_vector3("displacement", displacement)
    batch_shape(("rotation", R, 2), ("displacement", d, 1))
    return _motion_blocks(R, d)


def force_transform(rotation, displacement) -> np.ndarray:
    """Force transform X* = X^{-T}: spatial force in OLD coordinates -> NEW coordinates.

    ``X* = [[R^T, -R^T D], [0, R^T]]``: tau_new = R^T (tau_old - d x f), f_new = R^T f.
    Same arguments as :func:`motion_transform`; power V^T F is preserved.

    >>> import numpy as np, spatialbook as sb
    >>> X_CO_star = sb.force_transform(np.eye(3), [0.4, 0, 0])
    >>> np.round(X_CO_star @ [0, 0, 1.28, -3.2, 2.4, 0], 12) + 0.0
    array([ 0.  ,  0.  ,  0.32, -3.2 ,  2.4 ,  0.  ])
    """
    R = as_rotation("rotation", rotation)
    d = as_vector3("displacement", displacement)
    batch_shape(("rotation", R, 2), ("displacement", d, 1))
    Rt = np.swapaxes(R, -1, -2)
    X = np.zeros(np.broadcast_shapes(R.shape[:-2], d.shape[:-1]) + (6, 6))
    X[..., :3, :3] = Rt
    X[..., 3:, 3:] = Rt
    X[..., :3, 3:] = -Rt @ _skew(d)
    return X


def _check_plucker(name: str, X) -> np.ndarray:
    """X must be a motion transform (upper-right block 0) or a force transform (lower-left 0)."""
    X = as_matrix6(name, X)
    A, U, L, B = X[..., :3, :3], X[..., :3, 3:], X[..., 3:, :3], X[..., 3:, 3:]
    as_rotation(f"{name} (its diagonal 3x3 blocks)", np.swapaxes(A, -1, -2))
    if not _allclose(A, B, 1e-9, 1e-5):
        raise ValueError(f"{name}: expected equal diagonal blocks R^T (a motion or force transform)")
    scale = max(1.0, _scale(X))
    upper_zero = _allclose(U, 0.0, 1e-12 * scale)
    lower_zero = _allclose(L, 0.0, 1e-12 * scale)
    if not (upper_zero or lower_zero):
        raise ValueError(f"{name}: expected a motion transform (upper-right block 0) or a force transform (lower-left block 0)")
    off = L if upper_zero else U
    # off = -R^T D, so R @ off = -D must be skew-symmetric.
    RD = np.swapaxes(A, -1, -2) @ off
    if not _allclose(RD, -np.swapaxes(RD, -1, -2), 1e-9 * scale, 1e-5):
        raise ValueError(f"{name}: expected an off-diagonal block of the form -R^T [d]x")
    return X


def inverse_transform(X) -> np.ndarray:
    """Inverse of a motion or force transform, from its blocks (no general matrix inverse).

    For X = [[R^T, 0], [-R^T D, R^T]] the inverse is [[R, 0], [D R, R]]; for a force transform
    the upper-right block is treated alike.  The inverse maps NEW coordinates back to OLD.

    >>> import numpy as np, spatialbook as sb
    >>> X = sb.motion_transform(sb.rotation_z(0.3), [1, 2, 3])
    >>> np.allclose(sb.inverse_transform(X) @ X, np.eye(6))
    True
    """
    X = _check_plucker("X", X)
    return _inverse_blocks(X)


def _inverse_blocks(X: np.ndarray) -> np.ndarray:
    A = X[..., :3, :3]
    At = np.swapaxes(A, -1, -2)
    inv = np.zeros_like(X)
    inv[..., :3, :3] = At
    inv[..., 3:, 3:] = At
    inv[..., 3:, :3] = -At @ X[..., 3:, :3] @ At
    inv[..., :3, 3:] = -At @ X[..., :3, 3:] @ At
    return inv


def transform_vectors(X, vectors) -> np.ndarray:
    """Apply one or many 6x6 transforms to many 6-vectors at once: ``out[..., i] = X[..., i, j] v[..., j]``.

    Parameters
    ----------
    X : array_like, shape (6, 6) or (..., 6, 6)
        A motion transform for twists, a force transform for wrenches (or any 6x6 operator).
    vectors : array_like, shape (..., 6)
        Angular-first 6-vectors; leading axes broadcast against those of ``X``.

    >>> import numpy as np, spatialbook as sb
    >>> X = sb.motion_transform(np.eye(3), [0.4, 0, 0])
    >>> sb.transform_vectors(X, [[0, 0, 2, 0, 0, 0], [0, 0, 1, 0, 0, 0]])
    array([[0. , 0. , 2. , 0. , 0.8, 0. ],
           [0. , 0. , 1. , 0. , 0.4, 0. ]])
    """
    X = as_matrix6("X", X)
    V = as_vector6("vectors", vectors)
    batch_shape(("X", X, 2), ("vectors", V, 1))
    if X.ndim == 2:
        if V.size <= 6 * _ROWS_PER_CALL:
            return V @ X.T
        return _rows_times(V.reshape(-1, 6), X.T).reshape(V.shape)
    return np.einsum("...ij,...j->...i", X, V)


#: Rows per BLAS call in :func:`transform_vectors`.  A tall (n, 6) x (6, 6) product in one call
#: lets a threaded BLAS split it across cores, which on a busy machine is many times slower than
#: one core; blocks this small stay single-threaded and fit in cache.
_ROWS_PER_CALL = 4096


def _rows_times(rows: np.ndarray, M: np.ndarray) -> np.ndarray:
    """rows @ M for a tall (n, k) array, computed block by block."""
    out = np.empty((rows.shape[0], M.shape[1]))
    for start in range(0, rows.shape[0], _ROWS_PER_CALL):
        stop = start + _ROWS_PER_CALL
        np.matmul(rows[start:stop], M, out=out[start:stop])
    return out


def shift_twist(velocity, displacement) -> np.ndarray:
    """Move a twist's reference point by d, axes unchanged: [omega; v + omega x d].

    The velocity-field rule v_Q = v_P + omega x d (book chapter 1).

    >>> import spatialbook as sb
    >>> sb.shift_twist([0, 0, 2, 0, 0, 0], [0.4, 0, 0])
    array([0. , 0. , 2. , 0. , 0.8, 0. ])
    """
    V = as_vector6("velocity", velocity)
    d = as_vector3("displacement", displacement)
    batch_shape(("velocity", V, 1), ("displacement", d, 1))
    w = np.broadcast_to(V[..., :3], np.broadcast_shapes(V.shape[:-1], d.shape[:-1]) + (3,))
    return np.concatenate((w, V[..., 3:] + _cross(V[..., :3], d)), axis=-1)


def shift_wrench(force, displacement) -> np.ndarray:
    """Move a wrench's reference point by d, axes unchanged: [tau - d x f; f] (book chapter 4).

    >>> import spatialbook as sb
    >>> sb.shift_wrench([0, 0, 1.28, -3.2, 2.4, 0], [0.4, 0, 0]).round(12) + 0.0
    array([ 0.  ,  0.  ,  0.32, -3.2 ,  2.4 ,  0.  ])
    """
    F = as_vector6("force", force)
    d = as_vector3("displacement", displacement)
    batch_shape(("force", F, 1), ("displacement", d, 1))
    f = np.broadcast_to(F[..., 3:], np.broadcast_shapes(F.shape[:-1], d.shape[:-1]) + (3,))
    return np.concatenate((F[..., :3] - _cross(d, F[..., 3:]), f), axis=-1)
