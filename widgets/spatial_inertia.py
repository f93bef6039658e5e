"""E4 — the door's 6x6 spatial inertia as the reference point slides along it (book chapter 6).

With O the reference point, d = x_C - x_O the offset to the COM and D = [d]x,

    I_O = [[I_C - m D^2, m D], [-m D, m E]]        (chapter 6, eq. (eq-ch06-inertia))

At the COM (d = 0) the matrix is block diagonal, diag(I_C, m E).  Sliding the reference
point along the door makes the coupling blocks +-m D grow linearly with the offset and the
rotational block grow quadratically (parallel-axis theorem), yet the kinetic energy
1/2 V^T I V of the spinning door is the same for every reference point, because the twist
changes too.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb
from spatialbook import unchecked as fast

from .controls import Slider
from .parts import ReferencePoint, TopView
from .readouts import matrix_table
from .experiment import Experiment

WIDTH = float(sb.DOOR["width"])
MASS = float(sb.DOOR["mass"])
COM = np.asarray(sb.DOOR["com"], float)
I_O = sb.spatial_inertia(MASS, COM, sb.DOOR["inertia_com"])      # at the hinge O
VMAX = MASS                                                       # colour scale, kg
ROWS = ["ℓx", "ℓy", "ℓz", "px", "py", "pz"]
COLS = ["ωx", "ωy", "ωz", "vx", "vy", "vz"]

CONTROLS = (
    Slider("ref_x", "reference point P, x (m)", 0.0, WIDTH, 0.02, float(COM[0])),
    Slider("omega", "ω (rad/s)", -3.0, 3.0, 0.1, float(sb.DOOR["omega"]), ".1f",
           hint="moves only the twist, momentum and energy readouts: I_P does not depend on "
                "the velocity"),
)


def scene(ref_x=0.4, omega=2.0) -> dict:
    """Spatial inertia, twist, momentum and kinetic energy at P = (ref_x, 0, 0)."""
    x_P = np.array([ref_x, 0.0, 0.0])
    X_PO = sb.motion_transform(np.eye(3), x_P)                    # O -> P, same axes
    # I_O was checked once and X_PO built by spatialbook: the deliberate unchecked path
    I_P = fast.transform_inertia(X_PO, I_O)
    V_O = np.array([0.0, 0.0, omega, 0.0, 0.0, 0.0])
    V_P = sb.transform_vectors(X_PO, V_O)
    H_P = fast.spatial_momentum(I_P, V_P)
    T = fast.kinetic_energy(I_P, V_P)
    m, c, I_C = sb.inertia_parts(I_P)
    numbers = {
        "x_P": x_P, "offset": c, "V_P": V_P, "H_P": H_P, "kinetic_energy": T,
        "I_P": I_P, "mD": I_P[:3, 3:], "I_rot": I_P[:3, :3],
        "I_zz": I_P[2, 2], "coupling_max": np.abs(I_P[:3, 3:]).max(), "mass": m,
    }
    return {"x_P": x_P, "x_C": COM, "matrix": I_P, "numbers": numbers}


class SpatialInertia(Experiment):
    """E4: the labelled 6x6 heat map of I_P; the ±mD blocks vanish at the COM; T is unchanged."""

    name = "spatial_inertia"
    title = "E4 spatial inertia of the door"
    alt = ("Left: the door from above with its centre of mass and a sliding reference point. "
           "Right: the 6 by 6 spatial inertia as a heat map; the off-diagonal coupling blocks "
           "plus and minus m D vanish at the centre of mass and grow with the offset.")
    CONTROLS = CONTROLS
    READOUTS = (
        ("½ Vᵀ I_P V", "kinetic_energy", "J"),
        ("d = x_C − x_P", "offset", "m"),
        ("V_P", "V_P", "rad/s, m/s"),
        ("H_P = I_P V_P", "H_P", "kg m²/s, kg m/s"),
        ("I_P,zz", "I_zz", "kg m²"),
        ("max |m D| entry", "coupling_max", "kg m"),
    )
    TOP_VIEW = TopView((0.09, 0.14, 0.33, 0.72), (-0.15, 0.95), (-0.5, 0.5),
                       "door from above: COM C, reference P", com=True,
                       hinge_label=(-0.13, 0.06))
    REFERENCE = ReferencePoint("x_P", label="P", target="x_C")
    main_control = "ref_x"
    scene = staticmethod(scene)

    def _setup(self, fig):
        hx = fig.add_axes((0.48, 0.10, 0.40, 0.76))
        edges = np.arange(7) - 0.5
        self.im = self._moving(hx.pcolormesh(edges, edges, np.zeros((6, 6)), cmap="RdBu_r",
                                             vmin=-VMAX, vmax=VMAX, edgecolors="face"))
        hx.set_xlim(-0.5, 5.5); hx.set_ylim(5.5, -0.5)       # matrix layout: row 0 on top
        hx.set_aspect("equal")
        hx.set_xticks(range(6), COLS); hx.set_yticks(range(6), ROWS)
        hx.tick_params(length=0)
        # block separators and names sit on top of the (moving) mesh
        self._on_top(hx.axhline(2.5, color="black", lw=1.2, zorder=4))
        self._on_top(hx.axvline(2.5, color="black", lw=1.2, zorder=4))
        hx.set_title("I_P = [[I_C − mD², mD], [−mD, mE]]", fontsize=10)   # clear of the bar
        for (r, c), lab in {(0, 0): "I_C − mD²", (0, 1): "mD", (1, 0): "−mD",
                            (1, 1): "mE"}.items():
            self._on_top(hx.text(3 * c - 0.42, 3 * r - 0.42, lab, fontsize=8, ha="left",
                                 va="top", color="white" if lab == "mE" else "black",
                                 zorder=5))
        # the colour bar in axes of its own, as tall as the matrix: a bar made with ``ax=hx``
        # keeps a 20:1 box aspect, and the layout's shrinking (labels inside the figure) then
        # squeezed it to a 0.13-high stub of ticks
        cb = fig.colorbar(self.im, cax=fig.add_axes((0.895, 0.10, 0.022, 0.76)))
        cb.set_label("kg m², kg m, kg")

    def readout_table(self, scene=None):
        """Readouts plus the 6x6 matrix as a table (its numbers live here, not in the figure)."""
        M = self._scene_or(scene, "matrix")["matrix"]
        return super().readout_table(scene) + matrix_table(M, ROWS, COLS, "I_P", "kg m², kg m, kg")

    def _draw(self, s):
        self.im.set_array(s["matrix"])
        return False
