"""E12 — the floating biped: the legs kick, the torso turns back, h_G holds (book chapter 14).

The small biped of ``book/models/biped.xml`` / ``biped.urdf`` (a 10 kg torso on a free joint
and two 3-dof legs, 19.2 kg in all; the URDF read by ``widgets.robots.robot_file``, in a
notebook or in live mode) is read by ``sb.Tree.from_urdf(..., floating_base=True)``.  It flies free for
``DURATION`` seconds while joint torques (``joint_torques``: each leg joint's motor, a PD servo
following a kick) act between the robot's bodies: no force or torque from outside acts on it, except gravity when it is on.

Everything comes from spatialbook, composed here:

- the motion: q̈ = ``sb.forward_dynamics``, advanced by ``sb.rk4_step`` (fourth-order
  Runge-Kutta at the step ``DT``, each stage's configuration moved from the step's start by the
  free joint's exact screw motion, its quaternion kept unit); the three kick patterns and the
  two gravity settings are integrated together, as one batch of six states;
- the centroidal momentum h_G = [l_G; M v_G] = A_G(q) q̇ (``sb.centroidal_momentum_matrix``):
  angular momentum about the centre of mass G and linear momentum, world axes; its columns
  split it into the torso's share (the free joint's six columns times the torso's twist) and
  the legs' share (the joints' columns times the joint rates);
- the centre of mass (``sb.center_of_mass``) and the body poses (``sb.body_poses``) that place
  the drawn torso box and legs.

What it teaches (chapter 14): the joint torques are internal, so dh_G/dt = [0; M g] (the
total external wrench about G: gravity acts at G).  Without gravity h_G is constant; with
gravity l_G is constant and M v_G changes by M g t.  Started with l_G = 0, the legs' share of
l_G is always cancelled by the torso's: the torso turns back as the legs swing.  The readouts
show h_G, its change since t = 0 and what is left of that change once gravity's impulse
[0; M g t] is taken off: the integration's error, at most 4e-4 (kg m/s, kg m^2/s) at the step
DT = 10 ms and 16 times smaller at half the step (fourth order; the tests measure it).  The
kick goes out with the knee bent and comes back with it straight, a loop in the joint angles:
once the legs are back, the torso stays turned (by 13 degrees about the vertical after the
scissor kick) although l_G was 0 all along.

The trajectory depends only on the choices (kick pattern, gravity); it is computed once, for
all six at once, and cached (``trajectories``); the time slider only indexes into it.
"""

from __future__ import annotations

import functools

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Choice, Player, Slider
from .limits import nice_limit
from .experiment import Experiment
from .robots import robot_file

#: The biped as a Tree: body 0 the torso (free joint), then per leg hip roll, hip pitch, knee
#: (the feet are welded to the shins and merged into them by the loader).
BIPED = sb.Tree.from_urdf(robot_file("biped.urdf"), floating_base=True)
NQ, NV = BIPED.nq, BIPED.nv
JOINTS = BIPED.joint_names[1:]
MASS = float(sum(I[5, 5] for I in BIPED.inertias))          # kg, the sum of the bodies' masses
G0 = 9.81
GRAVITY = {"off": np.zeros(3), "on": np.array([0.0, 0.0, -G0])}

DURATION = 1.0            # s
DT = 0.01                 # s, the RK4 step (tests/test_widget_floating_biped.py measures the error)
STEPS = int(round(DURATION / DT))
TIMES = np.arange(STEPS + 1) * DT
PATTERNS = ("one leg", "both legs", "scissor")
#: the torso's start: its origin (the pelvis point) 0.9 m up, upright, and a uniform drift of
#: the whole robot (every body translating alike, so l_G = 0): forward 0.4 m/s; with gravity
#: also up at g T / 2, so the jump comes back to its start height at T = DURATION
START_HEIGHT = 0.9
DRIFT = {"off": np.array([0.4, 0.0, 0.0]), "on": np.array([0.4, 0.0, 0.5 * G0 * DURATION])}

#: the kick: the joints' servo targets (rad) swing the hip forward by KICK_HIP (negative pitch)
#: and back, sin^2(pi t / T) of it, while the knee bends by KICK_KNEE and straightens during the
#: forward swing only, sin^2(2 pi t / T) for t < T / 2: the leg goes out bent and comes back
#: straight, a loop in the joint angles, so the torso ends turned although l_G stays 0
KICK_HIP = np.deg2rad(70.0)
KICK_KNEE = np.deg2rad(60.0)
#: the servo's gains per joint (hip roll, hip pitch, knee): N m/rad and N m s/rad
KP = np.array([20.0, 60.0, 30.0])
KD = np.array([0.5, 4.0, 2.0])

#: the torso box (m, torso axes: 0.2 x 0.3 x 0.4, centred 0.15 above the pelvis point), its 8
#: corners walked along all 12 edges as one polyline
_BOX = np.array([[x, y, 0.15 + z] for z in (-0.2, 0.2) for x, y in
                 ((0.1, 0.15), (0.1, -0.15), (-0.1, -0.15), (-0.1, 0.15))])
_BOX_PATH = _BOX[[0, 1, 2, 3, 0, 4, 5, 1, 5, 6, 2, 6, 7, 3, 7, 4]]
#: a leg drawn through points of its shin (knee frame): knee, ankle, heel, toe, ankle
_SHIN_POINTS = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, -0.35], [-0.07, 0.0, -0.39],
                         [0.13, 0.0, -0.39], [0.0, 0.0, -0.35]])
LEFT, RIGHT = (1, 2, 3), (4, 5, 6)              # bodies: hip roll, hip pitch, shin (knee)


def kick_targets(t, pattern: str) -> np.ndarray:
    """The six leg joints' targets (rad) at times ``t`` (s), shape (..., 6): L roll, pitch,
    knee, R roll, pitch, knee.  "one leg": the left leg kicks, the right is held straight;
    "both legs": both kick alike; "scissor": the right hip swings back as the left swings
    forward (knees bent alike)."""
    t = np.asarray(t, float)
    hip = KICK_HIP * np.sin(np.pi * t / DURATION) ** 2
    knee = np.where(t < 0.5 * DURATION, KICK_KNEE * np.sin(2.0 * np.pi * t / DURATION) ** 2, 0.0)
    target = np.zeros(t.shape + (6,))
    target[..., 1], target[..., 2] = -hip, knee
    if pattern == "both legs":
        target[..., 4], target[..., 5] = -hip, knee
    elif pattern == "scissor":
        target[..., 4], target[..., 5] = hip, knee
    return target


def joint_torques(t, q, qd, pattern: str) -> np.ndarray:
    """The joint torques (N m, shape (..., NV)) at time ``t`` (s) and state (q, qd): zero on the
    free joint (nothing pushes the torso from outside); at each leg joint a PD servo toward
    its kick target, KP (target - q) - KD q_dot.  The servo is the legs' motors: whatever they
    do, they push one body of the robot against another."""
    tau = np.zeros(np.shape(qd))
    tau[..., 6:] = (np.tile(KP, 2) * (kick_targets(t, pattern) - np.asarray(q)[..., 7:])
                    - np.tile(KD, 2) * np.asarray(qd)[..., 6:])
    return tau


#: the side view's title by kick: true of what it shows (in "both legs" the left leg, drawn
#: behind the right one, is hidden by it all along)
SIDE_TITLES = {
    "one leg": "side view from the right: right leg dark,\nleft leg light, G and its path",
    "scissor": "side view from the right: right leg dark,\nleft leg light, G and its path",
    "both legs": "side view from the right: legs together,\nright leg in front; G and its path",
}

SETTINGS = tuple((p, g) for g in GRAVITY for p in PATTERNS)   # the batch: 3 patterns x 2 gravities


def start_state() -> tuple[np.ndarray, np.ndarray]:
    """(q0, qd0) of the batch: upright, joints at zero, the torso's twist a pure translation
    (body axes = world axes at the start) at the drift of each setting's gravity."""
    q0 = np.zeros((len(SETTINGS), NQ))
    q0[:, 2], q0[:, 3] = START_HEIGHT, 1.0
    qd0 = np.zeros((len(SETTINGS), NV))
    for i, (_, g) in enumerate(SETTINGS):
        qd0[i, 3:6] = DRIFT[g]
    return q0, qd0




def _accelerations(t, q, qd):
    tau = np.stack([joint_torques(t, q[i], qd[i], p) for i, (p, _) in enumerate(SETTINGS)])
    g = np.stack([GRAVITY[gr] for _, gr in SETTINGS])
    return sb.forward_dynamics(BIPED, q, qd, tau, gravity=g)


def simulate(steps: int = STEPS, dt: float = DT) -> tuple[np.ndarray, np.ndarray]:
    """(q, qd) of every setting at every step, shapes (steps + 1, 6, NQ) and (steps + 1, 6, NV):
    ``sb.rk4_step``, classical RK4 with each stage's configuration reached from the step's start
    by the free joint's screw motion (Munthe-Kaas's RKMK4), fourth order like RK4 on a vector
    space."""
    q, qd = start_state()
    Q, QD = [q], [qd]
    for n in range(steps):
        q, qd = sb.rk4_step(BIPED, q, qd, _accelerations, dt, t=n * dt)
        Q.append(q)
        QD.append(qd)
    return np.stack(Q), np.stack(QD)


#: ``simulate()``'s (q, qd) when given by :func:`load_simulation`, else None (integrated here)
SIMULATED: tuple[np.ndarray, np.ndarray] | None = None


def load_simulation(q, qd) -> None:
    """Use (q, qd), ``simulate()``'s result made elsewhere, instead of integrating: live mode
    gives the integration the book's build made (about 1 s of CPU natively, several in the
    browser; tools/live_packages.py ships it, tests/test_live_archives.py checks it equals a
    fresh one)."""
    global SIMULATED
    shapes = ((STEPS + 1, len(SETTINGS), NQ), (STEPS + 1, len(SETTINGS), NV))
    q, qd = np.asarray(q, float), np.asarray(qd, float)
    if (q.shape, qd.shape) != shapes:
        raise ValueError(f"load_simulation: q and qd must have shapes {shapes}, got "
                         f"{q.shape} and {qd.shape}")
    SIMULATED = (q, qd)
    trajectories.cache_clear()


@functools.lru_cache(maxsize=1)
def trajectories() -> dict:
    """Every setting's trajectory and what is drawn of it, keyed by (pattern, gravity); computed
    once (one batched integration of the six settings, or the one given to
    :func:`load_simulation`) and cached."""
    Q, QD = simulate() if SIMULATED is None else SIMULATED
    A = sb.centroidal_momentum_matrix(BIPED, Q)                   # (steps+1, 6, 6, NV)
    torso = np.einsum("...ij,...j->...i", A[..., :6], QD[..., :6])
    legs = np.einsum("...ij,...j->...i", A[..., 6:], QD[..., 6:])
    h = torso + legs
    com = sb.center_of_mass(BIPED, Q)
    R, p = sb.body_poses(BIPED, Q)                                # (steps+1, 6, n, 3, 3), (..., n, 3)
    box = p[..., 0, None, :] + np.einsum("...ij,kj->...ki", R[..., 0, :, :], _BOX_PATH)
    legs_drawn = [np.concatenate([p[..., hip, None, :],
                                  p[..., knee, None, :] + np.einsum("...ij,kj->...ki", R[..., knee, :, :],
                                                                    _SHIN_POINTS)], -2)
                  for hip, _, knee in (LEFT, RIGHT)]
    out = {}
    for i, key in enumerate(SETTINGS):
        out[key] = {"q": Q[:, i], "qd": QD[:, i], "h_G": h[:, i], "l_torso": torso[:, i, :3],
                    "l_legs": legs[:, i, :3], "com": com[:, i], "box": box[:, i],
                    "left": legs_drawn[0][:, i], "right": legs_drawn[1][:, i]}
    return out


def rotation_vector(quat) -> np.ndarray:
    """The rotation vector (axis times angle, deg) of a unit quaternion [w, x, y, z]."""
    w, v = quat[0], np.asarray(quat[1:], float)
    s = np.linalg.norm(v)
    if s == 0.0:
        return np.zeros(3)
    angle = 2.0 * np.arctan2(s, w)
    if angle > np.pi:
        angle -= 2.0 * np.pi
    return np.rad2deg(angle) * v / s


CONTROLS = (
    Slider("t_ms", "time t (ms)", 0.0, 1000.0, 10.0, 500.0, ".0f"),
    Choice("pattern", "kick", PATTERNS, "both legs"),
    Choice("gravity", "gravity", ("off", "on"), "off",
           hint="gravity moves G and M v_G only: the legs and the torso turn as they do without it"),
    Player("play", "t_ms", 0, 1000, 10, 60),
)


def scene(t_ms=500.0, pattern="both legs", gravity="off") -> dict:
    """The biped at time t of the chosen trajectory: drawing, h_G and its shares, all indexed
    from the cached trajectories (spatialbook computed them)."""
    tr = trajectories()[(pattern, gravity)]
    k = int(round(t_ms / (1000.0 * DT)))
    t = k * DT
    h, h0 = tr["h_G"][k], tr["h_G"][0]
    dh = h - h0
    impulse = np.r_[0.0, 0.0, 0.0, MASS * t * GRAVITY[gravity]]
    q = tr["q"][k]
    numbers = {
        "t": t, "h_G": h, "h_G0": h0, "dh_G": dh, "impulse": impulse,
        "l_error": float(np.linalg.norm(dh[:3] - impulse[:3])),
        "p_error": float(np.linalg.norm(dh[3:] - impulse[3:])),
        "l_torso": tr["l_torso"][k], "l_legs": tr["l_legs"][k],
        "torso_rotation": rotation_vector(q[3:7]), "com": tr["com"][k],
        "joints": np.rad2deg(q[7:]), "q": q, "qd": tr["qd"][k],
    }
    series = {"t": TIMES, "l_G": tr["h_G"][:, :3], "l_legs": tr["l_legs"], "l_torso": tr["l_torso"],
              "p_G": tr["h_G"][:, 3:]}
    return {"box": tr["box"][k], "left": tr["left"][k], "right": tr["right"][k],
            "com_path": tr["com"][:k + 1], "series": series, "numbers": numbers}


def panel_limits() -> tuple[float, float]:
    """(angular, linear) momentum axis limits over every setting and time: fixed once."""
    tr = trajectories().values()
    ang = max(float(np.max(np.abs(np.r_[s["l_legs"].ravel(), s["l_torso"].ravel()]))) for s in tr)
    lin = max(float(np.max(np.abs(s["h_G"][:, 3:]))) for s in tr)
    return nice_limit(ang), nice_limit(lin)


# the figure: 660 x 400 px (taller than the default 340: the side view must hold the jump)
FIGSIZE = (6.6, 4.0)
SIDE_RECT = (0.0, 0.09, 0.46, 0.80)
ANG_RECT = (0.57, 0.62, 0.40, 0.27)
LIN_RECT = (0.57, 0.10, 0.40, 0.27)
SIDE_XLIM = (-0.7, 1.1)
SIDE_ZLIM = (0.0, 2.7)


class FloatingBiped(Experiment):
    """E12: a biped floating free kicks its legs; the torso turns back and h_G stays constant."""

    name = "floating_biped"
    title = "E12 the floating biped: legs kick, h_G holds"
    alt = ("Left: side view of a small two-legged robot flying free, its torso drawn as a box "
           "and its legs as thick lines, the centre of mass marked with its path. Right: the "
           "angular momentum about the centre of mass over time, split into the legs' share and "
           "the torso's share, which cancel; below, the linear momentum over time.")
    CONTROLS = CONTROLS
    READOUTS = (
        ("time t", "t", "s"),
        ("h_G = [ℓ_G; M v_G]", "h_G", "kg m²/s, kg m/s"),
        ("Δh_G since t = 0", "dh_G", "kg m²/s, kg m/s"),
        ("gravity's impulse [0; M g t]", "impulse", "kg m²/s, kg m/s"),
        ("|Δℓ_G| (integration error)", "l_error", "kg m²/s"),
        ("|Δ(M v_G) − M g t| (integration error)", "p_error", "kg m/s"),
        ("legs' share of ℓ_G", "l_legs", "kg m²/s"),
        ("torso's share of ℓ_G", "l_torso", "kg m²/s"),
        ("torso rotation since t = 0 (axis × angle)", "torso_rotation", "deg"),
        ("centre of mass G", "com", "m"),
        ("joints: L roll, pitch, knee; R roll, pitch, knee", "joints", "deg"),
    )
    main_control = "t_ms"
    figsize = FIGSIZE
    scene = staticmethod(scene)

    def _setup(self, fig):
        ax = fig.add_axes(SIDE_RECT)
        ax.set_xlim(*SIDE_XLIM); ax.set_ylim(*SIDE_ZLIM); ax.set_aspect("equal")
        ax.set_xlabel("x (m)"); ax.set_ylabel("z (m)")
        # the title says which leg is which; in the "both legs" kick they move alike and the
        # right one (drawn in front) hides the left, so that kick's title says so (_draw)
        self.side_title = self._moving(ax.set_title(SIDE_TITLES["one leg"], fontsize=9),
                                       depends=("pattern",))
        ax.tick_params(labelsize=9)
        self.side = ax
        self.left_leg = self._moving(ax.plot([], [], "-", color=COLORS["sky"], lw=5,
                                             solid_capstyle="round", zorder=2)[0])
        self.torso = self._moving(ax.plot([], [], "-", color=COLORS["door"], lw=2.5, zorder=3)[0])
        self.right_leg = self._moving(ax.plot([], [], "-", color=COLORS["blue"], lw=5,
                                              solid_capstyle="round", zorder=4)[0])
        self.path = self._moving(ax.plot([], [], "-", color=COLORS["vermillion"], lw=1.5, zorder=5)[0])
        self.com = self._moving(ax.plot([], [], "o", color=COLORS["vermillion"], ms=7, zorder=6,
                                        markeredgecolor="black")[0])

        ang_lim, lin_lim = panel_limits()
        a = fig.add_axes(ANG_RECT)
        a.set_xlim(0.0, DURATION); a.set_ylim(-ang_lim, ang_lim)
        a.set_title("ℓ_G about G = legs' + torso's share\n(kg m²/s; y solid, z dotted)", fontsize=9)
        a.tick_params(labelsize=9, labelbottom=False)
        a.axhline(0.0, color="0.8", lw=0.8, zorder=0)
        dep = ("pattern", "gravity")
        self.ang_lines = {}
        for key, color in (("l_legs", COLORS["orange"]), ("l_torso", COLORS["blue"]), ("l_G", "black")):
            for j, style in ((1, "-"), (2, ":")):
                self.ang_lines[key, j] = self._moving(a.plot([], [], style, color=color, lw=1.6)[0], dep)
        b = fig.add_axes(LIN_RECT)
        b.set_xlim(0.0, DURATION); b.set_ylim(-lin_lim, lin_lim)
        b.set_title("M v_G (kg m/s; x solid, z dashed)", fontsize=9)
        b.set_xlabel("t (s)")
        b.tick_params(labelsize=9)
        b.axhline(0.0, color="0.8", lw=0.8, zorder=0)
        self.lin_lines = {j: self._moving(b.plot([], [], style, color=COLORS["green"], lw=1.6)[0], dep)
                          for j, style in ((0, "-"), (2, "--"))}
        self.cursors = [self._moving(x.axvline(0.0, color=COLORS["vermillion"], lw=1.0)) for x in (a, b)]
        from matplotlib.lines import Line2D
        self._on_top(a.legend(handles=[Line2D([], [], color=COLORS["orange"], label="legs"),
                                       Line2D([], [], color=COLORS["blue"], label="torso"),
                                       Line2D([], [], color="black", label="ℓ_G")],
                              loc="upper center", bbox_to_anchor=(0.5, -0.04), fontsize=9, ncols=3,
                              frameon=False, handlelength=1.5, columnspacing=1.0, borderpad=0.2))

    def _draw(self, s):
        title = SIDE_TITLES.get(self._drawn_values["pattern"], SIDE_TITLES["one leg"])
        if self.side_title.get_text() != title:
            self.side_title.set_text(title)
        for artist, key in ((self.torso, "box"), (self.left_leg, "left"), (self.right_leg, "right")):
            artist.set_data(s[key][:, 0], s[key][:, 2])
        path = s["com_path"]
        self.path.set_data(path[:, 0], path[:, 2])
        self.com.set_data(path[-1:, 0], path[-1:, 2])
        ser = s["series"]
        for (key, j), line in self.ang_lines.items():
            line.set_data(ser["t"], ser[key][:, j])
        for j, line in self.lin_lines.items():
            line.set_data(ser["t"], ser["p_G"][:, j])
        t = s["numbers"]["t"]
        for c in self.cursors:
            c.set_xdata([t, t])
        return False
