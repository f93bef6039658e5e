"""E8 — the bifold door as a chain: joint torques split into H q̈, C and G (book chapter 11).

Two identical leaves (the door of chapter 8: 2 kg, 0.8 m x 1.2 m) on parallel hinges: leaf 1
turns by q1 about the wall hinge O1 (the base origin), leaf 2 by q2 relative to leaf 1 about the
hinge O2 on leaf 1's free edge.  The hinge line (base z) is tilted by ``tilt`` from the vertical,
turned about base x (the leaves' line at q = 0), so gravity in base coordinates is
g_b = R_x(tilt)^T (0, 0, -9.81): its part across the hinges, 9.81 sin(tilt) along -y,
pulls the leaves toward -y.  The joint torques that produce (q, q̇, q̈) are

    tau = H(q) q̈ + C_v(q, q̇) + G(q)

with the mass matrix H from ``sb.mass_matrix`` (CRBA) and the three parts from
``sb.inverse_dynamics`` (RNEA): C_v = RNEA(q, q̇, 0) without gravity (Coriolis and centripetal),
G = RNEA(q, 0, 0) with gravity.  At zero tilt G = 0 for every q: gravity is parallel to the
hinges and has no moment about them; it loads only the bearings.

The top view (looking down the hinge line) shows the force f_i that the hinges must apply to
each leaf (gravity excluded, as with the base accelerating at -g), drawn at the leaf's COM: the
lower half of leaf i's Newton-Euler wrench F_i = I_i A_i + V_i x* (I_i V_i), computed with
``sb.required_wrench`` at the base origin in base axes; and arcs of the joint torques.  The
readouts give H, its symmetry and eigenvalues (positive: H is positive definite), and the
power balance tau^T q̇ = dT/dt + dU/dt with T = 1/2 q̇^T H q̇ and U the potential energy of
the two COMs (U, as in chapter 11: V is the twist), both differentiated along the motion by central differences.
"""

from __future__ import annotations

import numpy as np

import spatialbook as sb

from .style import COLORS
from .controls import Slider
from .parts import Bars, ForceArrow, Series, TopView, TorqueArc
from .experiment import Experiment

LEAF = sb.DOOR
MASS = float(LEAF["mass"])
WIDTH = float(LEAF["width"])
COM = np.asarray(LEAF["com"], float)                 # hinge -> COM, leaf axes (m)
I_C = np.asarray(LEAF["inertia_com"], float)         # about the COM, leaf axes (kg m^2)
G0 = 9.81                                            # m/s^2
HINGE_AXIS = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])   # revolute about body z, through the origin

#: The bifold door: leaf 1 on the wall hinge at the base origin, leaf 2 on leaf 1's free edge.
BIFOLD = sb.Tree(
    parents=[-1, 0],
    placements=[sb.motion_transform(np.eye(3), [0.0, 0.0, 0.0]),      # wall hinge O1
                sb.motion_transform(np.eye(3), [WIDTH, 0.0, 0.0])],   # O2, in leaf 1's axes
    axes=[HINGE_AXIS, HINGE_AXIS],
    inertias=[sb.spatial_inertia(MASS, COM, I_C)] * 2,                # about each leaf's hinge
)

ARROW_F = 0.04            # drawn m per N
ARC_TAU = 4.0             # N m drawn as 315 degrees of arc
H_STEP = 1e-6             # s, central differences of T and V along the motion

CONTROLS = (
    Slider("q2", "fold q₂ (deg)", -170.0, 170.0, 5.0, -90.0, ".0f"),
    Slider("q1", "leaf 1 q₁ (deg)", -180.0, 180.0, 5.0, 45.0, ".0f"),
    Slider("tilt", "hinge tilt from vertical (deg)", -30.0, 30.0, 1.0, 10.0, ".0f"),
    Slider("qd1", "q̇₁ (rad/s)", -3.0, 3.0, 0.1, 2.0, ".1f"),
    Slider("qd2", "q̇₂ (rad/s)", -3.0, 3.0, 0.1, -1.0, ".1f",
           hint="q̇₂ enters the velocity torques only through q̇₂(2q̇₁ + q̇₂): two rates mirrored about "
                "−q̇₁ draw the same bars, and only the power readouts tell them apart"),
    Slider("qdd1", "q̈₁ (rad/s²)", -5.0, 5.0, 0.25, 3.0),
    Slider("qdd2", "q̈₂ (rad/s²)", -5.0, 5.0, 0.25, 0.5),
)


def gravity_in_base(tilt_deg: float) -> np.ndarray:
    """Gravity in base coordinates (m/s^2) when the hinge line is turned by ``tilt_deg`` about
    base x: g_b = R^T g_world with R = R_x(tilt) (base -> world)."""
    return sb.rotation_x(np.deg2rad(tilt_deg)).T @ np.array([0.0, 0.0, -G0])


def leaf_points(q) -> dict:
    """Hinges, COMs and free end of the two leaves in base coordinates (m), for joint angles q
    (rad, shape (2,)); geometry only."""
    R1, R2 = sb.rotation_z(q[0]), sb.rotation_z(q[0] + q[1])
    x_O2 = R1 @ [WIDTH, 0.0, 0.0]
    return {"O1": np.zeros(3), "O2": x_O2, "end": x_O2 + R2 @ [WIDTH, 0.0, 0.0],
            "C1": R1 @ COM, "C2": x_O2 + R2 @ COM, "R1": R1, "R2": R2}


def potential_energy(q, gravity) -> float:
    """U(q) = -sum m g_b . x_C of the two leaves (J), zero with both COMs at the base origin's level."""
    p = leaf_points(q)
    return float(-MASS * np.dot(gravity, p["C1"] + p["C2"]))


def leaf_wrenches(q, qd, qdd, gravity) -> tuple[np.ndarray, np.ndarray]:
    """Each leaf's Newton–Euler wrench F_i = I_i A_i + V_i x* (I_i V_i) (base acceleration -g),
    at the base origin in base axes: what the hinges must apply to leaf i besides gravity."""
    p = leaf_points(q)
    e_z = np.array([0.0, 0.0, 1.0])
    S1 = sb.revolute_axis(e_z, p["O1"], np.zeros(3))
    S2 = sb.revolute_axis(e_z, p["O2"], np.zeros(3))
    V1 = S1 * qd[0]
    V2 = V1 + S2 * qd[1]
    A1 = np.r_[0.0, 0.0, 0.0, -gravity] + S1 * qdd[0]
    A2 = A1 + sb.motion_cross(V1) @ S2 * qd[1] + S2 * qdd[1]    # S2 is carried by leaf 1
    # both leaves in one batched call each (one check of the arguments, not two: a change of
    # a control under Pyodide computes this on every frame)
    R = np.stack([p["R1"], p["R2"]])
    inertias = sb.spatial_inertia(MASS, np.stack([p["C1"], p["C2"]]), R @ I_C @ R.transpose(0, 2, 1))
    F = sb.required_wrench(inertias, np.stack([V1, V2]), np.stack([A1, A2]))
    return F[0], F[1]


def scene(q2=-90.0, q1=45.0, tilt=10.0, qd1=2.0, qd2=-1.0, qdd1=3.0, qdd2=0.5) -> dict:
    """Torques, their three parts, H and the power balance, all from spatialbook."""
    q = np.deg2rad([q1, q2])
    qd, qdd = np.array([qd1, qd2]), np.array([qdd1, qdd2])
    g = gravity_in_base(tilt)
    zero, no_gravity = np.zeros(2), np.zeros(3)
    # one batched RNEA call: tau = RNEA(q, qd, qdd; g), C_v = RNEA(q, qd, 0; 0), G = RNEA(q, 0, 0; g)
    tau, velocity, gravity = sb.inverse_dynamics(
        BIFOLD, q, [qd, qd, zero], [qdd, zero, zero], gravity=[g, no_gravity, g])
    # power balance: tau^T qd = dT/dt + dU/dt along q(t) = q + qd t + qdd t^2/2, T = qd^T H qd / 2
    h = H_STEP
    q_p, q_m = q + qd * h + 0.5 * qdd * h**2, q - qd * h + 0.5 * qdd * h**2
    qd_p, qd_m = qd + qdd * h, qd - qdd * h
    H, H_p, H_m = sb.mass_matrix(BIFOLD, [q, q_p, q_m])          # one batched CRBA call
    inertial = H @ qdd
    dT = (0.5 * qd_p @ H_p @ qd_p - 0.5 * qd_m @ H_m @ qd_m) / (2 * h)
    dU = (potential_energy(q_p, g) - potential_energy(q_m, g)) / (2 * h)
    power = float(tau @ qd)

    F1, F2 = leaf_wrenches(q, qd, qdd, g)
    p = leaf_points(q)
    eig = np.linalg.eigvalsh(H)
    numbers = {
        "tau": tau, "inertial": inertial, "velocity": velocity, "gravity": gravity,
        "H": H, "asymmetry": float(np.max(np.abs(H - H.T))), "H_eigenvalues": eig,
        "positive_definite": float(eig.min() > 0.0),
        "power": power, "dT_dt": dT, "dU_dt": dU, "energy_rate": dT + dU,
        "power_residual": power - (dT + dU),
        "velocity_power": float(qd @ velocity),
        "half_qd_Hdot_qd": dT - float(qd @ inertial),      # dT/dt = q̇ᵀH q̈ + ½ q̇ᵀḢ q̇
        "g_base": g, "f_leaf1": F1[3:], "f_leaf2": F2[3:],
        "F_leaf1": F1, "F_leaf2": F2,
    }
    return {"points": p, "numbers": numbers}


class BifoldDoor(Experiment):
    """E8: the bifold door's joint torques, tau = H q̈ + C_v + G, with H's properties and the power balance."""

    name = "bifold_door"
    title = "E8 the bifold door as a chain"
    alt = ("Left: the two leaves of a bifold door seen along the hinge line, with the force the "
           "hinges apply to each leaf at its centre of mass, arcs for the two joint torques and "
           "gravity's component across the hinges. Right: for each joint, bars of the inertial "
           "part H times q double dot, the velocity part C_v and the gravity part G, with the total "
           "torque marked.")
    CONTROLS = CONTROLS
    READOUTS = (
        ("τ = H q̈ + C_v + G", "tau", "N m"),
        ("H q̈ (inertial)", "inertial", "N m"),
        ("C_v (velocity)", "velocity", "N m"),
        ("G (gravity)", "gravity", "N m"),
        ("H (row by row)", "H", "kg m²"),
        ("max |H − Hᵀ|", "asymmetry", "kg m²"),
        ("eigenvalues of H", "H_eigenvalues", "kg m²"),
        ("power τᵀq̇", "power", "W"),
        ("dT/dt + dU/dt", "energy_rate", "W"),
        ("q̇ᵀC_v (= ½ q̇ᵀḢq̇)", "velocity_power", "W"),
    )
    # the leaves sweep the whole disc about the hinge: the legend stands beside the view
    TOP_VIEW = TopView((0.07, 0.12, 0.33, 0.78), (-1.75, 1.75), (-1.75, 1.75),
                       "bifold door along the hinge line:\nforce on each leaf "
                       "(1 N ↦ 0.04 m),\njoint torque arcs", door_zorder=2,
                       # at a corner of the wall hinge, clear of its torque arc: the first one
                       # no leaf, arrow or arc covers and the middle hinge O2 is not nearer
                       hinge_rivals=("points/O2",),
                       hinge_spots=((-0.2, -0.2, "right", "top"), (0.2, -0.2, "left", "top"),
                                    (-0.2, 0.2, "right", "bottom"), (0.2, 0.2, "left", "bottom"),
                                    (-0.6, -0.6, "right", "top"), (0.6, -0.6, "left", "top")),
                       legend="lower left", legend_fontsize=6.5, legend_anchor=(1.02, 0.0))
    TOP_PARTS = (ForceArrow("f_leaf1", "points/C1", ARROW_F, "f on leaf 1", zorder=7),
                 ForceArrow("f_leaf2", "points/C2", ARROW_F, "f on leaf 2", COLORS["purple"], zorder=7),
                 ForceArrow("g_base", (-1.45, 1.45), 0.1, "g across the hinges", COLORS["green"],
                            0.006, 7),
                 TorqueArc("tau[0]", "points/O1", ARC_TAU, 0.13, -90.0, "τ arcs\n", COLORS["blue"]),
                 TorqueArc("tau[1]", "points/O2", ARC_TAU, 0.13, -90.0, "", COLORS["blue"]))
    BARS = (Bars("τ = H q̈ + C_v + G", "joint torque (N m)", "N m",
                 ("joint 1\n(wall hinge)", "joint 2\n(middle hinge)"),
                 (Series("H q̈ (inertial)", "inertial", COLORS["green"]),
                  Series("C_v (velocity)", "velocity", COLORS["purple"]),
                  Series("G (gravity)", "gravity", COLORS["orange"])),
                 rect=(0.7, 0.12, 0.28, 0.78), samples=5, total="tau", total_label="τ (sum)",
                 total_size=48.0, width=0.75,
                 # beside the bars, over the view's legend: the bars and the τ marks reach
                 # the top of the panel (q̇₂ = 3); on a phone, under the bar names
                 legend="upper left", legend_anchor=(0.43, 0.985)),)
    main_control = "q2"
    scene = staticmethod(scene)

    def _setup(self, fig):
        from matplotlib.lines import Line2D
        ax = self.top
        self.leaf1 = self._moving(self.door)
        self.leaf2 = self._moving(ax.plot([], [], "-", color=COLORS["sky"], lw=5.0, alpha=0.9,
                                          solid_capstyle="butt", zorder=2)[0])
        self.hinge2 = self._moving(ax.plot([], [], "o", color="black", ms=5, zorder=5)[0])
        self.coms = self._moving(ax.plot([], [], "o", color=COLORS["orange"], ms=6, zorder=4)[0])
        self.top_legend += [Line2D([], [], color=COLORS["door"], lw=4, label="leaf 1"),
                            Line2D([], [], color=COLORS["sky"], lw=4, label="leaf 2")]

    def _draw(self, s):
        p = s["points"]
        self.leaf1.set_data([p["O1"][0], p["O2"][0]], [p["O1"][1], p["O2"][1]])
        self.leaf2.set_data([p["O2"][0], p["end"][0]], [p["O2"][1], p["end"][1]])
        self.hinge2.set_data([p["O2"][0]], [p["O2"][1]])
        self.coms.set_data([p["C1"][0], p["C2"][0]], [p["C1"][1], p["C2"][1]])
        return False
