"""Bridges to other notations (book chapters 9 and 10).

- MuJoCo: the 10-number inertia ``cinert`` = [Ixx, Iyy, Izz, Ixy, Ixz, Iyz, m cx, m cy, m cz, m],
  the rotational inertia about the reference point, the first moment m d, and the mass.
  Twists and wrenches are angular first, as here.
- Modern Robotics (Lynch & Park): twists [omega; v] and wrenches [m; f] are angular first too.
  [ad_V] is our ``motion_cross``; -[ad_V]^T our ``force_cross``.  [Ad_T] of T = (R, p), the
  pose of frame {b} in frame {a}, maps V_b -> V_a; it is the INVERSE of our motion transform
  from {a} to {b}: ``Ad(T) = inverse_transform(motion_transform(R, p))``.
- Pinocchio orders 6-vectors LINEAR first: swap the two halves (and permute matrices alike).
"""

from __future__ import annotations

import numpy as np

from ._checks import _item, batch_shape, as_array, as_inertia3, as_rotation, as_scalar, as_spatial_inertia, as_vector3, as_vector6
from .dynamics import _crm
from .inertia import _assemble
from ._kernels import _skew, _vee

_CINERT_ROWS = np.array([0, 1, 2, 0, 0, 1])
_CINERT_COLS = np.array([0, 1, 2, 1, 2, 2])


def to_cinert(inertia) -> np.ndarray:
    """Pack a 6x6 spatial inertia into MuJoCo's 10 numbers (``mjData.cinert`` layout).

    >>> import spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> sb.to_cinert(I_O).round(6) + 0.0
    array([0.24    , 0.666667, 0.426667, 0.      , 0.      , 0.      ,
           0.8     , 0.      , 0.      , 2.      ])
    """
    M = as_spatial_inertia("inertia", inertia)
    rot = M[..., :3, :3][..., _CINERT_ROWS, _CINERT_COLS]
    md = _vee(M[..., :3, 3:])
    return np.concatenate((rot, md, M[..., 3:4, 3]), axis=-1)


def from_cinert(values) -> np.ndarray:
    """Unpack MuJoCo's 10-number inertia into the 6x6 spatial inertia [[I, m D], [-m D, m E]].

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(2.0, [0.4, 0, 0], sb.plate_inertia(2.0, 0.8, 1.2))
    >>> np.allclose(sb.from_cinert(sb.to_cinert(I_O)), I_O)
    True
    """
    c = as_array("values", values, (10,))
    m = c[..., 9]
    if np.any(m < 0):
        raise ValueError(f"values: expected a non-negative mass in the last entry, got {_item(m, m < 0)}")
    I = np.zeros(c.shape[:-1] + (3, 3))
    I[..., _CINERT_ROWS, _CINERT_COLS] = c[..., :6]
    I[..., _CINERT_COLS, _CINERT_ROWS] = c[..., :6]
    mD = _skew(c[..., 6:9])
    out = np.zeros(c.shape[:-1] + (6, 6))
    out[..., :3, :3] = I
    out[..., :3, 3:] = mD
    out[..., 3:, :3] = -mD
    out[..., 3:, 3:] = m[..., None, None] * np.eye(3)
    return as_spatial_inertia("values (as a spatial inertia)", out)


# --- Modern Robotics --------------------------------------------------------------------


def homogeneous(rotation, position) -> np.ndarray:
    """4x4 homogeneous transform T = [[R, p], [0, 1]]: pose of a frame {b} in {a}.

    >>> import numpy as np, spatialbook as sb
    >>> sb.homogeneous(np.eye(3), [1, 2, 3])[:3, 3]
    array([1., 2., 3.])
    """
    R = as_rotation("rotation", rotation)
    p = as_vector3("position", position)
    batch_shape(("rotation", R, 2), ("position", p, 1))
    T = np.zeros(np.broadcast_shapes(R.shape[:-2], p.shape[:-1]) + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def _split_homogeneous(T) -> tuple[np.ndarray, np.ndarray]:
    T = as_array("T", T, (4, 4))
    if not np.allclose(T[..., 3, :], [0, 0, 0, 1]):
        raise ValueError("T: expected a homogeneous transform with bottom row [0, 0, 0, 1]")
    R = as_rotation("T (its rotation block)", T[..., :3, :3])
    return R, T[..., :3, 3]


def Ad(T) -> np.ndarray:
    """Modern Robotics' adjoint [Ad_T] = [[R, 0], [[p] R, R]] of T = (R, p): maps V_b -> V_a.

    >>> import numpy as np, spatialbook as sb
    >>> T_ab = sb.homogeneous(sb.rotation_z(0.3), [0.4, 0, 0])
    >>> X_ba = sb.motion_transform(sb.rotation_z(0.3), [0.4, 0, 0])
    >>> np.allclose(sb.Ad(T_ab), sb.inverse_transform(X_ba))
    True
    """
    R, p = _split_homogeneous(T)
    out = np.zeros(R.shape[:-2] + (6, 6))
    out[..., :3, :3] = R
    out[..., 3:, 3:] = R
    out[..., 3:, :3] = _skew(p) @ R
    return out


def ad(velocity) -> np.ndarray:
    """Modern Robotics' Lie bracket matrix [ad_V] = [[[omega], 0], [[v], [omega]]] (MR eq. 8.37; chapter 10, eq. (eq-ch10-bracket)).

    It equals Featherstone's V x (``motion_cross``); -[ad_V]^T equals V x* (``force_cross``).

    >>> import numpy as np, spatialbook as sb
    >>> V = [1, 2, 3, 4, 5, 6]
    >>> np.array_equal(sb.ad(V), sb.motion_cross(V))
    True
    """
    return _crm(as_vector6("velocity", velocity))


def G_b(mass, inertia_b) -> np.ndarray:
    """Modern Robotics' spatial inertia in a body frame at the COM: diag(𝓘_b, m E) (MR eq. 8.32;
    chapter 10, eq. (eq-ch10-Gb)).

    >>> import spatialbook as sb
    >>> sb.G_b(2.0, sb.DOOR["inertia_com"]).diagonal().round(6)
    array([0.24    , 0.346667, 0.106667, 2.      , 2.      , 2.      ])
    """
    m = as_scalar("mass", mass, nonnegative=True)
    I_b = as_inertia3("inertia_b", inertia_b)
    batch_shape(("mass", m, 0), ("inertia_b", I_b, 2))
    return _assemble(m, np.zeros(I_b.shape[:-2] + (3,)), I_b)


def steiner(inertia_com, mass, offset) -> np.ndarray:
    """Steiner's theorem (MR eq. 8.27; chapter 10, eq. (eq-ch10-steiner)): 𝓘_q = 𝓘_b + m (q^T q E - q q^T), rotational inertia about a
    point at offset q from the COM (same axes).

    >>> import numpy as np, spatialbook as sb
    >>> round(float(sb.steiner(sb.DOOR["inertia_com"], 2.0, [0.4, 0, 0])[2, 2]), 6)
    0.426667
    """
    I = as_inertia3("inertia_com", inertia_com)
    m = as_scalar("mass", mass, nonnegative=True)
    q = as_vector3("offset", offset)
    batch_shape(("inertia_com", I, 2), ("mass", m, 0), ("offset", q, 1))
    qq = np.einsum("...i,...i->...", q, q)
    outer = q[..., :, None] * q[..., None, :]
    return I + m[..., None, None] * (qq[..., None, None] * np.eye(3) - outer)


def principal_axes(inertia) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (ascending, kg m^2) and axes (columns of a proper rotation R).

    ``R.T @ inertia @ R`` is diagonal (MR eq. 8.26, chapter 10, eq. (eq-ch10-rotate), with R_bc = R).
    An eigenvector's sign is arbitrary, so it is fixed here: in each of the first two columns the
    first component that is not negligible (above 1e-9 of the column's largest) is positive, and
    the third column is their cross product (so det R = +1).  The axes are then the same on every
    platform and linear-algebra library, wherever the moments are distinct.

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.rotation_z(0.5) @ np.diag([1.0, 2.0, 3.0]) @ sb.rotation_z(0.5).T
    >>> moments, R = sb.principal_axes(I)
    >>> moments.round(12) + 0.0
    array([1., 2., 3.])
    """
    I = as_inertia3("inertia", inertia)
    moments, R = np.linalg.eigh(I)
    first = R[..., :, :2]                                        # (..., 3, 2): two columns
    big = np.abs(first) > 1e-9 * np.max(np.abs(first), axis=-2, keepdims=True)
    lead = np.take_along_axis(first, np.argmax(big, axis=-2)[..., None, :], axis=-2)
    first = first * np.where(lead < 0, -1.0, 1.0)
    third = np.cross(first[..., :, 0], first[..., :, 1])
    return moments, np.concatenate([first, third[..., :, None]], axis=-1)


# --- Pinocchio (linear first) ------------------------------------------------------------

_SWAP = np.r_[3:6, 0:3]


def to_linear_first(vector) -> np.ndarray:
    """Angular-first 6-vector(s) -> linear-first (Pinocchio's order): [a; b] -> [b; a].

    >>> import spatialbook as sb
    >>> sb.to_linear_first([1, 2, 3, 4, 5, 6])
    array([4., 5., 6., 1., 2., 3.])
    """
    return as_vector6("vector", vector)[..., _SWAP]


def from_linear_first(vector) -> np.ndarray:
    """Linear-first 6-vector(s) -> angular-first (this book's order); the swap is its own inverse.

    >>> import spatialbook as sb
    >>> sb.from_linear_first([4, 5, 6, 1, 2, 3])
    array([1., 2., 3., 4., 5., 6.])
    """
    return as_vector6("vector", vector)[..., _SWAP]


def matrix_to_linear_first(matrix) -> np.ndarray:
    """Permute a 6x6 operator to act on linear-first vectors: P M P^T (P swaps the halves).

    Works for transforms, cross-product matrices and inertias alike; applying it twice returns
    the original.

    >>> import numpy as np, spatialbook as sb
    >>> M = sb.spatial_inertia(2.0, [0.4, 0, 0], np.eye(3))
    >>> sb.matrix_to_linear_first(M)[:3, :3].diagonal()
    array([2., 2., 2.])
    """
    M = as_array("matrix", matrix, (6, 6))
    return M[..., _SWAP, :][..., :, _SWAP]
