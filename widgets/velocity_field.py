"""E1 — the velocity field of the hinged door, seen from above (book chapter 1).

The door turns about its fixed vertical hinge O (the origin) at omega e_z, so its twist at O
is V_O = [0, 0, omega; 0, 0, 0].  That one 6-vector fixes the velocity of every point of
space, v(x) = v_O + omega x (x - x_O): the grey arrows.  Two material points ride on the door
(near and far from the hinge); their arrows stay tangent to their circles, keep their length
as the door turns, and only change direction — the geometric source of the centripetal
acceleration omega x (omega x d).  Doubling the distance doubles |omega x d|.  A fixed
spatial probe samples the same field at a fixed place: for a door turning about a fixed hinge
it reads the same velocity at every angle, while the material points' velocities turn.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Player, Slider
from .parts import door_top_view
from .experiment import Experiment

WIDTH = float(sb.DOOR["width"])
LIM = 1.1
ARROW = 0.15          # drawn metres per m/s
ACC_ARROW = 0.08      # drawn metres per m/s^2
DOOR_Z, ACC_Z = 3, 7  # zorders: the acceleration arrows lie along the door, so above it
_g = np.linspace(-1.0, 1.0, 11)
GRID = np.stack(np.meshgrid(_g, _g, indexing="xy"), axis=-1).reshape(-1, 2)
GRID3 = np.column_stack([GRID, np.zeros(len(GRID))])
_R_SAMPLES = np.linspace(0.0, 1.5, 31)
#: the centre of the "hinge O" label with the door at 0 deg (m): behind the hinge and a little
#: below the door; it turns with the door (:func:`hinge_label_at`)
HINGE_LABEL = np.array([-0.36, -0.15])

CONTROLS = (
    Slider("angle", "door angle θ (deg)", 0.0, 360.0, 5.0, 0.0, ".0f"),
    Player("play", "angle", 0, 360, 5, 100),
    Slider("omega", "ω (rad/s)", -3.0, 3.0, 0.1, float(sb.DOOR["omega"]), ".1f"),
    Slider("near", "near point r (m)", 0.0, WIDTH, 0.05, 0.4),
    Slider("far", "far point r (m)", 0.0, WIDTH, 0.05, 0.8),
    Slider("probe_x", "probe x (m)", -1.0, 1.0, 0.05, 0.6),
    Slider("probe_y", "probe y (m)", -1.0, 1.0, 0.05, 0.3),
)


def scene(angle=0.0, omega=2.0, near=0.4, far=0.8, probe_x=0.6, probe_y=0.3) -> dict:
    """Everything E1 draws and reads out, computed by spatialbook.

    ``angle`` in degrees; lengths in m; ``omega`` in rad/s.  Positions are relative to the
    hinge O, world axes, z up (the plane z = 0 is shown).
    """
    theta = np.deg2rad(angle)
    R = sb.rotation_z(theta)                       # door (body) axes -> world axes
    V_O = np.array([0.0, 0.0, omega, 0.0, 0.0, 0.0])
    body = np.array([[near, 0.0, 0.0], [far, 0.0, 0.0], [WIDTH, 0.0, 0.0]])
    x_near, x_far, x_edge = body @ R.T
    v_near, v_far = sb.velocity_field(V_O, [x_near, x_far])
    # classical acceleration of the material points (alpha = 0): omega x (omega x d)
    a_near, a_far = sb.acceleration_field(V_O, np.zeros(6), [x_near, x_far])
    x_probe = np.array([probe_x, probe_y, 0.0])
    v_probe = sb.velocity_field(V_O, x_probe)
    field = sb.velocity_field(V_O, GRID3)
    # speed |v(r)| of the door's points at distance r from the hinge (the same at every angle,
    # so it is sampled along the body x axis and cached in a layer that ignores the angle)
    line = sb.velocity_field(V_O, np.outer(_R_SAMPLES, [1.0, 0.0, 0.0]))
    speed = np.linalg.norm
    numbers = {
        "theta": theta,
        "V_O": V_O,
        "x_near": x_near, "v_near": v_near, "speed_near": speed(v_near), "a_near": a_near,
        "x_far": x_far, "v_far": v_far, "speed_far": speed(v_far), "a_far": a_far,
        "x_probe": x_probe, "v_probe": v_probe, "speed_probe": speed(v_probe),
        "r_probe": speed(x_probe),
        # tangency: v . d = 0 for every material point of a turning door
        "v_dot_d_near": float(np.dot(v_near, x_near)), "v_dot_d_far": float(np.dot(v_far, x_far)),
    }
    return {
        "door": np.array([[0.0, 0.0, 0.0], x_edge]),
        "grid": GRID, "field": field,
        "points": np.array([x_near, x_far]), "point_velocities": np.array([v_near, v_far]),
        "point_accelerations": np.array([a_near, a_far]),
        "probe": x_probe, "probe_velocity": v_probe,
        "radii": np.array([near, far]),
        "speed_r": _R_SAMPLES, "speed_line": speed(line, axis=1),
        "numbers": numbers,
    }


def hinge_label_at(theta: float) -> np.ndarray:
    """Where the "hinge O" label's centre sits with the door at ``theta`` (rad): its place at
    0 deg turned with the door.  Everything the door carries (its bar, the near and far
    points, their velocity and centripetal arrows) turns with it, so the label stays on the
    hinge's far side from all of them at every angle; a fixed label was under the near point's
    arrow at 180 deg."""
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]]) @ HINGE_LABEL


class VelocityField(Experiment):
    """E1: arrows of v(x) = v_O + ω × x over the door's plane, two material points, one probe."""

    name = "velocity_field"
    title = "E1 velocity field of the hinged door"
    alt = ("Top view of a door turning about its hinge: grey arrows show the velocity field, "
           "coloured arrows the velocity of a near and a far material point and of a fixed probe; "
           "right: speed grows linearly with distance from the hinge.")
    CONTROLS = CONTROLS
    READOUTS = (
        ("V_O = [ω; v_O]", "V_O", "rad/s, m/s"),
        ("v near", "v_near", "m/s"),
        ("|v near|", "speed_near", "m/s"),
        ("v far", "v_far", "m/s"),
        ("|v far|", "speed_far", "m/s"),
        ("a far (centripetal)", "a_far", "m/s²"),
        ("v probe (fixed)", "v_probe", "m/s"),
        ("|v probe|", "speed_probe", "m/s"),
        ("v·d far", "v_dot_d_far", "m²/s"),
    )
    main_control = "angle"
    scene = staticmethod(scene)

    def _setup(self, fig):
        ax, door = door_top_view(fig, (0.07, 0.12, 0.46, 0.78), (-LIM, LIM), (-LIM, LIM),
                                 "door from above: v(x) = v_O + ω × x\n(arrow: 1 m/s ↦ 0.15 m)",
                                 hinge_label=tuple(HINGE_LABEL), door_zorder=DOOR_Z)
        ax.hinge_text.set(ha="center", va="center")
        q = dict(angles="xy", scale_units="xy", scale=1 / ARROW, width=0.004)
        self.q_field = self._moving(ax.quiver(GRID[:, 0], GRID[:, 1], np.zeros(len(GRID)),
                                              np.zeros(len(GRID)), color=COLORS["field"],
                                              alpha=0.8, zorder=1, gid="background", **q),
                                    depends=("omega",))    # a label's card may cover it
        self.circles = [self._moving(ax.plot([], [], "--", color=c, lw=0.8)[0],
                                     depends=("near", "far"))
                        for c in (COLORS["blue"], COLORS["vermillion"])]
        self.door = self._moving(door)                  # the door turns: a moving artist
        # it turns with the door (hinge_label_at): a moving artist, above the field, the door
        # and the points' arrows (LABEL_Z)
        self.hinge_text = self._moving(ax.hinge_text)
        self.pts = self._moving(ax.scatter([0, 0], [0, 0], s=40, zorder=6,
                                           c=[COLORS["blue"], COLORS["vermillion"]]))
        self.q_pts = self._moving(ax.quiver([0, 0], [0, 0], [0, 0], [0, 0], zorder=7,
                                            color=[COLORS["blue"], COLORS["vermillion"]],
                                            angles="xy", scale_units="xy", scale=1 / ARROW,
                                            width=0.009))
        # the centripetal arrows lie along the door bar: drawn above it, never hidden by it
        self.q_acc = self._moving(ax.quiver([0, 0], [0, 0], [0, 0], [0, 0], zorder=ACC_Z,
                                            color=COLORS["purple"], angles="xy",
                                            scale_units="xy", scale=1 / ACC_ARROW, width=0.006))
        self.probe = self._moving(ax.plot([], [], "s", color=COLORS["green"], ms=8, zorder=6)[0])
        self.q_probe = self._moving(ax.quiver([0], [0], [0], [0], color=COLORS["green"],
                                              zorder=7, angles="xy", scale_units="xy",
                                              scale=1 / ARROW, width=0.009))
        from matplotlib.lines import Line2D
        handles = [Line2D([], [], color=COLORS["blue"], lw=3, label="near point v"),
                   Line2D([], [], color=COLORS["vermillion"], lw=3, label="far point v"),
                   Line2D([], [], color=COLORS["purple"], lw=3, label="centripetal a"),
                   Line2D([], [], color=COLORS["green"], marker="s", lw=3, label="fixed probe v"),
                   Line2D([], [], color=COLORS["field"], lw=3, label="field v(x)")]

        bx = fig.add_axes((0.63, 0.12, 0.34, 0.78))
        bx.set_xlim(0, 1.5); bx.set_ylim(0, 4.6)
        bx.set_xlabel("distance from the hinge r (m)"); bx.set_ylabel("speed |v| (m/s)")
        bx.set_title("|v| = |ω| r: double r, double |v|", fontsize=10)
        bx.grid(True, alpha=0.3)
        # the legend of both panels: wide, in the speed plot's empty corner (|v| <= |ω| r);
        # on a phone the speed plot is drawn wider than tall and its line at |ω| = 3 crosses
        # that corner, so the legend goes with the top view, under it (widgets/_narrow.py)
        self._on_top((ax if self.narrow else bx).legend(handles=handles, loc="upper left",
                                                         fontsize=8, framealpha=0.9))
        self.speed_line = self._moving(bx.plot([], [], color=COLORS["field"], lw=2)[0],
                                       depends=("omega",))
        self.speed_pts = self._moving(bx.scatter([0, 0, 0], [0, 0, 0], s=40, zorder=5,
                                                 c=[COLORS["blue"], COLORS["vermillion"],
                                                    COLORS["green"]]))

    def _draw(self, s):
        self.q_field.set_UVC(s["field"][:, 0], s["field"][:, 1])
        t = np.linspace(0, 2 * np.pi, 73)
        for line, r in zip(self.circles, s["radii"]):
            line.set_data(r * np.cos(t), r * np.sin(t))
        self.door.set_data(s["door"][:, 0], s["door"][:, 1])
        self.hinge_text.set_position(hinge_label_at(s["numbers"]["theta"]))
        P = s["points"][:, :2]
        self.pts.set_offsets(P)
        self.q_pts.set_offsets(P)
        self.q_pts.set_UVC(s["point_velocities"][:, 0], s["point_velocities"][:, 1])
        self.q_acc.set_offsets(P)
        self.q_acc.set_UVC(s["point_accelerations"][:, 0], s["point_accelerations"][:, 1])
        self.probe.set_data([s["probe"][0]], [s["probe"][1]])
        self.q_probe.set_offsets(s["probe"][None, :2])
        self.q_probe.set_UVC(s["probe_velocity"][:1], s["probe_velocity"][1:2])
        self.speed_line.set_data(s["speed_r"], s["speed_line"])
        n = s["numbers"]
        self.speed_pts.set_offsets([[s["radii"][0], n["speed_near"]], [s["radii"][1], n["speed_far"]],
                                    [n["r_probe"], n["speed_probe"]]])
        return False
