"""E11 — the arm explorer: a real 7-joint arm with the door's algebra (book chapter 12).

The Franka Emika Panda (``book/models/panda.urdf``, read by ``widgets.robots.robot_file``, in a
notebook and in the browser) is read by
``sb.Tree.from_urdf`` into a Tree of 7 bodies.  For the joint angles of the sliders, all from
spatialbook:

- the pose of every body, ^iX_0 = X_J(q_i) X_T,i ^(parent)X_0, composed joint by joint with
  ``sb.motion_transform``: the link origins (the joint anchors) drawn as a polyline;
- the hand's spatial velocity for the joint rates q̇ = s q̇_demo (s the rate slider): the sum of
  the joints' motion subspaces carried to one frame, V = Σ ^0X_i S_i q̇_i, in space form (about
  the world origin, world axes, Modern Robotics' V_s) and body form (flange origin, flange axes,
  V_b = ^hX_0 V_s), and its screw axis (``sb.screw_axis`` of the twist referred to the flange
  origin in world axes: pitch, the axis point nearest the flange, the direction);
- the mass matrix H(q) (``sb.mass_matrix``, CRBA) as a heat map with fixed colour limits;
- the gravity torques G(q) = RNEA(q, 0, 0; g) and the velocity product terms
  C_v(q, q̇) = RNEA(q, q̇, 0; 0) (``sb.inverse_dynamics``, one batched call) as bars.

No MuJoCo or Pinocchio here: ``tests/test_widget_arm.py`` checks everything against them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Slider
from .parts import Bars, Series, arrow_segments_3d
from .limits import nice_limit
from .readouts import fmt_number
from .experiment import Experiment
from .robots import robot_file

PANDA_URDF = robot_file("panda.urdf")

#: The Panda as a Tree (7 revolute joints; the welded flange is merged into link 7).
PANDA = sb.Tree.from_urdf(PANDA_URDF)
N = PANDA.nv
G0 = 9.81
GRAVITY = np.array([0.0, 0.0, -G0])                       # world z up


def _urdf_joints() -> dict:
    root = ET.fromstring(PANDA_URDF)
    out = {}
    for j in root.iter("joint"):
        o, lim = j.find("origin"), j.find("limit")
        out[j.get("name")] = {
            "xyz": np.array([float(v) for v in o.get("xyz").split()]) if o is not None else np.zeros(3),
            "rpy": np.array([float(v) for v in o.get("rpy", "0 0 0").split()]) if o is not None else np.zeros(3),
            "limits": None if lim is None else (float(lim.get("lower")), float(lim.get("upper"))),
        }
    return out


_JOINTS = _urdf_joints()
#: joint ranges (rad) as the URDF gives them
LIMITS = np.array([_JOINTS[n]["limits"] for n in PANDA.joint_names])
#: the flange (hand) frame in link 7: the welded joint's origin (no rotation in the file)
_FL = _JOINTS["flange_joint"]
assert not np.any(_FL["rpy"])
FLANGE_OFFSET = _FL["xyz"]
X_HAND = sb.motion_transform(np.eye(3), FLANGE_OFFSET)     # link 7 -> flange coordinates

#: the demo joint rates (rad/s) at rate scale 1: q̇ = s * QD_DEMO
QD_DEMO = np.array([0.5, -0.4, 0.6, 0.8, -0.6, 0.9, 1.0])
#: Franka's "ready" pose (deg), the sliders' defaults
READY = (0.0, -45.0, 0.0, -135.0, 0.0, 90.0, 45.0)
RATE = 1.5          # the rate scale's default
AXIS_HALF = 0.35      # m: the screw axis is drawn this far either side of its point nearest the hand
ARROW_V = 0.25        # drawn m per m/s: the hand's linear velocity


#: per joint: [n]x of its axis n (S_i = [n; 0], revolute), and the placements X_T,i
_K = sb.skew(PANDA.axes[:, :3])
_KK = _K @ _K
_XT = np.asarray(PANDA.placements)


def parts(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, d) of motion transforms X = motion_transform(R, d) (shape (..., 6, 6)): R new -> old
    axes, d the new origin in old coordinates (the inverse of ``sb.motion_transform``).  For
    ^iX_0 (world -> body i): body i's axes -> world axes, and its origin in world coordinates."""
    R = np.swapaxes(X[..., :3, :3], -1, -2)
    return R, sb.unskew(-R @ X[..., 3:, :3])


def body_transforms(q) -> np.ndarray:
    """^iX_0 of every body (world coordinates -> body i's), shape (7, 6, 6), at joint angles q
    (rad): ^iX_0 = X_J(q_i) X_T,i ^(parent)X_0, with X_J = motion_transform(Rot(n_i, q_i), 0)."""
    q = np.asarray(q, float)[:, None, None]
    R_J = np.eye(3) + np.sin(q) * _K + (1.0 - np.cos(q)) * _KK     # Rodrigues, all joints at once
    X_J = sb.motion_transform(R_J, np.zeros((N, 3)))
    out = np.empty((N, 6, 6))
    for i in range(N):
        X = X_J[i] @ _XT[i]
        p = PANDA.parents[i]
        out[i] = X if p < 0 else X @ out[p]
    return out


def space_jacobian(X0: np.ndarray) -> np.ndarray:
    """J_s (6 x 7): column i is joint i's motion subspace carried to world coordinates,
    ^0X_i S_i, so that the hand's spatial velocity about the world origin is V_s = J_s q̇."""
    return np.einsum("kij,kj->ik", sb.inverse_transform(X0), PANDA.axes)


def _span(lo, hi, step=1.0):
    return float(np.ceil(np.rad2deg(lo) / step) * step), float(np.floor(np.rad2deg(hi) / step) * step)


CONTROLS = tuple(
    Slider(f"q{i + 1}", f"q{'₁₂₃₄₅₆₇'[i]} (deg)", *_span(*LIMITS[i]), 1.0, READY[i], ".0f")
    for i in range(N)
) + (Slider("rate", "q̇ scale s (q̇ = s q̇_demo)", 0.1, 2.0, 0.1, RATE, ".1f"),)


def scene(q1=0.0, q2=-45.0, q3=0.0, q4=-135.0, q5=0.0, q6=90.0, q7=45.0, rate=1.5) -> dict:
    """Poses, H, G, C_v, the hand's twist and its screw axis, all from spatialbook."""
    q = np.deg2rad([q1, q2, q3, q4, q5, q6, q7])
    qd = rate * QD_DEMO
    zero = np.zeros(N)
    # one batched RNEA call: G = RNEA(q, 0, 0; g), C_v = RNEA(q, qd, 0; no gravity)
    G, C_v = sb.inverse_dynamics(PANDA, q, [zero, qd], [zero, zero],
                                 gravity=[GRAVITY, np.zeros(3)])
    H = sb.mass_matrix(PANDA, q)
    X0 = body_transforms(q)
    X_h0 = X_HAND @ X0[-1]                                   # world -> flange coordinates
    J_s = space_jacobian(X0)
    V_s = J_s @ qd                                           # about the world origin, world axes
    V_b = X_h0 @ V_s                                         # about the flange origin, flange axes
    R_h, p_h = parts(X_h0)                                   # flange axes -> world, flange origin
    V_h = sb.shift_twist(V_s, p_h)                           # about the flange origin, world axes
    ax = sb.screw_axis(V_h)
    axis_point = p_h + ax.point
    origins = np.vstack([np.zeros(3), parts(X0)[1], p_h])   # base, joint anchors, hand
    numbers = {
        "q": q, "qd": qd, "H": H, "H_diag": np.diag(H).copy(), "G": G, "C_v": C_v,
        "V_s": V_s, "V_b": V_b, "v_hand": V_h[3:], "hand": p_h,
        "pitch": float(ax.pitch), "axis_point": axis_point, "axis_direction": ax.direction,
        "kinetic_energy": float(0.5 * qd @ H @ qd),
    }
    seg = axis_point + np.outer([-AXIS_HALF, AXIS_HALF], ax.direction)
    return {"origins": origins, "axis_segment": seg, "numbers": numbers}


def _limits_over_the_ranges(samples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """(H colour limit, G bar limit, C_v bar limit) over seeded random poses in the joint
    ranges (and the largest rate): fixed once, so neither colours nor bars rescale."""
    rng = np.random.default_rng(seed)
    lo, hi = np.array([(c.min, c.max) for c in CONTROLS[:N]]).T
    q = np.deg2rad(rng.uniform(lo, hi, (samples, N)))
    q = np.vstack([q, np.deg2rad(np.clip(READY, lo, hi))])
    qd = np.broadcast_to(CONTROLS[N].max * QD_DEMO, q.shape)
    z = np.zeros_like(q)
    G = sb.inverse_dynamics(PANDA, q, z, z, gravity=GRAVITY)
    C = sb.inverse_dynamics(PANDA, q, qd, z, gravity=np.zeros(3))
    H = sb.mass_matrix(PANDA, q)
    # 5 % above the largest sample: the maxima lie inside the box, where the samples are dense
    return (nice_limit(float(np.max(np.abs(H)))), nice_limit(1.05 * float(np.max(np.abs(G)))),
            nice_limit(1.05 * float(np.max(np.abs(C)))))


# The values _limits_over_the_ranges() returns (tests/test_widget_arm.py checks it), stored:
# computed at import they cost about 0.5 s of every live page's start in the browser (batched
# dynamics of 2000 poses in WebAssembly numpy, which has no BLAS), for one chapter's figure.
H_LIM, G_LIM, C_LIM = 4.0, 60.0, 15.0
TICKS = tuple(str(i + 1) for i in range(N))

# the wide figure (660 x 340 px) in figure fractions: 3-D arm | H and its colour bar | G over C_v
ARM_RECT = (0.0, 0.0, 0.37, 0.80)
H_RECT = (0.445, 0.19, 0.22, 0.22 * 660 / 340)              # square in pixels
CBAR_RECT = (0.678, 0.19, 0.018, 0.22 * 660 / 340)
CBAR_TICKS = (-1.0, -0.1, 0.0, 0.1, 1.0)                     # kg m², on the symlog colour bar
BARS_G_RECT = (0.835, 0.6, 0.15, 0.26)
BARS_C_RECT = (0.835, 0.09, 0.15, 0.26)


class ArmExplorer(Experiment):
    """E11: the Panda's pose, H(q), G(q), C_v(q, q̇), the hand's twist and its screw axis."""

    name = "arm_explorer"
    title = "E11 the arm explorer: a 7-joint arm"
    alt = ("Left: the seven-joint Franka Panda arm in three dimensions, its link origins joined by "
           "a line with a dot at every joint, the hand's velocity arrow and the screw axis of the "
           "hand's motion as a dash-dotted line. Middle: the 7 by 7 mass matrix H of the arm as "
           "a heat map with fixed colours. Right: bars of the gravity torques G and of the "
           "velocity product torques C_v for every joint.")
    CONTROLS = CONTROLS
    READOUTS = (
        ("q̇ (demo × s)", "qd", "rad/s"),
        ("G(q) (gravity)", "G", "N m"),
        ("C_v(q, q̇)", "C_v", "N m"),
        ("diag H", "H_diag", "kg m²"),
        ("V_s (space form)", "V_s", "rad/s, m/s"),
        ("V_b (body form)", "V_b", "rad/s, m/s"),
        ("screw pitch h", "pitch", "m/rad"),
        ("axis point nearest hand", "axis_point", "m"),
        ("axis direction", "axis_direction", ""),
        ("hand position", "hand", "m"),
        ("T = ½ q̇ᵀH q̇", "kinetic_energy", "J"),
    )
    # the unit in the title, not beside the axis: the narrow bars fit the figure's right edge
    BARS = (
        Bars("gravity torques\nG(q) (N m)", "", "N m", TICKS,
             (Series("", "G", COLORS["orange"]),), rect=BARS_G_RECT, lim=G_LIM, legend=None),
        Bars("velocity terms\nC_v(q, q̇) (N m)", "", "N m", TICKS,
             (Series("", "C_v", COLORS["purple"]),), rect=BARS_C_RECT, lim=C_LIM, legend=None),
    )
    main_control = "q2"
    scene = staticmethod(scene)

    def _setup(self, fig):
        from matplotlib.colors import SymLogNorm
        ax = fig.add_axes(ARM_RECT, projection="3d", computed_zorder=False)
        ax.view_init(elev=20, azim=-55)
        ax.set_xlim(-0.8, 0.8); ax.set_ylim(-0.8, 0.8); ax.set_zlim(-0.2, 1.2)
        ax.set_box_aspect((1.6, 1.6, 1.4), zoom=1.15)
        # 3 ticks per axis, none at the box's corners (where the x and y labels would meet)
        ax.set_xticks([-0.5, 0, 0.5], ["−0.5", "0", "0.5"])
        ax.set_yticks([-0.5, 0, 0.5], ["−0.5", "0", "0.5"])
        ax.set_zticks([0, 0.5, 1.0], ["0", "0.5", "1"])
        ax.tick_params(labelsize=8, pad=0)
        ax.set_xlabel("x (m)", labelpad=2); ax.set_ylabel("y (m)", labelpad=2)
        ax.set_zlabel("z (m)", labelpad=0)
        ax.text2D(0.57, 0.95, "the Panda: joints (dots), hand (square),\n"
                  f"hand velocity (green, 1 m/s ↦ {ARROW_V:g} m),\nscrew axis (dash-dot)",
                  transform=ax.transAxes, ha="center", va="bottom", fontsize=9)
        t = np.linspace(0, 2 * np.pi, 40)
        ax.plot(0.1 * np.cos(t), 0.1 * np.sin(t), 0 * t, color=COLORS["door"], lw=2)   # the base
        self.arm = self._moving(ax.plot([], [], [], "-", color=COLORS["door"], lw=4,
                                        solid_capstyle="round")[0])
        self.joints = self._moving(ax.plot([], [], [], "o", color=COLORS["blue"], ms=5)[0])
        self.hand = self._moving(ax.plot([], [], [], "s", color=COLORS["vermillion"], ms=6)[0])
        self.axis_line = self._moving(ax.plot([], [], [], "-.", color="black", lw=1.5)[0])
        self.v_arrow = self._moving(ax.plot([], [], [], "-", color=COLORS["green"], lw=2)[0])

        # the heat map square in pixels and its colour bar in its own axes just right of it
        # (not stolen from the map's box), so the two stay one panel in the phone layout
        hx = fig.add_axes(H_RECT)
        edges = np.arange(N + 1) + 0.5
        self.norm = SymLogNorm(linthresh=1e-2, vmin=-H_LIM, vmax=H_LIM, base=10)
        self.im = self._moving(hx.pcolormesh(edges, edges, np.zeros((N, N)), cmap="RdBu_r",
                                             norm=self.norm, antialiased=False))
        hx.set_xlim(0.5, N + 0.5); hx.set_ylim(N + 0.5, 0.5)        # row 1 on top
        hx.set_aspect("equal")
        hx.set_xticks(range(1, N + 1)); hx.set_yticks(range(1, N + 1))
        hx.tick_params(length=0, labelsize=8, pad=2)
        hx.set_xlabel("column j", fontsize=8, labelpad=2)
        hx.set_ylabel("row i", fontsize=8, labelpad=2)
        hx.set_title("mass matrix H(q)", fontsize=10)
        cax = fig.add_axes(CBAR_RECT)
        cb = fig.colorbar(self.im, cax=cax)
        # ticks at a few decades only, written as plain numbers
        cb.set_ticks(list(CBAR_TICKS), labels=[f"{v:g}".replace("-", "−") for v in CBAR_TICKS])
        cb.ax.minorticks_off()
        cb.set_label("kg m² (symmetric log)", fontsize=8, labelpad=1)
        cb.ax.tick_params(labelsize=8, pad=2)

    def readout_table(self, scene=None):
        """Readouts plus H as a 7 x 7 table (its numbers live here, not in the figure)."""
        H = (scene or self._scene)["numbers"]["H"]
        head = "".join(f"<th style='padding:0 3px'>{j + 1}</th>" for j in range(N))
        body = "".join(
            f"<tr><th style='padding:0 3px'>{i + 1}</th>"
            + "".join(f"<td style='font-family:monospace;text-align:right;padding:0 3px'>"
                      f"{fmt_number(H[i, j], 3)}</td>" for j in range(N)) + "</tr>"
            for i in range(N))
        return (super().readout_table(scene)
                + f"<div style='margin-top:6px'><b>H(q)</b> (kg m²)"
                  f"<table style='border-collapse:collapse;font-size:smaller'>"
                  f"<tr><th></th>{head}</tr>{body}</table></div>")

    def _draw(self, s):
        n, o = s["numbers"], s["origins"]
        self.arm.set_data_3d(o[:, 0], o[:, 1], o[:, 2])
        self.joints.set_data_3d(o[1:-1, 0], o[1:-1, 1], o[1:-1, 2])
        h = o[-1]
        self.hand.set_data_3d([h[0]], [h[1]], [h[2]])
        a = s["axis_segment"]
        self.axis_line.set_data_3d(a[:, 0], a[:, 1], a[:, 2])
        self.v_arrow.set_data_3d(*arrow_segments_3d(h, n["v_hand"], ARROW_V, side=(0.0, 0.0, 1.0)))
        self.im.set_array(n["H"])
        return False
