"""Spatial acceleration (book chapter 7): from and back to classical quantities, moving probes,
and the derivative of coordinates in a rotating expression frame (seed eq. 5.2;
chapter 7, eq. (eq-ch07-frame)).

Spatial acceleration is the time derivative of the twist with the reference point held
fixed in space: A_P = [alpha; a_P - omega x v_P] for a body point passing through P.
"""

from __future__ import annotations

import numpy as np

from ._checks import batch_shape, as_rotation, as_vector3, as_vector6
from ._kernels import _cross


def spatial_acceleration(velocity, classical_acceleration) -> np.ndarray:
    """Spatial acceleration from classical quantities of the material point at P (seed eq. 5.6;
    chapter 7, eq. (eq-ch07-def)).

    Parameters
    ----------
    velocity : array_like, shape (..., 6)
        Twist [omega (rad/s); v_P (m/s)].
    classical_acceleration : array_like, shape (..., 6)
        [alpha (rad/s^2); a_P (m/s^2)], a_P the ordinary acceleration of the body point at P.

    Returns
    -------
    ndarray, shape (..., 6)
        [alpha; a_P - omega x v_P].

    Examples
    --------
    A point 0.4 m from the hinge of a door spinning steadily at 2 rad/s accelerates
    centripetally, yet the door's spatial acceleration is zero:

    >>> import spatialbook as sb
    >>> sb.spatial_acceleration([0, 0, 2, 0, 0.8, 0], [0, 0, 0, -1.6, 0, 0]) + 0.0
    array([0., 0., 0., 0., 0., 0.])
    """
    V = as_vector6("velocity", velocity)
    C = as_vector6("classical_acceleration", classical_acceleration)
    batch_shape(("velocity", V, 1), ("classical_acceleration", C, 1))
    lin = C[..., 3:] - _cross(V[..., :3], V[..., 3:])
    return np.concatenate((np.broadcast_to(C[..., :3], lin.shape), lin), axis=-1)


def material_acceleration(velocity, acceleration) -> np.ndarray:
    """Classical acceleration (m/s^2) of the body point at the reference point: a_P = (A_P)_lin + omega x v_P.

    The inverse of :func:`spatial_acceleration`'s linear part.

    >>> import spatialbook as sb
    >>> sb.material_acceleration([0, 0, 2, 0, 0.8, 0], [0, 0, 3, 0, 1.2, 0])   # the door's COM
    array([-1.6,  1.2,  0. ])
    """
    V = as_vector6("velocity", velocity)
    A = as_vector6("acceleration", acceleration)
    batch_shape(("velocity", V, 1), ("acceleration", A, 1))
    return A[..., 3:] + _cross(V[..., :3], V[..., 3:])


def probe_acceleration(angular_velocity, field_rate, probe_velocity) -> np.ndarray:
    """Linear part of the spatial acceleration read by a moving probe: (A_P)_lin = dv_P/dt - omega x u.

    Parameters
    ----------
    angular_velocity : array_like, shape (..., 3)
        omega of the body (rad/s).
    field_rate : array_like, shape (..., 3)
        dv_P/dt, the rate of the field value sampled by the probe along its own path (m/s^2).
    probe_velocity : array_like, shape (..., 3)
        u = dx_P/dt, the probe's own velocity through space (m/s).  u = 0 for a fixed probe
        (then (A_P)_lin = dv_P/dt); u = v_P for a material probe (back to chapter 7, eq. (eq-ch07-def)).

    A probe sliding along x at 0.5 m/s through a door spinning at 2 rad/s sees the field
    change by omega x u, and subtracts it:

    >>> import spatialbook as sb
    >>> sb.probe_acceleration([0, 0, 2], [0, 1.0, 0], [0.5, 0, 0])
    array([0., 0., 0.])
    """
    w = as_vector3("angular_velocity", angular_velocity)
    vdot = as_vector3("field_rate", field_rate)
    u = as_vector3("probe_velocity", probe_velocity)
    batch_shape(("angular_velocity", w, 1), ("field_rate", vdot, 1), ("probe_velocity", u, 1))
    return vdot - _cross(w, u)


def field_rate_along_path(velocity, acceleration, probe_velocity) -> np.ndarray:
    """dv_P/dt seen by a probe moving at u through the field of a body with twist V and spatial
    acceleration A (all at the probe's current location, world axes): (A)_lin + omega x u.

    It is the forward form of :func:`probe_acceleration`.

    >>> import spatialbook as sb
    >>> sb.field_rate_along_path([0, 0, 2, 0, 0.8, 0], [0, 0, 0, 0, 0, 0], [0, 0.8, 0])
    array([-1.6,  0. ,  0. ])
    """
    V = as_vector6("velocity", velocity)
    A = as_vector6("acceleration", acceleration)
    u = as_vector3("probe_velocity", probe_velocity)
    batch_shape(("velocity", V, 1), ("acceleration", A, 1), ("probe_velocity", u, 1))
    return A[..., 3:] + _cross(V[..., :3], u)


def rotating_frame_derivative(rotation, frame_angular_velocity, vector_rate, vector) -> np.ndarray:
    """Rate of a vector's coordinates in a rotating expression frame (seed eq. 5.2; chapter 7,
    eq. (eq-ch07-frame)).

    For a world vector z(t) and a frame with attitude R(t) (R maps frame -> world) turning at
    world angular velocity nu, the coordinates z^c = R^T z change as
    dz^c/dt = R^T dz/dt - nu^c x z^c with nu^c = R^T nu.

    Parameters
    ----------
    rotation : (..., 3, 3) R, frame -> world.
    frame_angular_velocity : (..., 3) nu in world axes (rad/s).
    vector_rate : (..., 3) dz/dt in world axes.
    vector : (..., 3) z in world axes.

    A vector fixed in the world seen from a frame turning at 1 rad/s about z appears to turn
    the other way:

    >>> import numpy as np, spatialbook as sb
    >>> sb.rotating_frame_derivative(np.eye(3), [0, 0, 1], [0, 0, 0], [1, 0, 0])
    array([ 0., -1.,  0.])
    """
    R = as_rotation("rotation", rotation)
    nu = as_vector3("frame_angular_velocity", frame_angular_velocity)
    zdot = as_vector3("vector_rate", vector_rate)
    z = as_vector3("vector", vector)
    batch_shape(("rotation", R, 2), ("frame_angular_velocity", nu, 1), ("vector_rate", zdot, 1), ("vector", z, 1))
    Rt = np.swapaxes(R, -1, -2)
    nu_c = np.einsum("...ij,...j->...i", Rt, nu)
    z_c = np.einsum("...ij,...j->...i", Rt, z)
    return np.einsum("...ij,...j->...i", Rt, zdot) - _cross(nu_c, z_c)
