"""Spatial cross products, power and the Newton–Euler equation (book chapters 4 and 8).

All quantities share one reference point and one set of axes.  Twists V = [omega; v]
(rad/s, m/s), accelerations A = [alpha; a - omega x v] (rad/s^2, m/s^2), wrenches
F = [tau; f] (N m, N).
"""

from __future__ import annotations

import numpy as np

from ._checks import batch_shape, as_spatial_inertia, as_vector6
from ._kernels import _skew


def _crm(V: np.ndarray) -> np.ndarray:
    W = _skew(V[..., :3])
    out = np.zeros(V.shape[:-1] + (6, 6))
    out[..., :3, :3] = W
    out[..., 3:, 3:] = W
    out[..., 3:, :3] = _skew(V[..., 3:])
    return out


def _crf(V: np.ndarray) -> np.ndarray:
    return -np.swapaxes(_crm(V), -1, -2)


def motion_cross(velocity) -> np.ndarray:
    """Motion cross-product matrix V x = [[omega x, 0], [v x, omega x]] (6x6).

    A motion vector U fixed in a body moving with twist V changes as dU/dt = (V x) U.
    This is Modern Robotics' [ad_V].

    >>> import spatialbook as sb
    >>> sb.motion_cross([0, 0, 1, 1, 0, 0]) @ [0, 0, 0, 0, 1, 0]
    array([ 0.,  0.,  0., -1.,  0.,  0.])
    """
    return _crm(as_vector6("velocity", velocity))


def force_cross(velocity) -> np.ndarray:
    """Force cross-product matrix V x* = -(V x)^T = [[omega x, v x], [0, omega x]] (6x6).

    Defined from :func:`motion_cross`, so the duality (V x U)^T F + U^T (V x* F) = 0 holds by
    construction.

    >>> import numpy as np, spatialbook as sb
    >>> V = [0, 0, 2, 0, 0.8, 0]
    >>> np.array_equal(sb.force_cross(V), -sb.motion_cross(V).T)
    True
    """
    return _crf(as_vector6("velocity", velocity))


def power(velocity, force) -> np.ndarray:
    """Power P = V^T F = omega . tau + v . f in watts; independent of the reference point.

    >>> import spatialbook as sb
    >>> float(sb.power([0, 0, 2, 0, 0, 0], [0, 0, 1.28, -3.2, 2.4, 0]))
    2.56
    """
    V = as_vector6("velocity", velocity)
    F = as_vector6("force", force)
    batch_shape(("velocity", V, 1), ("force", F, 1))
    return _power(V, F)


def _power(V: np.ndarray, F: np.ndarray) -> np.ndarray:
    """Unchecked V^T F."""
    return np.einsum("...i,...i->...", V, F)


def power_terms(velocity, force) -> tuple[np.ndarray, np.ndarray]:
    """The two parts of the power, (omega . tau, v . f) in watts; only their sum is invariant.

    >>> import spatialbook as sb
    >>> [float(p) for p in sb.power_terms([0, 0, 2, 0, 0.8, 0], [0, 0, 0.32, -3.2, 2.4, 0])]
    [0.64, 1.92]
    """
    V = as_vector6("velocity", velocity)
    F = as_vector6("force", force)
    batch_shape(("velocity", V, 1), ("force", F, 1))
    return _power_terms(V, F)


def _power_terms(V: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unchecked (omega . tau, v . f)."""
    rot = np.einsum("...i,...i->...", V[..., :3], F[..., :3])
    trans = np.einsum("...i,...i->...", V[..., 3:], F[..., 3:])
    return rot, trans


def inertial_wrench(inertia, acceleration) -> np.ndarray:
    """The 𝓘 A term of Newton–Euler: the wrench that the spatial acceleration alone requires.

    >>> import spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> sb.inertial_wrench(I_O, [0, 0, 3, 0, 0, 0]).round(12) + 0.0
    array([0.  , 0.  , 1.28, 0.  , 2.4 , 0.  ])
    """
    M = as_spatial_inertia("inertia", inertia)
    A = as_vector6("acceleration", acceleration)
    batch_shape(("inertia", M, 2), ("acceleration", A, 1))
    return _times(M, A)


def bias_wrench(inertia, velocity) -> np.ndarray:
    """The velocity-product term V x* (𝓘 V) of Newton–Euler (centripetal and gyroscopic).

    >>> import spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> sb.bias_wrench(I_O, [0, 0, 2, 0, 0, 0]).round(12) + 0.0
    array([ 0. ,  0. ,  0. , -3.2,  0. ,  0. ])
    """
    M = as_spatial_inertia("inertia", inertia)
    V = as_vector6("velocity", velocity)
    batch_shape(("inertia", M, 2), ("velocity", V, 1))
    return _bias(M, V)


def _times(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Unchecked matrix-vector product over broadcast leading axes."""
    return np.einsum("...ij,...j->...i", M, v)


def _bias(M: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Unchecked V x* (M V)."""
    return _times(_crf(V), _times(M, V))


def required_wrench(inertia, velocity, acceleration) -> np.ndarray:
    """Newton–Euler (chapter 8, eq. (eq-ch08-ne)): total external wrench F = 𝓘 A + V x* (𝓘 V), in N m and N.

    Valid at any common reference point and axes for inertia, twist, acceleration and result.

    Parameters
    ----------
    inertia : array_like, shape (..., 6, 6)
    velocity : array_like, shape (..., 6)
        Twist V = [omega; v] of the body at the reference point.
    acceleration : array_like, shape (..., 6)
        Spatial acceleration A = [alpha; a - omega x v] at the same point.

    Examples
    --------
    The worked door: hinge fixed, omega = 2 rad/s, alpha = 3 rad/s^2 about z.

    >>> import spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> sb.required_wrench(I_O, [0, 0, 2, 0, 0, 0], [0, 0, 3, 0, 0, 0]).round(12) + 0.0
    array([ 0.  ,  0.  ,  1.28, -3.2 ,  2.4 ,  0.  ])
    """
    M = as_spatial_inertia("inertia", inertia)
    V = as_vector6("velocity", velocity)
    A = as_vector6("acceleration", acceleration)
    batch_shape(("inertia", M, 2), ("velocity", V, 1), ("acceleration", A, 1))
    return _required_wrench(M, V, A)


def _required_wrench(M: np.ndarray, V: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Unchecked M A + V x* (M V)."""
    return _times(M, A) + _bias(M, V)
