"""Trees from robot descriptions (MuJoCo models, URDF) and state conversions (book chapter 11).

``Tree.from_mujoco(model)`` and ``Tree.from_urdf(path_or_xml)`` call the two loaders here; the
Tree methods ``mujoco_state``, ``state_from_mujoco``, ``pinocchio_state`` and
``state_from_pinocchio`` call the converters.

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

import math
import os
import xml.etree.ElementTree as ET

import numpy as np

from ._checks import batch_shape
from .inertia import _assemble
from .transforms import _motion_blocks
from .tree import Tree, _check_tree, _joint_values, _unit_quaternions

#: Joint axes shorter than this (a zero axis) are refused; any longer one is normalised, as
#: Pinocchio's URDF parser and MuJoCo's compiler do (the URDF spec asks for unit axes, but real
#: files carry rounded ones such as "0.7071 0 0.7071" and unnormalised ones such as "1 1 0").
AXIS_TOL = 1e-6

# --- shared helpers --------------------------------------------------------------------------


def _unit_axis(where: str, axis) -> np.ndarray:
    n = np.asarray(axis, dtype=float)
    length = float(np.linalg.norm(n))
    if length < AXIS_TOL:
        raise ValueError(f"{where}: expected a joint axis with a direction (non-zero), got {n.tolist()}; "
                         f"a joint that does not move should be fixed")
    return n / length


def _motion_transform(R: np.ndarray, d) -> np.ndarray:
    return _motion_blocks(np.asarray(R, float), np.asarray(d, float))


def _rotation(quat) -> np.ndarray:
    """R (new -> old) of quaternions [w, x, y, z] (..., 4), normalised here (unchecked)."""
    q = np.asarray(quat, float)
    w, x, y, z = np.moveaxis(q / np.linalg.norm(q, axis=-1, keepdims=True), -1, 0)
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def _rpy(rpy) -> np.ndarray:
    """URDF's fixed-axis roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll) (new -> old components)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


class _Builder:
    """Tree bodies in the making, and where each source body's frame sits in them."""

    def __init__(self):
        self.parents, self.placements, self.axes, self.kinds, self.names, self.offsets = [], [], [], [], [], []
        self.inertias, self.sources = [], []

    def add(self, parent, placement, axis, kind, name, offset=0.0) -> int:
        self.parents.append(parent)
        self.placements.append(placement)
        self.axes.append(axis)
        self.kinds.append(kind)
        self.names.append(name)
        self.offsets.append(offset)
        self.inertias.append(np.zeros((6, 6)))
        self.sources.append([])
        return len(self.parents) - 1

    def add_inertia(self, body: int, R: np.ndarray, d: np.ndarray, mass, com, inertia_com, source: str = "") -> None:
        """Add a rigid body (mass, COM and inertia about it in its own frame) whose frame sits at
        (R, d) in Tree body ``body``'s frame; dropped if ``body`` is the fixed base.  ``source``
        names it in the source model (for error messages)."""
        if body < 0 or mass == 0 and not np.any(inertia_com):
            return
        self.inertias[body] = self.inertias[body] + _assemble(np.float64(mass), d + R @ com, R @ inertia_com @ R.T)
        self.sources[body].append(source)

    def tree(self, what: str, advice: str = "") -> Tree:
        if not self.parents:
            raise ValueError(f"{what}: expected at least one joint that moves (hinge, slide, free; revolute, "
                             f"continuous, prismatic, floating), found none")
        try:
            return Tree(self.parents, self.placements, self.axes, self.inertias, kinds=self.kinds,
                        joint_names=self.names, offsets=self.offsets)
        except ValueError as err:                         # name the source bodies of a refused inertia
            text = str(err)
            if not text.startswith("inertias: inertias["):
                raise
            i = int(text[len("inertias: inertias["):].split("]")[0])
            merged = ", ".join(repr(s) for s in self.sources[i])
            raise ValueError(f"{what}: the body moved by joint {self.names[i]!r} (made of {merged}, merged about its "
                             f"origin) has an inertia that is not physical: {text.split(': ', 2)[-1]}; a Tree "
                             f"needs physical inertias, so correct them in the source"
                             f"{advice if 'triangle' in text else ''}") from None


_ZERO6 = np.zeros(6)


def _axis6(kind: str, n: np.ndarray) -> np.ndarray:
    return np.concatenate((np.zeros(3), n) if kind == "prismatic" else (n, np.zeros(3)))


# --- MuJoCo ------------------------------------------------------------------------------------


def tree_from_mujoco(model) -> Tree:
    """The Tree of a ``mujoco.MjModel``: hinge, slide and free joints.

    Joints in MuJoCo's order, so that q and qd are qpos and qvel joint by joint (up to
    ``offsets`` = qpos0 of hinges and slides and the free joints' velocity convention: see
    ``Tree.mujoco_state``).  Bodies without joints are merged into their parent, several joints
    in one body become a chain of bodies (massless but the last), and a hinge's anchor
    ``jnt_pos`` becomes its body's origin.  Pass ``gravity=model.opt.gravity`` to the dynamics
    (zeros if the model switches gravity off: ``<flag gravity="disable"/>``, ``mjDSBL_GRAVITY``).
    A ball joint raises ``ValueError`` naming it.  Joint names are MuJoCo's; an unnamed joint is
    called ``joint<id>`` (its MuJoCo id), or ``<body>_joint<id>`` when a named joint has that
    name already.

    The Tree is the rigid-body model; MuJoCo's armature, damping, springs, gravity
    compensation and constraints are not part of it.

    Examples
    --------
    >>> import mujoco, numpy as np, spatialbook as sb
    >>> model = mujoco.MjModel.from_xml_string('''<mujoco><worldbody>
    ...   <body pos="0 0 1"><joint name="hinge" axis="0 0 1" pos="0.1 0 0"/>
    ...     <geom type="box" size="0.4 0.01 0.6" pos="0.4 0 0" mass="2"/></body>
    ... </worldbody></mujoco>''')
    >>> tree = sb.Tree.from_mujoco(model)
    >>> tree.joint_names, tree.nq
    (('hinge',), 1)
    >>> sb.mass_matrix(tree, [0.0]).round(4)   # 2 kg plate 0.8 x 0.02 m: m (0.8^2 + 0.02^2) / 12 + m 0.3^2
    array([[0.2867]])
    """
    try:
        nbody, parent_of = int(model.nbody), np.asarray(model.body_parentid)
        jnt_type, jnt_pos, jnt_axis = np.asarray(model.jnt_type), np.asarray(model.jnt_pos), np.asarray(model.jnt_axis)
        qpos0, jnt_qposadr = np.asarray(model.qpos0), np.asarray(model.jnt_qposadr)
        body_jntadr, body_jntnum = np.asarray(model.body_jntadr), np.asarray(model.body_jntnum)
        body_pos, body_quat = np.asarray(model.body_pos), np.asarray(model.body_quat)
        body_ipos, body_iquat = np.asarray(model.body_ipos), np.asarray(model.body_iquat)
        body_mass, body_inertia = np.asarray(model.body_mass), np.asarray(model.body_inertia)
        njnt, jnt_bodyid = int(model.njnt), np.asarray(model.jnt_bodyid)
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
    return out.tree("model")


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
_IGNORED = {"robot": {"material", "gazebo", "transmission", "ros2_control", "sensor"},
            "link": {"visual", "collision", "gazebo",
                     "contact",              # PyBullet's contact parameters (friction, restitution)
                     "self_filter",          # robot_self_filter's sensor-masking shapes
                     "collision_checking",   # Pinocchio's collision-shape hints
                     "surface"},             # Gazebo's contact friction and bounce
            "joint": {"limit", "safety_controller", "calibration"}}

#: Simulator flags met inside <link> that are ignored only at their default value (a kinematic
#: link or one without gravity would move differently): tag -> the accepted text.
_DEFAULT_FLAGS = {"kinematic": {"0", "false"}, "gravity": {"1", "true"}}


def _floats(where: str, element, attribute: str, default: str, count: int) -> np.ndarray:
    text = default if element is None else element.get(attribute, default)
    what = "a number" if count == 1 else f"{count} numbers"
    try:
        values = np.array([float(v) for v in text.split()])
    except ValueError:
        raise ValueError(f"{where}: expected {what} in {attribute}=\"{text}\"") from None
    if values.shape != (count,) or not np.all(np.isfinite(values)):
        raise ValueError(f"{where}: expected {what.replace('number', 'finite number')} in {attribute}=\"{text}\"")
    return values


def _origin(where: str, element):
    origin = element.find("origin")
    return _rpy(_floats(where, origin, "rpy", "0 0 0", 3)), _floats(where, origin, "xyz", "0 0 0", 3)


def _refuse_unknown(where: str, element, allowed: set) -> None:
    for child in element:
        if element.tag == "link" and child.tag in _DEFAULT_FLAGS:
            if (child.text or "").strip().lower() not in _DEFAULT_FLAGS[child.tag]:
                raise ValueError(f"{where}: <{child.tag}>{(child.text or '').strip()}</{child.tag}> changes how the link moves "
                                 f"in a simulator and a Tree cannot model it; accepted only at its default "
                                 f"(<kinematic>0</kinematic>, <gravity>1</gravity>)")
            continue
        if child.tag not in allowed and child.tag not in _IGNORED.get(element.tag, set()):
            raise ValueError(f"{where}: unsupported tag <{child.tag}> (it may change the dynamics, so it is not "
                             f"skipped); supported: {sorted(allowed)}, ignored: {sorted(_IGNORED.get(element.tag, ()))}")


def _read_urdf(source):
    if isinstance(source, (str, os.PathLike)) and not (isinstance(source, str) and source.lstrip().startswith("<")):
        try:
            with open(source, "rb") as f:                # bytes: the XML declaration names the encoding
                text = f.read()
        except OSError as err:
            raise ValueError(f"source: expected a URDF file path or XML text, cannot read {str(source)!r:.80}: {err.strerror}") from None
    elif isinstance(source, str):
        text = source
    else:
        raise ValueError(f"source: expected a URDF file path or XML text, got a {type(source).__name__}")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as err:
        raise ValueError(f"source: not well-formed XML ({err})") from None
    if root.tag != "robot":
        raise ValueError(f"source: expected a URDF <robot> element, got <{root.tag}>")
    return root


def tree_from_urdf(source, floating_base: bool = False, mimic: str = "refuse", balance_inertia: bool = False) -> Tree:
    """The Tree of a URDF robot (a file path or the XML text), read with the standard library.

    Joints: revolute, continuous, prismatic, floating (a free joint) and fixed (the child link
    is merged into its parent).  Joint order as Pinocchio numbers them: depth first from the
    root link, a link's children in the order of their joints' names.  ``floating_base=True``
    puts a free joint between the world and the root link (Pinocchio's
    ``buildModel(..., JointModelFreeFlyer())``); otherwise the root link is the fixed base.
    A ``mimic`` joint (one that copies another, as in grippers) is refused by default;
    ``mimic="independent"`` loads it as an ordinary joint with its own q, as Pinocchio's
    ``buildModelFromUrdf`` does by default (``mimic=False`` there).  ``balance_inertia=True``
    sets the principal moments of any link whose inertia breaks the triangle inequality (CAD
    exports of real robots do) to their mean, as MuJoCo's ``<compiler balanceinertia="true">``
    does; the file's other links are read as written.

    Refused with ``ValueError`` naming them: mimic joints (unless ``mimic="independent"``),
    planar joints and other types, a Tree body whose merged inertia is not physical (naming its
    links), any tag not known to leave the dynamics alone.  Ignored: visual, collision, material, gazebo, transmission,
    limit, link extension tags that URDF parsers skip (contact, self_filter,
    collision_checking, surface; kinematic and gravity at their defaults), and joint
    ``<dynamics>`` damping and friction (not part of the rigid-body model, as in Pinocchio's
    rnea: add such forces to tau).

    Examples
    --------
    >>> import spatialbook as sb
    >>> urdf = '''<robot name="pendulum">
    ...   <link name="base"/>
    ...   <link name="arm"><inertial><origin xyz="0.5 0 0"/><mass value="2"/>
    ...     <inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
    ...   <joint name="shoulder" type="continuous"><parent link="base"/><child link="arm"/>
    ...     <axis xyz="0 0 1"/></joint>
    ... </robot>'''
    >>> tree = sb.Tree.from_urdf(urdf)
    >>> tree.joint_names, tree.kinds
    (('shoulder',), ('continuous',))
    >>> sb.mass_matrix(tree, [0.3]).round(12)       # m r^2 = 2 * 0.5^2
    array([[0.5]])
    """
    if not isinstance(floating_base, (bool, np.bool_)):
        raise ValueError(f"floating_base: expected True or False, got {floating_base!r:.40}")
    if not isinstance(balance_inertia, (bool, np.bool_)):
        raise ValueError(f"balance_inertia: expected True or False, got {balance_inertia!r:.40}")
    if not isinstance(mimic, str) or mimic not in ("refuse", "independent"):
        raise ValueError(f"mimic: expected 'refuse' or 'independent', got {mimic!r:.40}")
    robot = _read_urdf(source)
    _refuse_unknown("source: <robot>", robot, {"link", "joint"})
    links = {}
    for link in robot.findall("link"):
        name = link.get("name")
        if not name or name in links:
            raise ValueError(f"source: expected links with distinct names, got {name!r}")
        where = f"source: link {name!r}"
        _refuse_unknown(where, link, {"inertial"})
        inertial = link.find("inertial")
        if inertial is None:
            links[name] = (0.0, np.zeros(3), np.zeros((3, 3)))
            continue
        _refuse_unknown(where, inertial, {"origin", "mass", "inertia"})
        R, com = _origin(where, inertial)
        mass = float(_floats(where, inertial.find("mass"), "value", "0", 1)[0])
        el = inertial.find("inertia")
        xx, xy, xz, yy, yz, zz = (float(_floats(where, el, k, "0", 1)[0]) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"))
        I = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])  # checked once merged into its Tree body
        if mass < 0:
            raise ValueError(f"source: link {name!r}: expected a non-negative <mass value=...>, got {mass!r}")
        if balance_inertia:
            I = _balanced(I)
        links[name] = (mass, com, R @ I @ R.T)
    joints, children = {}, {}
    for joint in robot.findall("joint"):
        name, kind = joint.get("name"), joint.get("type")
        where = f"source: joint {name!r}"
        if not name or name in joints:
            raise ValueError(f"source: expected joints with distinct names, got {name!r}")
        if joint.find("mimic") is not None and mimic == "refuse":
            raise ValueError(f"{where} is a mimic joint (it copies joint {joint.find('mimic').get('joint')!r}); "
                             f"Tree has independent joints only: pass mimic=\"independent\" to load it as an "
                             f"ordinary joint (Pinocchio's default), or make it fixed in the file")
        if kind not in ("revolute", "continuous", "prismatic", "fixed", "floating"):
            raise ValueError(f"{where} has type {kind!r}; supported: revolute, continuous, prismatic, fixed, floating")
        _refuse_unknown(where, joint, {"parent", "child", "origin", "axis", "dynamics", "mimic"})
        dyn = joint.find("dynamics")
        if dyn is not None:                               # read (so malformed numbers are named), left out
            for attribute in ("damping", "friction"):
                _floats(f"{where}: <dynamics>", dyn, attribute, "0", 1)
        parent, child = (joint.find(t).get("link") if joint.find(t) is not None else None for t in ("parent", "child"))
        if parent not in links or child not in links:
            raise ValueError(f"{where}: expected <parent link=...> and <child link=...> naming links, got {parent!r}, {child!r}")
        R, xyz = _origin(where, joint)
        axis = _floats(where, joint.find("axis"), "xyz", "1 0 0", 3)
        joints[name] = (kind, parent, child, R, xyz, axis)
        children.setdefault(parent, []).append(name)
    if not links:
        raise ValueError("source: expected a <robot> with <link> elements, found none (an empty robot)")
    child_links = [j[2] for j in joints.values()]
    roots = [name for name in links if name not in child_links]
    if len(roots) != 1 or len(set(child_links)) != len(child_links):
        raise ValueError(f"source: expected a tree of links with one root, got roots {roots} "
                         f"and {len(child_links) - len(set(child_links))} links with two parents")
    out = _Builder()
    frame = {}                                            # link -> (Tree body, R, d)
    if floating_base:
        frame[roots[0]] = (out.add(-1, np.eye(6), _ZERO6, "free", "root_joint"), np.eye(3), np.zeros(3))
    else:
        frame[roots[0]] = (-1, np.eye(3), np.zeros(3))
    order = []                                            # depth first, a link's children by joint name

    def visit(link):
        order.append(link)
        for jname in sorted(children.get(link, [])):
            visit(joints[jname][2])

    visit(roots[0])
    joint_of = {j[2]: name for name, j in joints.items()}
    for link in order[1:]:
        name = joint_of[link]
        kind, parent, _, Ro, xyz, axis = joints[name]
        tp, Rp, dp = frame[parent]
        R0, d0 = Rp @ Ro, dp + Rp @ xyz
        if kind == "fixed":
            frame[link] = (tp, R0, d0)
            continue
        if kind == "floating":
            if tp != -1:
                raise ValueError(f"source: joint {name!r} is floating but its parent link moves; a free joint must "
                                 f"attach to the fixed base")
            t = out.add(-1, _motion_transform(R0, d0), _ZERO6, "free", name)
        else:
            n = _unit_axis(f"source: joint {name!r}", axis)
            t = out.add(tp, _motion_transform(R0, d0), _axis6(kind, n), kind, name)
        frame[link] = (t, np.eye(3), np.zeros(3))
    for link in order:
        t, R, d = frame[link]
        mass, com, I = links[link]
        out.add_inertia(t, R, d, mass, com, I, f"link {link!r}")
    return out.tree("source", advice=" (or pass balance_inertia=True to set the principal moments of a link "
                                     "that breaks the triangle inequality to their mean, as MuJoCo's compiler "
                                     "option balanceinertia does)")


def _balanced(I: np.ndarray) -> np.ndarray:
    """MuJoCo's balanceinertia: principal moments a <= b <= c with a + b < c all set to their mean.
    A negative moment is left alone (refused later, as MuJoCo refuses it before balancing)."""
    moments = np.linalg.eigvalsh(I)
    tol = 1e-9 * max(float(moments[2]), 0.0)
    if moments[0] >= -tol and moments[0] + moments[1] < moments[2] - tol:
        return np.eye(3) * (moments.sum() / 3)
    return I


# --- state conversions -----------------------------------------------------------------------


def _quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    w1, x1, y1, z1 = np.moveaxis(a, -1, 0)
    w2, x2, y2, z2 = np.moveaxis(b, -1, 0)
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=-1)


def _quat_of(R: np.ndarray) -> np.ndarray:
    """A unit quaternion [w, x, y, z] of the rotation R (Shepperd's method)."""
    t = np.trace(R)
    k = int(np.argmax([t, R[0, 0], R[1, 1], R[2, 2]]))
    if k == 0:
        s = 2 * math.sqrt(1 + t)
        q = [s / 4, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    else:
        i, j, l = (k - 1, k % 3, (k + 1) % 3)
        s = 2 * math.sqrt(1 + R[i, i] - R[j, j] - R[l, l])
        q = [0.0] * 4
        q[0] = (R[l, j] - R[j, l]) / s
        q[1 + i] = s / 4
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + l] = (R[l, i] + R[i, l]) / s
    return np.array(q) / np.linalg.norm(q)


def _placement(X: np.ndarray):
    """(R, d) of a motion transform X = sb.motion_transform(R, d)."""
    R = X[:3, :3].T
    D = -R @ X[3:, :3]
    return R, np.array([D[2, 1], D[0, 2], D[1, 0]])


def mujoco_state(tree, q, qd=None):
    """MuJoCo's (qpos, qvel) of the tree's state (q, qd); qvel is None if qd is None.

    One-dof joints: qpos = q + offsets (MuJoCo's qpos0), qvel = qd.  A free joint: qpos =
    [x; quat] with x the body origin and quat = [w, x, y, z] its orientation in the world (the
    placement X_T composed with q's pose); qvel = [R v; omega]: the origin's velocity in WORLD
    axes, then the angular velocity in BODY axes (R: body -> world axes).  Batched over leading axes.

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> box = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> half = np.pi / 4                                   # turned 90 degrees about z
    >>> qpos, qvel = box.mujoco_state([0, 0, 1, np.cos(half), 0, 0, np.sin(half)], [0, 0, 0, 1, 0, 0])
    >>> qvel.round(12) + 0.0                               # body x is world y
    array([0., 1., 0., 0., 0., 0.])
    """
    tree = _check_tree(tree)
    q, qd = _state_pair("q", _joint_values("q", q, tree.nq, tree),
                        "qd", None if qd is None else _joint_values("qd", qd, tree.nv, tree))
    qpos, qvel = q.copy(), None if qd is None else qd.copy()
    k = v = 0
    for i, kind in enumerate(tree.kinds):
        if kind != "free":
            qpos[..., k] += tree.offsets[i]
            k, v = k + 1, v + 1
            continue
        R_T, d_T = _placement(tree.placements[i])
        qpos[..., k:k + 3] = d_T + q[..., k:k + 3] @ R_T.T
        qpos[..., k + 3:k + 7] = _quat_mul(_quat_of(R_T), q[..., k + 3:k + 7])
        if qd is not None:
            R = _rotation(qpos[..., k + 3:k + 7])
            qvel[..., v:v + 3] = np.einsum("...ij,...j->...i", R, qd[..., v + 3:v + 6])
            qvel[..., v + 3:v + 6] = qd[..., v:v + 3]
        k, v = k + 7, v + 6
    return qpos, qvel


def state_from_mujoco(tree, qpos, qvel=None):
    """The tree's (q, qd) from MuJoCo's (qpos, qvel): the inverse of :func:`mujoco_state`.

    A free joint's quaternion is normalised first, as MuJoCo's kinematics does (a zero one is
    refused), so rounded keyframes are read as MuJoCo reads them.

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> box = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> q, qd = box.state_from_mujoco([0, 0, 1, 1, 0, 0, 0], [1, 2, 3, 0, 0, 0.5])
    >>> qd                                                 # angular first, body axes
    array([0. , 0. , 0.5, 1. , 2. , 3. ])
    """
    tree = _check_tree(tree)
    qpos, qvel = _state_pair("qpos", _joint_values("qpos", qpos, tree.nq, None),
                             "qvel", None if qvel is None else _joint_values("qvel", qvel, tree.nv, None))
    qpos = _unit_quaternions(tree, qpos, "qpos", unit=False)   # as MuJoCo's kinematics reads it
    q, qd = qpos.copy(), None if qvel is None else qvel.copy()
    k = v = 0
    for i, kind in enumerate(tree.kinds):
        if kind != "free":
            q[..., k] -= tree.offsets[i]
            k, v = k + 1, v + 1
            continue
        R_T, d_T = _placement(tree.placements[i])
        q[..., k:k + 3] = (qpos[..., k:k + 3] - d_T) @ R_T
        conj = _quat_of(R_T) * [1, -1, -1, -1]
        q[..., k + 3:k + 7] = _quat_mul(conj, qpos[..., k + 3:k + 7])
        if qvel is not None:
            R = _rotation(qpos[..., k + 3:k + 7])
            qd[..., v:v + 3] = qvel[..., v + 3:v + 6]
            qd[..., v + 3:v + 6] = np.einsum("...ji,...j->...i", R, qvel[..., v:v + 3])
        k, v = k + 7, v + 6
    return q, qd


def _state_pair(q_name: str, q: np.ndarray, v_name: str, v):
    """Positions and velocities (v may be None) broadcast to their common batch shape; batches
    that do not broadcast are refused naming both (a state is one q with its one qd)."""
    if v is None:
        return q, None
    shape = batch_shape((q_name, q, 1), (v_name, v, 1))
    return (np.broadcast_to(q, shape + q.shape[-1:]).copy(),
            np.broadcast_to(v, shape + v.shape[-1:]).copy())


def _pinocchio_nq(tree: Tree) -> int:
    return sum({"free": 7, "continuous": 2}.get(k, 1) for k in tree.kinds)


def pinocchio_state(tree, q, qd=None):
    """Pinocchio's (q, v) of the tree's state (q, qd); v is None if qd is None.

    Joints in the tree's order (``from_urdf`` numbers them as Pinocchio does).  A continuous
    joint's q is [cos q_i, sin q_i]; a free joint's q is [x; quat] with quat = [x, y, z, w]
    and its v is [v; omega], linear first, both in body axes.  Offsets are not applied.

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> box = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> q, v = box.pinocchio_state([0, 0, 1, 1, 0, 0, 0], [0, 0, 0.5, 1, 2, 3])
    >>> q, v
    (array([0., 0., 1., 0., 0., 0., 1.]), array([1. , 2. , 3. , 0. , 0. , 0.5]))
    """
    tree = _check_tree(tree)
    q, qd = _state_pair("q", _joint_values("q", q, tree.nq, tree),
                        "qd", None if qd is None else _joint_values("qd", qd, tree.nv, tree))
    out, vout = [], None if qd is None else qd.copy()
    k = v = 0
    for kind in tree.kinds:
        if kind == "free":
            out += [q[..., k:k + 3], q[..., k + 4:k + 7], q[..., k + 3:k + 4]]
            if qd is not None:
                vout[..., v:v + 3], vout[..., v + 3:v + 6] = qd[..., v + 3:v + 6], qd[..., v:v + 3]
            k, v = k + 7, v + 6
        elif kind == "continuous":
            out += [np.cos(q[..., k:k + 1]), np.sin(q[..., k:k + 1])]
            k, v = k + 1, v + 1
        else:
            out.append(q[..., k:k + 1])
            k, v = k + 1, v + 1
    return np.concatenate(out, axis=-1), vout


def state_from_pinocchio(tree, q, v=None):
    """The tree's (q, qd) from Pinocchio's (q, v): the inverse of :func:`pinocchio_state`.

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> box = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> q, qd = box.state_from_pinocchio([0, 0, 1, 0, 0, 0, 1], [1, 2, 3, 0, 0, 0.5])
    >>> q, qd
    (array([0., 0., 1., 1., 0., 0., 0.]), array([0. , 0. , 0.5, 1. , 2. , 3. ]))
    """
    tree = _check_tree(tree)
    qp, vv = _state_pair("q", _joint_values("q", q, _pinocchio_nq(tree), None),
                         "v", None if v is None else _joint_values("v", v, tree.nv, None))
    out, qd = [], None if vv is None else vv.copy()
    k = j = 0
    for kind in tree.kinds:
        if kind == "free":
            out += [qp[..., k:k + 3], qp[..., k + 6:k + 7], qp[..., k + 3:k + 6]]
            if vv is not None:
                qd[..., j:j + 3], qd[..., j + 3:j + 6] = vv[..., j + 3:j + 6], vv[..., j:j + 3]
            k, j = k + 7, j + 6
        elif kind == "continuous":
            out.append(np.arctan2(qp[..., k + 1:k + 2], qp[..., k:k + 1]))
            k, j = k + 2, j + 1
        else:
            out.append(qp[..., k:k + 1])
            k, j = k + 1, j + 1
    q_tree = np.concatenate(out, axis=-1)
    try:
        q_tree = _unit_quaternions(tree, q_tree)
    except ValueError as err:
        raise ValueError(str(err).replace("[w, x, y, z]", "[x, y, z, w]")) from None
    return q_tree, qd
