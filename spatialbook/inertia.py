"""Spatial inertia, momentum and kinetic energy (book chapter 6), with shape builders.

Each public function checks its arguments once and calls an unchecked ``_`` twin that does the
arithmetic; ``spatialbook.unchecked`` collects those twins for callers that validated their
inputs already.

Units: mass kg, lengths m, rotational inertia kg m^2; the 6x6 blocks are kg m^2, kg m, kg.
"""

from __future__ import annotations

import numpy as np

from ._checks import _allclose, _show, batch_shape, as_inertia3, as_scalar, as_spatial_inertia, as_vector3, as_vector6
from ._kernels import _skew, _vee
from .transforms import _check_plucker, _inverse_blocks


def _assemble(m: np.ndarray, c: np.ndarray, I_C: np.ndarray) -> np.ndarray:
    C = _skew(c)
    mm = m[..., None, None]
    shape = np.broadcast_shapes(m.shape, c.shape[:-1], I_C.shape[:-2])
    out = np.zeros(shape + (6, 6))
    out[..., :3, :3] = I_C - mm * (C @ C)
    out[..., :3, 3:] = mm * C
    out[..., 3:, :3] = -mm * C
    out[..., 3:, 3:] = mm * np.eye(3)
    return out


def spatial_inertia(mass, com, inertia_com) -> np.ndarray:
    """Spatial inertia at a reference point O (chapter 6, eq. (eq-ch06-inertia)): ``[[I_C - m D^2, m D], [-m D, m E]]``.

    Parameters
    ----------
    mass : float or array_like, shape (...)
        m in kg, non-negative.
    com : array_like, shape (..., 3)
        d = x_C - x_O in metres: from the reference point O to the centre of mass C.
    inertia_com : array_like, shape (..., 3, 3)
        I_C, rotational inertia about the COM in kg m^2, in the same axes as ``com``.

    Returns
    -------
    ndarray, shape (..., 6, 6)
        Maps a twist at O to the spatial momentum at O: H_O = I_O V_O.
        The upper-left block I_C - m D^2 is the parallel-axis theorem.

    Examples
    --------
    >>> import spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> round(float(I_O[2, 2]), 6)  # I_O,z = 8/75 + 2 * 0.4^2
    0.426667
    """
    m = as_scalar("mass", mass, nonnegative=True)
    c = as_vector3("com", com)
    I_C = as_inertia3("inertia_com", inertia_com)
    batch_shape(("mass", m, 0), ("com", c, 1), ("inertia_com", I_C, 2))
    return _assemble(m, c, I_C)


def inertia_parts(inertia) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split a spatial inertia into (mass, com, inertia_com), inverting chapter 6, eq. (eq-ch06-inertia).

    >>> import numpy as np, spatialbook as sb
    >>> m, c, I_C = sb.inertia_parts(sb.spatial_inertia(2.0, [0.4, 0, 0], np.eye(3)))
    >>> float(m), c.round(12) + 0.0
    (2.0, array([0.4, 0. , 0. ]))
    """
    M = as_spatial_inertia("inertia", inertia)
    m = M[..., 3, 3].copy()                              # a copy: never a view into the caller's array
    if np.any(m <= 0):
        raise ValueError("inertia: expected a positive mass to locate the centre of mass")
    c = _vee(M[..., :3, 3:]) / m[..., None]
    C = _skew(c)
    I_C = M[..., :3, :3] + m[..., None, None] * (C @ C)
    return m, c, I_C


def transform_inertia(X, inertia) -> np.ndarray:
    """Re-express a spatial inertia in NEW coordinates given the motion transform X (OLD -> NEW).

    Congruence (book chapter 6): kinetic energy is invariant, so 𝓘_old = X^T 𝓘_new X, i.e.
    ``𝓘_new = X^{-T} 𝓘_old X^{-1}``, computed with the block inverse.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(2.0, [0.4, 0, 0], np.diag([0.24, 0.8 / 2.4, 8 / 75]))
    >>> X_CO = sb.motion_transform(np.eye(3), [0.4, 0, 0])
    >>> np.round(sb.transform_inertia(X_CO, I_O)[2, 2], 6)   # back to I_C,z = 8/75
    np.float64(0.106667)
    """

    X = _check_plucker("X", X)
    if not _allclose(X[..., :3, 3:], 0.0, 1e-8):
        raise ValueError("X: expected a motion transform (upper-right block 0), not a force transform")
    M = as_spatial_inertia("inertia", inertia)
    batch_shape(("X", X, 2), ("inertia", M, 2))
    return _transform_inertia(X, M)


def _transform_inertia(X: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Unchecked congruence X^{-T} M X^{-1} (X a motion transform, M a spatial inertia)."""
    Xi = _inverse_blocks(X)
    return np.swapaxes(Xi, -1, -2) @ M @ Xi


def spatial_momentum(inertia, velocity) -> np.ndarray:
    """Spatial momentum H = 𝓘 V = [angular momentum (kg m^2/s); linear momentum (kg m/s)].

    >>> import spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> sb.spatial_momentum(I_O, [0, 0, 2, 0, 0, 0]).round(6) + 0.0
    array([0.      , 0.      , 0.853333, 0.      , 1.6     , 0.      ])
    """
    M = as_spatial_inertia("inertia", inertia)
    V = as_vector6("velocity", velocity)
    batch_shape(("inertia", M, 2), ("velocity", V, 1))
    return _momentum(M, V)


def _momentum(M: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Unchecked M V over broadcast leading axes."""
    return np.einsum("...ij,...j->...i", M, V)


def kinetic_energy(inertia, velocity) -> np.ndarray:
    """Kinetic energy T = 1/2 V^T 𝓘 V in joules; the same at every reference point and axes.

    >>> import spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> round(float(sb.kinetic_energy(I_O, [0, 0, 2, 0, 0, 0])), 6)
    0.853333
    """
    M = as_spatial_inertia("inertia", inertia)
    V = as_vector6("velocity", velocity)
    batch_shape(("inertia", M, 2), ("velocity", V, 1))
    return _kinetic_energy(M, V)


def _kinetic_energy(M: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Unchecked 1/2 V^T M V."""
    return 0.5 * np.einsum("...i,...ij,...j->...", V, M, V)


def kinetic_energy_terms(inertia, velocity) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three terms of T = 1/2 V^T 𝓘 V at the inertia's reference point O, in joules:
    (rotation, coupling, translation).  Their sum is :func:`kinetic_energy`; each term depends
    on the reference point, only the sum does not.

    Derivation (book chapter 6, eq. (eq-ch06-energy-split)).  With V = [omega; v_O] and the
    blocks of eq. (eq-ch06-inertia), 𝓘_O = [[I_C - m D^2, m D], [-m D, m E]], multiplying out

        V^T 𝓘 V = omega^T (I_C - m D^2) omega + omega^T (m D) v_O + v_O^T (-m D) omega + m v_O . v_O .

    The two middle products are equal: v_O^T (-m D) omega is a scalar, hence its own transpose
    omega^T (-m D)^T v_O = omega^T (m D) v_O, because D is skew.  So

        T = 1/2 omega^T (I_C - m D^2) omega  +  omega^T (m D) v_O  +  1/2 m v_O . v_O
          = rotation about O                 +  coupling           +  translation of O,

    and omega^T D v_O = omega . (d x v_O) = v_O . (omega x d) (triple product): the coupling is
    m v_O . (v_C - v_O), zero at the centre of mass (d = 0, König's split) and wherever O is at
    rest.  The terms are read from the blocks of ``inertia`` directly, so no centre of mass is
    needed (a massless inertia is fine).

    Parameters
    ----------
    inertia : array_like, shape (..., 6, 6)
        Spatial inertia at the reference point O.
    velocity : array_like, shape (..., 6)
        Twist V = [omega; v_O] at the same point, in the same axes.

    Returns
    -------
    (rotation, coupling, translation) : three ndarrays of shape (...)

    Examples
    --------
    The door spinning at 2 rad/s about its hinge: at the hinge O (at rest) all the energy is
    rotation; at the centre of mass C (0.4 m out) the spin about C plus the translation of C.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> V_O = [0, 0, 2, 0, 0, 0]
    >>> [round(float(t), 6) for t in sb.kinetic_energy_terms(I_O, V_O)]
    [0.853333, 0.0, 0.0]
    >>> X_CO = sb.motion_transform(np.eye(3), sb.DOOR["com"])
    >>> terms = sb.kinetic_energy_terms(sb.transform_inertia(X_CO, I_O), X_CO @ V_O)
    >>> [round(float(t), 6) for t in terms]
    [0.213333, 0.0, 0.64]
    """
    M = as_spatial_inertia("inertia", inertia)
    V = as_vector6("velocity", velocity)
    batch_shape(("inertia", M, 2), ("velocity", V, 1))
    return _kinetic_energy_terms(M, V)


def _kinetic_energy_terms(M: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unchecked (rotation, coupling, translation) of 1/2 V^T M V."""
    w, v = V[..., :3], V[..., 3:]
    rotation = 0.5 * np.einsum("...i,...ij,...j->...", w, M[..., :3, :3], w)
    coupling = np.einsum("...i,...ij,...j->...", w, M[..., :3, 3:], v)
    translation = 0.5 * np.einsum("...i,...ij,...j->...", v, M[..., 3:, 3:], v)
    return rotation, coupling, translation


# --- builders: inertia about the COM, body axes along the shape's edges ------------------


def box_inertia(mass, size) -> np.ndarray:
    """Rotational inertia (kg m^2) of a solid box about its COM; ``size`` = (a, b, c) edge lengths in m.

    I = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2).

    >>> import spatialbook as sb
    >>> sb.box_inertia(12.0, [1, 2, 3])
    array([[13.,  0.,  0.],
           [ 0., 10.,  0.],
           [ 0.,  0.,  5.]])
    """
    m = as_scalar("mass", mass, nonnegative=True)
    s = as_vector3("size", size)
    if np.any(s < 0):
        raise ValueError(f"size: expected non-negative edge lengths, got {_show(s)}")
    batch_shape(("mass", m, 0), ("size", s, 1))
    return _box(m, s[..., 0], s[..., 1], s[..., 2])


def _box(m: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Unchecked box inertia about the COM from broadcastable mass and edge lengths."""
    a2, b2, c2 = np.broadcast_arrays(a * a, b * b, c * c)
    diag = np.stack((b2 + c2, a2 + c2, a2 + b2), axis=-1) * (m[..., None] / 12.0)
    return diag[..., :, None] * np.eye(3)


def plate_inertia(mass, width, height) -> np.ndarray:
    """Thin plate in the body x-z plane (width along x, height along z), about its COM.

    I = diag(m c^2/12, m (a^2 + c^2)/12, m a^2/12) with a = width, c = height.  The moment
    about y, normal to the plate, equals the sum of the other two exactly (the perpendicular-axis
    theorem: the limit of the triangle inequality I_yy <= I_xx + I_zz of every body).

    >>> import spatialbook as sb
    >>> sb.plate_inertia(2.0, 0.8, 1.2).diagonal().round(6)
    array([0.24    , 0.346667, 0.106667])
    """
    m = as_scalar("mass", mass, nonnegative=True)
    w = as_scalar("width", width, nonnegative=True)
    h = as_scalar("height", height, nonnegative=True)
    batch_shape(("mass", m, 0), ("width", w, 0), ("height", h, 0))
    return _box(m, w, np.zeros_like(w), h)


def rod_inertia(mass, length) -> np.ndarray:
    """Thin rod along the body x axis about its COM: diag(0, m L^2/12, m L^2/12).

    >>> import spatialbook as sb
    >>> sb.rod_inertia(3.0, 2.0).diagonal()
    array([0., 1., 1.])
    """
    m = as_scalar("mass", mass, nonnegative=True)
    L = as_scalar("length", length, nonnegative=True)
    batch_shape(("mass", m, 0), ("length", L, 0))
    zeros = np.zeros_like(L)
    return _box(m, L, zeros, zeros)


def point_mass_inertia(mass, position) -> np.ndarray:
    """Spatial inertia (6x6) at the origin of point masses at ``position`` (..., 3); summing
    over a body's particles gives the body's spatial inertia.

    >>> import spatialbook as sb
    >>> sb.point_mass_inertia(1.0, [1, 0, 0])[:3, :3].diagonal()
    array([0., 1., 1.])
    """
    m = as_scalar("mass", mass, nonnegative=True)
    r = as_vector3("position", position)
    batch_shape(("mass", m, 0), ("position", r, 1))
    return _assemble(m, r, np.zeros(r.shape[:-1] + (3, 3)))
