"""The door as a cloud of point masses, summed point by point, against the 6-D results:
kinetic energy, momentum, material accelerations, the Newton-Euler wrench; and the grid's
inertia converging to the thin plate's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import spatialbook as sb

_c = st.floats(-3.0, 3.0, allow_nan=False)
vec6 = st.lists(_c, min_size=6, max_size=6).map(np.array)

MASSES, POINTS = sb.door_particles(20, 30)
M_GRID, C_GRID, I_GRID_COM = sb.particle_inertia_com(MASSES, POINTS)
I_GRID = sb.spatial_inertia(M_GRID, C_GRID, I_GRID_COM)       # exact inertia of the grid at O


def close(a, b, atol=1e-10):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=0, atol=atol)


def test_grid_inertia_is_the_sum_of_point_masses():
    close(np.sum(sb.point_mass_inertia(MASSES, POINTS), axis=0), I_GRID, atol=1e-12)
    close(M_GRID, sb.DOOR["mass"], atol=1e-12)
    close(C_GRID, sb.DOOR["com"], atol=1e-12)


@given(vec6)
def test_particle_kinetic_energy_and_momentum(V):
    close(sb.particle_kinetic_energy(MASSES, POINTS, V), sb.kinetic_energy(I_GRID, V))
    close(sb.particle_momentum(MASSES, POINTS, V), sb.spatial_momentum(I_GRID, V))


@given(vec6, vec6)
def test_particle_accelerations_and_wrench(V, A):
    # classical quantities of the body point at O, from the spatial acceleration A at O
    classical = np.r_[A[:3], sb.material_acceleration(V, A)]
    pts = POINTS[::37]
    X = sb.motion_transform(np.eye(3), pts)                  # one transform per particle
    close(sb.particle_accelerations(pts, V, classical),
          sb.material_acceleration(sb.transform_vectors(X, V), sb.transform_vectors(X, A)))
    close(sb.particle_wrench(MASSES, POINTS, V, classical), sb.required_wrench(I_GRID, V, A), atol=1e-9)


def test_door_wrench_from_particles():
    # the worked door: hinge fixed, omega = 2, alpha = 3 about z; F_O is the plate's 6-D result
    V_O, A_O = [0, 0, 2, 0, 0, 0], [0, 0, 3, 0, 0, 0]
    F = sb.particle_wrench(MASSES, POINTS, V_O, A_O)
    # f = m a_C does not depend on the grid; tau_z does, through the inertia
    close(F[3:], [-3.2, 2.4, 0], atol=1e-12)
    close(F, sb.required_wrench(I_GRID, V_O, A_O), atol=1e-12)
    I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    close(F, sb.required_wrench(I_O, V_O, A_O), atol=3e-3)


def test_grid_inertia_converges_to_the_plate():
    plate = sb.DOOR["inertia_com"]
    errors = []
    for n in (2, 4, 8, 16, 32):
        m, r = sb.door_particles(n, n)
        _, _, I = sb.particle_inertia_com(m, r)
        errors.append(np.max(np.abs(I - plate)))
        # each moment is low by exactly the factor 1 - 1/n^2 along a direction with n cells
        Ix = plate[0, 0] * (1 - 1 / n**2)
        Iz = plate[2, 2] * (1 - 1 / n**2)
        close(np.diag(I), [Ix, Ix + Iz, Iz], atol=1e-13)
    errors = np.array(errors)
    # second-order convergence: halving the cell size quarters the error
    np.testing.assert_allclose(errors[:-1] / errors[1:], 4.0, rtol=0.1)
    assert errors[-1] < 5e-4


@pytest.mark.parametrize("nx, nz", [(1, 1), (3, 7)])
def test_small_grids(nx, nz):
    m, r = sb.door_particles(nx, nz)
    assert m.shape == (nx * nz,)
    close(np.sum(m), sb.DOOR["mass"], atol=1e-12)
    assert np.all((r[:, 0] > 0) & (r[:, 0] < sb.DOOR["width"]))
    assert np.all(np.abs(r[:, 2]) < sb.DOOR["height"] / 2)
    close(r[:, 1], 0, atol=0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("call", [
    lambda: sb.particle_kinetic_energy([1e100, 1e100], [[1e100, 0, 0], [0, 1e100, 0]], [1e100] * 6),
    lambda: sb.particle_momentum([1e100, 1e100], [[1e100, 0, 0], [0, 1e100, 0]], [1e100] * 6),
    lambda: sb.particle_wrench([1e100, 1e100], [[1e100, 0, 0], [0, 1e100, 0]], [1e100] * 6, [1e100] * 6),
])
def test_particle_sums_that_overflow_float64_are_refused(call):
    """Each input within the 1e100 cap, their products beyond 1e308: was inf, not an error."""
    with pytest.raises(ValueError, match=r"^masses, positions, velocity.*: the inputs' magnitudes overflow float64"):
        call()
