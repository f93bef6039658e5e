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

from ._base import Choice, Experiment, Player, Slider
from .bifold import BifoldDoor
from .newton_euler import NewtonEuler
from .power_split import PowerSplit
from .principal_axes import PrincipalAxes
from .probes import Probes
from .screw_axis import ScrewAxis
from .spatial_inertia import SpatialInertia
from .velocity_field import VelocityField

#: short name -> experiment class; ``EXPERIMENTS[name]()`` builds one (and displays nothing).
EXPERIMENTS: dict[str, type[Experiment]] = {
    "velocity_field": VelocityField,     # E1, CURRICULUM §1
    "screw_axis": ScrewAxis,             # E2, §3
    "power_split": PowerSplit,           # E3, §4
    "spatial_inertia": SpatialInertia,   # E4, §6
    "probes": Probes,                    # E5, §7
    "newton_euler": NewtonEuler,         # E6, §8
    "principal_axes": PrincipalAxes,     # E7, chapter 10
    "bifold_door": BifoldDoor,           # E8, chapter 11
}

__all__ = ["EXPERIMENTS", "Experiment", "Slider", "Choice", "Player", "VelocityField",
           "ScrewAxis", "PowerSplit", "SpatialInertia", "Probes", "NewtonEuler",
           "PrincipalAxes", "BifoldDoor"]
