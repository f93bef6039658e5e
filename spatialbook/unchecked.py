"""The arithmetic of some public functions without their input checks: a deliberate fast path.

Every public function of :mod:`spatialbook` checks its arguments once (see ``_checks``) and
then calls an unchecked twin that does the arithmetic; public functions that need each other
call the twins, so one public call validates its input once.  This module exposes those twins
under the public names, for a caller that has validated its inputs already and calls the same
arithmetic many times, e.g. a widget's ``scene`` that re-expresses one fixed, checked inertia
at every slider move::

    import spatialbook as sb
    from spatialbook import unchecked as fast

    I_O = sb.spatial_inertia(2.0, [0.4, 0, 0], sb.DOOR["inertia_com"])   # checked once
    T = fast.kinetic_energy(I_O, np.array([0.0, 0.0, 2.0, 0.0, 0.0, 0.0]))

Contract: arguments are float numpy arrays (not lists) of the shapes the public function
documents, finite, and physically valid (a motion transform where one is expected, a spatial
inertia that passes the checks).  Nothing is checked; wrong input gives wrong numbers, not a
``ValueError``.  Results equal the public functions' bit for bit (tested in
``tests/test_core_closed_form.py``).  Everything else: use the public, checked functions.

>>> import numpy as np, spatialbook as sb
>>> from spatialbook import unchecked as fast
>>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
>>> V_O = np.array([0.0, 0.0, 2.0, 0.0, 0.0, 0.0])
>>> bool(fast.kinetic_energy(I_O, V_O) == sb.kinetic_energy(I_O, V_O))
True
"""

from __future__ import annotations

from .dynamics import _bias as bias_wrench
from .dynamics import _power as power
from .dynamics import _power_terms as power_terms
from .dynamics import _required_wrench as required_wrench
from .dynamics import _times as inertial_wrench
from .inertia import _kinetic_energy as kinetic_energy
from .inertia import _kinetic_energy_terms as kinetic_energy_terms
from .inertia import _momentum as spatial_momentum
from .inertia import _transform_inertia as transform_inertia
from .transforms import _motion_blocks as motion_transform

__all__ = ["bias_wrench", "inertial_wrench", "kinetic_energy", "kinetic_energy_terms", "motion_transform",
           "power", "power_terms", "required_wrench", "spatial_momentum", "transform_inertia"]
