"""Every public callable, every argument, every kind of bad value: a ``ValueError`` whose message
names the argument (exactly as in the signature) and says what was ``expected``.

The public callables are enumerated from ``spatialbook.__all__`` with ``inspect.signature``, so a
function added later is covered without anyone remembering to: it needs one valid example call
in ``VALID_CALLS`` below (a test fails until it has one), and the bad values are then generated
from that example for each of its parameters:

None, a string, numbers written as text, complex numbers, booleans, an object array, NaN, inf,
1e308 (finite, but beyond ``MAX_MAGNITUDE``: squared it overflows into an infinite result), an
empty list and a ragged list; for array parameters also a wrong trailing shape and an extra
trailing axis; and a leading (batch) axis that does not broadcast with another argument's.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import spatialbook as sb
from sampling import subset

# --- valid example values -------------------------------------------------------------------

R = sb.rotation_z(0.3) @ sb.rotation_x(-0.7)
I_C = sb.DOOR["inertia_com"]
I_O = sb.spatial_inertia(2.0, [0.4, 0.0, 0.0], I_C)
X_CO = sb.motion_transform(R, [0.4, 0.0, 0.1])
V = [0.0, 0.0, 2.0, 0.0, 0.8, 0.0]
A = [0.0, 0.0, 3.0, 0.0, 1.2, 0.0]
F = [0.0, 0.0, 1.28, -3.2, 2.4, 0.0]
S2 = np.stack([sb.revolute_axis([0, 0, 1], [0, 0, 0], [0.4, 0, 0]), [0, 0, 0, 1.0, 0, 0]], axis=-1)  # (6, 2)
MASSES, POSITIONS = sb.door_particles(2, 3)         # 6 particles: (6,) and (6, 3)
BIFOLD = sb.Tree([-1, 0], [np.eye(6), sb.motion_transform(np.eye(3), [0.8, 0.0, 0.0])],
                 [[0, 0, 1.0, 0, 0, 0]] * 2, [I_O, I_O])
FREE_DOOR = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I_O], kinds=["free"])
FREE_Q = [0.1, 0.2, 0.3, 0.5, 0.5, 0.5, 0.5]


def FREE_FALL(t, q, qd):
    """The free door's accelerations under gravity alone (the acceleration of rk4_step's example)."""
    return sb.forward_dynamics(FREE_DOOR, q, qd, np.zeros(6), gravity=[0.0, 0.0, -9.81])

# One valid call per public callable of spatialbook: name -> keyword arguments, with EVERY
# parameter given explicitly (each is replaced by bad values in turn).
#
# WHEN YOU ADD A FUNCTION OR CLASS TO spatialbook.__all__ (e.g. the ones of spatialbook/kinematics.py),
# ADD ITS ENTRY HERE; test_every_public_callable_has_a_valid_example fails until you do.
#
# Keep the examples unbatched where the function allows it (one vector, one matrix): the batch
# test prepends leading axes of length 5 and 7 and expects them not to broadcast.
VALID_CALLS: dict[str, dict] = {
    # transforms
    "skew": dict(v=[1.0, 2.0, 3.0]),
    "unskew": dict(S=sb.skew([1.0, 2.0, 3.0])),
    "rotation_x": dict(angle=0.3),
    "rotation_y": dict(angle=0.3),
    "rotation_z": dict(angle=0.3),
    "rotation_from_quaternion": dict(quaternion=[0.9, 0.1, 0.2, 0.3]),
    "motion_transform": dict(rotation=R, displacement=[0.4, 0.0, 0.1]),
    "force_transform": dict(rotation=R, displacement=[0.4, 0.0, 0.1]),
    "inverse_transform": dict(X=X_CO),
    "transform_vectors": dict(X=X_CO, vectors=V),
    "shift_twist": dict(velocity=V, displacement=[0.4, 0.0, 0.0]),
    "shift_wrench": dict(force=F, displacement=[0.4, 0.0, 0.0]),
    # inertia
    "spatial_inertia": dict(mass=2.0, com=[0.4, 0.0, 0.0], inertia_com=I_C),
    "inertia_parts": dict(inertia=I_O),
    "transform_inertia": dict(X=X_CO, inertia=I_O),
    "spatial_momentum": dict(inertia=I_O, velocity=V),
    "kinetic_energy": dict(inertia=I_O, velocity=V),
    "kinetic_energy_terms": dict(inertia=I_O, velocity=V),
    "box_inertia": dict(mass=12.0, size=[1.0, 2.0, 3.0]),
    "plate_inertia": dict(mass=2.0, width=0.8, height=1.2),
    "rod_inertia": dict(mass=3.0, length=2.0),
    "point_mass_inertia": dict(mass=1.0, position=[1.0, 0.0, 0.0]),
    # dynamics
    "motion_cross": dict(velocity=V),
    "force_cross": dict(velocity=V),
    "power": dict(velocity=V, force=F),
    "power_terms": dict(velocity=V, force=F),
    "inertial_wrench": dict(inertia=I_O, acceleration=A),
    "bias_wrench": dict(inertia=I_O, velocity=V),
    "required_wrench": dict(inertia=I_O, velocity=V, acceleration=A),
    # screw
    "Axis": dict(point=[-0.4, 0.0, 0.0], direction=[0.0, 0.0, 1.0], pitch=0.0),
    "velocity_field": dict(velocity=V, points=[0.4, 0.0, 0.0]),
    "acceleration_field": dict(velocity=V, acceleration=A, points=[0.4, 0.0, 0.0]),
    "screw_axis": dict(velocity=V),
    "central_axis": dict(force=F),
    # acceleration
    "spatial_acceleration": dict(velocity=V, classical_acceleration=A),
    "material_acceleration": dict(velocity=V, acceleration=A),
    "probe_acceleration": dict(angular_velocity=[0.0, 0.0, 2.0], field_rate=[0.0, 1.0, 0.0],
                               probe_velocity=[0.5, 0.0, 0.0]),
    "field_rate_along_path": dict(velocity=V, acceleration=A, probe_velocity=[0.0, 0.8, 0.0]),
    "rotating_frame_derivative": dict(rotation=R, frame_angular_velocity=[0.0, 0.0, 1.0],
                                      vector_rate=[0.1, 0.0, 0.0], vector=[1.0, 0.0, 0.0]),
    # joints
    "revolute_axis": dict(axis=[0.0, 0.0, 1.0], hinge_point=[0.0, 0.0, 0.0], reference_point=[0.4, 0.0, 0.0]),
    "generalized_force": dict(motion_axes=S2, force=F),
    # notation
    "to_cinert": dict(inertia=I_O),
    "from_cinert": dict(values=sb.to_cinert(I_O)),
    "homogeneous": dict(rotation=R, position=[1.0, 2.0, 3.0]),
    "Ad": dict(T=sb.homogeneous(R, [1.0, 2.0, 3.0])),
    "ad": dict(velocity=V),
    "G_b": dict(mass=2.0, inertia_b=I_C),
    "steiner": dict(inertia_com=I_C, mass=2.0, offset=[0.4, 0.0, 0.0]),
    "principal_axes": dict(inertia=R @ I_C @ R.T),
    "to_linear_first": dict(vector=V),
    "from_linear_first": dict(vector=V),
    "matrix_to_linear_first": dict(matrix=X_CO),
    # particles
    "door_particles": dict(nx=4, nz=6, door=sb.DOOR),
    "particle_kinetic_energy": dict(masses=MASSES, positions=POSITIONS, velocity=V),
    "particle_momentum": dict(masses=MASSES, positions=POSITIONS, velocity=V),
    "particle_accelerations": dict(positions=[0.4, 0.0, 0.3], velocity=V, classical_acceleration=A),
    "particle_wrench": dict(masses=MASSES, positions=POSITIONS, velocity=V, classical_acceleration=A),
    "particle_inertia_com": dict(masses=MASSES, positions=POSITIONS),
    # trees (the bifold door: two door leaves, the second hinged at the first one's free edge)
    "Tree": dict(parents=BIFOLD.parents, placements=BIFOLD.placements, axes=BIFOLD.axes, inertias=BIFOLD.inertias,
                 kinds=["revolute", "revolute"], joint_names=["hinge1", "hinge2"], offsets=[0.0, 0.1]),
    "inverse_dynamics": dict(tree=BIFOLD, q=[0.3, -0.5], qd=[1.0, 2.0], qdd=[0.5, -1.0], gravity=[0.0, 0.0, -9.81]),
    "mass_matrix": dict(tree=BIFOLD, q=[0.3, -0.5]),
    "forward_dynamics": dict(tree=BIFOLD, q=[0.3, -0.5], qd=[1.0, 2.0], tau=[0.5, -1.0], gravity=[0.0, 0.0, -9.81], method="aba"),
    # kinematics, centroidal momentum, integration (a floating door: its free joint has 7 + 6 numbers)
    "body_poses": dict(tree=BIFOLD, q=[0.3, -0.5]),
    "jacobian": dict(tree=BIFOLD, q=[0.3, -0.5], body=1, frame="mixed", placement=X_CO),
    "center_of_mass": dict(tree=BIFOLD, q=[0.3, -0.5]),
    "centroidal_momentum_matrix": dict(tree=FREE_DOOR, q=FREE_Q),
    "centroidal_momentum": dict(tree=FREE_DOOR, q=FREE_Q, qd=V),
    "configuration_rate": dict(tree=FREE_DOOR, q=FREE_Q, qd=V),
    "integrate": dict(tree=FREE_DOOR, q=FREE_Q, qd=V, dt=0.01),
    "rk4_step": dict(tree=FREE_DOOR, q=FREE_Q, qd=V, acceleration=FREE_FALL, dt=0.01, t=0.2),
}

# (callable, parameter, bad-value kind) -> why this parameter legitimately accepts that kind.
# Each one is checked to be accepted, so a stale entry fails.  Keep this list short.
# (A parameter whose default is None accepts None: that follows from the signature and is
# checked to work, not listed here.)
EXEMPT: dict[tuple[str, str, str], str] = {
    ("Axis", "pitch", "inf"): "pitch = +inf is how a pure translation or a pure couple is written (an infinite-pitch screw)",
}


# --- enumerating the public callables and generating bad values --------------------------------

PUBLIC = sorted(name for name in sb.__all__ if callable(getattr(sb, name)))


def _parameters(name: str) -> list[str]:
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in inspect.signature(getattr(sb, name)).parameters.values() if p.kind in kinds]


def _default(name: str, param: str):
    return inspect.signature(getattr(sb, name)).parameters[param].default


def _numeric(value) -> bool:
    try:
        return np.asarray(value).dtype.kind in "iuf"
    except ValueError:
        return False


def _bad_values(value) -> dict[str, object]:
    """Bad values of every kind, derived from one valid value."""
    if not _numeric(value):                       # a dict, a tree object, ...
        return {
            "None": None, "string": "not a valid value", "number": 1.0, "complex": 1.0 + 1.0j, "bool": True,
            "NaN": float("nan"), "inf": float("inf"), "empty": [], "ragged": [1.0, [1.0, 2.0]],
            "object_array": np.array([1.0, 2.0], dtype=object),
        }
    arr = np.asarray(value, dtype=float)
    nan, inf, huge = arr.copy(), arr.copy(), arr.copy()
    nan.flat[0], inf.flat[0], huge.flat[0] = np.nan, np.inf, 1e308
    bad = {
        "None": None,
        "string": "not a number",
        "numbers_as_text": arr.astype(str),       # np.asarray(..., float) would read these silently
        "complex": arr + 1j,
        "bool": True if arr.ndim == 0 else arr.astype(bool),
        "object_array": np.asarray(value).astype(object),
        "NaN": nan,
        "inf": inf,
        "huge": huge,                             # finite, but squared it overflows: a silent inf/NaN result
        "empty": [],
    }
    rows = arr.tolist()
    if arr.ndim == 0:
        bad["ragged"] = [rows, [rows, rows]]
    elif arr.ndim == 1:
        bad["ragged"] = [rows, rows[:-1]]
    else:
        bad["ragged"] = rows[:-1] + [rows[-1][:-1]]
    if arr.ndim >= 1:
        bad["wrong_shape"] = arr[tuple(slice(0, n - 1) for n in arr.shape)]   # every axis one short
        bad["extra_axis"] = arr[..., None]
    return bad


def _cases():
    cases = []
    for name in PUBLIC:
        if name not in VALID_CALLS:
            continue                              # reported by test_every_public_callable_has_a_valid_example
        for param in _parameters(name):
            for kind in _bad_values(VALID_CALLS[name][param]):
                cases.append(pytest.param(name, param, kind, id=f"{name}-{param}-{kind}"))
    return cases


def _batch_cases():
    cases = []
    for name in PUBLIC:
        if name not in VALID_CALLS:
            continue
        numeric = [p for p in _parameters(name) if _numeric(VALID_CALLS[name][p])]
        if len(numeric) >= 2:
            cases += [pytest.param(name, param, id=f"{name}-{param}-batch") for param in numeric]
    return cases


CASES = _cases()
BATCH_CASES = _batch_cases()


def _sampled(cases: list) -> list:
    """``make test``: every case.  ``make test-fast``: every public function and every argument
    of it, with a seeded 3 of that argument's bad kinds (tests/sampling.py)."""
    groups: dict = {}
    for case in cases:
        groups.setdefault(tuple(case.values[:2]), []).append(case)
    return [c for key, group in groups.items() for c in subset(group, 3, "-".join(key))]


def _call(name: str, **changes):
    return getattr(sb, name)(**{**VALID_CALLS[name], **changes})


def _numbers_in(out) -> list[np.ndarray]:
    if isinstance(out, str):                      # a Tree's joint kinds and names
        return []
    if isinstance(out, tuple):
        return [a for item in out for a in _numbers_in(item)]
    return [np.asarray(out)]


def _assert_names(message: str, param: str, *, first: bool) -> None:
    where = rf"^{re.escape(param)}\b" if first else rf"(?<![\w']){re.escape(param)}\b"
    assert re.search(where, message), f"the message does not name {param!r}: {message!r}"
    assert "expected" in message, f"the message does not say what was expected: {message!r}"


# --- the tests ---------------------------------------------------------------------------------


def test_every_public_callable_has_a_valid_example():
    missing = [name for name in PUBLIC if name not in VALID_CALLS]
    assert not missing, (
        f"public callables without a valid example call: {missing}. Add an entry for each to VALID_CALLS "
        "in tests/test_core_bad_arguments.py (name -> keyword arguments of one valid call), so that every "
        "argument is checked against bad values."
    )
    stale = sorted(set(VALID_CALLS) - set(PUBLIC))
    assert not stale, f"VALID_CALLS has entries for names not in spatialbook.__all__: {stale}"
    for name in PUBLIC:
        if name in VALID_CALLS:
            assert set(VALID_CALLS[name]) == set(_parameters(name)), (
                f"VALID_CALLS[{name!r}] must give every parameter explicitly: {_parameters(name)}"
            )


def test_exemptions_name_real_cases():
    known = {(name, param, kind) for name, param, kind in (c.values for c in CASES)}
    assert set(EXEMPT) <= known, f"exemptions for cases that do not exist: {sorted(set(EXEMPT) - known)}"


@pytest.mark.parametrize("name", sorted(VALID_CALLS))
def test_the_valid_example_runs_and_returns_finite_numbers(name):
    arrays = _numbers_in(_call(name))
    assert arrays
    for arr in arrays:
        assert arr.dtype.kind in "iuf", f"{name} returned {arr.dtype}"
        assert np.all(np.isfinite(arr)), f"{name} returned non-finite numbers"


@pytest.mark.parametrize("name, param, kind", _sampled(CASES))
def test_bad_argument_raises_value_error_naming_it(name, param, kind):
    bad = _bad_values(VALID_CALLS[name][param])[kind]
    if (name, param, kind) in EXEMPT or (kind == "None" and _default(name, param) is None):
        _call(name, **{param: bad})               # legitimately accepted
        return
    try:
        out = _call(name, **{param: bad})
    except ValueError as exc:
        _assert_names(str(exc), param, first=True)
    except Exception as exc:                      # noqa: BLE001 - any other type is the failure
        pytest.fail(f"{name}({param}=<{kind}>) raised {type(exc).__name__}, not ValueError: {exc}")
    else:
        pytest.fail(
            f"{name}({param}=<{kind}>) raised nothing and returned {out!r:.200}. If {param} legitimately "
            f"accepts this kind of value, add ({name!r}, {param!r}, {kind!r}) to EXEMPT with the reason."
        )


def _batched(value, n: int) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    return np.broadcast_to(arr, (n,) + arr.shape)


@pytest.mark.parametrize("name, param", BATCH_CASES)
def test_batch_that_does_not_broadcast_raises_value_error_naming_the_arguments(name, param):
    """``param`` gets a leading axis of 5.  If it does not batch at all, the error must name it;
    if it does, it is paired with another argument that batches, given a leading axis of 7, and
    the error must name both."""
    try:
        _call(name, **{param: _batched(VALID_CALLS[name][param], 5)})
    except ValueError as exc:                     # param does not batch, or not with the example's batch
        _assert_names(str(exc), param, first=False)
        return
    except Exception as exc:                      # noqa: BLE001
        pytest.fail(f"{name}({param}=<batch of 5>) raised {type(exc).__name__}, not ValueError: {exc}")
    for other in _parameters(name):
        if other == param or not _numeric(VALID_CALLS[name][other]):
            continue
        try:
            _call(name, **{other: _batched(VALID_CALLS[name][other], 7)})
        except ValueError:
            continue                              # does not batch: no partner
        with pytest.raises(ValueError) as info:
            _call(name, **{param: _batched(VALID_CALLS[name][param], 5),
                           other: _batched(VALID_CALLS[name][other], 7)})
        _assert_names(str(info.value), param, first=False)
        _assert_names(str(info.value), other, first=False)
        return
    pytest.skip(f"no other argument of {name} batches")


def test_case_count():
    """The size of the net, for the record (and so that it cannot shrink to nothing unnoticed)."""
    assert len(CASES) >= 500 and len(BATCH_CASES) >= 50


@pytest.mark.parametrize("kind", ["None", "string", "complex", "NaN", "inf", "wrong_shape", "extra_axis", "batch"])
def test_rk4_step_names_acceleration_when_it_returns_a_bad_qdd(kind):
    """rk4_step checks what its ``acceleration`` function returns at every stage: real, finite,
    shape (..., nv) fitting the batch of q and qd; otherwise a ValueError naming ``acceleration``."""
    good = np.asarray(FREE_FALL(0.0, np.asarray(FREE_Q), np.asarray(V, float)))
    bad = {"None": None, "string": "qdd", "complex": good + 1j, "NaN": np.full(6, np.nan), "inf": np.full(6, np.inf),
           "wrong_shape": good[:5], "extra_axis": good[:, None], "batch": np.stack([good] * 3)}[kind]
    with pytest.raises(ValueError) as info:
        _call("rk4_step", acceleration=lambda t, q, qd: bad)
    _assert_names(str(info.value), "acceleration", first=True)


@pytest.mark.parametrize("function", [lambda qd: qd, lambda t, q: q, lambda t, q, qd, extra: qd])
def test_rk4_step_names_acceleration_when_it_cannot_take_t_q_qd(function):
    """Before: Python's own TypeError from inside the first stage."""
    with pytest.raises(ValueError) as info:
        _call("rk4_step", acceleration=function)
    _assert_names(str(info.value), "acceleration", first=True)


@pytest.mark.parametrize("nx, nz", [(10**5, 10**5), (2**62, 1), (1, 2**63)])
def test_door_particles_refuses_a_grid_too_big_to_hold(nx, nz):
    """Before: MemoryError (74.5 GiB), numpy's "array is too big", a ZeroDivisionError."""
    with pytest.raises(ValueError, match=r"^nx, nz: expected at most 10,000,000 particles"):
        sb.door_particles(nx, nz)


def test_an_axis_replaced_is_checked_like_a_new_one():
    """Before: Axis._replace and Axis._make skipped the checks (a direction of length 5)."""
    axis = sb.Axis([0, 0, 0], [0, 0, 1], 0.0)
    with pytest.raises(ValueError, match=r"^direction: expected a unit vector"):
        axis._replace(direction=[0, 0, 5])
    with pytest.raises(ValueError, match=r"^pitch: expected"):
        sb.Axis._make(([0, 0, 0], [0, 0, 1], np.nan))
    assert float(axis._replace(pitch=0.5).pitch) == 0.5


def test_forward_dynamics_refuses_a_mass_so_small_that_qdd_overflows_by_every_method():
    """Before: [inf] by the CRBA (the default), while the ABA refused the same tree."""
    tiny = sb.Tree([-1], [np.eye(6)], [[0, 0, 1.0, 0, 0, 0]], [sb.spatial_inertia(1e-300, [0.5, 0, 0], np.zeros((3, 3)))])
    for method in ("auto", "crba", "aba"):
        with pytest.raises(ValueError, match=r"^tree: expected bodies with mass along every joint"):
            sb.forward_dynamics(tiny, [0.0], [0.0], [1e10], method=method)


def test_an_empty_batch_of_states_gives_an_empty_answer():
    """Batch axes may have length 0 (as mass_matrix already allowed); before, inverse and forward
    dynamics (CRBA) gave numpy's "cannot reshape array of size 0"."""
    door = sb.Tree([-1], [np.eye(6)], [[0, 0, 1.0, 0, 0, 0]], [sb.spatial_inertia(2.0, [0.4, 0, 0], np.eye(3) * 0.1)])
    none = np.zeros((0, 1))
    assert sb.inverse_dynamics(door, none, [0.0], [0.0]).shape == (0, 1)
    for method in ("auto", "crba", "aba"):
        assert sb.forward_dynamics(door, none, [0.0], [0.0], method=method).shape == (0, 1)
    assert sb.mass_matrix(door, none).shape == (0, 1, 1)
    assert sb.jacobian(door, [0.0], 0, frame="mixed", placement=np.zeros((0, 6, 6))).shape == (0, 6, 1)


def test_a_step_too_large_to_take_names_qd_and_dt():
    """Before: integrate and rk4_step returned q all NaN for |omega dt| near 1e154 and more."""
    free = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))], kinds=["free"])
    q, qd = [0, 0, 0, 1, 0, 0, 0], [1e100, 0, 0, 1e100, 0, 0]
    for call in (lambda: sb.integrate(free, q, qd, 1e100),
                 lambda: sb.rk4_step(free, q, qd, lambda t, q, qd: np.zeros(np.shape(qd)), 1e100)):
        with pytest.raises(ValueError, match=r"^qd, dt: expected a step with every \|qd_i dt\| at most"):
            call()


@pytest.mark.parametrize("scale", [1e-161, 1e-200, 1e90])
def test_vectors_of_any_magnitude_are_normalised_to_rounding(scale):
    """Before: |v|^2 underflowed, so 1e-161 components gave R^T R - E = 0.015, an axis of
    length 1.006, a screw direction of 1.0000056; 1e-200 ones were refused as zero."""
    quat = np.array([1.0, 1.0, 0.0, 0.3])
    R = sb.rotation_from_quaternion(scale * quat)
    np.testing.assert_allclose(R, sb.rotation_from_quaternion(quat), atol=1e-15)
    axis = sb.revolute_axis(scale * np.array([0.0, 1.0, 1.0]), [0, 0, 0], [1.0, 0, 0])
    np.testing.assert_allclose(axis, sb.revolute_axis([0.0, 1.0, 1.0], [0, 0, 0], [1.0, 0, 0]), atol=1e-15)
    direction = sb.screw_axis([scale, scale, 0, 0, 0, scale]).direction  # omega = scale (1, 1, 0); v = scale z
    # (v of 1 against omega of 1e-161 puts the axis 1e161 m away: refused, see test_core_inputs)
    np.testing.assert_allclose(direction, [2 ** -0.5, 2 ** -0.5, 0], atol=1e-15)


@pytest.mark.parametrize("call, names", [
    (lambda t: sb.inverse_dynamics(t, np.zeros((200000, 1, 2)), np.zeros((200000, 2)), np.zeros(2)), "q, qd, qdd, gravity"),
    (lambda t: sb.forward_dynamics(t, np.zeros((200000, 1, 2)), np.zeros((200000, 2)), np.zeros(2)), "q, qd, tau, gravity"),
    (lambda t: sb.mass_matrix(t, np.broadcast_to(np.zeros(2), (200000, 200000, 2))), "q"),
    (lambda t: sb.mass_matrix(t, np.broadcast_to(np.zeros(2), (30000000, 2))), "q"),        # H: 1.2e8 numbers
    (lambda t: sb.power(np.zeros((20000, 1, 6)), np.zeros((20000, 6))), "velocity, force"),
])
def test_batches_beyond_the_size_limit_are_refused_before_any_work(call, names):
    """Broadcast batches of 4e10 states: numpy's MemoryError (596 GiB), or minutes of scanning."""
    I = sb.spatial_inertia(2.0, [0.4, 0, 0], np.eye(3))
    tree = sb.Tree([-1, 0], [np.eye(6), sb.motion_transform(np.eye(3), [0.8, 0, 0])], [[0, 0, 1, 0, 0, 0]] * 2, [I, I])
    with pytest.raises(ValueError, match=rf"^{re.escape(names)}: expected (batches that broadcast to )?at most 1e\+08 numbers"):
        call(tree)
