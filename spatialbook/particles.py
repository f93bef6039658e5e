"""A body as a cloud of point masses, summed point by point: the independent oracle for the
6-D results (kinetic energy, momentum, accelerations, Newton–Euler).

Positions are relative to the reference point O, in the same axes as the twist.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._checks import _finite_result, as_scalar, as_vector3, as_vector6, as_whole_number, batch_shape
from .screw import _acceleration_field, _velocity_field
from ._kernels import _cross


#: the most particles door_particles makes: far more than any sum over them needs (the grid's
#: inertia is the plate's times 1 - 1/n^2), few enough to fit in memory
_MAX_PARTICLES = 10_000_000


def door_particles(nx: int = 40, nz: int = 60, door: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The door as an ``nx`` by ``nz`` grid of equal point masses at cell centres.

    Returns (masses (N,), positions (N, 3)) relative to the hinge O, body axes (x along the
    width, z up, y = 0).  The grid's inertia tends to the plate's as the grid is refined: the
    second moment of the mass about the COM along a direction with n cells, sum m_i x_i^2, is
    the plate's times 1 - 1/n^2 (the centre of mass and the total mass are exact).

    >>> import spatialbook as sb
    >>> m, r = sb.door_particles(4, 6)
    >>> float(m.sum()), r.mean(axis=0).round(12) + 0.0
    (2.0, array([0.4, 0. , 0. ]))
    """
    from .door import DOOR

    nx = as_whole_number("nx", nx)
    nz = as_whole_number("nz", nz)
    if nx * nz > _MAX_PARTICLES:            # (4 numbers of 8 bytes each: 320 MB at the limit)
        raise ValueError(f"nx, nz: expected at most {_MAX_PARTICLES:,} particles (nx * nz), got "
                         f"{nx} * {nz} = {nx * nz:,}")
    door = DOOR if door is None else door
    if not isinstance(door, Mapping) or not {"width", "height", "mass"} <= set(door):
        raise ValueError(
            "door: expected None or a dict with 'width', 'height' and 'mass' (like spatialbook.DOOR), "
            f"got a {type(door).__name__}" + (f" with keys {sorted(map(str, door))}" if isinstance(door, Mapping) else "")
        )
    a, c, m = (_door_number(door, key) for key in ("width", "height", "mass"))
    xs = (np.arange(nx) + 0.5) * (a / nx)
    zs = (np.arange(nz) + 0.5) * (c / nz) - c / 2
    X, Z = np.meshgrid(xs, zs, indexing="ij")
    positions = np.stack((X.ravel(), np.zeros(X.size), Z.ravel()), axis=-1)
    masses = np.full(X.size, m / X.size)
    return masses, positions


def _door_number(door: Mapping, key: str) -> float:
    value = as_scalar(f"door['{key}']", door[key], positive=True)
    if value.ndim != 0:
        raise ValueError(f"door['{key}']: expected one positive number, got an array of shape {value.shape}")
    return float(value)


def _particles(masses, positions) -> tuple[np.ndarray, np.ndarray]:
    """A cloud: masses (N,) and positions (N, 3), N >= 1."""
    m = as_scalar("masses", masses, nonnegative=True)
    r = as_vector3("positions", positions)
    if r.ndim != 2 or r.shape[0] == 0:
        raise ValueError(f"positions: expected an (N, 3) array of particle positions with N >= 1, got shape {r.shape}")
    if m.shape != r.shape[:-1]:
        raise ValueError(f"masses: expected shape {r.shape[:-1]}, one mass per row of positions, got shape {m.shape}")
    return m, r


def _one(name: str, value) -> np.ndarray:
    """A single 6-vector (the whole cloud shares one twist and one acceleration)."""
    v = as_vector6(name, value)
    if v.ndim != 1:
        raise ValueError(f"{name}: expected one 6-vector of shape (6,) for the whole cloud, got shape {v.shape}")
    return v


def particle_kinetic_energy(masses, positions, velocity) -> float:
    """``T = sum_i 1/2 m_i |v_i|^2`` with v_i from the velocity field of twist ``velocity`` (J)."""
    m, r = _particles(masses, positions)
    v = _velocity_field(_one("velocity", velocity), r)
    return float(_finite_result(0.5 * np.sum(m * np.einsum("...i,...i->...", v, v)), "masses, positions, velocity"))


def particle_momentum(masses, positions, velocity) -> np.ndarray:
    """H_O = sum_i [r_i x m_i v_i; m_i v_i], angular momentum about O and linear momentum."""
    m, r = _particles(masses, positions)
    p = m[:, None] * _velocity_field(_one("velocity", velocity), r)
    return _finite_result(np.concatenate((_cross(r, p).sum(axis=0), p.sum(axis=0))), "masses, positions, velocity")


def particle_accelerations(positions, velocity, classical_acceleration) -> np.ndarray:
    """Classical acceleration of each particle, a_i = a_O + alpha x r_i + omega x (omega x r_i)."""
    r = as_vector3("positions", positions)
    V = as_vector6("velocity", velocity)
    Ac = as_vector6("classical_acceleration", classical_acceleration)
    batch_shape(("positions", r, 1), ("velocity", V, 1), ("classical_acceleration", Ac, 1))
    return _finite_result(_acceleration_field(V, Ac, r), "positions, velocity, classical_acceleration")


def particle_wrench(masses, positions, velocity, classical_acceleration) -> np.ndarray:
    """Total external wrench at O from Newton's law per particle: sum_i [r_i x m_i a_i; m_i a_i]."""
    m, r = _particles(masses, positions)
    V = _one("velocity", velocity)
    Ac = _one("classical_acceleration", classical_acceleration)
    f = m[:, None] * _acceleration_field(V, Ac, r)
    return _finite_result(np.concatenate((_cross(r, f).sum(axis=0), f.sum(axis=0))),
                          "masses, positions, velocity, classical_acceleration")


def particle_inertia_com(masses, positions) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, com, inertia about the com) of the particle cloud: 𝓘_C = -sum m_i [r_i - c]x^2."""
    m, r = _particles(masses, positions)
    M = float(m.sum())
    if M <= 0:
        raise ValueError("masses: expected a positive total mass to locate the centre of mass, got 0")
    c = (m[:, None] * r).sum(axis=0) / M
    q = r - c
    qq = np.einsum("...i,...i->...", q, q)
    I = np.einsum("n,nij->ij", m, qq[:, None, None] * np.eye(3) - q[:, :, None] * q[:, None, :])
    return M, c, _finite_result(I, "masses, positions")
