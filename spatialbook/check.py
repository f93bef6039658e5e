"""``python -m spatialbook check``: the library's self-check, printed as a table.

Each row computes one invariant two independent ways and reports the largest absolute
difference between the two.  The process exits 1 if any row fails.
"""

from __future__ import annotations

import sys
from typing import Callable, NamedTuple

import numpy as np

from . import (
    DOOR, Ad, central_axis, door_particles, force_cross, force_transform, from_cinert, inverse_transform,
    kinetic_energy, material_acceleration, motion_cross, motion_transform, particle_inertia_com,
    particle_kinetic_energy, particle_momentum, particle_wrench, power, required_wrench,
    screw_axis, shift_wrench, spatial_inertia, spatial_momentum, to_cinert, transform_inertia,
    transform_vectors, velocity_field, homogeneous, inertial_wrench, bias_wrench,
    rotation_from_quaternion,
)
from .acceleration import spatial_acceleration
from .particles import particle_accelerations


class Row(NamedTuple):
    name: str
    error: float
    tolerance: float

    @property
    def ok(self) -> bool:
        return bool(np.isfinite(self.error) and self.error <= self.tolerance)


def _random_rotation(rng: np.random.Generator) -> np.ndarray:
    return rotation_from_quaternion(rng.normal(size=4))


def _err(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))))


def rows(seed: int = 0, cases: int = 200) -> list[Row]:
    """Compute every check; ``cases`` random transforms / vectors per randomized row."""
    rng = np.random.default_rng(seed)
    R = np.stack([_random_rotation(rng) for _ in range(cases)])
    d = rng.normal(size=(cases, 3))
    V = rng.normal(size=(cases, 6))
    A = rng.normal(size=(cases, 6))
    F = rng.normal(size=(cases, 6))
    U = rng.normal(size=(cases, 6))
    X = motion_transform(R, d)
    Xf = force_transform(R, d)
    I_O = spatial_inertia(DOOR["mass"], DOOR["com"], DOOR["inertia_com"])
    V_O = np.array([0, 0, DOOR["omega"], 0, 0, 0.0])
    A_O = np.array([0, 0, DOOR["alpha"], 0, 0, 0.0])
    F_O = required_wrench(I_O, V_O, A_O)
    X_CO = motion_transform(np.eye(3), DOOR["com"])
    I_C = spatial_inertia(DOOR["mass"], [0, 0, 0], DOOR["inertia_com"])
    F_C = required_wrench(I_C, X_CO @ V_O, X_CO @ A_O)
    out: list[Row] = []

    def add(name: str, a, b, tol: float = 1e-9) -> None:
        out.append(Row(name, _err(a, b), tol))

    add("door: F_O = [0, 0, 1.28, -3.2, 2.4, 0]", F_O, [0, 0, 1.28, -3.2, 2.4, 0])
    add("door: F_C = [0, 0, 0.32, -3.2, 2.4, 0]", F_C, [0, 0, 0.32, -3.2, 2.4, 0])
    add("door: I_C,z = 8/75 kg m^2", DOOR["inertia_com"][2, 2], 8 / 75)
    add("door: -3.2 e_x all from V x* I V", bias_wrench(I_O, V_O), [0, 0, 0, -3.2, 0, 0])
    add("door: 1.28 e_z and 2.4 e_y all from I A", inertial_wrench(I_O, A_O), [0, 0, 1.28, 0, 2.4, 0])
    add("door: a_C = (-1.6, 1.2, 0) m/s^2", material_acceleration(X_CO @ V_O, X_CO @ A_O), [-1.6, 1.2, 0])
    add("X^-1 X = E6 (block inverse)", inverse_transform(X) @ X, np.broadcast_to(np.eye(6), X.shape))
    add("X* = X^-T", Xf, np.swapaxes(np.linalg.inv(X), -1, -2))
    add("X_CA = X_CB X_BA (composition)", motion_transform(R[:-1] @ R[1:], d[:-1] + np.einsum("nij,nj->ni", R[:-1], d[1:])),
        X[1:] @ X[:-1])
    add("power V.F invariant under X, X*", power(transform_vectors(X, V), transform_vectors(Xf, F)), power(V, F))
    I_rand = transform_inertia(X, I_O)
    add("kinetic energy invariant (congruence)", kinetic_energy(I_rand, transform_vectors(X, V)), kinetic_energy(I_O, V))
    add("force transform = shift rule tau - d x f", transform_vectors(force_transform(np.eye(3), d), F), shift_wrench(F, d))
    add("duality (V x U).F + U.(V x* F) = 0",
        power(np.einsum("nij,nj->ni", motion_cross(V), U), F) + power(U, np.einsum("nij,nj->ni", force_cross(V), F)), 0)
    F_here = required_wrench(I_O, V, A)
    F_there = required_wrench(I_rand, transform_vectors(X, V), transform_vectors(X, A))
    add("Newton-Euler: same physics at any point and axes", transform_vectors(Xf, F_here), F_there)
    ax = screw_axis(V)
    on_axis = velocity_field(V, ax.point)
    add("screw: on-axis velocity = h omega", on_axis, ax.pitch[:, None] * V[:, :3])
    cax = central_axis(F)
    tau_axis = shift_wrench(F, cax.point)[:, :3]
    add("central axis: torque parallel to f", np.cross(tau_axis, F[:, 3:]), 0)
    add("MuJoCo cinert: unpack(pack(I)) = I", from_cinert(to_cinert(I_rand)), I_rand)
    T = homogeneous(R, d)
    add("Modern Robotics: Ad(T) = X^-1", Ad(T), inverse_transform(X))

    m, r = door_particles(40, 60)
    M, c, Icom = particle_inertia_com(m, r)
    I_grid = spatial_inertia(M, c, Icom)
    add("particles: kinetic energy = 1/2 V^T I V", particle_kinetic_energy(m, r, V[0]), kinetic_energy(I_grid, V[0]))
    add("particles: momentum = I V", particle_momentum(m, r, V[0]), spatial_momentum(I_grid, V[0]))
    classical = np.concatenate((A[0, :3], material_acceleration(V[0], A[0])))
    pts = r[::97]
    X_pts = motion_transform(np.eye(3), pts)
    add("particles: a_i = (X_i A)_lin + omega x v_i", particle_accelerations(pts, V[0], classical),
        material_acceleration(transform_vectors(X_pts, V[0]), transform_vectors(X_pts, A[0])))
    add("particles: sum m_i a_i, r_i x m_i a_i = Newton-Euler",
        particle_wrench(m, r, V[0], classical), required_wrench(I_grid, V[0], A[0]))
    add("particles -> plate as the grid refines (40x60 grid)", Icom, DOOR["inertia_com"], tol=2e-4)
    add("spatial acceleration round trip", spatial_acceleration(V, np.concatenate((A[:, :3], material_acceleration(V, A)), axis=-1)), A)
    return out


def main(argv: list[str] | None = None, write: Callable[[str], object] = print) -> int:
    table = rows()
    width = max(len(r.name) for r in table)
    write(f"{'invariant'.ljust(width)}  {'max |error|':>12}  {'tolerance':>9}  result")
    write("-" * (width + 35))
    for r in table:
        write(f"{r.name.ljust(width)}  {r.error:12.3e}  {r.tolerance:9.0e}  {'ok' if r.ok else 'FAIL'}")
    failed = sum(not r.ok for r in table)
    write("-" * (width + 35))
    write(f"self-check: {len(table) - failed} of {len(table)} invariants hold" + (f", {failed} FAIL" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
