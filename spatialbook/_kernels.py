"""Unchecked 3-vector kernels shared by the package (inputs already validated, shape (..., 3))."""

from __future__ import annotations

import numpy as np


def _skew(v: np.ndarray) -> np.ndarray:
    """[v]x for arrays of shape (..., 3)."""
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1] = -v[..., 2]
    out[..., 0, 2] = v[..., 1]
    out[..., 1, 0] = v[..., 2]
    out[..., 1, 2] = -v[..., 0]
    out[..., 2, 0] = -v[..., 1]
    out[..., 2, 1] = v[..., 0]
    return out


def _vee(S: np.ndarray) -> np.ndarray:
    """The vector v of a skew block S = [v]x, shape (..., 3, 3) -> (..., 3)."""
    return np.stack((S[..., 2, 1], S[..., 0, 2], S[..., 1, 0]), axis=-1)


_NEXT, _AFTER = np.array([1, 2, 0]), np.array([2, 0, 1])


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b over leading axes; faster than np.cross.  Component k is a_{k+1} b_{k+2} -
    a_{k+2} b_{k+1} (indices mod 3) either way: for a few vectors as five numpy calls on
    gathered copies, for many as nine on strided columns (cheaper than the copies there)."""
    if a.size + b.size <= 96:
        return a[..., _NEXT] * b[..., _AFTER] - a[..., _AFTER] * b[..., _NEXT]
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), axis=-1)


def _largest(v: np.ndarray) -> np.ndarray:
    """max |v_i| along the last axis (keepdims): zero exactly for the zero vector, whatever the
    magnitude of the others (|v| of 1e-200 components underflows to 0)."""
    return np.max(np.abs(v), axis=-1, keepdims=True)


def _normalised(v: np.ndarray, largest: np.ndarray) -> np.ndarray:
    """v / |v| along the last axis, to rounding at any magnitude: scaled by ``largest``
    (:func:`_largest`, non-zero) first, so that |v|^2 neither underflows nor overflows (1e-160
    components gave a "unit" vector of length 1.006)."""
    u = v / largest
    return u / np.sqrt(np.einsum("...i,...i->...", u, u))[..., None]
