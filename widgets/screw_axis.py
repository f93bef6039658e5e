"""E2 — the instantaneous screw axis (Chasles) and the helices it generates (book chapter 3).

Give the door a screw motion about its hinge line (the z axis through O): it turns at
omega = 2 rad/s and advances along the axis at h omega, h the pitch in m/rad.  Its twist
referred to a point P on the door is V_P = [omega; v_P]; spatialbook's ``screw_axis``
recovers from V_P alone the axis point x_P + omega x v_P / |omega|^2, its direction, and the
pitch h = omega . v_P / |omega|^2 — the same for every P (only the tangential part of v_P
depends on P).  Points on the axis move with h omega (the on-axis arrows): at h = 0 they are
at rest and material points trace closed circles; raising h stretches the on-axis arrows and
turns the circles into helices that advance 2 pi h per turn.  A faint grid of arrows samples the
whole velocity field v(x) = h omega + omega x (x - x_axis) in the plane z = 0: at h = 0 the
arrows shrink to nothing at the hinge line, where the field is zero; at h != 0 every arrow
carries the same axial part h omega and none vanishes.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Slider
from .parts import arrow_segments_3d
from .experiment import Experiment

WIDTH = float(sb.DOOR["width"])
HEIGHT = float(sb.DOOR["height"])
OMEGA = float(sb.DOOR["omega"])
HINGE_AXIS = np.asarray(sb.DOOR["hinge_axis"], float)
#: material points of the door (body = world at t = 0): COM and the two free corners
MATERIAL = np.array([[WIDTH / 2, 0.0, 0.0], [WIDTH, 0.0, HEIGHT / 2], [WIDTH, 0.0, -HEIGHT / 2]])
TURNS = 1.5
_PHI = np.linspace(0.0, 2 * np.pi * TURNS, 181)          # angle turned (rad)
AXIS_S = np.linspace(-HEIGHT / 2, HEIGHT / 2, 5)         # where on-axis arrows sit (m)
ARROW_AXIS = 2.0      # drawn m per m/s for the on-axis arrows (they are slow)
ARROW_V = 0.3         # drawn m per m/s for material-point arrows
ZLIM = (-1.6, 1.6)
_G = 0.3 * np.arange(-3, 4)                               # 0.3 m apart, the hinge line (0) included
#: where the faint field arrows sit: a 7 x 7 grid of the plane z = 0 (m)
FIELD_GRID = np.stack(np.meshgrid(_G, _G, indexing="ij"), axis=-1).reshape(-1, 2)
FIELD_GRID = np.column_stack([FIELD_GRID, np.zeros(len(FIELD_GRID))])
ARROW_FIELD = 0.14    # drawn m per m/s for the field grid

CONTROLS = (
    Slider("pitch", "pitch h (m/rad)", -0.1, 0.1, 0.005, 0.0, ".3f"),
    Slider("ref_x", "reference point P, x (m)", 0.0, WIDTH, 0.05, WIDTH / 2),
)


def scene(pitch=0.0, ref_x=0.4) -> dict:
    """Twist at P, the recovered screw axis, on-axis velocities and material trajectories."""
    n = HINGE_AXIS
    V_O = OMEGA * np.concatenate([n, pitch * n])         # screw twist about the hinge line
    x_P = np.array([ref_x, 0.0, 0.0])
    V_P = sb.shift_twist(V_O, x_P)
    ax = sb.screw_axis(V_P)
    axis_point = x_P + ax.point                            # nearest axis point to P (world)
    h = float(ax.pitch)
    on_axis = axis_point + np.outer(AXIS_S, ax.direction)
    v_axis = sb.velocity_field(V_P, on_axis - x_P)         # = h omega, along the axis
    v_material = sb.velocity_field(V_P, MATERIAL - x_P)
    v_grid = sb.velocity_field(V_P, FIELD_GRID - x_P)      # the field in the plane z = 0
    # screw motion with the recovered axis and pitch: turn phi about the axis, advance h phi
    R = sb.rotation_z(_PHI)                                 # (k, 3, 3); the axis is along z
    rel = MATERIAL - axis_point
    traj = (axis_point + np.einsum("kij,pj->pki", R, rel)
            + np.multiply.outer(np.ones(len(MATERIAL)), np.outer(h * _PHI, ax.direction)))
    numbers = {
        "V_P": V_P, "v_P": V_P[3:], "recovered_pitch": h, "axis_point": axis_point,
        "axis_direction": ax.direction, "v_on_axis": v_axis[0],
        "on_axis_speed": np.linalg.norm(v_axis[0]),
        "advance_per_turn": float((traj[0, -1] - traj[0, 0]) @ ax.direction) / TURNS,
        "v_material": v_material,
        # the slowest grid point of the plane z = 0 and its speed: the hinge line's trace at
        # h = 0 (speed 0); at h != 0 no point is at rest and the minimum is |h| |omega|
        "field_min_speed": float(np.min(np.linalg.norm(v_grid, axis=1))),
        "field_min_point": FIELD_GRID[int(np.argmin(np.linalg.norm(v_grid, axis=1)))],
    }
    return {"on_axis": on_axis, "v_axis": v_axis, "material": MATERIAL,
            "v_material": v_material, "trajectories": traj, "x_P": x_P,
            "grid": FIELD_GRID, "v_grid": v_grid, "numbers": numbers}


class ScrewAxis(Experiment):
    """E2: on-axis velocity h ω and material trajectories: circles at h = 0, helices otherwise."""

    name = "screw_axis"
    title = "E2 screw axis of the door"
    alt = ("Three-dimensional view of the door turning about its hinge line while advancing "
           "along it: faint arrows sample the velocity field in the horizontal plane through the "
           "hinge, vanishing at the hinge line when the pitch is zero; arrows on the axis show "
           "the velocity h omega, coloured curves the paths of three material points, closed "
           "circles at zero pitch and helices otherwise.")
    CONTROLS = CONTROLS
    READOUTS = (
        ("pitch h (from screw_axis)", "recovered_pitch", "m/rad"),
        ("axis point", "axis_point", "m"),
        ("axis direction", "axis_direction", ""),
        ("v on axis = h ω", "v_on_axis", "m/s"),
        ("|v on axis|", "on_axis_speed", "m/s"),
        ("slowest field point, z = 0", "field_min_point", "m"),
        ("its speed", "field_min_speed", "m/s"),
        ("advance per turn 2πh", "advance_per_turn", "m"),
        ("V_P", "V_P", "rad/s, m/s"),
    )
    main_control = "pitch"
    scene = staticmethod(scene)
    figsize = (6.6, 3.9)                     # taller than the others: the legend's 8 rows

    def _setup(self, fig):
        from matplotlib.lines import Line2D
        ax = fig.add_axes((0.0, 0.0, 0.64, 0.97), projection="3d",
                          computed_zorder=False)
        ax.view_init(elev=18, azim=-60)
        ax.set_xlim(-1, 1); ax.set_ylim(-1, 1); ax.set_zlim(*ZLIM)
        ax.set_box_aspect((2, 2, 3.2), zoom=0.9)
        ax.set_xticks([-1, 0, 1]); ax.set_yticks([0, 1]); ax.set_zticks([-1.5, -0.75, 0, 0.75, 1.5])
        ax.tick_params(labelsize=8, pad=1)
        ax.tick_params(axis="z", pad=5)             # the tick labels clear of the box's edge
        ax.set_xlabel("x (m)", labelpad=1); ax.set_ylabel("y (m)", labelpad=1)
        ax.set_zlabel("z (m)", labelpad=10)
        fig.text(0.31, 0.95, "screw motion about the hinge line", ha="center", fontsize=10)
        w, c = WIDTH, HEIGHT / 2
        ax.plot([0, w, w, 0, 0], [0, 0, 0, 0, 0], [-c, -c, c, c, -c], color=COLORS["door"],
                lw=2)
        g = FIELD_GRID
        ax.plot(g[:, 0], g[:, 1], g[:, 2], ".", color=COLORS["field"], ms=2.5)
        # the field does not depend on the reference point: redrawn only when the pitch changes
        self.v_grid = self._moving(ax.plot([], [], [], "-", color=COLORS["field"], lw=1.1,
                                           alpha=0.8)[0], depends=("pitch",))
        self.axis_line = self._moving(ax.plot([], [], [], "-.", color="black", lw=1)[0])
        cols = (COLORS["orange"], COLORS["blue"], COLORS["green"])
        self.trajs = [self._moving(ax.plot([], [], [], "-", color=col, lw=1.3)[0]) for col in cols]
        self.v_axis = self._moving(ax.plot([], [], [], "-", color=COLORS["vermillion"], lw=2.2)[0])
        self.axis_pts = self._moving(ax.plot([], [], [], "o", color=COLORS["vermillion"], ms=3)[0])
        self.v_mat = self._moving(ax.plot([], [], [], "-", color=COLORS["purple"], lw=1.5)[0])
        self.mat = self._moving(ax.plot([], [], [], "o", color="black", ms=4)[0])
        self.P = self._moving(ax.plot([], [], [], "D", color=COLORS["sky"], ms=6)[0])

        zx = fig.add_axes((0.75, 0.66, 0.22, 0.22))
        zx.set_xlim(0, _PHI[-1]); zx.set_ylim(-1.0, 1.0)
        zx.set_xlabel("angle turned φ (rad)", fontsize=8, labelpad=1)
        zx.set_ylabel("advance (m)", fontsize=8)
        zx.tick_params(labelsize=7)
        zx.grid(True, alpha=0.3)
        zx.set_title("advance along the axis = h φ", fontsize=9)
        self.advance = self._moving(zx.plot([], [], color=COLORS["orange"], lw=2)[0])

        lx = fig.add_axes((0.62, 0.0, 0.37, 0.52))
        lx.axis("off")
        lx.legend(handles=[
            Line2D([], [], color="black", ls="-.", label="instantaneous screw axis"),
            Line2D([], [], color=COLORS["field"], lw=1.1,
                   label=f"field v(x) in z = 0 (1 m/s ↦ {ARROW_FIELD:g} m)"),
            Line2D([], [], color=COLORS["vermillion"], lw=2.2, label="on-axis v = h ω (1 m/s ↦ 2 m)"),
            Line2D([], [], color=COLORS["purple"], lw=1.5, label="material-point v (1 m/s ↦ 0.3 m)"),
            Line2D([], [], color=COLORS["orange"], label="path of the COM"),
            Line2D([], [], color=COLORS["blue"], label="path of the top free corner"),
            Line2D([], [], color=COLORS["green"], label="path of the bottom free corner"),
            Line2D([], [], color=COLORS["sky"], marker="D", ls="", label="reference point P"),
        ], loc="center", fontsize=7.5, title=f"{TURNS:g} turns at ω = {OMEGA:g} rad/s",
            title_fontsize=9)

    def _draw(self, s):
        n = s["numbers"]
        p, d = n["axis_point"], n["axis_direction"]
        t = np.array(ZLIM)
        self.axis_line.set_data_3d(p[0] + t * d[0], p[1] + t * d[1], p[2] + t * d[2])
        for line, tr in zip(self.trajs, s["trajectories"]):
            line.set_data_3d(tr[:, 0], tr[:, 1], tr[:, 2])
        # arrow heads in the horizontal plane (side = e_z x v)
        self.v_grid.set_data_3d(*arrow_segments_3d(s["grid"], s["v_grid"], ARROW_FIELD,
                                                   side=np.cross([0.0, 0.0, 1.0], s["v_grid"])))
        self.v_axis.set_data_3d(*arrow_segments_3d(s["on_axis"], s["v_axis"], ARROW_AXIS))
        oa = s["on_axis"]
        self.axis_pts.set_data_3d(oa[:, 0], oa[:, 1], oa[:, 2])
        self.v_mat.set_data_3d(*arrow_segments_3d(s["material"], s["v_material"], ARROW_V,
                                                  side=(0.0, 0.0, 1.0)))
        m = s["material"]
        self.mat.set_data_3d(m[:, 0], m[:, 1], m[:, 2])
        x = s["x_P"]
        self.P.set_data_3d([x[0]], [x[1]], [x[2]])
        com = s["trajectories"][0]
        self.advance.set_data(_PHI, (com - com[0]) @ n["axis_direction"])
        return False
