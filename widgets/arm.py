"""E11 — the arm explorer: a real 7-joint arm with the door's algebra (book chapter 12).

The Franka Emika Panda (``book/models/panda.urdf``, read by ``widgets.robots.robot_file``, in a
notebook and in the browser) is read by
``sb.Tree.from_urdf`` into a Tree of 7 bodies.  For the joint angles of the sliders, all from
spatialbook:

- the pose of every body, ^iX_0 = X_J(q_i) X_T,i ^(parent)X_0, composed joint by joint with
  ``sb.motion_transform``: the link origins (the joint anchors) joined by thick bars, the
  figure's main view, which the reader turns (azimuth, elevation; the 3-D parts of
  ``widgets/parts.py`` project it, so a turn only blits);
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
from matplotlib.colors import SymLogNorm

import spatialbook as sb

from .style import COLORS
from .controls import Slider
from .parts import (Arrow3D, Bars, Polyline3D, Series, Triad, Tubes3D, bare_3d_axes,
                    circle_3d, turn_view)
from .limits import nice_limit
from .readouts import fmt_significant, matrix_table
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
ELEV, AZIM = 20.0, -55.0   # deg: the view's defaults (the figure's view before it could turn)
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
    """^iX_0 of every body (world coordinates -> body i's), shape (..., 7, 6, 6), at joint
    angles q (rad, shape (..., 7)): ^iX_0 = X_J(q_i) X_T,i ^(parent)X_0, with
    X_J = motion_transform(Rot(n_i, q_i), 0)."""
    q = np.asarray(q, float)[..., None, None]
    R_J = np.eye(3) + np.sin(q) * _K + (1.0 - np.cos(q)) * _KK     # Rodrigues, all joints at once
    X_J = sb.motion_transform(R_J, np.zeros(R_J.shape[:-1]))
    out = np.empty(X_J.shape)
    for i in range(N):
        X = X_J[..., i, :, :] @ _XT[i]
        p = PANDA.parents[i]
        out[..., i, :, :] = X if p < 0 else X @ out[..., p, :, :]
    return out


def space_jacobian(X0: np.ndarray) -> np.ndarray:
    """J_s (..., 6, 7): column i is joint i's motion subspace carried to world coordinates,
    ^0X_i S_i, so that the hand's spatial velocity about the world origin is V_s = J_s q̇."""
    return np.einsum("...kij,kj->...ik", sb.inverse_transform(X0), PANDA.axes)


def _span(lo, hi, step=1.0):
    return float(np.ceil(np.rad2deg(lo) / step) * step), float(np.floor(np.rad2deg(hi) / step) * step)


CONTROLS = tuple(
    Slider(f"q{i + 1}", f"q{'₁₂₃₄₅₆₇'[i]} (deg)", *_span(*LIMITS[i]), 1.0, READY[i], ".0f")
    for i in range(N)
) + (
    Slider("rate", "q̇ scale s (q̇ = s q̇_demo)", 0.1, 2.0, 0.1, RATE, ".1f"),
    Slider("azim", "view azimuth (deg)", -180.0, 180.0, 5.0, AZIM, ".0f",
           hint="turns the picture about the vertical; no number depends on the view"),
    Slider("elev", "view elevation (deg)", -30.0, 90.0, 5.0, ELEV, ".0f",
           hint="tilts the picture (90: from above); no number depends on the view"),
)


def scene(q1=0.0, q2=-45.0, q3=0.0, q4=-135.0, q5=0.0, q6=90.0, q7=45.0, rate=1.5,
          azim=AZIM, elev=ELEV) -> dict:
    """Poses, H, G, C_v, the hand's twist and its screw axis, all from spatialbook.  The view
    (``azim``, ``elev``, deg) changes only how the figure is projected, no number."""
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
        "q": q, "qd": qd, "H": H, "H_diag": np.diag(H).copy(),
        "H_least_eigenvalue": float(np.linalg.eigvalsh(H)[0]), "G": G, "C_v": C_v,
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
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
#: the view's centre (m): joint 2's anchor, the shoulder, which no joint moves
CENTER = parts(body_transforms(np.zeros(N))[1])[1]


def _reach_over_the_ranges(samples: int = 3000, seed: int = 0) -> float:
    """The radius (m, rounded up to 5 cm with 2 % head room) of the ball about ``CENTER`` that
    holds everything drawn of the arm (base, joint anchors, hand, the tip of the hand's velocity
    arrow at the largest rate) over seeded random poses in the joint ranges: the 3-D view shows
    this ball, so the arm never leaves it whatever the pose or the view (the screw axis, which
    can run far from the arm, is cut at the view's edge)."""
    rng = np.random.default_rng(seed)
    lo, hi = np.array([(c.min, c.max) for c in CONTROLS[:N]]).T
    q = np.deg2rad(rng.uniform(lo, hi, (samples, N)))
    X0 = body_transforms(q)                                        # the scene's route, batched
    X_h0 = X_HAND @ X0[:, -1]
    p_h = parts(X_h0)[1]
    V_s = space_jacobian(X0) @ (CONTROLS[N].max * QD_DEMO)
    tip = p_h + ARROW_V * sb.shift_twist(V_s, p_h)[:, 3:]
    pts = np.concatenate([parts(X0)[1], p_h[:, None], tip[:, None]], axis=1)
    far = float(np.max(np.linalg.norm(pts - CENTER, axis=-1)))
    return float(np.ceil(1.02 * far / 0.05) * 0.05)


#: the radius of the ball the view shows (m): _reach_over_the_ranges(), stored (as H_LIM)
REACH = 1.1
FLOOR_R, FLOOR_STEP = 0.75, 0.25    # m: the floor's disc about the base and its grid spacing
TRIAD_AT = np.array([0.0, -0.55, 0.0])   # m: where the world axes are drawn, on the floor
COLUMN_WIDTH = 9.5                        # points: a link's bar across, its edge included (Tubes3D)

# the wide figure (660 x 490 px), in figure fractions: the arm's square view (414 px a side once
# fit_wide_layout has kept its legend inside: 53 % of the figure, 60 % with the legend above it)
# on the left; H, its colour bar and the bars of G and C_v stacked on the right.  The phone
# layout stacks the two columns.
FIGSIZE = (6.6, 4.9)
_W, _H = 660.0, 490.0
ARM_RECT = (0.0, 0.0, 420 / _W, 420 / _H)
H_RECT = (470 / _W, 330 / _H, 126 / _W, 126 / _H)          # square in pixels
CBAR_RECT = (602 / _W, 330 / _H, 10 / _W, 126 / _H)
CBAR_TICKS = (-1.0, -0.1, 0.0, 0.1, 1.0)                     # kg m², on the symlog colour bar
BARS_G_RECT = (476 / _W, 178 / _H, 176 / _W, 80 / _H)
BARS_C_RECT = (476 / _W, 46 / _H, 176 / _W, 80 / _H)


class PlainSymLogNorm(SymLogNorm):
    """``SymLogNorm`` that maps a plain finite float array (H, every change of a joint) without
    ``numpy.ma``: the scale's own transform and then the two steps of ``SymLogNorm.__call__``
    (subtract the transformed vmin, divide by the transformed range), so the same numbers, in
    a fraction of the time (the masked route was about a tenth of such a change in the
    browser).  Anything else (masked, non-finite, clipping, not yet scaled) goes to
    ``SymLogNorm``.

    >>> n, p = SymLogNorm(0.01, vmin=-4, vmax=4), PlainSymLogNorm(0.01, vmin=-4, vmax=4)
    >>> x = np.array([[-3.0, -0.005, 0.0], [0.002, 0.7, 4.0]])
    >>> bool(np.array_equal(np.ma.getdata(n(x)), p(x)))
    True
    """

    def __call__(self, value, clip=None):
        data = np.ma.getdata(value)
        if (clip or self.clip or np.ma.is_masked(value) or not self.scaled()
                or getattr(data, "dtype", None) != np.float64 or data.ndim == 0
                or not np.isfinite(data).all()):
            return super().__call__(value, clip)
        t_value = self._trf.transform(data).reshape(data.shape)
        t_vmin, t_vmax = self._trf.transform([self.vmin, self.vmax])
        t_value -= t_vmin
        t_value /= (t_vmax - t_vmin)
        return t_value


class ArmExplorer(Experiment):
    """E11: the Panda's pose, H(q), G(q), C_v(q, q̇), the hand's twist and its screw axis."""

    name = "arm_explorer"
    title = "E11 the arm explorer: a 7-joint arm"
    alt = ("Left, most of the figure: the seven-joint Franka Panda arm in three dimensions, seen "
           "from the azimuth and elevation of the view sliders, standing on a round floor grid "
           "of 0.25 m squares; its links are thick grey bars, the joints blue discs, the hand a "
           "red square with its velocity arrow in green, and the screw axis of the hand's "
           "motion a dash-dotted line. Right, top: the 7 by 7 mass matrix H of the arm as a "
           "heat map with fixed colours. Right, below: bars of the gravity torques G and of the "
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
    BARS = (
        Bars("gravity G(q) (N m)", "", "N m", TICKS,
             (Series("", "G", COLORS["orange"]),), rect=BARS_G_RECT, lim=G_LIM, legend=None),
        Bars("velocity terms C_v (N m)", "", "N m", TICKS,
             (Series("", "C_v", COLORS["purple"]),), rect=BARS_C_RECT, lim=C_LIM, legend=None),
    )
    main_control = "q2"
    VIEW_CONTROLS = ("azim", "elev")        # the scene computes no number from them
    scene = staticmethod(scene)
    figsize = FIGSIZE

    def _setup(self, fig):
        from matplotlib.lines import Line2D
        ax = self.ax3d = bare_3d_axes(fig, ARM_RECT, CENTER, REACH, ELEV, AZIM)
        self._view_set = None               # the view _draw last set the view's artists for
        view = ("azim", "elev")
        # what only the view moves (floor, base, world axes): a layer redrawn when it turns
        g = np.arange(-FLOOR_R, FLOOR_R + 1e-9, FLOOR_STEP)
        h = np.sqrt(np.maximum(FLOOR_R ** 2 - g ** 2, 0.0))
        nan = np.full_like(g, np.nan)
        grid = np.vstack([np.stack([np.c_[g, g, nan], np.c_[-h, h, nan], 0 * np.c_[g, g, g]], -1),
                          np.stack([np.c_[-h, h, nan], np.c_[g, g, nan], 0 * np.c_[g, g, g]], -1)])
        self.floor_points = grid.reshape(-1, 3)
        self.floor = Polyline3D(self, ax, "-", view, color=COLORS["grey"], lw=0.7, zorder=0)
        self.rim = Polyline3D(self, ax, "-", view, color=COLORS["grey"], lw=1.2, zorder=0)
        self.base = Polyline3D(self, ax, "-", view, color=COLORS["door"], lw=2.5, zorder=0.5)
        self.world = Triad(self, ax, 0.2, depends=view)
        # the arm: one thick bar per link, drawn far to near; joints, hand and arrows on top
        self.links = Tubes3D(self, ax, "#BBBBBB", lw=7.0, edge=2.5, zorder=2.0)
        self.joints = Polyline3D(self, ax, "o", color=COLORS["blue"], ms=7, mec="white",
                                 mew=1.2, zorder=4)
        self.hand = Polyline3D(self, ax, "s", color=COLORS["vermillion"], ms=8, mec="white",
                               mew=1.2, zorder=4.5)
        self.axis_line = Polyline3D(self, ax, "-.", color="black", lw=1.5, zorder=5)
        self.v_arrow = Arrow3D(self, ax, ARROW_V, "m/s", COLORS["green"], "hand velocity v",
                               lw=2.5, zorder=6)
        handles = [Line2D([], [], color=COLORS["blue"], marker="o", mec="white", ls="",
                          ms=7, label="joint"),
                   Line2D([], [], color=COLORS["vermillion"], marker="s", ls="", ms=7,
                          label="hand (flange)"),
                   Line2D([], [], color=COLORS["green"], lw=2.5, label=self.v_arrow.label),
                   Line2D([], [], color="black", ls="-.", lw=1.5, label="screw axis"),
                   Line2D([], [], color=COLORS["grey"], lw=0.7,
                          label=f"floor: {FLOOR_STEP * 100:g} cm squares")]
        ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.99),
                  ncols=1 if self.narrow else 2,
                  fontsize=9, frameon=False, handlelength=1.6, columnspacing=1.0,
                  borderaxespad=0.0, handletextpad=0.5, labelspacing=0.3)

        # the heat map square in pixels and its colour bar in its own axes just right of it
        # (not stolen from the map's box), so the two stay one panel in the phone layout
        hx = fig.add_axes(H_RECT)
        edges = np.arange(N + 1) + 0.5
        self.norm = PlainSymLogNorm(linthresh=1e-2, vmin=-H_LIM, vmax=H_LIM, base=10)
        self.im = self._moving(hx.pcolormesh(edges, edges, np.zeros((N, N)), cmap="RdBu_r",
                                             norm=self.norm, antialiased=False))
        hx.set_xlim(0.5, N + 0.5); hx.set_ylim(N + 0.5, 0.5)        # row 1 on top
        hx.set_aspect("equal")
        hx.set_xticks(range(1, N + 1)); hx.set_yticks(range(1, N + 1))
        hx.tick_params(length=0, labelsize=9, pad=2)
        hx.set_xlabel("column j", fontsize=9, labelpad=1)
        hx.set_ylabel("row i", fontsize=9, labelpad=2)
        hx.set_title("mass matrix H(q)", fontsize=10, pad=9)      # clear of the colour bar's top
        cax = fig.add_axes(CBAR_RECT)
        cb = fig.colorbar(self.im, cax=cax)
        # ticks at a few decades only, written as plain numbers
        cb.set_ticks(list(CBAR_TICKS), labels=[f"{v:g}".replace("-", "−") for v in CBAR_TICKS])
        cb.ax.minorticks_off()
        cb.set_label("kg m² (symmetric log)", fontsize=9, labelpad=5)    # clear of "−0.1"
        cb.ax.tick_params(labelsize=9, pad=2)

    def readout_table(self, scene=None):
        """Readouts plus H as a 7 x 7 table (its numbers live here, not in the figure), and a
        line under it with H's least diagonal entry and least eigenvalue to two significant
        digits: the hand's spin inertia H₇₇, about 0.005 kg m², reads 0.00 in a table of 0.01
        (narrow enough for a phone), and H is positive definite all the same."""
        numbers = self._scene_or(scene)["numbers"]
        H, diag = np.asarray(numbers["H"]), np.asarray(numbers["H_diag"])
        names = [str(j + 1) for j in range(N)]
        least = int(np.argmin(diag))
        sub = str(least + 1).translate(_SUBSCRIPTS)
        note = (f"entries to 0.01; least diagonal entry H{sub}{sub} = "
                f"{fmt_significant(diag[least])}, least eigenvalue "
                f"{fmt_significant(numbers['H_least_eigenvalue'])} (kg m²)")
        return (super().readout_table(scene) + matrix_table(H, names, names, "H(q)", "kg m²")
                + f"<div style='font-size:smaller'>{note}</div>")

    def _draw(self, s):
        n, o = s["numbers"], s["origins"]
        v = self._drawn_values
        toward = turn_view(self.ax3d, v["elev"], v["azim"])
        # what only the view moves (floor, base, world axes and their labels) is set again only
        # when the view or the axes' box (a new layout or scale) has changed: a change of a
        # joint leaves it as it is (about a tenth of such a change in the browser)
        view = (v["elev"], v["azim"], tuple(self.ax3d.bbox.bounds))
        if view != self._view_set:
            self.floor.set(self.floor_points)
            self.rim.set(circle_3d((0, 0, 0), (0, 0, 1), FLOOR_R))
            self.base.set(circle_3d((0, 0, 0), (0, 0, 1), 0.1))
            self.world.set(TRIAD_AT, np.eye(3), toward)
            self._view_set = view
        # the world axes' labels keep clear of the base column (the first link, which no joint
        # moves) and of the hand's velocity arrow (which the joints and the view move)
        self.world.place([(o[:2], COLUMN_WIDTH),
                          (self.v_arrow.segments(o[-1], n["v_hand"], toward),
                           self.v_arrow.line.get_linewidth())])
        self.links.set(np.stack([o[:-1], o[1:]], axis=1), toward)
        self.joints.set(o[1:-1])
        self.hand.set(o[-1:])
        self.axis_line.set(s["axis_segment"])
        self.v_arrow.set(o[-1], n["v_hand"], toward)
        self.im.set_array(n["H"])
        return False
