"""E3 — the power of a push, split between rotation and translation (book chapter 4).

The door turns about its fixed hinge O at omega e_z, seen at the instant it lies along +x.
A hand pushes at the free edge Q = (0.8, 0, 0) m with a 5 N force f, tilted by the push angle
from the door's normal.  Refer both the twist and the wrench to a reference point P that
slides along the door from the hinge to Q:

    V_P = [omega; v_P],  F_P = [tau_P; f],  power = omega . tau_P + v_P . f.

Moving P toward Q shortens the lever arm, so the rotational term omega . tau_P shrinks, while
P moves faster, so the translational term v_P . f grows; their sum stays the same for every
P.  At Q, which lies on the force's line of action, tau_P = 0 and all the power flows through
v_P . f.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Slider
from .parts import Bars, ForceArrow, InfiniteLine, ReferencePoint, Series, TopView, TorqueArc
from .experiment import Experiment

WIDTH = float(sb.DOOR["width"])
PUSH_POINT = np.array([WIDTH, 0.0, 0.0])   # m, the free edge of the door
PUSH_FORCE = 5.0                           # N
ARROW_V = 0.15                             # drawn m per m/s
ARROW_F = 0.06                             # drawn m per N

CONTROLS = (
    Slider("ref_x", "reference point P, x (m)", 0.0, WIDTH, 0.02, 0.0),
    Slider("push_angle", "push tilt (deg)", -60.0, 60.0, 5.0, 0.0, ".0f"),
    Slider("omega", "ω (rad/s)", -3.0, 3.0, 0.1, float(sb.DOOR["omega"]), ".1f"),
)


def scene(ref_x=0.0, push_angle=0.0, omega=2.0) -> dict:
    """Twist, wrench and the two power terms at P = (ref_x, 0, 0), all from spatialbook."""
    V_O = np.array([0.0, 0.0, omega, 0.0, 0.0, 0.0])            # hinge fixed
    f = sb.rotation_z(np.deg2rad(push_angle)) @ np.array([0.0, PUSH_FORCE, 0.0])
    F_Q = np.concatenate([np.zeros(3), f])                       # a pure force applied at Q
    F_O = sb.shift_wrench(F_Q, -PUSH_POINT)                      # Q -> O: d = x_O - x_Q
    x_P = np.array([ref_x, 0.0, 0.0])
    V_P = sb.shift_twist(V_O, x_P)
    F_P = sb.shift_wrench(F_O, x_P)
    rot, trans = sb.power_terms(V_P, F_P)
    total = sb.power(V_P, F_P)
    line = sb.central_axis(F_P)                                  # the line of action
    S_P = sb.revolute_axis([0.0, 0.0, 1.0], [0.0, 0.0, 0.0], x_P)
    numbers = {
        "V_P": V_P, "F_P": F_P, "v_P": V_P[3:], "tau_P": F_P[:3], "f": F_P[3:],
        "rotational_power": rot, "translational_power": trans, "total_power": total,
        "lever_arm": np.linalg.norm(line.point),                 # distance P -> line of action
        "hinge_torque": sb.generalized_force(S_P, F_P),          # S^T F_P, the same for all P
        "line_point": x_P + line.point, "line_direction": line.direction,
    }
    return {"x_P": x_P, "x_Q": PUSH_POINT, "numbers": numbers}


class PowerSplit(Experiment):
    """E3: ω·τ_P and v_P·f trade places as P slides to the push point; their sum does not move."""

    name = "power_split"
    title = "E3 power split of a push on the door"
    alt = ("Top view of the door with a push at its free edge and a sliding reference point; "
           "bars show the rotational power ω·τ, the translational power v·f and their constant sum.")
    CONTROLS = CONTROLS
    # the legend under the view: at a push tilt of ±60° the line of action crosses every corner
    TOP_VIEW = TopView((0.08, 0.12, 0.50, 0.78), (-0.25, 1.25), (-0.45, 0.75),
                       "door from above: push f at Q, reference point P\n"
                       "(1 m/s ↦ 0.15 m, 1 N ↦ 0.06 m)", hinge_label=(-0.22, -0.2), legend="below",
                       legend_ncols=2, legend_room=0.15)
    TOP_PARTS = (ForceArrow("f", (WIDTH, 0.0), ARROW_F, "push f", depends=("push_angle",)),
                 InfiniteLine("line_point", "line_direction", "line of action", depends=("push_angle",)),
                 TorqueArc("tau_P[2]", "x_P", 4.0, label="τ_P,z"))
    REFERENCE = ReferencePoint("x_P", velocity="v_P", scale=ARROW_V, legend="P and v_P")
    BARS = (Bars("power = ω·τ_P + v_P·f", "power (W)", "W", ("ω·τ_P", "v_P·f", "total"),
                 (Series("", ("rotational_power", "translational_power", "total_power"),
                         (COLORS["green"], COLORS["blue"], COLORS["door"])),),
                 rect=(0.67, 0.12, 0.30, 0.78), labels=("ω·τ_P", "v_P·f", "total V_Pᵀ F_P"),
                 width=0.6, tick_fontsize=None),)
    READOUTS = (
        *BARS[0].readouts(),
        ("τ_P", "tau_P", "N m"),
        ("f", "f", "N"),
        ("v_P", "v_P", "m/s"),
        ("lever arm P→line", "lever_arm", "m"),
        ("hinge torque Sᵀ F_P", "hinge_torque", "N m"),
    )
    main_control = "ref_x"
    scene = staticmethod(scene)

    def _setup(self, fig):
        ax = self.top
        ax.plot([WIDTH], [0], "o", color=COLORS["vermillion"], ms=6, zorder=5)
        # under Q's marker and above the moving line of action (a white card), never split
        self._on_top(ax.annotate("push point Q", (WIDTH, 0), (WIDTH + 0.1, -0.17), fontsize=8,
                                 va="center", ha="right", bbox=dict(boxstyle="square,pad=0.1", fc="white",
                                                        ec="none", alpha=0.85)))
