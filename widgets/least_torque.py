"""E10 — the central axis as the line of least torque (book chapter 5).

A hand pushes the door's free edge Q = (0.8, 0, 0) m with a 5 N force f in the horizontal
plane, tilted by the push angle from the door's normal, and twists its wrist about the push
direction with a couple t f/|f| (a screwdriver's twist).  A door closer adds a couple c e_z
about the vertical.  The whole system, referred to the hinge O, is the wrench

    F_O = [ x_Q x f + t f/|f| + c e_z ;  f ].

Refer it to a point P that slides along the door's line (y = 0, extended past both ends):
tau_P = tau_O - x_P x f (chapter 5, eq. (eq-ch05-shift)).  The part of tau_P along f, t f/|f|,
is the same at every P; the vertical part changes with P and vanishes where P's line crosses
the central axis (``sb.central_axis``), the line along f shifted from the push's line of action
by c/|f| (the couple moves the resultant's line sideways).  So |tau_P| along P's line is smallest
on the axis, |tau_P| = |f . tau| / |f| = |p| |f| = |t| there (pitch p = t/|f|), and grows as
|f| sqrt(p^2 + rho^2) with P's distance rho from the axis (eq. (eq-ch05-min)).  With t = 0 the
system is planar: its central axis is the line of action of the single force that replaces it,
and the torque vanishes on it.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Slider
from .parts import Curve, ForceArrow, InfiniteLine, Ref, ReferencePoint, TopView, TorqueArc
from .experiment import Experiment

WIDTH = float(sb.DOOR["width"])
PUSH_POINT = np.array([WIDTH, 0.0, 0.0])   # m, the free edge Q
PUSH_FORCE = 5.0                           # N
ARROW_F = 0.06                             # drawn m per N
ARROW_TAU = 0.4                            # drawn m per N m (the in-plane part of tau_P)
P_MIN, P_MAX = -0.4, 1.2                   # m, the range of P along y = 0
#: positions along P's line where the curve of |tau_P| is sampled (m)
LINE_X = np.linspace(P_MIN, P_MAX, 161)
LINE = np.column_stack([LINE_X, np.zeros((len(LINE_X), 2))])

CONTROLS = (
    Slider("ref_x", "P, x along the door's line (m)", P_MIN, P_MAX, 0.02, 0.2),
    Slider("push_angle", "push tilt (deg)", -60.0, 60.0, 5.0, 30.0, ".0f"),
    Slider("couple", "closer couple c_z (N m)", -2.0, 2.0, 0.1, -1.0, ".1f"),
    Slider("twist", "wrist twist about f (N m)", -1.0, 1.0, 0.1, 0.5, ".1f"),
)


def scene(ref_x=0.2, push_angle=30.0, couple=-1.0, twist=0.5) -> dict:
    """The wrench at P, its central axis and |tau| along P's line, all from spatialbook."""
    f = sb.rotation_z(np.deg2rad(push_angle)) @ np.array([0.0, PUSH_FORCE, 0.0])
    F_Q = np.concatenate([twist * f / PUSH_FORCE, f])             # push plus wrist twist, at Q
    F_O = sb.shift_wrench(F_Q, -PUSH_POINT) + np.array([0.0, 0.0, couple, 0.0, 0.0, 0.0])
    x_P = np.array([ref_x, 0.0, 0.0])
    F_P = sb.shift_wrench(F_O, x_P)
    axis = sb.central_axis(F_O)                                   # offset from O = a point (m)
    crossing = axis.point - axis.point[1] / axis.direction[1] * axis.direction   # on y = 0
    along = np.linalg.norm(sb.shift_wrench(F_O, LINE)[:, :3], axis=1)
    numbers = {
        "F_P": F_P, "tau_P": F_P[:3], "f": F_P[3:], "tau_P_size": np.linalg.norm(F_P[:3]),
        "pitch": axis.pitch, "least_torque": abs(axis.pitch) * np.linalg.norm(F_P[3:]),
        "axis_point": crossing, "axis_direction": axis.direction, "axis_crossing": crossing[0],
        "distance_to_axis": np.linalg.norm(np.cross(x_P - crossing, axis.direction)),
    }
    return {"x_P": x_P, "x_Q": PUSH_POINT, "e_x": np.array([1.0, 0.0, 0.0]), "line_x": LINE_X,
            "line_tau": along, "numbers": numbers}


class LeastTorque(Experiment):
    """E10: |τ_P| along P's line is smallest, |p||f|, where the line crosses the central axis."""

    name = "least_torque"
    title = "E10 the central axis, line of least torque"
    alt = ("Left: the door from above with a push at its free edge, the push's line of action, the "
           "central axis parallel to it and a point P sliding along the door's line, with the torque "
           "about P as an arc (vertical part) and an arrow (part along the push). Right: the size of "
           "the torque about P along that line, smallest where the line crosses the central axis.")
    CONTROLS = CONTROLS
    # both legends under their plots: the lines they key cross the whole of both
    TOP_VIEW = TopView((0.07, 0.12, 0.46, 0.78), (-0.5, 1.25), (-0.55, 0.75),
                       "door from above: push f at Q, central axis, P\n"
                       f"(1 N ↦ {ARROW_F:g} m, 1 N m ↦ {ARROW_TAU:g} m)", legend="below",
                       legend_ncols=2, legend_room=0.18, hinge_label=(-0.1, -0.3))   # under the hinge, below P's label
    TOP_PARTS = (
        InfiniteLine("x_Q", "e_x", "P's line (y = 0)", COLORS["grey"], ":", depends=(), name="P's line"),
        ForceArrow("f", (WIDTH, 0.0), ARROW_F, "push f at Q", depends=("push_angle",)),
        InfiniteLine("x_Q", "f", "line of action of f", depends=("push_angle",)),
        InfiniteLine("axis_point", "axis_direction", "central axis", COLORS["blue"], "-.", 1.5,
                     depends=("push_angle", "couple")),
        TorqueArc("tau_P[2]", "x_P", 4.0, label="τ_P,z"),
        ForceArrow("tau_P", "x_P", ARROW_TAU, "τ_P in plane (∥ f)", COLORS["purple"], 0.006, 7))
    REFERENCE = ReferencePoint("x_P", label="P")
    CURVES = (Curve("|τ_P| along P's line", "x of P on y = 0 (m)", "|τ_P| (N m)", "line_tau", "line_x",
                    at="x_P[0]", value="tau_P_size", positive=True, rect=(0.63, 0.12, 0.34, 0.78),
                    refs=(Ref("axis_crossing", "x", "central axis", COLORS["blue"], "-."),
                          Ref("least_torque", "y", "|p| |f|: least")),
                    depends=("push_angle", "couple", "twist"), legend="below", legend_ncols=2,
                    legend_room=0.12),)
    READOUTS = (("|τ_P|", "tau_P_size", "N m"), ("τ_P", "tau_P", "N m"), ("f", "f", "N"),
                ("pitch p = f·τ/|f|²", "pitch", "m"), ("least |τ| = |f·τ|/|f|", "least_torque", "N m"),
                ("axis crosses y = 0 at x", "axis_crossing", "m"),
                ("P's distance to the axis", "distance_to_axis", "m"))
    main_control = "ref_x"
    scene = staticmethod(scene)
