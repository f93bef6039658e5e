"""Interactive experiments of the spatialbook (ipywidgets + matplotlib, built on spatialbook).

>>> from widgets import EXPERIMENTS
>>> exp = EXPERIMENTS["power_split"]()      # displays nothing until you show exp.widget
>>> round(exp.state()["total_power"], 6)
8.0

Every experiment: ``.controls`` (dict of ipywidgets), ``.widget`` (displayable), ``.state()``
(numbers shown, plain floats/lists), ``.set(**values)``, ``.main_control``, ``.frames()``,
``.static_player()``.  The design and a recipe for adding one are in ``widgets/README.md``.
"""

from __future__ import annotations

from .controls import Choice, Player, Slider
from .parts import Bars, Curve, ForceArrow, InfiniteLine, Ref, ReferencePoint, Series, TopView, TorqueArc
from .experiment import Experiment
from .arm import ArmExplorer
from .bifold import BifoldDoor
from .floating_biped import FloatingBiped
from .kinetic_energy import KineticEnergy
from .least_torque import LeastTorque
from .newton_euler import NewtonEuler
from .power_split import PowerSplit
from .principal_axes import PrincipalAxes
from .probes import Probes
from .screw_axis import ScrewAxis
from .spatial_inertia import SpatialInertia
from .velocity_field import VelocityField

#: short name -> experiment class; ``EXPERIMENTS[name]()`` builds one (and displays nothing).
#: Each class's ``name`` is its key; the order is the book's (E1, E2, ...).
EXPERIMENTS: dict[str, type[Experiment]] = {cls.name: cls for cls in (
    VelocityField,      # E1, book chapter 1
    ScrewAxis,          # E2, chapter 3
    PowerSplit,         # E3, chapters 4 and 5
    SpatialInertia,     # E4, chapter 6
    Probes,             # E5, chapter 7
    NewtonEuler,        # E6, chapter 8
    PrincipalAxes,      # E7, chapter 10
    BifoldDoor,         # E8, chapter 11
    KineticEnergy,      # E9, chapter 6 (also the README recipe's worked example)
    LeastTorque,        # E10, chapter 5
    ArmExplorer,        # E11, chapter 12
    FloatingBiped,      # E12, chapter 14
)}

__all__ = ["EXPERIMENTS", "Experiment", "Slider", "Choice", "Player", "TopView", "Bars", "Series",
           "ReferencePoint", "ForceArrow", "InfiniteLine", "TorqueArc", "Curve", "Ref", *(cls.__name__ for cls in EXPERIMENTS.values())]
