"""Throughput of spatialbook's tree dynamics (a script that prints figures, not a test).

    python benchmarks/bench_tree.py [--n 100000] [--calls 20000] [--repeats 7] [--strict]

Two trees: the bifold door (two leaves like ``sb.DOOR``, vertical hinges, the second leaf hinged
at the first leaf's free edge) and a 6-body chain of revolute joints with skewed axes.  For N
random states each, inverse dynamics (tau) and the mass matrix (H) are computed

(a) by ``sb.inverse_dynamics`` / ``sb.mass_matrix``, one batched call on all N states;
(b) by a Python loop of per-call ``pin.rnea`` / ``pin.crba`` (Pinocchio);
(c) by a Python loop of per-call ``mujoco.mj_inverse`` (after writing qpos, qvel, qacc) and, for
    H, ``mj_kinematics``, ``mj_comPos``, ``mj_crb`` and ``mj_fullM`` (the least MuJoCo needs).

Every figure is the best of ``--repeats`` rounds, in which the six runs take turns (on a shared
machine other work only adds time, and it then falls on all six alike).
The loops are timed on fewer calls (``--calls``) and scaled: their cost per call is constant.
The states are split into rows beforehand, so a loop pays only for the calls themselves.  The
first rows of every engine are compared with sb's, so the figures are for the same numbers.
Target: sb batched >= 5x the faster per-call loop.  With --strict, exit status 1 on a miss.

A third tree, humanoid-shaped (``humanoid_urdf``: a floating pelvis, two 6-joint legs, a 2-joint
waist, two 7-joint arms with 4-joint hands, a 2-joint neck: 38 joints + 6 = 44 degrees of
freedom, generated as URDF text and read by ``sb.Tree.from_urdf`` and by Pinocchio's own
parser), is timed on ``--humanoid-n`` states (default 10^4) for tau, H and qdd (sb batched
against Pinocchio's per-call rnea / crba / aba), one state per call (sb against pin.rnea),
and for the peak memory of the batched calls (tracemalloc).  Targets (issue 34): each batched
call takes at most the time of the Pinocchio loop on the same states (sb / pin <= 1); one
state per call at most 50x pin.rnea.  Both wall-clock and CPU-time ratios are printed (best of
the rounds each); the verdict is on wall time, and the load average is printed beside them,
because on a shared machine wall time also counts other work.

Measured (2 shared cores, 10^4 states; sb / Pinocchio, wall then CPU), 5 December 2026, five
runs at load average 6.7, 8.4, 9.2, 10.6 and 11.4: H 0.88 / 0.92, 0.93 / 0.95, 1.18 / 1.04,
0.94 / 0.99, 1.07 / 1.03 (met in three; CPU 0.92-1.04, rising with the load); tau 0.39-0.73 /
0.60-0.67; qdd (ABA) 0.84-1.16 / 0.87-0.99 (wall missed twice); qdd by CRBA + solve
2.3-3.3 / 2.3-2.4; one state per call 30-40x / 34-39x pin.rnea; peak memory tau 54 MB,
H 176 MB (H itself 155 MB), qdd 112 MB.  CPU ratios are the steadier (wall time also counts
other sessions' work).  H is found in base coordinates for a tree this deep
(``spatialbook/_tree_base.py``); the version that carried each wrench I^c S toward the root
joint by joint measured 1.35 and 1.41 by CPU in runs alternating with these (1.37-1.49
before).  Where H's CPU time goes now (per state, load ~8.5, 8.3 us in all): the result's
155 MB of fresh pages and writing its entries 3.0 us (the rows S_j . F_i among them), cos/sin
0.85 us, poses 1.3 us, pseudo-inertias in base coordinates 1.45 us, composite sums 0.4 us,
S_i and F_i = I^c_i S_i 1.3 us.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import spatialbook as sb  # noqa: E402

import mujoco  # noqa: E402
import pinocchio as pin  # noqa: E402

TARGET = 5.0


# --- the two trees, as plain numbers (the same numbers build all three models) -------------


def bifold_door():
    """Two DOOR leaves: hinge 1 on the wall at the origin, hinge 2 at leaf 1's free edge."""
    leaf = dict(mass=sb.DOOR["mass"], com=sb.DOOR["com"], inertia_com=sb.DOOR["inertia_com"],
                kind="hinge", axis=np.array([0.0, 0.0, 1.0]), R=np.eye(3))
    return [dict(leaf, parent=-1, pos=np.zeros(3)),
            dict(leaf, parent=0, pos=np.array([sb.DOOR["width"], 0.0, 0.0]))]


def chain6(seed=6):
    rng = np.random.default_rng(seed)
    bodies = []
    for i in range(6):
        axis = rng.normal(size=3)
        moments = np.sort(rng.uniform(0.05, 0.5, size=3))
        moments[2] = min(moments[2], 0.9 * (moments[0] + moments[1]))
        bodies.append(dict(parent=i - 1, pos=rng.uniform(-0.4, 0.4, size=3),
                           R=sb.rotation_from_quaternion(rng.normal(size=4)),
                           kind="hinge", axis=axis / np.linalg.norm(axis),
                           mass=float(rng.uniform(0.5, 3.0)), com=rng.uniform(-0.2, 0.2, size=3),
                           inertia_com=np.diag(moments)))
    return bodies


def sb_tree(bodies):
    zero = np.zeros(3)
    return sb.Tree([b["parent"] for b in bodies],
                   [sb.motion_transform(b["R"], b["pos"]) for b in bodies],
                   [np.concatenate((b["axis"], zero) if b["kind"] == "hinge" else (zero, b["axis"])) for b in bodies],
                   [sb.spatial_inertia(b["mass"], b["com"], b["inertia_com"]) for b in bodies])


def pin_model(bodies, gravity):
    """Bodies are a chain in depth-first order here, so Pinocchio's indices are ours."""
    model = pin.Model()
    for i, b in enumerate(bodies):
        joint = (pin.JointModelRevoluteUnaligned if b["kind"] == "hinge" else pin.JointModelPrismaticUnaligned)(b["axis"])
        jid = model.addJoint(b["parent"] + 1, joint, pin.SE3(b["R"], b["pos"]), f"j{i}")
        model.appendBodyToJoint(jid, pin.Inertia(b["mass"], b["com"], b["inertia_com"]), pin.SE3.Identity())
    model.gravity = pin.Motion(np.asarray(gravity, float), np.zeros(3))
    return model


def _num(x) -> str:
    return " ".join(repr(float(v)) for v in np.atleast_1d(x))


def mj_model(bodies, gravity):
    def body_xml(i):
        b = bodies[i]
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, np.ascontiguousarray(b["R"]).ravel())
        I = b["inertia_com"]
        full = [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]
        inner = "".join(body_xml(j) for j, c in enumerate(bodies) if c["parent"] == i)
        return (f'<body pos="{_num(b["pos"])}" quat="{_num(quat)}">'
                f'<joint type="{b["kind"]}" axis="{_num(b["axis"])}"/>'
                f'<inertial pos="{_num(b["com"])}" mass="{b["mass"]!r}" fullinertia="{_num(full)}"/>{inner}</body>')

    roots = "".join(body_xml(i) for i, b in enumerate(bodies) if b["parent"] == -1)
    xml = (f'<mujoco><option gravity="{_num(gravity)}"><flag contact="disable" constraint="disable"/>'
           f'</option><worldbody>{roots}</worldbody></mujoco>')
    return mujoco.MjModel.from_xml_string(xml)


# --- a humanoid-shaped tree (URDF text, floating base) ---------------------------------------


def humanoid_urdf(seed=44) -> str:
    """A 44-dof humanoid-shaped robot: floating pelvis + 38 revolute joints with random axes
    near the usual ones, random offsets, masses and rotated inertial frames."""
    rng = np.random.default_rng(seed)
    links, joints = [], []

    def link(name, mass):
        moments = [float(m) for m in np.sort(rng.uniform(0.2, 1.0, size=3)) * mass * 0.01]
        moments[2] = min(moments[2], 0.9 * (moments[0] + moments[1]))
        links.append(f'<link name="{name}"><inertial><origin xyz="{_num(rng.uniform(-0.05, 0.05, 3))}" '
                     f'rpy="{_num(rng.uniform(-1, 1, 3))}"/><mass value="{mass!r}"/><inertia ixx="{moments[0]!r}" '
                     f'iyy="{moments[1]!r}" izz="{moments[2]!r}" ixy="0" ixz="0" iyz="0"/></inertial></link>')

    def chain(prefix, parent, count, offset, mass):
        for k in range(count):
            name = f"{prefix}{k}"
            link(name, mass * (0.8 ** k))
            axis = np.eye(3)[k % 3] + rng.normal(scale=0.05, size=3)
            joints.append(f'<joint name="{name}_joint" type="revolute"><parent link="{parent}"/><child link="{name}"/>'
                          f'<origin xyz="{_num(np.asarray(offset) * (1 if k else 0.5) + rng.normal(scale=0.01, size=3))}" '
                          f'rpy="{_num(rng.normal(scale=0.1, size=3))}"/><axis xyz="{_num(axis / np.linalg.norm(axis))}"/>'
                          f'<limit lower="-2" upper="2" effort="100" velocity="5"/></joint>')
            parent = name
        return parent

    link("pelvis", 8.0)
    chain("left_leg", "pelvis", 6, [0, 0.1, -0.1], 4.0)
    chain("right_leg", "pelvis", 6, [0, -0.1, -0.1], 4.0)
    torso = chain("waist", "pelvis", 2, [0, 0, 0.15], 10.0)
    for side, y in (("left", 0.2), ("right", -0.2)):
        wrist = chain(f"{side}_arm", torso, 7, [0, y, 0.05], 2.0)
        chain(f"{side}_hand", wrist, 4, [0.03, 0, -0.03], 0.2)
    chain("neck", torso, 2, [0, 0, 0.2], 1.0)
    return f'<robot name="humanoid">{"".join(links)}{"".join(joints)}</robot>'


def peak_mb(fn) -> float:
    """Peak memory allocated during fn() (tracemalloc, which numpy reports to), MB."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def bench_humanoid(n, calls, single_calls, repeats, rng):
    gravity = np.array([0.0, 0.0, -9.81])
    xml = humanoid_urdf()
    tree = sb.Tree.from_urdf(xml, floating_base=True)
    pm = pin.buildModelFromXML(xml, pin.JointModelFreeFlyer())
    pm.gravity = pin.Motion(gravity, np.zeros(3))
    pd = pm.createData()
    assert list(tree.joint_names) == list(pm.names)[1:] and tree.nv == pm.nv == 44
    q = rng.uniform(-1, 1, size=(n, tree.nq))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
    qd, qdd, tau = (rng.uniform(-1, 1, size=(n, tree.nv)) for _ in range(3))
    qp, vp = tree.pinocchio_state(q, qd)
    _, ap = tree.pinocchio_state(q, qdd)
    _, taup = tree.pinocchio_state(q, tau)
    rows = [[np.ascontiguousarray(x[k]) for k in range(calls)] for x in (qp, vp, ap, taup)]
    qr, vr, ar, tr = rows
    ours = [[np.ascontiguousarray(x[k]) for k in range(single_calls)] for x in (q, qd, qdd)]

    def sb_single():
        for k in range(single_calls):
            sb.inverse_dynamics(tree, ours[0][k], ours[1][k], ours[2][k], gravity)

    cpu = {}
    best = best_seconds({
        "sb tau": lambda: sb.inverse_dynamics(tree, q, qd, qdd, gravity),
        "sb H": lambda: sb.mass_matrix(tree, q),
        "sb qdd": lambda: sb.forward_dynamics(tree, q, qd, tau, gravity),
        "sb qdd crba": lambda: sb.forward_dynamics(tree, q, qd, tau, gravity, method="crba"),
        "pin tau": loop(lambda k: pin.rnea(pm, pd, qr[k], vr[k], ar[k]), calls),
        "pin H": loop(lambda k: pin.crba(pm, pd, qr[k]), calls),
        "pin qdd": loop(lambda k: pin.aba(pm, pd, qr[k], vr[k], tr[k]), calls),
        "sb single tau": sb_single,
    }, repeats, cpu)
    count = lambda k: single_calls if k == "sb single tau" else n if k.startswith("sb") else calls  # noqa: E731
    per = {k: v / count(k) for k, v in best.items()}
    per_cpu = {k: v / count(k) for k, v in cpu.items()}

    # the same numbers (first rows), converted to Pinocchio's order
    P = np.eye(44)
    P[:6, :6] = np.eye(6)[np.r_[3:6, 0:3]]
    tau_sb, H_sb = sb.inverse_dynamics(tree, q[:3], qd[:3], qdd[:3], gravity), sb.mass_matrix(tree, q[:3])
    qdd_sb = sb.forward_dynamics(tree, q[:3], qd[:3], tau[:3], gravity)
    for k in range(3):
        H_pin = pin.crba(pm, pd, qr[k])
        for a, b in ((P @ tau_sb[k], pin.rnea(pm, pd, qr[k], vr[k], ar[k])), (P @ H_sb[k] @ P, np.triu(H_pin) + np.triu(H_pin, 1).T),
                     (P @ qdd_sb[k], pin.aba(pm, pd, qr[k], vr[k], tr[k]))):
            assert np.allclose(a, b, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(b).max())), ("humanoid", a, b)

    mem = {"tau": peak_mb(lambda: sb.inverse_dynamics(tree, q, qd, qdd, gravity)),
           "H": peak_mb(lambda: sb.mass_matrix(tree, q)),
           "qdd": peak_mb(lambda: sb.forward_dynamics(tree, q, qd, tau, gravity))}
    inputs_mb = (q.nbytes + qd.nbytes + qdd.nbytes) / 1e6
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"\nhumanoid  (44 dof: floating pelvis + 38 revolute joints; N = {n:,} states; Pinocchio loops on {calls:,} calls; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})")
    print(f"  {'':<30}{'us/state':>10}{'Pinocchio us':>14}{'sb/pin wall':>13}{'sb/pin CPU':>12}{'target':>9}  verdict")
    ok = []
    for label, key, pkey, target in (("tau, batched", "sb tau", "pin tau", 1.0), ("H, batched", "sb H", "pin H", 1.0),
                                     ("qdd, batched (ABA)", "sb qdd", "pin qdd", 1.0),
                                     ("qdd, batched (CRBA + solve)", "sb qdd crba", "pin qdd", None),
                                     ("tau, one state per call", "sb single tau", "pin tau", 50.0)):
        ratio, ratio_cpu = per[key] / per[pkey], per_cpu[key] / per_cpu[pkey]
        met = None if target is None else ratio <= target
        if met is not None:
            ok.append(met)
        verdict = "" if met is None else ("met" if met else "MISSED") + ("" if (ratio_cpu <= target) == met else
                                                                          f" (CPU: {'met' if ratio_cpu <= target else 'missed'})")
        print(f"  {label:<30}{per[key] * 1e6:10.2f}{per[pkey] * 1e6:14.2f}{ratio:13.2f}{ratio_cpu:12.2f}"
              f"{'' if target is None else '<= %g' % target:>9}  {verdict}")
    print(f"  peak memory of the batched calls at N = {n:,} (inputs {inputs_mb:.1f} MB; H itself "
          f"{n * 44 * 44 * 8 / 1e6:.0f} MB): tau {mem['tau']:.0f} MB, H {mem['H']:.0f} MB, qdd {mem['qdd']:.0f} MB")
    return ok


# --- timing --------------------------------------------------------------------------------


def best_seconds(runs: dict, repeats: int, cpu: dict | None = None) -> dict:
    """The fastest of ``repeats`` rounds for each named run (wall clock); the runs take turns
    within a round, so that a shared machine's changing load falls on all of them alike, and the
    best of the rounds drops what other work added.  If ``cpu`` is a dict, the fastest CPU time
    of this process for each run goes there too."""
    best = {}
    for name, fn in runs.items():
        fn()                               # warm up
    for _ in range(repeats):
        for name, fn in runs.items():
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            best[name] = min(best.get(name, np.inf), time.perf_counter() - t0)
            if cpu is not None:
                cpu[name] = min(cpu.get(name, np.inf), time.process_time() - c0)
    return best


def loop(fn, calls: int):
    """A Python loop of ``fn(k)`` over k in range(calls)."""
    def run():
        for k in range(calls):
            fn(k)
    return run


def bench(name, bodies, n, calls, repeats, rng):
    gravity = np.array([0.0, 0.0, -9.81])
    tree = sb_tree(bodies)
    dof = len(bodies)
    q, qd, qdd = (rng.uniform(-np.pi, np.pi, size=(n, dof)) for _ in range(3))
    rows = [[np.ascontiguousarray(x[k]) for k in range(calls)] for x in (q, qd, qdd)]
    qr, qdr, qddr = rows

    pm = pin_model(bodies, gravity)
    pd = pm.createData()
    mm = mj_model(bodies, gravity)
    md = mujoco.MjData(mm)
    H_mj = np.zeros((dof, dof))

    def mj_tau(k):
        md.qpos[:] = qr[k]
        md.qvel[:] = qdr[k]
        md.qacc[:] = qddr[k]
        mujoco.mj_inverse(mm, md)

    def mj_H(k):
        md.qpos[:] = qr[k]
        mujoco.mj_kinematics(mm, md)
        mujoco.mj_comPos(mm, md)
        mujoco.mj_crb(mm, md)
        mujoco.mj_fullM(mm, md, H_mj)

    best = best_seconds({
        "sb tau": lambda: sb.inverse_dynamics(tree, q, qd, qdd, gravity),       # (a) batched
        "sb H": lambda: sb.mass_matrix(tree, q),
        "pin tau": loop(lambda k: pin.rnea(pm, pd, qr[k], qdr[k], qddr[k]), calls),   # (b)
        "pin H": loop(lambda k: pin.crba(pm, pd, qr[k]), calls),
        "mj tau": loop(mj_tau, calls),                                           # (c)
        "mj H": loop(mj_H, calls),
    }, repeats)
    t_sb_tau, t_sb_H = best["sb tau"] / n, best["sb H"] / n
    t_pin_tau, t_pin_H = best["pin tau"] / calls, best["pin H"] / calls
    t_mj_tau, t_mj_H = best["mj tau"] / calls, best["mj H"] / calls

    # the same numbers from every engine (first rows)
    tau_sb, H_sb = sb.inverse_dynamics(tree, q[:3], qd[:3], qdd[:3], gravity), sb.mass_matrix(tree, q[:3])
    for k in range(3):
        mj_tau(k)
        mj_H(k)
        H_pin = pin.crba(pm, pd, qr[k])
        checks = [(tau_sb[k], pin.rnea(pm, pd, qr[k], qdr[k], qddr[k])), (tau_sb[k], md.qfrc_inverse),
                  (H_sb[k], np.triu(H_pin) + np.triu(H_pin, 1).T), (H_sb[k], H_mj)]
        for ours, theirs in checks:
            assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-9), (name, ours, theirs)

    print(f"\n{name}  (n = {dof} bodies, N = {n:,} random states; loops timed on {calls:,} calls)")
    print(f"  {'':<28}{'inverse dynamics':>22}{'mass matrix':>22}")
    print(f"  {'implementation':<28}{'k states/s':>11}{'us/state':>11}{'k states/s':>11}{'us/state':>11}")
    for label, a, b in (("sb, batched", t_sb_tau, t_sb_H), ("Pinocchio, per-call loop", t_pin_tau, t_pin_H),
                        ("MuJoCo, per-call loop", t_mj_tau, t_mj_H)):
        print(f"  {label:<28}{1e-3 / a:11.0f}{a * 1e6:11.2f}{1e-3 / b:11.0f}{b * 1e6:11.2f}")
    s_tau = min(t_pin_tau, t_mj_tau) / t_sb_tau
    s_H = min(t_pin_H, t_mj_H) / t_sb_H
    print(f"  {'speed-up over faster loop':<28}{s_tau:21.1f}x{s_H:21.1f}x   (target >= {TARGET:g}x)")
    return [s_tau >= TARGET, s_H >= TARGET]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--humanoid-n", type=int, default=10_000)
    parser.add_argument("--single-calls", type=int, default=200)
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args(argv)
    print(f"spatialbook tree dynamics  (numpy {np.__version__}, pinocchio {pin.__version__}, "
          f"mujoco {mujoco.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs)")
    rng = np.random.default_rng(0)
    calls = min(args.calls, args.n)
    ok = bench("bifold door", bifold_door(), args.n, calls, args.repeats, rng)
    ok += bench("6-body chain", chain6(), args.n, calls, args.repeats, rng)
    print(f"\ntarget (batched >= {TARGET:g}x the faster per-call loop): {'met' if all(ok) else 'MISSED'} "
          f"in {sum(ok)} of {len(ok)} cases")
    ok_h = bench_humanoid(args.humanoid_n, min(calls, args.humanoid_n), args.single_calls, args.repeats, rng)
    print(f"humanoid targets (tau, H, qdd batched <= 1x the Pinocchio loop; one state per call <= 50x pin.rnea): "
          f"met in {sum(ok_h)} of {len(ok_h)} cases")
    ok += ok_h
    return 0 if (all(ok) or not args.strict) else 1


if __name__ == "__main__":
    sys.exit(main())
