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

Drawn with the 3-D parts of ``widgets/parts.py`` (a bare orthographic view the reader turns with
the azimuth and elevation sliders, so a turn only blits; every arrow's head faces the viewer and
its scale is in the legend; the view shows a ball of radius ``REACH`` fitted over every control).
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Slider
from .limits import view_reach
from .parts import Arrow3D, Polyline3D, Triad, bare_3d_axes, turn_view
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

ELEV, AZIM = 18.0, -60.0    # deg: the view's defaults (the figure's fixed view before it turned)

CONTROLS = (
    Slider("pitch", "pitch h (m/rad)", -0.1, 0.1, 0.005, 0.0, ".3f"),
    Slider("ref_x", "reference point P, x (m)", 0.0, WIDTH, 0.05, WIDTH / 2),
    Slider("azim", "view azimuth (deg)", -180.0, 180.0, 5.0, AZIM, ".0f",
           hint="turns the picture about the hinge line; no number depends on the view"),
    Slider("elev", "view elevation (deg)", -30.0, 90.0, 2.0, ELEV, ".0f",
           hint="tilts the picture (90: from above); no number depends on the view"),
)


def scene(pitch=0.0, ref_x=0.4, azim=AZIM, elev=ELEV) -> dict:
    """Twist at P, the recovered screw axis, on-axis velocities and material trajectories.  The
    view (``azim``, ``elev``, deg) changes only how the figure is projected, no number."""
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
    axis_segment = axis_point + np.outer(ZLIM, ax.direction)
    return {"on_axis": on_axis, "v_axis": v_axis, "material": MATERIAL, "axis_segment": axis_segment,
            "v_material": v_material, "trajectories": traj, "x_P": x_P,
            "grid": FIELD_GRID, "v_grid": v_grid, "numbers": numbers}


def drawn_points(pitch: float, ref_x: float) -> np.ndarray:
    """Every point the 3-D view draws at a pitch and reference point (m): the door, the field
    grid and its arrow tips, the axis segment, the on-axis and material-point arrows, the three
    paths, P, the world triad's labels.  Its ball over the controls (``view_reach``) is the view's ``REACH``."""
    s = scene(pitch=pitch, ref_x=ref_x)
    return np.concatenate([
        DOOR_OUTLINE, s["grid"], s["grid"] + ARROW_FIELD * s["v_grid"], s["axis_segment"],
        s["on_axis"] + ARROW_AXIS * s["v_axis"], s["material"] + ARROW_V * s["v_material"],
        s["trajectories"].reshape(-1, 3), s["x_P"][None],
        Triad.extent(TRIAD_AT, np.eye(3), TRIAD_LENGTH)])


def _reach_over_the_ranges(samples: int = 21) -> float:
    """The radius (m) of the ball about ``CENTER`` holding everything drawn over a grid of pitch
    and reference point: the 3-D view shows this ball, so nothing leaves it at any setting or
    view."""
    return view_reach(drawn_points, CONTROLS[:2], CENTER, samples)


#: the door's outline in the plane y = 0 (m)
DOOR_OUTLINE = np.array([[0, 0, -HEIGHT / 2], [WIDTH, 0, -HEIGHT / 2], [WIDTH, 0, HEIGHT / 2],
                         [0, 0, HEIGHT / 2], [0, 0, -HEIGHT / 2]], float)
CENTER = np.zeros(3)          # m: the view's centre, the hinge O
#: the radius of the ball the view shows (m): _reach_over_the_ranges(), stored (checked by a test)
REACH = 1.8
TRIAD_AT = np.array([-0.6, -1.2, -HEIGHT / 2])   # m: where the world axes are drawn
TRIAD_LENGTH = 0.3
_W, _H = 660.0, 390.0
VIEW_RECT = (0.0, 0.0, 370 / _W, 370 / _H)       # the 3-D view, square in pixels


class ScrewAxis(Experiment):
    """E2: on-axis velocity h ω and material trajectories: circles at h = 0, helices otherwise."""

    name = "screw_axis"
    title = "E2 screw axis of the door"
    alt = ("Three-dimensional view of the door turning about its hinge line while advancing "
           "along it, seen from the azimuth and elevation of the view sliders: faint arrows "
           "sample the velocity field in the horizontal plane through the hinge, vanishing at "
           "the hinge line when the pitch is zero; arrows on the axis show the velocity h omega, "
           "coloured curves the paths of three material points, closed circles at zero pitch "
           "and helices otherwise. Right: the advance of the centre of mass along the axis "
           "against the angle turned.")
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
    VIEW_CONTROLS = ("azim", "elev")        # the scene computes no number from them
    scene = staticmethod(scene)
    figsize = (6.6, 3.9)                     # taller than the others: the legend's 8 rows

    def _setup(self, fig):
        from matplotlib.lines import Line2D
        ax = self.ax3d = bare_3d_axes(fig, VIEW_RECT, CENTER, REACH, ELEV, AZIM)
        view = ("azim", "elev")
        fig.text(0.5 * VIEW_RECT[2], 0.95, "screw motion about the hinge line", ha="center",
                 fontsize=10)
        # what only the view moves: the door, the grid's points, the world axes
        self.door_line = Polyline3D(self, ax, "-", view, color=COLORS["door"], lw=2, zorder=1)
        self.grid_pts = Polyline3D(self, ax, ".", view, color=COLORS["field"], ms=2.5, zorder=1)
        self.world = Triad(self, ax, TRIAD_LENGTH, depends=view)
        # the field does not depend on the reference point: redrawn with the pitch or the view
        self.v_grid = Arrow3D(self, ax, ARROW_FIELD, "m/s", COLORS["field"],
                              "field v(x) in z = 0", lw=1.1, zorder=1.5,
                              depends=("pitch", *view))
        self.v_grid.line.set_gid("background")      # a label's card may cover it (overlap check)
        self.axis_line = Polyline3D(self, ax, "-.", color="black", lw=1, zorder=2)
        cols = (COLORS["orange"], COLORS["blue"], COLORS["green"])
        self.trajs = [Polyline3D(self, ax, "-", color=c, lw=1.3, zorder=3) for c in cols]
        self.v_axis = Arrow3D(self, ax, ARROW_AXIS, "m/s", COLORS["vermillion"],
                              "on-axis v = h ω", lw=2.2, zorder=4)
        self.axis_pts = Polyline3D(self, ax, "o", color=COLORS["vermillion"], ms=3, zorder=4)
        self.v_mat = Arrow3D(self, ax, ARROW_V, "m/s", COLORS["purple"], "material-point v",
                             lw=1.5, zorder=5)
        self.mat = Polyline3D(self, ax, "o", color="black", ms=4, zorder=5)
        self.P = Polyline3D(self, ax, "D", color=COLORS["sky"], ms=6, zorder=6)

        zx = fig.add_axes((0.75, 0.66, 0.22, 0.22))
        zx.set_xlim(0, _PHI[-1]); zx.set_ylim(-1.0, 1.0)
        zx.set_xlabel("angle turned φ (rad)", fontsize=8, labelpad=1)
        zx.set_ylabel("advance (m)", fontsize=8)
        zx.tick_params(labelsize=7)
        zx.grid(True, alpha=0.3)
        zx.set_title("advance along the axis = h φ", fontsize=9, pad=9)   # clear of the top tick
        self.advance = self._moving(zx.plot([], [], color=COLORS["orange"], lw=2)[0])

        lx = fig.add_axes((0.62, 0.0, 0.37, 0.52))
        lx.axis("off")
        lx.legend(handles=[
            Line2D([], [], color="black", ls="-.", label="instantaneous screw axis"),
            Line2D([], [], color=COLORS["field"], lw=1.1, label=self.v_grid.label),
            Line2D([], [], color=COLORS["vermillion"], lw=2.2, label=self.v_axis.label),
            Line2D([], [], color=COLORS["purple"], lw=1.5, label=self.v_mat.label),
            Line2D([], [], color=COLORS["orange"], label="path of the COM"),
            Line2D([], [], color=COLORS["blue"], label="path of the top free corner"),
            Line2D([], [], color=COLORS["green"], label="path of the bottom free corner"),
            Line2D([], [], color=COLORS["sky"], marker="D", ls="", label="reference point P"),
        ], loc="center", fontsize=7.5, title=f"{TURNS:g} turns at ω = {OMEGA:g} rad/s; "
                                             f"grid 0.3 m",
            title_fontsize=9)

    def _draw(self, s):
        n = s["numbers"]
        v = self._drawn_values
        toward = turn_view(self.ax3d, v["elev"], v["azim"])
        self.door_line.set(DOOR_OUTLINE)
        self.grid_pts.set(s["grid"])
        # the world axes' labels keep clear of what a turn of the view or the pitch can bring
        # near them: the material points' and the on-axis velocities, the screw axis, the
        # markers of P, the material and the on-axis points, and (where they can) the three paths (a green y on the green
        # path read as the path's label)
        self.world.set(TRIAD_AT, np.eye(3), toward, avoid=[
            (self.v_mat.segments(s["material"], s["v_material"], toward),
             self.v_mat.line.get_linewidth()),
            (self.v_axis.segments(s["on_axis"], s["v_axis"], toward),
             self.v_axis.line.get_linewidth()),
            *((path, line.line.get_linewidth(), True)
              for path, line in zip(s["trajectories"], self.trajs)),
            *((np.repeat(x[None], 2, axis=0), marker.line.get_markersize())   # markers: points
              for x, marker in ((s["x_P"], self.P), *((m, self.mat) for m in s["material"]),
                                *((m, self.axis_pts) for m in s["on_axis"]))),
            (s["axis_segment"], self.axis_line.line.get_linewidth())])
        self.v_grid.set(s["grid"], s["v_grid"], toward)
        self.axis_line.set(s["axis_segment"])
        for line, tr in zip(self.trajs, s["trajectories"]):
            line.set(tr)
        self.v_axis.set(s["on_axis"], s["v_axis"], toward)
        self.axis_pts.set(s["on_axis"])
        self.v_mat.set(s["material"], s["v_material"], toward)
        self.mat.set(s["material"])
        self.P.set(s["x_P"][None])
        com = s["trajectories"][0]
        self.advance.set_data(_PHI, (com - com[0]) @ n["axis_direction"])
        return False
