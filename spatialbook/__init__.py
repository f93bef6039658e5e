"""spatialbook: spatial vector algebra for rigid-body dynamics, as plain functions on numpy arrays.

Conventions (every docstring in the package refers to these)
------------------------------------------------------------
1. Order.  6-vectors are ANGULAR PART FIRST.  Twist (spatial velocity) V = [omega; v_P] in
   rad/s and m/s; spatial acceleration A = [alpha; a_P - omega x v_P]; wrench (spatial force)
   F = [tau_P; f] in N m and N.  v_P and tau_P belong to a reference point P.
2. Displacement.  ``displacement`` / ``com`` d = x_new - x_old points FROM the old reference
   point TO the new one, written in OLD axes.  D = [d]x is its skew matrix.
3. Rotation.  ``rotation`` R maps NEW-frame components to OLD-frame components: its columns are
   the new axes written in old coordinates.  A vector's new components are R^T times its old.
4. E is the identity (E3, E6).  Units are SI throughout.
5. Arrays batch over leading axes: a (..., 6) array is many 6-vectors, (..., 6, 6) many
   matrices.  Lists are accepted everywhere; numpy arrays are returned.
6. Input is checked once at the public boundary; bad input raises ``ValueError`` naming the
   argument and what was expected.  Numbers must be finite and at most 1e100 in magnitude
   (``_checks.MAX_MAGNITUDE``): a bigger one could overflow into an infinite result.

>>> import spatialbook as sb
>>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
>>> sb.required_wrench(I_O, [0, 0, 2, 0, 0, 0], [0, 0, 3, 0, 0, 0]).round(12) + 0.0
array([ 0.  ,  0.  ,  1.28, -3.2 ,  2.4 ,  0.  ])
"""

import types as _types

from .transforms import (
    force_transform, inverse_transform, motion_transform, rotation_from_quaternion, rotation_x, rotation_y, rotation_z,
    shift_twist, shift_wrench, skew, transform_vectors, unskew,
)
from .inertia import (
    box_inertia, inertia_parts, kinetic_energy, kinetic_energy_terms, plate_inertia, point_mass_inertia, rod_inertia,
    spatial_inertia, spatial_momentum, transform_inertia,
)
from .dynamics import (
    bias_wrench, force_cross, inertial_wrench, motion_cross, power, power_terms, required_wrench,
)
from .screw import Axis, acceleration_field, central_axis, screw_axis, velocity_field
from .acceleration import (
    field_rate_along_path, material_acceleration, probe_acceleration, rotating_frame_derivative,
    spatial_acceleration,
)
from .joints import generalized_force, revolute_axis
from .notation import (
    G_b, Ad, ad, from_cinert, from_linear_first, homogeneous, matrix_to_linear_first, principal_axes,
    steiner, to_cinert, to_linear_first,
)
from .door import DOOR
from .tree import Tree
from .rnea import inverse_dynamics
from .crba import mass_matrix
from .aba import forward_dynamics
from .kinematics import body_poses, jacobian
from .centroidal import center_of_mass, centroidal_momentum, centroidal_momentum_matrix
from .integration import configuration_rate, integrate, rk4_step
from .particles import (
    door_particles, particle_accelerations, particle_inertia_com, particle_kinetic_energy,
    particle_momentum, particle_wrench,
)

# Public names only: functions, the Axis type and DOOR (not the submodules themselves, so that
# ``from spatialbook import *`` does not bind names such as ``inertia`` or ``door``).
__all__ = [name for name, value in dict(globals()).items()
           if not name.startswith("_") and not isinstance(value, _types.ModuleType)]
__version__ = "0.1.0"
