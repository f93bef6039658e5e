"""Input handling at the public boundary: bad input raises ValueError naming the argument;
plain lists are accepted and ndarrays returned; leading axes batch exactly like a loop."""

from __future__ import annotations

import re

import numpy as np
import pytest

import spatialbook as sb

E3 = np.eye(3)
I_C = sb.DOOR["inertia_com"]
I_O = sb.spatial_inertia(2.0, [0.4, 0, 0], I_C)
V = [0, 0, 2, 0, 0, 0]
REFLECTION = np.diag([1.0, 1.0, -1.0])
NOT_ORTHONORMAL = np.array([[1.0, 0.1, 0], [0, 1, 0], [0, 0, 1]])
NON_SYMMETRIC = np.array([[1.0, 0.2, 0], [0, 1, 0], [0, 0, 1]])
NOT_PSD = np.diag([-0.1, 1.0, 1.0])
NO_TRIANGLE = np.diag([0.1, 0.1, 1.0])          # 0.1 + 0.1 < 1: no real body has these moments


def _with(value, index, bad):
    """A copy of ``value`` with one entry replaced by ``bad`` (NaN, inf)."""
    arr = np.array(value, dtype=float)
    arr.flat[index] = bad
    return arr


# (call, argument name the message must start with)
BAD_INPUTS = [
    # rotations: not orthonormal, or a reflection (det -1)
    (lambda: sb.motion_transform(NOT_ORTHONORMAL, [0, 0, 0]), "rotation"),
    (lambda: sb.motion_transform(2 * E3, [0, 0, 0]), "rotation"),
    (lambda: sb.motion_transform(REFLECTION, [0, 0, 0]), "rotation"),
    (lambda: sb.force_transform(REFLECTION, [0, 0, 0]), "rotation"),
    (lambda: sb.homogeneous(REFLECTION, [0, 0, 0]), "rotation"),
    (lambda: sb.rotating_frame_derivative(NOT_ORTHONORMAL, [0, 0, 1], [0, 0, 0], [1, 0, 0]), "rotation"),
    (lambda: sb.Ad(sb.homogeneous(E3, [1, 2, 3]) @ np.diag([1, 1, -1, 1])), "T"),
    (lambda: sb.Ad(np.ones((4, 4))), "T"),
    # wrong shapes
    (lambda: sb.motion_transform(E3, [1, 2]), "displacement"),
    (lambda: sb.motion_transform(np.eye(4), [1, 2, 3]), "rotation"),
    (lambda: sb.force_transform(E3, [[1, 2]]), "displacement"),
    (lambda: sb.skew([1, 2]), "v"),
    (lambda: sb.unskew(np.eye(2)), "S"),
    (lambda: sb.transform_vectors(np.eye(5), np.zeros(6)), "X"),
    (lambda: sb.transform_vectors(np.eye(6), np.zeros(5)), "vectors"),
    (lambda: sb.shift_twist([1, 2, 3], [0, 0, 0]), "velocity"),
    (lambda: sb.shift_wrench([1, 2, 3, 4, 5, 6], [0, 0]), "displacement"),
    (lambda: sb.velocity_field([0, 0, 1, 0, 0], [0, 0, 0]), "velocity"),
    (lambda: sb.velocity_field(V, [[0, 0]]), "points"),
    (lambda: sb.acceleration_field(V, [0, 0, 1], [0, 0, 0]), "acceleration"),
    (lambda: sb.spatial_inertia(2.0, [0.4, 0], I_C), "com"),
    (lambda: sb.spatial_inertia(2.0, [0.4, 0, 0], np.eye(2)), "inertia_com"),
    (lambda: sb.required_wrench(np.eye(5), V, V), "inertia"),
    (lambda: sb.required_wrench(I_O, V[:5], V), "velocity"),
    (lambda: sb.required_wrench(I_O, V, V[:5]), "acceleration"),
    (lambda: sb.power(V, [1, 2, 3]), "force"),
    (lambda: sb.motion_cross(np.zeros(7)), "velocity"),
    (lambda: sb.from_cinert(np.zeros(9)), "values"),
    (lambda: sb.generalized_force(np.zeros((6, 2)), np.zeros(5)), "force"),
    (lambda: sb.generalized_force(np.zeros((5, 2)), np.zeros(6)), "motion_axes"),
    (lambda: sb.to_linear_first([1, 2, 3]), "vector"),
    (lambda: sb.matrix_to_linear_first(np.eye(3)), "matrix"),
    (lambda: sb.box_inertia(1.0, [1, 2]), "size"),
    (lambda: sb.homogeneous(E3, [1, 2]), "position"),
    (lambda: sb.particle_momentum([1.0, 2.0], [[0, 0, 0]], V), "masses"),
    (lambda: sb.spatial_acceleration(V, [1, 2, 3]), "classical_acceleration"),
    (lambda: sb.probe_acceleration([0, 0, 1], [0, 0], [0, 0, 0]), "field_rate"),
    # not numbers at all
    (lambda: sb.skew("abc"), "v"),
    (lambda: sb.motion_transform([[1, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0]), "rotation"),
    (lambda: sb.spatial_inertia("heavy", [0, 0, 0], I_C), "mass"),
    (lambda: sb.rotation_z("a quarter turn"), "angle"),
    # non-finite numbers
    (lambda: sb.motion_transform(_with(E3, 0, np.nan), [0, 0, 0]), "rotation"),
    (lambda: sb.motion_transform(E3, [0, np.inf, 0]), "displacement"),
    (lambda: sb.transform_vectors(np.eye(6), _with(np.zeros((4, 6)), 7, np.nan)), "vectors"),
    (lambda: sb.transform_vectors(_with(np.eye(6), 3, np.inf), np.zeros(6)), "X"),
    (lambda: sb.velocity_field(_with(V, 2, np.nan), [0, 0, 0]), "velocity"),
    (lambda: sb.velocity_field(V, [[0, 0, 0], [np.inf, 0, 0]]), "points"),
    (lambda: sb.spatial_inertia(np.nan, [0, 0, 0], I_C), "mass"),
    (lambda: sb.spatial_inertia(2.0, [0, 0, 0], _with(I_C, 4, np.inf)), "inertia_com"),
    (lambda: sb.required_wrench(I_O, V, _with(V, 0, -np.inf)), "acceleration"),
    (lambda: sb.kinetic_energy(_with(I_O, 0, np.nan), V), "inertia"),
    (lambda: sb.rotation_x(np.inf), "angle"),
    (lambda: sb.plate_inertia(2.0, np.nan, 1.0), "width"),
    (lambda: sb.rod_inertia(2.0, np.inf), "length"),
    (lambda: sb.shift_wrench(_with(V, 5, np.nan), [0, 0, 0]), "force"),
    (lambda: sb.screw_axis(_with(V, 1, np.nan)), "velocity"),
    (lambda: sb.revolute_axis([0, 0, 1], [0, np.nan, 0], [0, 0, 0]), "hinge_point"),
    (lambda: sb.steiner(I_C, 2.0, [np.inf, 0, 0]), "offset"),
    (lambda: sb.from_cinert(_with(sb.to_cinert(I_O), 9, np.nan)), "values"),
    # negative mass and lengths
    (lambda: sb.spatial_inertia(-1.0, [0, 0, 0], I_C), "mass"),
    (lambda: sb.spatial_inertia([1.0, -2.0], [0, 0, 0], I_C), "mass"),
    (lambda: sb.box_inertia(-1.0, [1, 1, 1]), "mass"),
    (lambda: sb.box_inertia(1.0, [1, -1, 1]), "size"),
    (lambda: sb.plate_inertia(-2.0, 0.8, 1.2), "mass"),
    (lambda: sb.plate_inertia(2.0, -0.8, 1.2), "width"),
    (lambda: sb.rod_inertia(-1.0, 1.0), "mass"),
    (lambda: sb.point_mass_inertia(-1.0, [1, 0, 0]), "mass"),
    (lambda: sb.G_b(-1.0, I_C), "mass"),
    (lambda: sb.steiner(I_C, -1.0, [0, 0, 0]), "mass"),
    (lambda: sb.from_cinert([1, 1, 1, 0, 0, 0, 0, 0, 0, -1.0]), "values"),
    (lambda: sb.particle_kinetic_energy([-1.0], [[0, 0, 0]], V), "masses"),
    (lambda: sb.kinetic_energy(-I_O, V), "inertia"),
    # rotational inertias that no body has: not symmetric, not PSD, no triangle inequality
    (lambda: sb.spatial_inertia(2.0, [0, 0, 0], NON_SYMMETRIC), "inertia_com"),
    (lambda: sb.spatial_inertia(2.0, [0, 0, 0], NOT_PSD), "inertia_com"),
    (lambda: sb.spatial_inertia(2.0, [0, 0, 0], NO_TRIANGLE), "inertia_com"),
    (lambda: sb.spatial_inertia(2.0, [0, 0, 0], sb.rotation_x(0.3) @ NO_TRIANGLE @ sb.rotation_x(0.3).T), "inertia_com"),
    (lambda: sb.G_b(1.0, NO_TRIANGLE), "inertia_b"),
    (lambda: sb.G_b(1.0, NON_SYMMETRIC), "inertia_b"),
    (lambda: sb.steiner(NOT_PSD, 1.0, [0, 0, 0]), "inertia_com"),
    (lambda: sb.principal_axes(NON_SYMMETRIC), "inertia"),
    (lambda: sb.principal_axes(NO_TRIANGLE), "inertia"),
    # the same defects at any scale: grams and millimetres must not slip through
    (lambda: sb.spatial_inertia(1e-3, [0, 0, 0], 1e-9 * NO_TRIANGLE), "inertia_com"),
    (lambda: sb.spatial_inertia(1e-3, [0, 0, 0], 1e-9 * NOT_PSD), "inertia_com"),
    (lambda: sb.spatial_inertia(1e-3, [0, 0, 0], 1e-9 * NON_SYMMETRIC), "inertia_com"),
    (lambda: sb.spatial_inertia(1e6, [0, 0, 0], 1e6 * NO_TRIANGLE), "inertia_com"),
    # 6x6 spatial inertias that no body has
    (lambda: sb.required_wrench(I_O + np.triu(np.ones((6, 6)), 1) * 0.1, V, V), "inertia"),
    (lambda: sb.required_wrench(np.diag([1, 1, 1, 1, 2, 3.0]), V, V), "inertia"),
    (lambda: sb.kinetic_energy(np.diag([-1, 1, 1, 1, 1, 1.0]), V), "inertia"),
    (lambda: sb.spatial_momentum(np.diag([0.1, 0.1, 1, 1, 1, 1.0]), V), "inertia"),
    (lambda: sb.inertial_wrench(np.diag([0.1, 0.1, 1, 1, 1, 1.0]), V), "inertia"),
    (lambda: sb.bias_wrench(np.diag([0.1, 0.1, 1, 1, 1, 1.0]), V), "inertia"),
    (lambda: sb.transform_inertia(np.eye(6), np.diag([0.1, 0.1, 1, 1, 1, 1.0])), "inertia"),
    (lambda: sb.inertia_parts(np.diag([0.1, 0.1, 1, 1, 1, 1.0])), "inertia"),
    (lambda: sb.to_cinert(NON_SYMMETRIC[np.r_[0, 1, 2, 0, 1, 2]][:, np.r_[0, 1, 2, 0, 1, 2]]), "inertia"),
    (lambda: sb.from_cinert([0.1, 0.1, 1, 0, 0, 0, 0, 0, 0, 1.0]), "values"),
    (lambda: sb.inertia_parts(np.zeros((6, 6))), "inertia"),          # no mass: no COM
    # transforms that are not motion or force transforms
    (lambda: sb.inverse_transform(np.ones((6, 6))), "X"),
    (lambda: sb.inverse_transform(sb.motion_transform(E3, [1, 2, 3]) + sb.force_transform(E3, [1, 2, 3])), "X"),
    (lambda: sb.transform_inertia(sb.force_transform(E3, [1, 0, 0]), I_O), "X"),
    (lambda: sb.unskew(np.eye(3)), "S"),
    # degenerate geometry
    (lambda: sb.revolute_axis([0, 0, 0], [0, 0, 0], [1, 0, 0]), "axis"),
    (lambda: sb.screw_axis(np.zeros(6)), "velocity"),
    (lambda: sb.central_axis(np.zeros(6)), "force"),
    (lambda: sb.door_particles(0, 10), "nx"),
    (lambda: sb.door_particles(10, 2.5), "nz"),
    (lambda: sb.door_particles(True, 10), "nx"),                      # a bool is not a count
    # the leaks named in issue 8, and their relatives
    (lambda: sb.box_inertia(np.ones(7), np.ones((3, 3))), "batch shapes do not broadcast: mass"),
    (lambda: sb.plate_inertia(np.ones(7), [0.8, 0.9, 1.0], 1.2), "batch shapes do not broadcast: mass"),
    (lambda: sb.rod_inertia(np.ones(7), [1.0, 2.0]), "batch shapes do not broadcast: mass"),
    (lambda: sb.point_mass_inertia(np.ones(7), np.zeros((3, 3))), "batch shapes do not broadcast: mass"),
    (lambda: sb.revolute_axis([0, 0, 1], np.zeros((2, 3)), np.zeros((3, 3))), "batch shapes do not broadcast: axis"),
    (lambda: sb.generalized_force([[0, 0, 1, 0, 0, 0], [0, 0, 1, 0, 0]], V), "motion_axes"),
    (lambda: sb.generalized_force(np.zeros((2, 6)), V), "motion_axes"),
    (lambda: sb.particle_accelerations([[1, 0, 0]], V, [1, 2, 3]), "classical_acceleration"),
    (lambda: sb.particle_wrench([1.0], [[1, 0, 0]], V, None), "classical_acceleration"),
    # booleans, complex numbers, numbers as text, object arrays and None are not numbers
    (lambda: sb.motion_transform(np.eye(3, dtype=bool), [0, 0, 0]), "rotation"),
    (lambda: sb.spatial_inertia(True, [0, 0, 0], I_C), "mass"),
    (lambda: sb.skew([1, 2, 3j]), "v"),
    (lambda: sb.skew(np.array(["1", "2", "3"])), "v"),
    (lambda: sb.skew(np.array([1, 2, 3], dtype=object)), "v"),
    (lambda: sb.skew([1, None, 3]), "v"),
    (lambda: sb.kinetic_energy(None, V), "inertia"),
    # empty where a number is needed
    (lambda: sb.rotation_z([]), "angle"),
    (lambda: sb.spatial_inertia([], [0, 0, 0], I_C), "mass"),
    (lambda: sb.particle_inertia_com([], np.zeros((0, 3))), "masses"),
    (lambda: sb.particle_inertia_com([1.0], np.zeros((0, 3))), "positions"),
    # a particle cloud: one twist for the whole cloud, masses (N,) and positions (N, 3), some mass
    (lambda: sb.particle_kinetic_energy([1.0, 1.0], [[1, 0, 0], [0, 1, 0]], [V, V]), "velocity"),
    (lambda: sb.particle_momentum(np.ones((2, 1)), np.zeros((2, 1, 3)), V), "positions"),
    (lambda: sb.particle_inertia_com([0.0, 0.0], [[1, 0, 0], [0, 1, 0]]), "masses"),
    # the door as a dict
    (lambda: sb.door_particles(2, 3, "door"), "door"),
    (lambda: sb.door_particles(2, 3, {"width": 0.8, "height": 1.2}), "door"),
    (lambda: sb.door_particles(2, 3, {**sb.DOOR, "width": -0.8}), "door['width']"),
    (lambda: sb.door_particles(2, 3, {**sb.DOOR, "mass": [1.0, 2.0]}), "door['mass']"),
    # an axis built by hand
    (lambda: sb.Axis([0, 0, 0], [0, 0, 2], 0.0), "direction"),
    (lambda: sb.Axis([0, 0, 0], [0, 0, 1], -np.inf), "pitch"),
    (lambda: sb.Axis([0, 0, 0], [0, 0, 1], np.nan), "pitch"),
]


@pytest.mark.parametrize("call, argument", BAD_INPUTS, ids=[f"{i:03d}-{a}" for i, (_, a) in enumerate(BAD_INPUTS)])
def test_bad_input_raises_value_error_naming_the_argument(call, argument):
    with pytest.raises(ValueError, match=rf"^{re.escape(argument)}(?!\w)") as info:
        call()
    assert "expected" in str(info.value)


def test_accepted_edge_values():
    # an infinite pitch (pure translation), the default door, an empty batch of vectors, an empty batch of transforms
    assert sb.Axis([0, 0, 0], [1, 0, 0], np.inf).pitch == np.inf
    np.testing.assert_array_equal(sb.door_particles(2, 3, None)[1], sb.door_particles(2, 3, sb.DOOR)[1])
    assert sb.shift_twist(np.zeros((0, 6)), [1, 0, 0]).shape == (0, 6)
    assert sb.inverse_transform(np.zeros((0, 6, 6))).shape == (0, 6, 6)
    assert sb.required_wrench(I_O, np.zeros((0, 6)), V).shape == (0, 6)
    # integer input is numbers
    np.testing.assert_array_equal(sb.skew(np.array([1, 2, 3], dtype=np.int32)), sb.skew([1.0, 2.0, 3.0]))


# --- physical limits that MUST be accepted ------------------------------------------------


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1.0, 1e3, 1e6])
def test_thin_plate_and_rod_sit_exactly_on_the_triangle_inequality_and_are_accepted(scale):
    R = sb.rotation_x(0.3) @ sb.rotation_y(-1.1) @ sb.rotation_z(0.7)
    shapes = [
        sb.plate_inertia(2.0 * scale, 0.8, 1.2),
        sb.plate_inertia(scale, 3.0, 0.01),
        sb.rod_inertia(3.0 * scale, 2.0),
        sb.box_inertia(scale, [1.0, 0.0, 0.0]),
        np.zeros((3, 3)),                                             # a point mass
    ]
    for I in shapes:
        for J in (I, R @ I @ R.T):
            M6 = sb.spatial_inertia(2.0 * scale, [0.4, -0.2, 1.5], J)   # accepted
            sb.spatial_inertia(2.0 * scale, [0, 0, 0], J)
            sb.G_b(scale, J)
            sb.principal_axes(J)
            sb.steiner(J, scale, [1, 2, 3])
            # and every 6x6 consumer accepts the result, also moved to other axes
            X = sb.motion_transform(R, [3.0, -1.0, 0.5])
            M6n = sb.transform_inertia(X, M6)
            sb.required_wrench(M6n, V, V)
            sb.kinetic_energy(M6n, V)
            sb.from_cinert(sb.to_cinert(M6n))
            sb.inertia_parts(M6n)
    # the door itself, and the door's spatial inertia at the hinge and in turned axes
    sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])


def test_near_rotations_from_round_off_are_accepted():
    R = sb.rotation_z(0.3) @ sb.rotation_x(1.2)
    R_noisy = R + 1e-12
    sb.motion_transform(R_noisy, [0, 0, 0])
    sb.motion_transform(R.tolist(), [0, 0, 0])


# --- lists in, arrays out -----------------------------------------------------------------

LIST_CALLS = [
    lambda: sb.skew([1, 2, 3]),
    lambda: sb.unskew([[0, -3, 2], [3, 0, -1], [-2, 1, 0]]),
    lambda: sb.rotation_z([0.1, 0.2]),
    lambda: sb.motion_transform([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [1, 2, 3]),
    lambda: sb.force_transform([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [1, 2, 3]),
    lambda: sb.inverse_transform(sb.motion_transform(E3, [1, 2, 3]).tolist()),
    lambda: sb.transform_vectors(np.eye(6).tolist(), [[1, 2, 3, 4, 5, 6]]),
    lambda: sb.shift_twist([0, 0, 1, 0, 0, 0], [1, 0, 0]),
    lambda: sb.shift_wrench([0, 0, 1, 0, 1, 0], [1, 0, 0]),
    lambda: sb.velocity_field([0, 0, 1, 0, 0, 0], [[1, 0, 0]]),
    lambda: sb.acceleration_field([0, 0, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0], [[1, 0, 0]]),
    lambda: sb.spatial_inertia(2, [0.4, 0, 0], I_C.tolist()),
    lambda: sb.inertia_parts(I_O.tolist())[2],
    lambda: sb.transform_inertia(np.eye(6).tolist(), I_O.tolist()),
    lambda: sb.spatial_momentum(I_O.tolist(), V),
    lambda: sb.kinetic_energy(I_O.tolist(), V),
    lambda: sb.box_inertia(1, [1, 2, 3]),
    lambda: sb.plate_inertia(2, 0.8, 1.2),
    lambda: sb.rod_inertia(1, 2),
    lambda: sb.point_mass_inertia(1, [1, 0, 0]),
    lambda: sb.motion_cross(V),
    lambda: sb.force_cross(V),
    lambda: sb.power(V, V),
    lambda: sb.power_terms(V, V)[0],
    lambda: sb.inertial_wrench(I_O.tolist(), V),
    lambda: sb.bias_wrench(I_O.tolist(), V),
    lambda: sb.required_wrench(I_O.tolist(), V, V),
    lambda: sb.screw_axis([0, 0, 1, 0, 1, 0]).point,
    lambda: sb.central_axis([0, 0, 1, 0, 1, 0]).point,
    lambda: sb.spatial_acceleration(V, V),
    lambda: sb.material_acceleration(V, V),
    lambda: sb.probe_acceleration([0, 0, 1], [0, 0, 0], [1, 0, 0]),
    lambda: sb.field_rate_along_path(V, V, [1, 0, 0]),
    lambda: sb.rotating_frame_derivative(E3.tolist(), [0, 0, 1], [0, 0, 0], [1, 0, 0]),
    lambda: sb.revolute_axis([0, 0, 1], [0, 0, 0], [1, 0, 0]),
    lambda: sb.generalized_force([0, 0, 1, 0, 0, 0], V),
    lambda: sb.to_cinert(I_O.tolist()),
    lambda: sb.from_cinert(sb.to_cinert(I_O).tolist()),
    lambda: sb.homogeneous(E3.tolist(), [1, 2, 3]),
    lambda: sb.Ad(sb.homogeneous(E3, [1, 2, 3]).tolist()),
    lambda: sb.ad(V),
    lambda: sb.G_b(2, I_C.tolist()),
    lambda: sb.steiner(I_C.tolist(), 2, [0.4, 0, 0]),
    lambda: sb.principal_axes(I_C.tolist())[1],
    lambda: sb.to_linear_first([1, 2, 3, 4, 5, 6]),
    lambda: sb.from_linear_first([1, 2, 3, 4, 5, 6]),
    lambda: sb.matrix_to_linear_first(np.eye(6).tolist()),
    lambda: sb.particle_momentum([1.0], [[1, 0, 0]], V),
    lambda: sb.particle_accelerations([[1, 0, 0]], V, V),
    lambda: sb.particle_wrench([1.0], [[1, 0, 0]], V, V),
    lambda: sb.particle_inertia_com([1.0, 1.0], [[1, 0, 0], [0, 1, 0]])[2],
]


@pytest.mark.parametrize("call", LIST_CALLS, ids=range(len(LIST_CALLS)))
def test_plain_lists_in_ndarray_out(call):
    out = call()
    # arrays; a scalar result (energy, power, one joint torque) is a numpy float64 of shape ()
    assert isinstance(out, (np.ndarray, np.float64))
    assert out.dtype == np.float64


# --- batching over leading axes -----------------------------------------------------------

rng = np.random.default_rng(7)
N = 5


def _rot(n):
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


ROTS = _rot(N)
D3 = rng.normal(size=(N, 3))
V6 = rng.normal(size=(N, 6))
A6 = rng.normal(size=(N, 6))
MASSES = rng.uniform(0.5, 3.0, size=N)
ICOM = ROTS @ (np.eye(3) * rng.uniform(0.5, 1.0, size=(N, 1, 3))) @ np.swapaxes(ROTS, -1, -2)
IO6 = np.stack([sb.spatial_inertia(m, c, I) for m, c, I in zip(MASSES, D3, ICOM)])
X6 = np.stack([sb.motion_transform(R, d) for R, d in zip(ROTS, D3)])
T4 = np.stack([sb.homogeneous(R, d) for R, d in zip(ROTS, D3)])
CINERT = np.stack([sb.to_cinert(I) for I in IO6])
SAXES = rng.normal(size=(N, 6, 2))

# (function, batched arguments); each result must equal the per-item loop
BATCHED = [
    (sb.skew, (D3,)),
    (sb.unskew, (np.stack([sb.skew(d) for d in D3]),)),
    (sb.rotation_x, (D3[:, 0],)),
    (sb.rotation_y, (D3[:, 0],)),
    (sb.rotation_z, (D3[:, 0],)),
    (sb.motion_transform, (ROTS, D3)),
    (sb.force_transform, (ROTS, D3)),
    (sb.inverse_transform, (X6,)),
    (sb.transform_vectors, (X6, V6)),
    (sb.shift_twist, (V6, D3)),
    (sb.shift_wrench, (V6, D3)),
    (sb.velocity_field, (V6, D3)),
    (sb.acceleration_field, (V6, A6, D3)),
    (sb.spatial_inertia, (MASSES, D3, ICOM)),
    (sb.inertia_parts, (IO6,)),
    (sb.transform_inertia, (X6, IO6)),
    (sb.spatial_momentum, (IO6, V6)),
    (sb.kinetic_energy, (IO6, V6)),
    (sb.box_inertia, (MASSES, np.abs(D3))),
    (sb.plate_inertia, (MASSES, np.abs(D3[:, 0]), np.abs(D3[:, 1]))),
    (sb.rod_inertia, (MASSES, np.abs(D3[:, 0]))),
    (sb.point_mass_inertia, (MASSES, D3)),
    (sb.motion_cross, (V6,)),
    (sb.force_cross, (V6,)),
    (sb.power, (V6, A6)),
    (sb.power_terms, (V6, A6)),
    (sb.inertial_wrench, (IO6, A6)),
    (sb.bias_wrench, (IO6, V6)),
    (sb.required_wrench, (IO6, V6, A6)),
    (sb.screw_axis, (V6,)),
    (sb.central_axis, (A6,)),
    (sb.spatial_acceleration, (V6, A6)),
    (sb.material_acceleration, (V6, A6)),
    (sb.probe_acceleration, (D3, V6[:, :3], A6[:, :3])),
    (sb.field_rate_along_path, (V6, A6, D3)),
    (sb.rotating_frame_derivative, (ROTS, D3, V6[:, :3], A6[:, 3:])),
    (sb.revolute_axis, (D3, V6[:, :3], A6[:, :3])),
    (sb.generalized_force, (SAXES, V6)),
    (sb.to_cinert, (IO6,)),
    (sb.from_cinert, (CINERT,)),
    (sb.homogeneous, (ROTS, D3)),
    (sb.Ad, (T4,)),
    (sb.ad, (V6,)),
    (sb.G_b, (MASSES, ICOM)),
    (sb.steiner, (ICOM, MASSES, D3)),
    (sb.principal_axes, (ICOM,)),
    (sb.to_linear_first, (V6,)),
    (sb.from_linear_first, (V6,)),
    (sb.matrix_to_linear_first, (X6,)),
    (sb.particle_accelerations, (D3, V6[0], A6[0])),
]


def _items(out):
    return tuple(out) if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("fn, args", BATCHED, ids=[fn.__name__ for fn, _ in BATCHED])
def test_batch_equals_loop(fn, args):
    batched = _items(fn(*args))
    if fn is sb.particle_accelerations:                 # batches over points, not twists
        loop = [_items(fn(args[0][i], *args[1:])) for i in range(N)]
    else:
        loop = [_items(fn(*(a[i] for a in args))) for i in range(N)]
    for k, part in enumerate(batched):
        part = np.asarray(part)
        assert part.shape[0] == N
        np.testing.assert_allclose(part, np.stack([np.asarray(item[k]) for item in loop]), rtol=1e-12, atol=1e-12)


def test_batches_broadcast_one_transform_over_many_vectors_and_nested_axes():
    X = sb.motion_transform(ROTS[0], D3[0])
    Vs = rng.normal(size=(2, 3, 6))
    out = sb.transform_vectors(X, Vs)
    assert out.shape == (2, 3, 6)
    np.testing.assert_allclose(out, np.einsum("ij,abj->abi", X, Vs), atol=1e-12)
    pts = rng.normal(size=(4, 5, 3))
    np.testing.assert_allclose(sb.velocity_field(V6[0], pts), V6[0, 3:] + np.cross(V6[0, :3], pts), atol=1e-12)
    # a (2, N) batch of transforms
    X2 = sb.motion_transform(np.stack([ROTS, ROTS]), np.stack([D3, -D3]))
    assert X2.shape == (2, N, 6, 6)
    np.testing.assert_allclose(X2[1, 3], sb.motion_transform(ROTS[3], -D3[3]), atol=0)


def test_large_batches_with_one_transform_equal_the_plain_product():
    # above a few thousand rows transform_vectors works block by block: same numbers
    X = sb.motion_transform(ROTS[1], D3[1])
    for shape in [(4096, 6), (4097, 6), (3 * 4096 + 5, 6), (3, 5000, 6)]:
        Vs = rng.normal(size=shape)
        np.testing.assert_allclose(sb.transform_vectors(X, Vs), np.einsum("ij,...j->...i", X, Vs), rtol=0, atol=1e-12)
    strided = rng.normal(size=(9000, 12))[:, ::2]            # not contiguous
    np.testing.assert_allclose(sb.transform_vectors(X, strided), strided @ X.T, rtol=0, atol=1e-12)
    assert sb.transform_vectors(X, np.zeros((0, 6))).shape == (0, 6)
    with pytest.raises(ValueError, match="^vectors"):
        sb.transform_vectors(X, _with(np.zeros((9000, 6)), 8999 * 6 + 5, np.nan))


def test_star_import_binds_only_the_public_api():
    namespace: dict = {}
    exec("from spatialbook import *", namespace)
    names = set(namespace) - {"__builtins__"}
    assert names == set(sb.__all__)
    for submodule in ("inertia", "door", "screw", "transforms", "dynamics", "notation", "particles", "joints"):
        assert submodule not in names
    for name in ("motion_transform", "required_wrench", "DOOR", "Axis", "to_cinert"):
        assert name in names


# --- batches that cannot broadcast are named, not left to numpy ----------------------------

@pytest.mark.parametrize("call, names", [
    (lambda: sb.transform_vectors(np.broadcast_to(np.eye(6), (2, 6, 6)), np.zeros((3, 6))), "X"),
    (lambda: sb.velocity_field(np.zeros((2, 6)), np.zeros((3, 3))), "points"),
    (lambda: sb.motion_transform(np.broadcast_to(np.eye(3), (2, 3, 3)), np.zeros((3, 3))), "displacement"),
    (lambda: sb.power(np.zeros((2, 6)), np.zeros((3, 6))), "force"),
    (lambda: sb.required_wrench(np.eye(6), np.zeros((2, 6)), np.zeros((3, 6))), "acceleration"),
    (lambda: sb.spatial_inertia(np.ones(2), np.zeros((3, 3)), np.eye(3)), "com"),
    (lambda: sb.probe_acceleration(np.zeros((2, 3)), np.zeros((3, 3)), np.zeros(3)), "field_rate"),
])
def test_batches_that_do_not_broadcast_raise_a_named_error(call, names):
    with pytest.raises(ValueError, match=rf"batch shapes do not broadcast: .*{names}"):
        call()


def test_messages_point_at_the_offending_item_of_a_batch():
    R = np.stack([E3] * 4)
    R[2, 0, 1] = 0.1
    with pytest.raises(ValueError, match=r"^rotation: expected an orthonormal .* at batch index \(2,\)$"):
        sb.motion_transform(R, [0, 0, 0])
    I = np.stack([I_C, I_C, NO_TRIANGLE])
    with pytest.raises(ValueError, match=r"^inertia_com: expected .*triangle inequality.* at batch index \(2,\)$"):
        sb.spatial_inertia(2.0, [0, 0, 0], I)


@pytest.mark.parametrize("inertia", [sb.spatial_inertia(1.0, [0.1, 0, 0], np.eye(3)),
                                     np.stack([sb.spatial_inertia(1.0, [0.1, 0, 0], np.eye(3))] * 3)])
def test_inertia_parts_returns_copies_not_views_of_the_input(inertia):
    """The mass came back as a view into the caller's array: m *= 2 doubled its mass entries."""
    before = inertia.copy()
    parts = sb.inertia_parts(inertia)
    for part in parts:
        assert not np.shares_memory(part, inertia)
        part *= 2
    np.testing.assert_array_equal(inertia, before)


def test_door_is_read_only_and_reads_as_before():
    """sb.DOOR is shared by the book, the widgets and the self-check: an in-place change to it
    (sb.DOOR["com"] += 1 broke `python -m spatialbook check` and every widget) now raises."""
    with pytest.raises(ValueError, match="read-only"):
        sb.DOOR["com"] += 1
    with pytest.raises(ValueError, match="read-only"):
        sb.DOOR["inertia_com"][2, 2] = 0.0
    with pytest.raises(TypeError):
        sb.DOOR["mass"] = 3.0
    np.testing.assert_array_equal(sb.DOOR["com"], [0.4, 0, 0])
    door = dict(sb.DOOR)                 # a copy to change, as users read it
    door["mass"] = 3.0
    assert sb.DOOR["mass"] == 2.0 and sorted(door) == sorted(sb.DOOR)


@pytest.mark.parametrize("call, name", [
    (lambda: sb.screw_axis([1e-320, 0, 0, 0, 1, 0]), "velocity"),           # point 1e320 m: was [0, 0, inf]
    (lambda: sb.screw_axis([1e-320, 0, 0, 1, 0, 0]), "velocity"),           # pitch 1e320: was inf (a translation)
    (lambda: sb.screw_axis([[0, 0, 1, 0, 1, 0], [1e-200, 0, 0, 0, 1e-99, 0]]), "velocity"),   # 1e101 m
    (lambda: sb.central_axis([0, 1, 0, 1e-320, 0, 0]), "force"),
])
def test_an_axis_beyond_what_an_axis_holds_is_refused(call, name):
    """screw_axis and central_axis returned a point (or pitch) that Axis itself refuses."""
    with pytest.raises(ValueError, match=rf"^{name}: expected \|(omega|f)\| not so small"):
        call()


def test_an_axis_far_but_within_the_limit_is_returned():
    ax = sb.screw_axis([1e-90, 0, 0, 0, 1e-10, 0])
    np.testing.assert_allclose(ax.point, [0, 0, 1e80])
    assert sb.Axis(*ax).point[2] == 1e80                 # and Axis accepts it back


def test_axis_fields_share_one_batch_shape():
    """A pitch of shape (1,) with one point and direction was kept as (1,) beside a (3,) point."""
    ax = sb.Axis([0, 0, 0], [0, 0, 1], np.array([0.1]))
    assert (ax.point.shape, ax.direction.shape, ax.pitch.shape) == ((1, 3), (1, 3), (1,))
    ax = sb.Axis([[0, 0, 0], [1, 0, 0]], [0, 0, 1], 0.5)
    assert (ax.point.shape, ax.direction.shape, ax.pitch.shape) == ((2, 3), (2, 3), (2,))
    with pytest.raises(ValueError, match="batch shapes do not broadcast: point .*pitch"):
        sb.Axis([[0, 0, 0], [1, 0, 0]], [0, 0, 1], [0.1, 0.2, 0.3])


def test_axis_copies_the_callers_arrays():
    """Changing the arrays after the check changed the checked Axis (to an infinite point)."""
    point, direction, pitch = np.zeros(3), np.array([0.0, 0, 1]), np.array(0.5)
    ax = sb.Axis(point, direction, pitch)
    point[0], direction[:] = np.inf, [1.0, 1, 1]
    pitch[...] = np.nan
    np.testing.assert_array_equal(ax.point, [0, 0, 0])
    np.testing.assert_array_equal(ax.direction, [0, 0, 1])
    assert ax.pitch == 0.5
    with pytest.raises(ValueError, match="read-only"):
        ax.point[0] = np.inf
