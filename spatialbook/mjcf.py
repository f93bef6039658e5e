"""Trees from robot descriptions: MuJoCo models here, URDF in ``urdf.py``; state conversions in
``states.py`` (book chapters 11 and 12).

``Tree.from_mujoco(model)`` calls ``read_mujoco`` here and ``Tree.from_urdf(path_or_xml)``
calls ``urdf.read_urdf``; each is handed the Tree class to build with, so that the loaders
depend on nothing that depends on them (the tree module imports them, never the other way).

What a loader does (the hand conversion it replaces):

- Bodies welded to their parent (MuJoCo bodies without joints, URDF ``fixed`` joints) are
  merged into it: their inertia is moved into the parent's frame and added, and their children
  are placed relative to the parent.  Bodies welded to the fixed base are dropped (they never move).
- Several joints in one MuJoCo body become a chain of bodies, one joint each, all massless but
  the last, which carries the body.  MuJoCo applies them in order, each about its own anchor
  ``jnt_pos`` in the body's axes as moved by the previous ones; each Tree body's origin is its
  hinge's anchor, so that its axis passes through its origin.
- Inertias: MuJoCo's principal moments ``body_inertia`` in the inertial frame
  (``body_ipos``, ``body_iquat``), URDF's ``<inertial>`` (origin xyz rpy, ixx..izz), are turned
  into the spatial inertia about the Tree body's origin in its axes.
- Joint axes are normalised (as Pinocchio and MuJoCo do); a zero axis is refused.
- q = 0 is MuJoCo's reference configuration ``qpos0`` (hinge and slide ``ref``): the Tree keeps
  it in ``offsets`` and ``mujoco_state`` adds it back.

Joint order: MuJoCo's (``from_mujoco``, so q, qd follow qpos, qvel joint by joint) and Pinocchio's
(``from_urdf``: depth first from the root link, the children of a link in the order of their
joints' names, as Pinocchio's URDF parser numbers them).

Not modelled: MuJoCo's armature, joint damping, springs, friction loss, gravity compensation,
contacts, limits and other constraints, tendons and actuators (a Tree is the rigid-body model:
what ``mj_inverse`` computes with those switched off); URDF joint ``<dynamics>`` damping and
friction (left out, as Pinocchio's rnea, crba and aba leave them out: add such forces to tau),
``mimic`` and ``planar`` joints (refused).  Inertias are checked (physical: positive
semi-definite, triangle inequality) once merged into their Tree body, so a dummy link welded to
the trunk may carry a token inertia; an error names the source links of the body.
"""

from __future__ import annotations

import numpy as np

from ._loading import _ZERO6, _Builder, _axis6, _motion_transform, _rotation, _unit_axis


def read_mujoco(model, make):
    """The Tree (made by ``make``, the Tree class) of a ``mujoco.MjModel``: ``Tree.from_mujoco``."""
    try:
        nbody, parent_of = int(model.nbody), np.asarray(model.body_parentid)
        jnt_type, jnt_pos, jnt_axis = np.asarray(model.jnt_type), np.asarray(model.jnt_pos), np.asarray(model.jnt_axis)
        qpos0, jnt_qposadr = np.asarray(model.qpos0), np.asarray(model.jnt_qposadr)
        body_jntadr, body_jntnum = np.asarray(model.body_jntadr), np.asarray(model.body_jntnum)
        body_pos, body_quat = np.asarray(model.body_pos), np.asarray(model.body_quat)
        body_ipos, body_iquat = np.asarray(model.body_ipos), np.asarray(model.body_iquat)
        body_mass, body_inertia = np.asarray(model.body_mass), np.asarray(model.body_inertia)
        njnt, jnt_bodyid = int(model.njnt), np.asarray(model.jnt_bodyid)
        mocap = np.asarray(model.body_mocapid)
    except AttributeError:
        raise ValueError(f"model: expected a mujoco.MjModel, got {type(model).__name__}") from None
    import mujoco

    def body_name(b):
        text = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b)
        return text if text else f"body{b}"

    names = _joint_names([mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(njnt)],
                         [body_name(int(b)) for b in jnt_bodyid])

    def name(j):
        return names[j]

    _refuse_moving_mocap(parent_of, body_jntnum, mocap, body_name)
    out = _Builder()
    frame = {0: (-1, np.eye(3), np.zeros(3))}             # MuJoCo body -> (Tree body, R, d)
    for b in range(1, nbody):
        tp, Rp, dp = frame[int(parent_of[b])]
        Rb = _rotation(body_quat[b])
        R0, d0 = Rp @ Rb, dp + Rp @ body_pos[b]           # b's frame at q = 0 in Tree body tp
        joints = range(int(body_jntadr[b]), int(body_jntadr[b]) + int(body_jntnum[b]))
        if len(joints) == 0:
            frame[b] = (tp, R0, d0)
        anchor = None
        for j in joints:
            kind = {mujoco.mjtJoint.mjJNT_FREE: "free", mujoco.mjtJoint.mjJNT_HINGE: "revolute",
                    mujoco.mjtJoint.mjJNT_SLIDE: "prismatic"}.get(int(jnt_type[j]))
            if kind is None:
                raise ValueError(f"model: joint {name(j)!r} is a ball joint; Tree supports hinge, slide and free joints only")
            if kind == "free":
                if len(joints) > 1 or tp != -1:
                    raise ValueError(f"model: free joint {name(j)!r} must be its body's only joint, on a body of the world")
                t = out.add(-1, np.eye(6), _ZERO6, "free", name(j))
                frame[b] = (t, np.eye(3), np.zeros(3))
                continue
            n = _unit_axis(f"model: joint {name(j)!r}", jnt_axis[j])
            a = np.asarray(jnt_pos[j], float) if kind == "revolute" else (np.zeros(3) if anchor is None else anchor)
            if anchor is None:                            # first joint of b: from the parent's Tree body
                X_T = _motion_transform(R0, d0 + R0 @ a)
                parent = tp
            else:                                         # next joint: from the previous joint's body
                X_T = _motion_transform(np.eye(3), a - anchor)
                parent = len(out.parents) - 1
            t = out.add(parent, X_T, _axis6(kind, n), kind, name(j), float(qpos0[jnt_qposadr[j]]))
            anchor = a
            frame[b] = (t, np.eye(3), -a)
        t, R, d = frame[b]
        Ri = R @ _rotation(body_iquat[b])
        out.add_inertia(t, np.eye(3), np.zeros(3), float(body_mass[b]), d + R @ body_ipos[b],
                        Ri @ np.diag(body_inertia[b]) @ Ri.T, f"body {body_name(b)!r}")
    return out.build(make, "model")


def _refuse_moving_mocap(parent_of, body_jntnum, mocap, body_name) -> None:
    """ValueError naming a mocap body with joints below it.  A mocap body has no joint and sits on
    the world, but its pose is set at run time (``data.mocap_pos``, ``mocap_quat``), so the bodies
    below it hang from a moving base a Tree cannot follow; read as welded to the world at its
    model pose, their dynamics would silently be those of another robot.  A mocap body with
    nothing moving below it is dropped like any body welded to the world."""
    moves = np.asarray(body_jntnum) > 0
    for b in range(len(moves) - 1, 0, -1):               # children have larger ids than parents
        moves[int(parent_of[b])] |= moves[b]
    for b in np.flatnonzero((np.asarray(mocap) >= 0) & moves):
        raise ValueError(f"model: body {body_name(int(b))!r} is a mocap body and bodies with joints hang from it; "
                         f"its pose is set at run time (data.mocap_pos, mocap_quat) and a Tree's base cannot "
                         f"follow it: attach them to the world, or to a body with a free joint, instead")


def _joint_names(given: list, bodies: list) -> list:
    """MuJoCo's joint names, an unnamed joint called ``joint<id>`` after its MuJoCo id, or
    ``<body>_joint<id>`` if a named joint is called that already (a scene that includes an arm
    whose joints are joint1..joint7 and adds an object with an unnamed free joint, id 7)."""
    taken = {text for text in given if text}
    out = []
    for j, (text, body) in enumerate(zip(given, bodies)):
        if not text:
            text = f"joint{j}"
            if text in taken:
                text = f"{body}_joint{j}"
            while text in taken:
                text += "_"
            taken.add(text)
        out.append(text)
    return out


# --- URDF ----------------------------------------------------------------------------------

#: Tags that do not change the rigid-body dynamics (appearance, contact geometry, simulator and
#: controller settings, limits that only bound the motion); skipped.
