"""E5 — three probes at the same place read three field rates, and one spatial acceleration
(book chapter 7).

The door spins steadily (alpha = 0) at omega e_z about its fixed hinge; look at the place
x_P = (0.4, 0, 0) m.  Three probes pass through it right now:

- a material point of the door (u = v_P): its velocity changes at a_P = -omega^2 x_P, the
  centripetal acceleration (-1.6 e_x m/s^2 at omega = 2 rad/s);
- a probe fixed in space (u = 0): the field value there never changes, dv_P/dt = 0;
- a probe sliding on a straight line at constant u (here along x): it sees dv_P/dt = omega x u.

Each probe subtracts its own omega x u, (A_P)_lin = dv_P/dt - omega x u, and all three agree
on the door's spatial acceleration, zero.  Then the expression frame itself may turn at nu
(rad/s about z): the coordinates of v_P then change by the extra basis-rotation term
-nu x v_P (chapter 7, eq. (eq-ch07-frame)), although nothing physical changed.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Choice, Slider
from .parts import Bars, ForceArrow, Series, TopView
from .experiment import Experiment

X_P = np.array([0.4, 0.0, 0.0])
ARROW = 0.12          # drawn m per (m/s or m/s^2)
PATHS = ("material", "fixed", "line")
RATES = ("vdot_P", "omega_x_u", "A_P_lin", "frame_rate")   # the bars: x and y components
#: the arrows at x_P: key, legend label, colour, width
ARROWS = (("v_P", "v_P", COLORS["sky"], 0.010), ("u_P", "u", COLORS["green"], 0.008),
          ("vdot_P", "dv_P/dt", COLORS["vermillion"], 0.008),
          ("omega_x_u", "ω × u", COLORS["purple"], 0.006), ("A_P_lin", "(A_P)_lin", "black", 0.012),
          ("frame_rate", "d(v_P^c)/dt", COLORS["orange"], 0.005))
_NOT_NU = ("path", "omega", "u")         # everything but the frame-rate term ignores nu

CONTROLS = (
    Choice("path", "probe path", PATHS, "material"),
    Slider("nu", "frame rate ν (rad/s)", -3.0, 3.0, 0.1, 0.0, ".1f"),
    Slider("omega", "ω (rad/s)", -3.0, 3.0, 0.1, float(sb.DOOR["omega"]), ".1f"),
    Slider("u", "line probe speed u_x (m/s)", -1.0, 1.0, 0.05, 0.5),
)


def scene(path="material", nu=0.0, omega=2.0, u=0.5) -> dict:
    """Probe velocity u, field rate dv_P/dt, omega x u, (A_P)_lin and the frame-rate term."""
    if path not in PATHS:
        raise ValueError(f"path: expected one of {PATHS}, got {path!r}")
    V_O = np.array([0.0, 0.0, omega, 0.0, 0.0, 0.0])
    w = V_O[:3]
    V_P = sb.shift_twist(V_O, X_P)                              # twist at the place x_P
    v_P = V_P[3:]
    a_P = sb.acceleration_field(V_O, np.zeros(6), X_P)          # material point, alpha = 0
    A_P = sb.spatial_acceleration(V_P, np.concatenate([np.zeros(3), a_P]))
    paths_u = {"material": v_P, "fixed": np.zeros(3), "line": np.array([u, 0.0, 0.0])}
    rates = {k: sb.field_rate_along_path(V_P, A_P, uk) for k, uk in paths_u.items()}
    u_P = paths_u[path]
    vdot_P = rates[path]
    w_x_u = sb.velocity_field(np.concatenate([w, np.zeros(3)]), u_P)   # omega x u
    A_lin = sb.probe_acceleration(w, vdot_P, u_P)
    nu_vec = np.array([0.0, 0.0, nu])
    E = np.eye(3)                                               # frame aligned with world now
    frame_rate = sb.rotating_frame_derivative(E, nu_vec, vdot_P, v_P)   # d(v_P^c)/dt
    frame_term = sb.rotating_frame_derivative(E, nu_vec, np.zeros(3), v_P)  # -nu x v_P
    numbers = {
        "path": path, "x_P": X_P, "v_P": v_P, "u_P": u_P, "vdot_P": vdot_P, "omega_x_u": w_x_u,
        "A_P_lin": A_lin, "A_P": A_P, "a_material": a_P,
        "frame_rate": frame_rate, "frame_term": frame_term,
        "vdot_material": rates["material"], "vdot_fixed": rates["fixed"],
        "vdot_line": rates["line"],
    }
    return {"x_P": X_P, "numbers": numbers}


class Probes(Experiment):
    """E5: dv_P/dt depends on the probe's path; (A_P)_lin = dv_P/dt − ω × u does not."""

    name = "probes"
    title = "E5 probes at x_P = (0.4, 0, 0) m"
    alt = ("Top view of the spinning door with one place marked; arrows show the field value "
           "v_P, the probe's own velocity u, the rate dv_P/dt it reads, omega cross u and the "
           "spatial acceleration's linear part; bars compare their components.")
    CONTROLS = CONTROLS
    READOUTS = (
        ("path", "path", ""),
        ("v_P (field at x_P)", "v_P", "m/s"),
        ("u (probe velocity)", "u_P", "m/s"),
        ("dv_P/dt", "vdot_P", "m/s²"),
        ("ω × u", "omega_x_u", "m/s²"),
        ("(A_P)_lin", "A_P_lin", "m/s²"),
        ("−ν × v_P (frame)", "frame_term", "m/s²"),
        ("d(v_P^c)/dt", "frame_rate", "m/s²"),
    )
    # the legend under the view: the material probe's circle and the arrows reach every corner
    TOP_VIEW = TopView((0.08, 0.12, 0.45, 0.78), (-0.3, 1.0), (-0.55, 0.6),
                       "probes passing x_P now (1 m/s or 1 m/s² ↦ 0.12 m)",
                       hinge_label=(-0.25, -0.1), door_lw=3, door_alpha=0.4, legend="below",
                       legend_ncols=3, legend_narrow_ncols=2, legend_room=0.15)
    TOP_PARTS = tuple(ForceArrow(k, tuple(X_P[:2]), ARROW, label, color, width, 3 + i,
                                 depends=None if k == "frame_rate" else _NOT_NU)
                      for i, (k, label, color, width) in enumerate(ARROWS))
    BARS = (Bars("(A_P)_lin = dv_P/dt − ω × u", "component (m/s²)", "m/s²",
                 ("dv_P/dt", "ω × u", "(A_P)_lin", "d(v_P^c)/dt"),
                 (Series("x", tuple(f"{k}[0]" for k in RATES), COLORS["blue"]),
                  Series("y", tuple(f"{k}[1]" for k in RATES), COLORS["orange"])),
                 rect=(0.62, 0.14, 0.35, 0.74), width=0.72),)
    main_control = "nu"
    scene = staticmethod(scene)

    def inactive(self, values):
        if values["path"] == "line":
            return {}
        return {"u": "moves only the line probe: choose probe path = line"}

    def readout_text(self, scene=None):
        n = self._scene_or(scene)["numbers"]
        return (f"{n['path']} probe: dv_P/dt = {_v(n['vdot_P'])}, "
                f"ω×u = {_v(n['omega_x_u'])}, (A_P)_lin = {_v(n['A_P_lin'])}, "
                f"d(v_P^c)/dt = {_v(n['frame_rate'])} m/s²")

    def _setup(self, fig):
        ax = self.top
        t = np.linspace(0, 2 * np.pi, 90)
        self.path_circle = self._moving(ax.plot(X_P[0] * np.cos(t), X_P[0] * np.sin(t), ":",
                                                color=COLORS["grey"], lw=1)[0], depends=_NOT_NU)
        self.path_line = self._moving(ax.plot([-0.3, 1.0], [0, 0], ":", color=COLORS["grey"],
                                              lw=1)[0], depends=_NOT_NU)
        self.path_fixed = self._moving(ax.plot([X_P[0]], [X_P[1]], "s", mfc="none",
                                               color=COLORS["grey"], ms=12)[0], depends=_NOT_NU)
        ax.plot([X_P[0]], [X_P[1]], "o", color="black", ms=4, zorder=8)
        # placed in points from x_P, below and right of the fixed probe's square (12 pt wide):
        # clear of its corner at any size of the axes (it touched it at 0.03 m, -0.08 m)
        ax.annotate("x_P", (X_P[0], 0), xytext=(8, -8), textcoords="offset points",
                    ha="left", va="top", fontsize=8)

    def _draw(self, s):
        path = s["numbers"]["path"]
        self.path_circle.set_visible(path == "material")
        self.path_line.set_visible(path == "line")
        self.path_fixed.set_visible(path == "fixed")
        return False


def _v(x) -> str:
    return "(" + ", ".join(f"{0.0 if abs(c) < 5e-4 else c:.2f}" for c in x) + ")"
