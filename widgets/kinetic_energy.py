"""E9 — the three terms of the door's kinetic energy as the reference point slides (book chapter 6).

The door spins at omega about its fixed hinge O.  At a reference point P = (x_P, 0, 0) on it,
T = 1/2 V_P^T I_P V_P splits into rotation about P, coupling and translation of P
(chapter 6, eq. (eq-ch06-energy-split)):

    T = 1/2 omega^T (I_C - m D^2) omega + m v_P . (omega x d) + 1/2 m |v_P|^2,   d = x_C - x_P.

Here v_P = omega x_P e_y and omega x d = omega (x_C - x_P) e_y, so the coupling is
m omega^2 x_P (x_C - x_P): zero at the hinge (P at rest) and at the COM, negative beyond it.
Each term depends on P; their sum, 1/2 I_O,z omega^2, does not.  The scene uses the
deliberate unchecked path (``spatialbook.unchecked``) for the inertia it built and checked.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb
from spatialbook import unchecked as fast

from .style import COLORS
from .controls import Slider
from .parts import Bars, ReferencePoint, Series, TopView
from .experiment import Experiment

COM = np.asarray(sb.DOOR["com"], float)
I_O = sb.spatial_inertia(sb.DOOR["mass"], COM, sb.DOOR["inertia_com"])     # checked once

CONTROLS = (
    Slider("ref_x", "reference point P, x (m)", 0.0, float(sb.DOOR["width"]), 0.02, 0.0),
    Slider("omega", "ω (rad/s)", -3.0, 3.0, 0.1, float(sb.DOOR["omega"]), ".1f"),
)


def scene(ref_x=0.0, omega=2.0) -> dict:
    """The twist at P and the three energy terms there, all from spatialbook."""
    x_P = np.array([ref_x, 0.0, 0.0])
    X_PO = sb.motion_transform(np.eye(3), x_P)                     # O -> P, same axes
    V_P = X_PO @ np.array([0.0, 0.0, omega, 0.0, 0.0, 0.0])
    rotation, coupling, translation = fast.kinetic_energy_terms(fast.transform_inertia(X_PO, I_O), V_P)
    numbers = {"rotation": rotation, "coupling": coupling, "translation": translation,
               "kinetic_energy": rotation + coupling + translation, "V_P": V_P, "v_P": V_P[3:]}
    return {"x_P": x_P, "x_C": COM, "numbers": numbers}


class KineticEnergy(Experiment):
    """E9: rotation, coupling and translation of T trade places as P slides; T does not move."""

    name = "kinetic_energy"
    title = "E9 kinetic energy of the door, term by term"
    alt = ("Top view of the spinning door with its centre of mass and a sliding reference point; "
           "bars show the rotation, coupling and translation terms of the kinetic energy and their "
           "constant sum.")
    CONTROLS = CONTROLS
    TOP_VIEW = TopView((0.08, 0.12, 0.45, 0.78), (-0.15, 0.95), (-0.45, 0.6),
                       "door from above: COM C, reference P, v_P\n(1 m/s ↦ 0.15 m)", com=True,
                       hinge_label=(-0.13, 0.06))
    REFERENCE = ReferencePoint("x_P", label="P", target="x_C", velocity="v_P")
    BARS = (Bars("T = rotation + coupling + translation", "energy (J)", "J",
                 ("rotation", "coupling", "translation", "T"),
                 (Series("", ("rotation", "coupling", "translation", "kinetic_energy"),
                         (COLORS["green"], COLORS["purple"], COLORS["blue"], COLORS["door"])),),
                 labels=("½ ωᵀ(I_C − mD²)ω", "m v_P·(ω × d)", "½ m |v_P|²", "T = ½ Vᵀ I_P V"),
                 width=0.6),)
    READOUTS = (*BARS[0].readouts(), ("V_P", "V_P", "rad/s, m/s"))
    main_control = "ref_x"
    scene = staticmethod(scene)
