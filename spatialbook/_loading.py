"""What both loaders share: normalised joint axes, placements and rotations, quaternions, and
the Tree under construction (``_Builder``).  See ``mjcf.py`` and ``urdf.py``."""

from __future__ import annotations

import math

import numpy as np

from ._kernels import _largest, _normalised
from .inertia import _assemble
from .transforms import _motion_blocks

#: Joint axes shorter than this (a zero axis) are refused; any longer one is normalised, as
#: Pinocchio's URDF parser and MuJoCo's compiler do (the URDF spec asks for unit axes, but real
#: files carry rounded ones such as "0.7071 0 0.7071" and unnormalised ones such as "1 1 0").
AXIS_TOL = 1e-6



def _unit_axis(where: str, axis) -> np.ndarray:
    n = np.asarray(axis, dtype=float)
    largest = _largest(n)                             # scaled first: |n| of 1e308 entries overflows
    length = float(largest[0] * np.linalg.norm(n / largest)) if largest[0] > 0 else 0.0
    if length < AXIS_TOL:
        raise ValueError(f"{where}: expected a joint axis with a direction (non-zero), got {n.tolist()}; "
                         f"a joint that does not move should be fixed")
    return _normalised(n, largest)


def _motion_transform(R: np.ndarray, d) -> np.ndarray:
    return _motion_blocks(np.asarray(R, float), np.asarray(d, float))


def _rotation(quat) -> np.ndarray:
    """R (new -> old) of quaternions [w, x, y, z] (..., 4), normalised here (unchecked)."""
    q = np.asarray(quat, float)
    w, x, y, z = np.moveaxis(q / np.linalg.norm(q, axis=-1, keepdims=True), -1, 0)
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def _rpy(rpy) -> np.ndarray:
    """URDF's fixed-axis roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll) (new -> old components)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


class _Builder:
    """Tree bodies in the making, and where each source body's frame sits in them."""

    def __init__(self):
        self.parents, self.placements, self.axes, self.kinds, self.names, self.offsets = [], [], [], [], [], []
        self.inertias, self.sources = [], []

    def add(self, parent, placement, axis, kind, name, offset=0.0) -> int:
        self.parents.append(parent)
        self.placements.append(placement)
        self.axes.append(axis)
        self.kinds.append(kind)
        self.names.append(name)
        self.offsets.append(offset)
        self.inertias.append(np.zeros((6, 6)))
        self.sources.append([])
        return len(self.parents) - 1

    def add_inertia(self, body: int, R: np.ndarray, d: np.ndarray, mass, com, inertia_com, source: str = "") -> None:
        """Add a rigid body (mass, COM and inertia about it in its own frame) whose frame sits at
        (R, d) in Tree body ``body``'s frame; dropped if ``body`` is the fixed base.  ``source``
        names it in the source model (for error messages)."""
        if body < 0 or mass == 0 and not np.any(inertia_com):
            return
        self.inertias[body] = self.inertias[body] + _assemble(np.float64(mass), d + R @ com, R @ inertia_com @ R.T)
        self.sources[body].append(source)

    def build(self, make, what: str, advice: str = ""):
        """``make(parents, placements, axes, inertias, kinds=, joint_names=, offsets=)``: the Tree
        class (passed in, so that no loader imports the module that defines it)."""
        if not self.parents:
            raise ValueError(f"{what}: expected at least one joint that moves (hinge, slide, free; revolute, "
                             f"continuous, prismatic, floating), found none")
        try:
            return make(self.parents, self.placements, self.axes, self.inertias, kinds=self.kinds,
                        joint_names=self.names, offsets=self.offsets)
        except ValueError as err:                         # name the source bodies of a refused inertia
            text = str(err)
            if not text.startswith("inertias: inertias["):   # the Tree's own words, said of the source
                raise ValueError(f"{what}: the robot as read cannot make a Tree: {text}") from None
            i = int(text[len("inertias: inertias["):].split("]")[0])
            merged = ", ".join(repr(s) for s in self.sources[i])
            raise ValueError(f"{what}: the body moved by joint {self.names[i]!r} (made of {merged}, merged about its "
                             f"origin) has an inertia that is not physical: {text.split(': ', 2)[-1]}; a Tree "
                             f"needs physical inertias, so correct them in the source"
                             f"{advice if 'triangle' in text else ''}") from None


_ZERO6 = np.zeros(6)


def _axis6(kind: str, n: np.ndarray) -> np.ndarray:
    return np.concatenate((np.zeros(3), n) if kind == "prismatic" else (n, np.zeros(3)))


# --- MuJoCo ------------------------------------------------------------------------------------


def _quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    w1, x1, y1, z1 = np.moveaxis(a, -1, 0)
    w2, x2, y2, z2 = np.moveaxis(b, -1, 0)
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=-1)


def _quat_of(R: np.ndarray) -> np.ndarray:
    """A unit quaternion [w, x, y, z] of the rotation R (Shepperd's method)."""
    t = np.trace(R)
    k = int(np.argmax([t, R[0, 0], R[1, 1], R[2, 2]]))
    if k == 0:
        s = 2 * math.sqrt(1 + t)
        q = [s / 4, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    else:
        i, j, l = (k - 1, k % 3, (k + 1) % 3)
        s = 2 * math.sqrt(1 + R[i, i] - R[j, j] - R[l, l])
        q = [0.0] * 4
        q[0] = (R[l, j] - R[j, l]) / s
        q[1 + i] = s / 4
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + l] = (R[l, i] + R[i, l]) / s
    return np.array(q) / np.linalg.norm(q)


def _placement(X: np.ndarray):
    """(R, d) of a motion transform X = sb.motion_transform(R, d)."""
    R = X[:3, :3].T
    D = -R @ X[3:, :3]
    return R, np.array([D[2, 1], D[0, 2], D[1, 0]])
