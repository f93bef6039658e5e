"""The velocity field (book chapter 1), the instantaneous screw axis (chapter 3) and the wrench's
central axis (chapter 5)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import MAX_MAGNITUDE, _allclose, _item, _numbers, _show, batch_shape, as_vector3, as_vector6
from ._kernels import _cross, _largest, _normalised


class _AxisFields(NamedTuple):
    point: np.ndarray
    direction: np.ndarray
    pitch: np.ndarray


class Axis(_AxisFields):
    """A line with a pitch, relative to the reference point of the 6-vector it came from.

    point
        (..., 3) offset (m) from the reference point to the nearest point of the axis.
    direction
        (..., 3) unit vector along the axis.
    pitch
        (...) h in m/rad (screw) or m (wrench: torque per unit force along the axis);
        ``inf`` for a pure translation (omega = 0) or a pure couple (f = 0).

    A pure translation is the limit of two different screws: a zero-pitch rotation about an
    axis that recedes to infinity (omega -> 0 perpendicular to v), or an infinite-pitch screw
    whose axis has the direction of v (omega -> 0 along v).  An ``Axis`` with pitch ``inf``
    stands for the second: ``direction`` is ``v / |v|`` (``tau / |tau|`` for a couple) and ``point``
    is the zero offset, a convention that picks the line through the reference point, since
    at omega = 0 (f = 0) every line parallel to ``direction`` serves equally; the axis has no
    definite position.

    :func:`screw_axis` and :func:`central_axis` return one; built by hand, its arguments are
    checked like any other input, broadcast to one batch shape (a pitch of shape (k,) with one
    point and direction gives k axes, each field with the batch axes (k,)) and copied into
    read-only arrays, so that changing the caller's arrays afterwards cannot change the checked
    Axis.

    >>> import spatialbook as sb
    >>> sb.Axis([0, 0, 0], [0, 0, 1], 0.5).pitch
    array(0.5)
    """

    __slots__ = ()

    def __new__(cls, point, direction, pitch):
        r = as_vector3("point", point)
        n = as_vector3("direction", direction)
        if not _allclose(np.einsum("...i,...i->...", n, n), 1.0, 1e-9):
            raise ValueError(f"direction: expected a unit vector, got {_show(n)}")
        h = _numbers("pitch", pitch, "a real number or an array of real numbers")
        if h.size == 0:
            raise ValueError("pitch: expected a real number or a non-empty array of numbers, got an empty array")
        if np.any(np.isnan(h) | (h < -MAX_MAGNITUDE) | ((h > MAX_MAGNITUDE) & (h != np.inf))):
            raise ValueError(f"pitch: expected a finite number, of magnitude at most {MAX_MAGNITUDE:g}, "
                             f"or +inf for a pure translation or couple, got {_show(h)}")
        batch = batch_shape(("point", r, 1), ("direction", n, 1), ("pitch", h, 0))
        fields = [np.array(np.broadcast_to(a, batch + a.shape[a.ndim - core:])) for a, core in ((r, 1), (n, 1), (h, 0))]
        for a in fields:                                 # copies: the caller's arrays stay the caller's
            a.flags.writeable = False
        return super().__new__(cls, *fields)

    @classmethod
    def _make(cls, iterable):          # _replace goes through here: keep it checked
        return cls(*iterable)


def velocity_field(velocity, points) -> np.ndarray:
    """Velocity (m/s) of the body's field at ``points``: v(x) = v_P + omega x (x - x_P).

    Parameters
    ----------
    velocity : array_like, shape (6,) or (..., 6)
        Twist [omega; v_P] at reference point P.
    points : array_like, shape (..., 3)
        Positions relative to P (x - x_P, metres), same axes as the twist.  They may be
        material points or fixed locations in space: the field is defined everywhere.

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    >>> import spatialbook as sb
    >>> sb.velocity_field([0, 0, 2, 0, 0, 0], [[0.4, 0, 0], [0.8, 0, 0]])
    array([[0. , 0.8, 0. ],
           [0. , 1.6, 0. ]])
    """
    V = as_vector6("velocity", velocity)
    r = as_vector3("points", points)
    batch_shape(("velocity", V, 1), ("points", r, 1))
    return _velocity_field(V, r)


def _velocity_field(V: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Unchecked v_P + omega x r."""
    return V[..., 3:] + _cross(V[..., :3], r)


def acceleration_field(velocity, acceleration, points) -> np.ndarray:
    """Classical acceleration (m/s^2) of material points: a_Q = a_P + alpha x d + omega x (omega x d).

    ``velocity`` = [omega; v_P] and ``acceleration`` = [alpha; a_P] hold CLASSICAL quantities of
    material point P (not the spatial acceleration); ``points`` are d = x_Q - x_P.

    >>> import spatialbook as sb
    >>> sb.acceleration_field([0, 0, 2, 0, 0, 0], [0, 0, 3, 0, 0, 0], [0.4, 0, 0])
    array([-1.6,  1.2,  0. ])
    """
    V = as_vector6("velocity", velocity)
    Ac = as_vector6("acceleration", acceleration)
    d = as_vector3("points", points)
    batch_shape(("velocity", V, 1), ("acceleration", Ac, 1), ("points", d, 1))
    return _acceleration_field(V, Ac, d)


def _acceleration_field(V: np.ndarray, Ac: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Unchecked a_P + alpha x d + omega x (omega x d)."""
    w = V[..., :3]
    return Ac[..., 3:] + _cross(Ac[..., :3], d) + _cross(w, _cross(w, d))


def _axis_of(name: str, a: np.ndarray, b: np.ndarray, what: tuple = ("omega", "v")) -> Axis:
    """Shared geometry of the screw axis (a = omega, b = v_P) and the central axis (a = f, b = tau_P).

    Offset to the axis a x b / |a|^2, pitch a . b / |a|^2, direction a/|a|; where a = 0 the
    axis is at infinity: pitch inf, direction b/|b|.  Where a is so small against b that the
    offset or the pitch exceeds ``MAX_MAGNITUDE`` (1e-320 against 1: an offset of inf), ValueError:
    an Axis cannot hold such a line (``Axis`` refuses the same point), and calling it a pure
    translation would change the pitch from finite to inf on a rounding of a.
    """
    la, lb = _largest(a), _largest(b)                  # a scaled by its largest entry: |a|^2 of
    if np.any((la == 0) & (lb == 0)):                  # 1e-160 entries would underflow
        raise ValueError(f"{name}: expected a non-zero 6-vector (the all-zero one has no axis)")
    regular = la[..., 0] > 0
    la_safe = np.where(la > 0, la, 1.0)
    ua = a / la_safe                                   # a = la ua, |ua| between 1 and sqrt(3)
    uu = np.einsum("...i,...i->...", ua, ua)
    scale = np.where(regular, uu * la_safe[..., 0], 1.0)                    # |a|^2 / la
    with np.errstate(over="ignore"):                   # (an axis beyond 1e308 m: inf, refused below)
        point = np.where(regular[..., None], _cross(ua, b) / scale[..., None], 0.0)
        pitch = np.where(regular, np.einsum("...i,...i->...", ua, b) / scale, np.inf)
    unit_a = ua / np.sqrt(np.where(regular, uu, 1.0))[..., None]
    with np.errstate(invalid="ignore"):                # (b = 0 where a is regular: not used)
        unit_b = _normalised(b, np.where(lb > 0, lb, 1.0))
    direction = np.where(regular[..., None], unit_a, unit_b)
    far = regular & ((np.max(np.abs(point), axis=-1) > MAX_MAGNITUDE) | (np.abs(pitch) > MAX_MAGNITUDE))
    if np.any(far):
        full = np.concatenate((a, b), axis=-1) if what[0] == "omega" else np.concatenate((b, a), axis=-1)
        raise ValueError(f"{name}: expected |{what[0]}| not so small against |{what[1]}| that the axis lies beyond "
                         f"{MAX_MAGNITUDE:g} m or its pitch exceeds {MAX_MAGNITUDE:g} (an Axis holds no larger), got {_item(full, far)}; "
                         f"for a pure {'translation' if what[0] == 'omega' else 'couple'} pass {what[0]} = 0 exactly")
    return tuple.__new__(Axis, (point, direction, pitch))   # computed here: no re-check


def screw_axis(velocity) -> Axis:
    """Instantaneous screw axis of a twist (Chasles, chapter 3).

    For omega != 0: point ``r = omega x v_P / |omega|^2`` (offset from P, perpendicular to
    omega), direction ``omega / |omega|``, pitch ``h = omega . v_P / |omega|^2`` in m/rad; every
    point on the axis moves with velocity h omega.  omega = 0 (pure translation): pitch ``inf``,
    direction ``v / |v|``, point 0 by convention (the axis has no definite position; see
    :class:`Axis`).  The all-zero twist raises ``ValueError``.

    >>> import spatialbook as sb
    >>> ax = sb.screw_axis([0, 0, 2, 0, 0.8, 0])      # door twist at its COM
    >>> ax.point, ax.direction, float(ax.pitch)
    (array([-0.4,  0. ,  0. ]), array([0., 0., 1.]), 0.0)
    """
    V = as_vector6("velocity", velocity)
    return _axis_of("velocity", V[..., :3], V[..., 3:])


def central_axis(force) -> Axis:
    """Central axis of a wrench (Poinsot, chapter 5), the dual of :func:`screw_axis`.

    For f != 0: point ``d = f x tau_P / |f|^2`` (offset from P, perpendicular to f), direction
    ``f / |f|``, pitch ``f . tau_P / |f|^2`` (m): at the axis the torque is parallel to f.
    f = 0 (a pure couple): pitch ``inf``, direction ``tau / |tau|``, point 0 by convention.  The all-zero wrench raises
    ``ValueError``.

    >>> import spatialbook as sb
    >>> ax = sb.central_axis([0, 0, 1.28, -3.2, 2.4, 0])
    >>> ax.point.round(4) + 0.0, float(ax.pitch)
    (array([0.192, 0.256, 0.   ]), 0.0)
    """
    F = as_vector6("force", force)
    return _axis_of("force", F[..., 3:], F[..., :3], ("f", "tau"))
