"""Validators used once, at the public boundary of every function.

Each ``as_*`` function turns user input (lists, tuples, arrays) into a float
array of the expected trailing shape, or raises ``ValueError`` naming the
argument and what was expected.  Nothing here is called in an inner loop.

Numbers means real numbers: integer or float arrays.  None, text (even "1.5"),
booleans, complex numbers, object arrays and ragged lists are refused by their
dtype kind, a check that costs nothing for float arrays.  A scalar argument must
not be empty; leading (batch) axes of arrays may have length 0.  Batches of
several arguments must broadcast (``batch_shape`` names them if not).

Finite means at most ``MAX_MAGNITUDE`` (1e100) in absolute value, not just "not NaN or
infinity": a product of three such numbers still fits in a float, so a finite input cannot
overflow into an infinite or NaN result (1e308 squared would, silently).  No physical quantity
in SI units comes near 1e100.
"""

from __future__ import annotations

import math

import numpy as np

from ._kernels import _skew, _vee

#: Tolerance for "orthonormal", "symmetric", "skew" and similar structural checks.
STRUCTURE_TOL = 1e-9
#: Largest magnitude accepted for any number (see the module docstring): cubes stay finite.
MAX_MAGNITUDE = 1e100
#: Most numbers accepted in one argument or one broadcast batch (0.8 GB of float64): a broadcast
#: view (np.broadcast_to) or two batches broadcast against each other can stand for far more
#: numbers than memory holds, and numpy would then fail with MemoryError (596 GiB) or scan for
#: minutes.  Refused, naming the shapes, before anything is allocated or scanned; split the batch.
MAX_ENTRIES = 10**8
_E3 = np.eye(3)


#: dtype kinds accepted as numbers: signed and unsigned integers, floats.  Booleans, complex
#: numbers, text, dates and Python objects (dtype object, which is also what None becomes) are not.
_NUMBER_KINDS = frozenset("iuf")


def _close(a, b, atol: float, rtol: float = 0.0) -> np.ndarray:
    """Elementwise ``|a - b| <= atol + rtol |b|``: np.isclose for finite input (already checked),
    without its overhead, which dominates for the small arrays of a single call."""
    b = np.asarray(b, dtype=float)
    tol = atol + rtol * np.abs(b) if rtol else atol
    return np.abs(a - b) <= tol


def _allclose(a, b, atol: float, rtol: float = 0.0) -> bool:
    """np.allclose for finite input (see :func:`_close`)."""
    return bool(_close(a, b, atol, rtol).all())


def _describe(value, arr: np.ndarray | None = None) -> str:
    """A short description of a rejected value (never the repr of a large array)."""
    if value is None:
        return "None"
    if isinstance(value, (str, bytes)):
        text = repr(value)
        return f"the string {text if len(text) <= 40 else text[:37] + '...'}"
    if arr is None:
        return f"a {type(value).__name__}"
    kind = arr.dtype.kind
    what = {"b": "booleans", "c": "complex numbers", "U": "text", "S": "text", "O": "Python objects, e.g. None or an object array",
            "M": "dates", "m": "time spans"}.get(kind, "values")
    return f"{what} (dtype {arr.dtype}, shape {arr.shape})"


def _show(arr: np.ndarray) -> str:
    """The offending numbers, or just their shape when there are many."""
    return str(arr.tolist()) if arr.size <= 9 else f"an array of shape {arr.shape}"


def _item(arr: np.ndarray, bad: np.ndarray) -> str:
    """The first offending item of ``arr``, with its batch index when ``arr`` is a batch
    (``bad`` is a boolean array over the leading axes)."""
    if bad.ndim == 0:
        return _show(arr)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{_show(arr[index])} at batch index {index}"


def _finite_result(result, names: str):
    """``result`` if all its numbers are finite, else ValueError naming the arguments ``names``:
    every input is at most ``MAX_MAGNITUDE``, but a product of several such (m v^2 of 1e100 kg
    at 1e100 m/s, a wrench of 1e100 kg at 1e100 m) leaves float64, and nan or inf would then come
    back as an answer (or as a wrong diagnosis).  One pass over the result, its sum (nan and inf
    carry through a sum; a sum of finite numbers overflows only at 1e308 itself): cheap beside
    computing it, 2.4 us for one state against 6.6 us for np.all(np.isfinite(...))."""
    if not math.isfinite(np.add.reduce(result, axis=None)):
        raise ValueError(f"{names}: the inputs' magnitudes overflow float64 (the result is not finite: products of "
                         f"inputs exceed 1e308); expected magnitudes whose products stay finite (rescale the units)")
    return result


def _numbers(name: str, value, expected: str) -> np.ndarray:
    """``value`` as a float array, rejecting anything that is not real numbers.

    The check is on the dtype kind, so it costs nothing for float arrays.  np.asarray(..., float)
    alone would silently accept booleans, numeric strings, object arrays and (with a warning)
    drop imaginary parts.
    """
    if type(value) is np.ndarray and value.dtype.kind == "f":
        arr = value
    else:
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            raise ValueError(f"{name}: expected {expected}, got a ragged sequence (rows of different lengths)") from None
        if arr.dtype.kind not in _NUMBER_KINDS:
            raise ValueError(f"{name}: expected {expected}, got {_describe(value, arr)}")
    return arr.astype(float, copy=False)


def _bounded(arr: np.ndarray) -> bool:
    """All of ``arr`` within +-MAX_MAGNITUDE (False for NaN: comparisons with NaN fail).  Two
    reductions and no temporary array, as cheap as np.isfinite(arr).all() for large arrays."""
    return arr.size == 0 or bool(arr.max() <= MAX_MAGNITUDE and arr.min() >= -MAX_MAGNITUDE)


def _unbounded(name: str, arr: np.ndarray, expected: str) -> ValueError:
    """The error for an array that failed :func:`_bounded`: NaN/infinity, or a huge number."""
    if not np.all(np.isfinite(arr)):
        return ValueError(f"{name}: expected {expected}, got {_show(arr)}")
    return ValueError(
        f"{name}: expected {expected} of magnitude at most {MAX_MAGNITUDE:g} (a bigger input can overflow "
        f"into an infinite result), got {float(np.max(np.abs(arr))):g}"
    )


def as_array(name: str, value, trailing: tuple[int, ...]) -> np.ndarray:
    """Return ``value`` as a finite float array whose last axes are ``trailing``.

    Leading (batch) axes may have any length, zero included: a (0, 6) array is an empty batch.
    """
    if type(value) is np.ndarray and value.dtype.type is np.float64:
        arr = value                                      # the usual case: no message to build
    else:
        arr = _numbers(name, value, f"real numbers of shape (..., {_fmt(trailing)})")
    n = len(trailing)
    if arr.ndim < n or tuple(arr.shape[arr.ndim - n:]) != tuple(trailing):
        raise ValueError(f"{name}: expected an array of shape (..., {_fmt(trailing)}), got shape {arr.shape}")
    if arr.size > MAX_ENTRIES:
        raise _too_many(name, arr.shape)
    if not _bounded(arr):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name}: expected finite numbers, got NaN or infinity")
        raise _unbounded(name, arr, "finite numbers")
    return arr


def as_scalar(name: str, value, *, nonnegative: bool = False, positive: bool = False) -> np.ndarray:
    """Return ``value`` as a finite float array of any shape (scalars batch too), not empty."""
    arr = _numbers(name, value, "a real number or an array of real numbers")
    if arr.size == 0:
        raise ValueError(f"{name}: expected a real number or a non-empty array of numbers, got an empty array")
    if arr.size > MAX_ENTRIES:
        raise _too_many(name, arr.shape)
    if not _bounded(arr):
        raise _unbounded(name, arr, "a finite number")
    if positive and np.any(arr <= 0):
        raise ValueError(f"{name}: expected a positive number, got {_show(arr)}")
    if nonnegative and np.any(arr < 0):
        raise ValueError(f"{name}: expected a non-negative number, got {_show(arr)}")
    return arr


def as_whole_number(name: str, value, *, minimum: int = 1) -> int:
    """A plain whole number (Python or numpy integer, not a bool) of at least ``minimum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        text = repr(value)
        shown = text if len(text) <= 60 else f"a {type(value).__name__}"
        raise ValueError(f"{name}: expected a whole number >= {minimum}, got {shown}")
    return int(value)


def as_vector3(name: str, value) -> np.ndarray:
    return as_array(name, value, (3,))


def as_vector6(name: str, value) -> np.ndarray:
    return as_array(name, value, (6,))


def as_matrix6(name: str, value) -> np.ndarray:
    return as_array(name, value, (6, 6))


def as_rotation(name: str, value) -> np.ndarray:
    """A proper rotation matrix (orthonormal, det +1), shape (..., 3, 3)."""
    R = as_array(name, value, (3, 3))
    gram = np.swapaxes(R, -1, -2) @ R
    bad = ~_close(gram, _E3, 1e-6, 1e-5).all(axis=(-2, -1))
    if np.any(bad):
        raise ValueError(f"{name}: expected an orthonormal rotation matrix (R^T R = E), got {_item(R, bad)}")
    bad = np.linalg.det(R) < 0
    if np.any(bad):
        raise ValueError(f"{name}: expected a proper rotation (det R = +1), got a reflection (det R = -1): {_item(R, bad)}")
    return R


def as_inertia3(name: str, value) -> np.ndarray:
    """A physical 3x3 rotational inertia: symmetric, PSD, principal moments obey the triangle inequality."""
    I = as_array(name, value, (3, 3))
    _check_rotational(name, I, "inertia")
    return I


def _scale(arr: np.ndarray) -> float:
    """Largest magnitude in ``arr``: tolerances are relative to it, so a check does not depend
    on the units (grams or tonnes, millimetres or kilometres)."""
    return float(np.max(np.abs(arr))) if arr.size else 0.0


def _check_rotational(name: str, I: np.ndarray, what: str, scale: float | None = None) -> None:
    tol = STRUCTURE_TOL * (_scale(I) if scale is None else scale)
    bad = ~_close(I, np.swapaxes(I, -1, -2), tol).all(axis=(-2, -1))
    if np.any(bad):
        raise ValueError(f"{name}: expected a symmetric 3x3 {what} matrix, got {_item(I, bad)}")
    moments = np.linalg.eigvalsh(I)
    bad = (moments < -tol).any(axis=-1)
    if np.any(bad):
        raise ValueError(f"{name}: expected a positive semi-definite {what}, got principal moments {_item(moments, bad)}")
    a, b, c = moments[..., 0], moments[..., 1], moments[..., 2]
    bad = a + b < c - tol
    if np.any(bad):
        raise ValueError(
            f"{name}: expected principal moments of the {what} that obey the triangle inequality (each at "
            f"most the sum of the other two), got {_item(moments, bad)}"
        )


def as_spatial_inertia(name: str, value) -> np.ndarray:
    """A 6x6 spatial inertia: symmetric, lower-right block m E with m >= 0, PSD, and (for m > 0)
    a rotational inertia about the COM that obeys the triangle inequality."""
    M = as_matrix6(name, value)
    scale = _scale(M)
    tol = STRUCTURE_TOL * scale
    if not _allclose(M, np.swapaxes(M, -1, -2), tol):
        raise ValueError(f"{name}: expected a symmetric 6x6 spatial inertia")
    m = M[..., 3, 3]
    lower = M[..., 3:, 3:]
    if not _allclose(lower, m[..., None, None] * _E3, tol):
        raise ValueError(f"{name}: expected the lower-right 3x3 block to be m E (mass times identity)")
    if np.any(m < 0):
        raise ValueError(f"{name}: expected a non-negative mass in the lower-right block, got {_item(m, m < 0)}")
    if np.any(np.linalg.eigvalsh(M) < -tol):
        raise ValueError(f"{name}: expected a positive semi-definite spatial inertia")
    # About the COM: I_C = I_O + m C^2 with C = [c]x, c = (m c) / m  (chapter 6, eq. (eq-ch06-inertia) read backwards).
    safe = np.where(m > 0, m, 1.0)[..., None]
    C = _skew(_vee(M[..., :3, 3:]) / safe)
    I_C = M[..., :3, :3] + safe[..., None] * (C @ C)
    _check_rotational(name, I_C, "rotational inertia about the centre of mass", scale)
    return M


def _fmt(shape: tuple[int, ...]) -> str:
    return ", ".join(str(s) for s in shape)


def _too_many(name: str, shape: tuple, what: str = "", count: int | None = None) -> ValueError:
    count = math.prod(shape) if count is None else count
    return ValueError(f"{name}: expected at most {MAX_ENTRIES:.0e} numbers{what}, got shape {shape} "
                      f"({count:.3g} numbers; a broadcast view counts its whole shape): split the batch")


def batch_shape(*items: tuple[str, np.ndarray, int]) -> tuple[int, ...]:
    """Common leading (batch) shape of several checked arrays, each given as (name, array,
    number of trailing core axes); raise ``ValueError`` naming them if they do not broadcast,
    or if broadcast to it one of them would hold more than ``MAX_ENTRIES`` numbers."""
    shapes = [arr.shape[: arr.ndim - core] for _, arr, core in items]
    try:
        batch = np.broadcast_shapes(*shapes)
    except ValueError:
        described = ", ".join(f"{name} {shape}" for (name, _, _), shape in zip(items, shapes))
        raise ValueError(
            f"batch shapes do not broadcast: {described}; expected leading axes that are equal or 1"
        ) from None
    states = math.prod(batch)
    if states > 1 and states * max(math.prod(arr.shape[arr.ndim - core:]) for _, arr, core in items) > MAX_ENTRIES:
        names = ", ".join(name for name, _, _ in items)
        described = ", ".join(f"{name} {arr.shape}" for name, arr, _ in items)
        raise ValueError(f"{names}: expected batches that broadcast to at most {MAX_ENTRIES:.0e} numbers, got "
                         f"{described}, broadcast to the batch shape {batch}: split the batch")
    return batch
