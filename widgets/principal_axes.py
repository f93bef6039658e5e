"""E7 — the door's rotational inertia in a turned frame, and its principal axes (chapter 10).

The door turns inside a fixed frame {c} about its own normal (the body y axis) by an angle
theta, so the door's axes seen from {c} are R_cb = R_y(theta) and, with R_bc = R_cb^T,

    I_c = R_bc^T I_b R_bc          (Modern Robotics eq. 8.26; chapter 10, eq. (eq-ch10-rotate))

I_b = diag(I_xx, I_yy, I_zz) about the COM in the door's own axes.  Turning the frame moves
numbers between I_xx and I_zz and creates the product of inertia I_xz; the eigenvalues, the
principal moments, never change, and the eigenvectors, the principal axes, turn with the
door.  I_c is diagonal exactly when the door's edges line up with the axes of {c}.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Slider
from .readouts import fmt_number
from .experiment import Experiment

WIDTH = float(sb.DOOR["width"])
HEIGHT = float(sb.DOOR["height"])
MASS = float(sb.DOOR["mass"])
I_B = np.asarray(sb.DOOR["inertia_com"], float)              # about the COM, door axes
G_B = sb.G_b(MASS, I_B)                                       # 6x6 spatial inertia at the COM
CORNERS_B = np.array([[-WIDTH / 2, 0.0, -HEIGHT / 2], [WIDTH / 2, 0.0, -HEIGHT / 2],
                      [WIDTH / 2, 0.0, HEIGHT / 2], [-WIDTH / 2, 0.0, HEIGHT / 2]])  # from the COM
HINGE_B = np.array([[-WIDTH / 2, 0.0, -HEIGHT / 2], [-WIDTH / 2, 0.0, HEIGHT / 2]])  # hinge edge
AXES = ("x", "y", "z")
THETA_DENSE = np.linspace(0.0, 180.0, 181)

CONTROLS = (
    Slider("theta", "door angle θ (deg)", 0.0, 180.0, 5.0, 30.0, ".0f"),
)


def inertia_in_c(theta_deg):
    """I_c (kg m^2) of the door turned by ``theta_deg`` about its normal, and R_cb (batched).

    MR eq. 8.26 (chapter 10, eq. (eq-ch10-rotate)) through spatialbook: the congruence of the
    6x6 inertia by the pure rotation X = motion_transform(R_bc, 0) has I_c = R_bc^T I_b R_bc as
    its upper-left block.
    """
    R_cb = sb.rotation_y(np.deg2rad(theta_deg))               # door axes in {c}
    R_bc = np.swapaxes(R_cb, -1, -2)
    X = sb.motion_transform(R_bc, np.zeros(np.shape(R_bc)[:-2] + (3,)))
    return sb.transform_inertia(X, G_B)[..., :3, :3], R_cb


I_DENSE, _ = inertia_in_c(THETA_DENSE)                        # the static curves of the middle plot


def scene(theta=30.0) -> dict:
    """Everything the figure and the readouts show at one angle, computed by spatialbook."""
    I_c, R_cb = inertia_in_c(theta)
    moments, axes = sb.principal_axes(I_c)                     # columns: principal axes in {c}
    in_plane = [k for k in range(3) if abs(axes[1, k]) < 0.5]   # the two axes in the x-z plane
    offdiag = I_c - np.diag(np.diag(I_c))
    numbers = {
        "theta": float(theta), "I_c": I_c, "I_xx": I_c[0, 0], "I_zz": I_c[2, 2], "I_xz": I_c[0, 2],
        "I_yy": I_c[1, 1], "moments": moments, "offdiag_max": np.abs(offdiag).max(),
        "trace": np.trace(I_c), "axes": axes,
    }
    return {"theta": float(theta), "I_c": I_c, "R_cb": R_cb, "axes": axes,
            "in_plane": in_plane, "corners": CORNERS_B @ R_cb.T, "hinge": HINGE_B @ R_cb.T,
            "numbers": numbers}


class PrincipalAxes(Experiment):
    """E7: the door turned in a fixed frame {c}; I_c's entries change, its eigenvalues do not."""

    name = "principal_axes"
    title = "E7 principal axes of the door"
    alt = ("Left: the door turned inside a fixed frame, with its two in-plane principal axes "
           "dashed. Middle: the entries I_xx, I_zz and I_xz of its inertia matrix over a half "
           "turn, with a marker at the current angle. Right: the 3 by 3 matrix as a heat map. "
           "The products of inertia vanish when the door's edges line up with the axes.")
    CONTROLS = CONTROLS
    READOUTS = (
        ("θ", "theta", "deg"),
        ("I_xx", "I_xx", "kg m²"),
        ("I_zz", "I_zz", "kg m²"),
        ("I_xz", "I_xz", "kg m²"),
        ("principal moments", "moments", "kg m²"),
        ("trace", "trace", "kg m²"),
    )
    main_control = "theta"
    scene = staticmethod(scene)

    def _setup(self, fig):
        ax_d = fig.add_axes((0.06, 0.13, 0.25, 0.74))
        lim = 0.85
        ax_d.set_xlim(-lim, lim); ax_d.set_ylim(-lim, lim); ax_d.set_aspect("equal")
        ax_d.set_xlabel(r"$x_c$ (m)"); ax_d.set_ylabel(r"$z_c$ (m)")
        ax_d.set_title("door in frame {c}", fontsize=10)
        ax_d.axhline(0, color=COLORS["grey"], lw=0.8); ax_d.axvline(0, color=COLORS["grey"], lw=0.8)
        self.door = self._moving(ax_d.fill(CORNERS_B[:, 0], CORNERS_B[:, 2],
                                           color=COLORS["door"], alpha=0.35, zorder=2)[0])
        self.hinge = self._moving(ax_d.plot([], [], "-", color=COLORS["vermillion"], lw=3,
                                            zorder=3, label="hinge edge")[0])
        self.paxes = [self._moving(ax_d.plot([], [], "--", color=col, lw=1.6, zorder=4)[0])
                      for col in (COLORS["blue"], COLORS["green"])]
        # under the view, below its x label: the door turns through the whole square.  Both
        # principal axes in the door's plane are drawn, so the entry shows both dashes
        from matplotlib.legend_handler import HandlerTuple
        self._on_top(ax_d.legend(handles=[self.hinge, tuple(self.paxes)],
                                 labels=["hinge edge", "principal axes"],
                                 handler_map={tuple: HandlerTuple(ndivide=None, pad=0.4)},
                                 loc="upper center", bbox_to_anchor=(0.5, -0.38), fontsize=7,
                                 frameon=False))

        ax_c = fig.add_axes((0.39, 0.13, 0.30, 0.74))
        for (i, j), col, lab in (((0, 0), COLORS["blue"], r"$\mathcal{I}_{xx}$"),
                                 ((2, 2), COLORS["green"], r"$\mathcal{I}_{zz}$"),
                                 ((0, 2), COLORS["purple"], r"$\mathcal{I}_{xz}$")):
            ax_c.plot(THETA_DENSE, I_DENSE[:, i, j], color=col, lw=1.8, label=lab)
        ax_c.axhline(0, color=COLORS["grey"], lw=0.8)
        self.marker = self._moving(ax_c.axvline(0.0, color="black", lw=1))
        ax_c.set_xlim(0, 180); ax_c.set_xticks(range(0, 181, 45))
        ax_c.set_ylim(-0.1, 0.36)
        ax_c.set_xlabel("θ (deg)"); ax_c.set_ylabel("kg m²")
        ax_c.set_title(r"entries of $\mathcal{I}_c = R_{bc}^{T}\,\mathcal{I}_b\,R_{bc}$", fontsize=10,
                       pad=26)
        # above the plot, under its title: the θ marker sweeps the whole plot
        ax_c.legend(fontsize=8, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 0.99),
                    ncol=3, handlelength=1.2, columnspacing=0.8, handletextpad=0.4,
                    borderaxespad=0.0)

        ax_m = fig.add_axes((0.75, 0.13, 0.22, 0.74))
        edges = np.arange(4) - 0.5
        self.heat = self._moving(ax_m.pcolormesh(edges, edges, np.zeros((3, 3)), cmap="RdBu_r",
                                                  vmin=-0.4, vmax=0.4, edgecolors="face"))
        ax_m.set_xlim(-0.5, 2.5); ax_m.set_ylim(2.5, -0.5)     # matrix layout: row x on top
        ax_m.set_aspect("equal")
        ax_m.set_xticks(range(3), AXES); ax_m.set_yticks(range(3), AXES)
        ax_m.tick_params(length=0)
        ax_m.set_title("$\\mathcal{I}_c$ (kg m²,\nnumbers in the panel)", fontsize=9)

    def readout_table(self, scene=None):
        """Readouts plus the 3x3 matrix I_c as a table (its numbers live here, not in the figure)."""
        M = self._scene_or(scene, "I_c")["I_c"]
        head = "".join(f"<th style='padding:0 4px'>{a}</th>" for a in AXES)
        body = "".join(
            f"<tr><th style='padding:0 4px'>{AXES[r]}</th>"
            + "".join(f"<td style='font-family:monospace;text-align:right;padding:0 4px'>"
                      f"{fmt_number(M[r, c], 4)}</td>" for c in range(3)) + "</tr>"
            for r in range(3))
        return (super().readout_table(scene)
                + f"<div style='margin-top:6px'><b>I_c</b> (kg m²)"
                  f"<table style='border-collapse:collapse'><tr><th></th>{head}</tr>{body}"
                  f"</table></div>")

    def _draw(self, s):
        self.door.set_xy(s["corners"][:, [0, 2]])
        h = s["hinge"]
        self.hinge.set_data(h[:, 0], h[:, 2])
        for line, k in zip(self.paxes, s["in_plane"]):
            u = s["axes"][:, k] * 0.8                         # drawn as a line through the COM
            line.set_data([-u[0], u[0]], [-u[2], u[2]])
        self.marker.set_xdata([s["theta"], s["theta"]])
        self.heat.set_array(s["I_c"])
        return False
