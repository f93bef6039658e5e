"""E6 — the Newton–Euler equation on the door, term by term (book chapter 8).

The door (m = 2 kg, 0.8 m x 1.2 m plate) turns about its fixed hinge O at omega e_z with
angular acceleration alpha e_z, at the instant it lies along +x.  The total external wrench
it needs is

    F = I A + V x* (I V)                    (chapter 8, eq. (eq-ch08-ne))

at any common reference point.  At the hinge with omega = 2 rad/s and alpha = 3 rad/s^2:
F_O = [0, 0, 1.28; -3.2, 2.4, 0].  The centripetal pull -3.2 e_x N comes entirely from the
bias term V x* (I V); the tangential force 2.4 e_y N and the torque 1.28 e_z N m from I A.
Switch the reference to the COM: f is unchanged (f = m a_C), tau becomes tau_C = I_C alpha
= 0.32 e_z N m, and the split between the two terms changes as the transform rules say.
With alpha = 0 only the centripetal pull remains.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Choice, Slider
from .parts import Bars, ForceArrow, ReferencePoint, Series, TopView, TorqueArc
from .experiment import Experiment

MASS = float(sb.DOOR["mass"])
COM = np.asarray(sb.DOOR["com"], float)
I_O = sb.spatial_inertia(MASS, COM, sb.DOOR["inertia_com"])
X_CO = sb.motion_transform(np.eye(3), COM)          # hinge O -> COM C, same axes
ARROW_F = 0.06                                       # drawn m per N
REFERENCES = ("hinge", "COM")
LABELS = ["τx", "τy", "τz", "fx", "fy", "fz"]

CONTROLS = (
    Slider("alpha", "α (rad/s²)", -5.0, 5.0, 0.25, float(sb.DOOR["alpha"])),
    Choice("reference", "reference point", REFERENCES, "hinge",
           hint="f is the same at both points (f = m a_C); τ differs by x_C × f, which vanishes when f "
                "points along the door (α = 0): then only the arrows' tail moves"),
    Slider("omega", "ω (rad/s)", -3.0, 3.0, 0.1, float(sb.DOOR["omega"]), ".1f",
           hint="the bias term V ×* I V grows as ω²: ω and −ω pull alike, and at α = 0 the two draw "
                "the same picture; ω's sign shows only in V and in the power"),
)


def scene(alpha=3.0, reference="hinge", omega=2.0) -> dict:
    """I A, V x* I V and their sum at the hinge or the COM, plus a_C, all from spatialbook."""
    if reference not in REFERENCES:
        raise ValueError(f"reference: expected one of {REFERENCES}, got {reference!r}")
    V_O = np.array([0.0, 0.0, omega, 0.0, 0.0, 0.0])     # hinge fixed
    A_O = np.array([0.0, 0.0, alpha, 0.0, 0.0, 0.0])
    V_C = sb.transform_vectors(X_CO, V_O)
    A_C = sb.transform_vectors(X_CO, A_O)                  # spatial accelerations are motions
    if reference == "hinge":
        I, V, A, x_ref = I_O, V_O, A_O, np.zeros(3)
    else:
        I, V, A, x_ref = sb.transform_inertia(X_CO, I_O), V_C, A_C, COM
    inertial = sb.inertial_wrench(I, A)
    bias = sb.bias_wrench(I, V)
    total = sb.required_wrench(I, V, A)
    S = sb.revolute_axis([0.0, 0.0, 1.0], [0.0, 0.0, 0.0], x_ref)
    numbers = {
        "x_ref": x_ref, "V": V, "A": A,
        "inertial": inertial, "bias": bias, "total": total,
        "tau": total[:3], "f": total[3:],
        "a_C": sb.material_acceleration(V_C, A_C), "mass": MASS,
        "hinge_torque": sb.generalized_force(S, total),
        "power": sb.power(V, total),
    }
    return {"x_ref": x_ref, "numbers": numbers}


class NewtonEuler(Experiment):
    """E6: F = I A + V ×* (I V) per component, at the hinge or at the COM."""

    name = "newton_euler"
    title = "E6 Newton–Euler on the door"
    alt = ("Left: the door from above with the required force arrow and torque arc at the chosen "
           "reference point. Right: bars of each wrench component split into the inertial term "
           "I A and the bias term V cross-star I V, with the total marked.")
    CONTROLS = CONTROLS
    READOUTS = (
        ("F = I A + V×*IV", "total", "N m, N"),
        ("I A", "inertial", "N m, N"),
        ("V ×* I V", "bias", "N m, N"),
        ("τ", "tau", "N m"),
        ("f (= m a_C)", "f", "N"),
        ("a_C (m = 2 kg)", "a_C", "m/s²"),
        ("hinge torque Sᵀ F", "hinge_torque", "N m"),
        ("power Vᵀ F", "power", "W"),
    )
    # the legend under the view: the arrows and the torque arc sweep its whole lower half
    TOP_VIEW = TopView((0.08, 0.12, 0.39, 0.78), (-0.55, 1.0), (-0.6, 0.6),
                       "door from above: required f and τ\n(1 N ↦ 0.06 m; arc ∝ τ_z)", com=True,
                       legend="below", legend_ncols=2, legend_room=0.13,
                       # at a corner of the hinge, clear of the torque arc: the first one no
                       # arrow from O crosses; the view's corner if every one is crossed
                       hinge_spots=((-0.14, -0.14, "right", "top"), (-0.14, 0.14, "right", "bottom"),
                                    (0.1, -0.14, "left", "top"), (0.1, 0.14, "left", "bottom"),
                                    (-0.5, -0.45, "left", "top")))
    TOP_PARTS = (ForceArrow("inertial[3:]", "x_ref", ARROW_F, "f from I A", COLORS["green"], 0.006, 7),
                 ForceArrow("bias[3:]", "x_ref", ARROW_F, "f from V×*IV", COLORS["purple"], 0.006, 7),
                 ForceArrow("total[3:]", "x_ref", ARROW_F, "f (total)", COLORS["vermillion"], 0.011, 6),
                 TorqueArc("tau[2]", "x_ref", 2.0, 0.12, -90.0, "τ_z", COLORS["blue"]))
    REFERENCE = ReferencePoint("x_ref")
    BARS = (Bars("F = I A + V ×* (I V)", "wrench component (τ: N m, f: N)", "N m, N",
                 tuple(LABELS),                   # units: N m for τ, N for f (the y label)
                 (Series("I A", "inertial", COLORS["green"]),
                  Series("V ×* I V", "bias", COLORS["purple"])),
                 rect=(0.56, 0.12, 0.41, 0.78), total="total", total_label="total F",
                 legend="upper left", separators=(2.5,)),)
    main_control = "alpha"
    scene = staticmethod(scene)
