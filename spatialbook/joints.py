"""Joint motion axes and generalized forces (book chapter 4)."""

from __future__ import annotations

import numpy as np

from ._checks import _numbers, batch_shape, as_array, as_vector3, as_vector6
from ._kernels import _cross, _largest, _normalised


def revolute_axis(axis, hinge_point, reference_point) -> np.ndarray:
    """Motion axis S of a revolute joint, expressed at a reference point P: S = [n; n x (x_P - x_O)].

    Parameters
    ----------
    axis : (..., 3) direction n of the hinge (normalised here; must be non-zero).
    hinge_point : (..., 3) any point x_O on the hinge line (m).
    reference_point : (..., 3) x_P, the point the twist is referred to (m).

    The joint's twist is V_P = S qdot, and the torque the joint feels is S^T F_P.

    >>> import spatialbook as sb
    >>> sb.revolute_axis([0, 0, 1], [0, 0, 0], [0.4, 0, 0])
    array([0. , 0. , 1. , 0. , 0.4, 0. ])
    """
    n = as_vector3("axis", axis)
    x_O = as_vector3("hinge_point", hinge_point)
    x_P = as_vector3("reference_point", reference_point)
    batch_shape(("axis", n, 1), ("hinge_point", x_O, 1), ("reference_point", x_P, 1))
    largest = _largest(n)
    if np.any(largest == 0):
        raise ValueError("axis: expected a non-zero direction for the hinge")
    n = _normalised(n, largest)
    lin = _cross(n, x_P - x_O)
    return np.concatenate((np.broadcast_to(n, lin.shape), lin), axis=-1)


def generalized_force(motion_axes, force) -> np.ndarray:
    """Generalized force tau = S^T F of a joint with motion axes S (power: P = qdot . tau).

    Parameters
    ----------
    motion_axes : (6,) for one degree of freedom, or (..., 6, k) with one column per dof.
    force : (..., 6) wrench at the same reference point and axes as S.

    The door's required wrench, felt about its hinge from the COM or from the hinge:

    >>> import spatialbook as sb
    >>> S_C = sb.revolute_axis([0, 0, 1], [0, 0, 0], [0.4, 0, 0])
    >>> round(float(sb.generalized_force(S_C, [0, 0, 0.32, -3.2, 2.4, 0])), 12)
    1.28
    """
    S = _numbers("motion_axes", motion_axes, "real numbers of shape (6,) or (..., 6, k)")
    if S.ndim == 0 or (S.ndim == 1 and S.shape != (6,)) or (S.ndim > 1 and S.shape[-2] != 6):
        raise ValueError(f"motion_axes: expected an array of shape (6,) or (..., 6, k), got shape {S.shape}")
    S = as_array("motion_axes", S, S.shape[-2:] if S.ndim > 1 else (6,))
    F = as_vector6("force", force)
    if S.ndim == 1:
        batch_shape(("motion_axes", S, 1), ("force", F, 1))
        return np.einsum("i,...i->...", S, F)
    batch_shape(("motion_axes", S, 2), ("force", F, 1))
    return np.einsum("...ik,...i->...k", S, F)
