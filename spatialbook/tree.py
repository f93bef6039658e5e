"""Kinematic trees: the model (book chapters 11 and 12), checked once.

A tree has n bodies numbered 0..n-1, each attached to its parent by one joint with one degree
of freedom (revolute or prismatic), or to the base by a free joint with six (a floating body:
legged robots, humanoids; its state convention is in ``Tree``'s docstring, nq != nv then);
``parents[i] < i`` and -1 is the fixed base.  Body i's coordinates are those of a
frame fixed in body i; "X_i" is the motion transform from the PARENT's coordinates to body i's
(conventions: ``spatialbook.__doc__``):

    X_i = X_J(q_i) X_T,i

- ``X_T,i`` (``placements[i]``): parent coordinates -> joint i's frame at q_i = 0, built as
  ``motion_transform(R, d)`` with R mapping joint-frame components to parent-frame components
  and d the joint frame's origin in parent coordinates (m).
- ``X_J(q_i)``: joint frame -> body i.  A revolute joint with axis S_i = [n; 0] turns body i's
  axes by q_i (rad) about n, so X_J = motion_transform(Rot(n, q_i), 0); a prismatic joint with
  S_i = [0; n] moves the origin by n q_i (m), so X_J = motion_transform(E, n q_i).  Either way
  S_i has the same components in the joint frame and in body i, and V_J = S_i qd_i.

A free body i has V_i = qd_i (its twist in its own coordinates); its six joint forces are the
wrench on it, and its 6x6 block of H is its composite inertia.

Units: q_i in rad (revolute) or m (prismatic), tau_i in N m or N, lengths m, masses kg.

Where the rest lives, one responsibility a file (as Pinocchio's ``multibody/`` and
``algorithm/``): the loaders build a Tree (``urdf.py``, ``mjcf.py``) and convert states
(``states.py``); the algorithms take one: ``rnea.py`` (inverse dynamics), ``crba.py`` (the
mass matrix), ``aba.py`` (forward dynamics), ``kinematics.py`` (poses, Jacobians),
``centroidal.py`` (centre of mass, centroidal momentum), ``integration.py`` (motion through
time); their shared machinery is in ``_tree_aligned.py`` (the tree in joint-aligned body
coordinates), ``_tree_kernels.py`` (the unchecked per-body kernels), ``_tree_blocks.py``
(large batches in blocks of states) and ``_tree_world.py`` (a few states per call, in base
coordinates).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import states
from ._tree_checks import (
    KINDS, _body_count, _layout, _check_axes, _check_inertias, _check_kinds, _check_names, _check_offsets, _check_parents,
    _check_placements, _numbers,
)
from .mjcf import read_mujoco
from .urdf import read_urdf


class _TreeFields(NamedTuple):
    parents: np.ndarray
    placements: np.ndarray
    axes: np.ndarray
    inertias: np.ndarray
    kinds: tuple = None
    joint_names: tuple = None
    offsets: np.ndarray = None




class Tree(_TreeFields):
    """A kinematic tree of n bodies with one joint each (a named tuple, checked once here).

    Parameters
    ----------
    parents : sequence of int, shape (n,)
        ``parents[i]`` is the body that joint i attaches body i to; ``parents[i] < i``, and -1
        means the fixed base.
    placements : array_like, shape (n, 6, 6)
        ``placements[i]`` = X_T,i, the motion transform from the parent's coordinates to joint
        i's frame at q = 0: ``motion_transform(R, d)`` with R joint-frame -> parent-frame
        components and d the joint frame's origin in parent coordinates (m).  For a body on
        the base, "parent" means the base (world) frame.  Angular part first: a Pinocchio
        (linear-first) matrix is recognised and refused with the converter to use.
    axes : array_like, shape (n, 6)
        ``axes[i]`` = S_i, joint i's motion axis in body i's coordinates: revolute [n; 0]
        (a hinge along n through body i's origin) or prismatic [0; n], with n a unit vector
        (to 1e-9; float32 input to 2e-5, then normalised; the loaders normalise any non-zero
        axis, as Pinocchio and MuJoCo do); all zeros for a free joint.
    inertias : array_like, shape (n, 6, 6)
        Body i's spatial inertia about its own origin, in its own axes (``spatial_inertia``).
    kinds : sequence of str, optional
        Per joint "revolute", "continuous" (a revolute joint without limits; it matters only
        for Pinocchio's q), "prismatic" or "free"; by default revolute or prismatic as
        ``axes`` say.  A free joint (6 degrees of freedom) needs ``parents[i] == -1``.
    joint_names : sequence of str, optional
        n distinct names (default "joint0", "joint1", ...).
    offsets : array_like, shape (n,), optional
        For each one-dof joint, the source model's joint value at q_i = 0 (MuJoCo's
        ``qpos0``; used by ``mujoco_state``); 0 for free joints.  Default zeros.

    Notes
    -----
    The state: q has nq entries; qd, qdd and tau have nv (nq = nv unless there are free
    joints).  Joints come in body order; a one-dof joint takes one entry of q and of qd.  A
    FREE joint takes 7 entries of q and 6 of qd:

    - q: [p; quat], body i's origin p in the joint frame (the parent's frame moved by X_T,i),
      m, and its orientation as a unit quaternion [w, x, y, z] (its rotation R maps body axes
      to joint-frame axes);
    - qd: the body's twist in its own coordinates, angular first, [omega; v] (rad/s, m/s;
      v is the velocity of the body origin); qdd its time derivative (the body's spatial
      acceleration in body coordinates); tau the wrench [n; f] (N m, N) applied through the
      joint, in body coordinates, about the body origin.

    MuJoCo's free-joint qvel is [v in world axes; omega in body axes] and Pinocchio's v is
    [v; omega] in body axes (linear first, quaternion [x, y, z, w]): ``mujoco_state`` and
    ``pinocchio_state`` convert.  ``nq``, ``nv`` and ``joint_names`` tell the sizes.

    The fields are stored as read-only arrays (``parents`` as int, ``kinds`` and
    ``joint_names`` as tuples of str).  Bad input raises ``ValueError`` naming the field.
    ``Tree.from_mujoco(model)`` and ``Tree.from_urdf(path_or_xml)`` build a Tree from a
    robot description.

    Examples
    --------
    The door of chapter 8 as a one-body tree: hinge along z through the body origin O.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree(parents=[-1], placements=[sb.motion_transform(np.eye(3), [0, 0, 0])],
    ...                axes=[[0, 0, 1, 0, 0, 0]], inertias=[I_O])
    >>> door.parents, door.axes.shape, door.kinds, door.nq, door.nv
    (array([-1]), (1, 6), ('revolute',), 1, 1)

    The door flying free: 7 position numbers, 6 velocity numbers.

    >>> free = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I_O], kinds=["free"])
    >>> free.nq, free.nv
    (7, 6)
    """

    __slots__ = ()

    def __new__(cls, parents, placements, axes, inertias, kinds=None, joint_names=None, offsets=None):
        parents = _numbers("parents", parents)
        placements = _numbers("placements", placements)
        axes = _numbers("axes", axes)
        inertias = _numbers("inertias", inertias)
        n = _body_count(parents=parents, placements=placements, axes=axes, inertias=inertias)
        parents = _check_parents(parents, n)
        placements = _check_placements(placements, n)
        kinds = _check_kinds(kinds, axes, n)
        axes = _check_axes(axes, n, kinds)
        inertias = _check_inertias(inertias, n)
        for i, kind in enumerate(kinds):
            if kind == "free" and parents[i] != -1:
                raise ValueError(f"kinds: expected a free joint to attach its body to the base (parents[i] = -1), "
                                 f"but kinds[{i}] is free and parents[{i}] = {int(parents[i])}")
        joint_names = _check_names(joint_names, n)
        offsets = _check_offsets(offsets, n, kinds)
        for arr in (parents, placements, axes, inertias, offsets):
            arr.flags.writeable = False
        return super().__new__(cls, parents, placements, axes, inertias, kinds, joint_names, offsets)

    @classmethod
    def _make(cls, iterable):          # _replace goes through here: keep it checked
        return cls(*iterable)

    def __eq__(self, other):
        """Exact equality of every field (arrays entry by entry, shapes included): a Tree is a
        value, as its fields are read-only.  A tuple's own ``==`` compared the arrays with numpy's
        ``==`` and raised "truth value of an array is ambiguous".  Anything but a Tree is unequal
        (a plain tuple too: its own ``==`` would compare the arrays again)."""
        if not isinstance(other, Tree):
            return False
        return all(np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b for a, b in zip(self, other))

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None                    # arrays inside: unhashable, as before (tuple's hash raised)

    @property
    def nq(self) -> int:
        """The number of entries of ``q`` (1 per one-dof joint, 7 per free joint)."""
        return _layout(self)[0]

    @property
    def nv(self) -> int:
        """The number of entries of ``qd``, ``qdd`` and ``tau`` (1 per one-dof joint, 6 per free joint)."""
        return _layout(self)[1]

    @classmethod
    def from_mujoco(cls, model) -> "Tree":
        """The Tree of a ``mujoco.MjModel``: hinge, slide and free joints.

    Joints in MuJoCo's order, so that q and qd are qpos and qvel joint by joint (up to
    ``offsets`` = qpos0 of hinges and slides and the free joints' velocity convention: see
    ``Tree.mujoco_state``).  Bodies without joints are merged into their parent, several joints
    in one body become a chain of bodies (massless but the last), and a hinge's anchor
    ``jnt_pos`` becomes its body's origin.  Pass ``gravity=model.opt.gravity`` to the dynamics
    (zeros if the model switches gravity off: ``<flag gravity="disable"/>``, ``mjDSBL_GRAVITY``).
    A ball joint raises ``ValueError`` naming it, and so does a mocap body (``mocap="true"``)
    with joints below it: its pose is set at run time, and a Tree, whose base is fixed, cannot
    follow it (a mocap body with nothing moving below it is dropped, like any body welded to the
    world).  Joint names are MuJoCo's; an unnamed joint is
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
        return read_mujoco(model, cls)

    @classmethod
    def from_urdf(cls, source, floating_base: bool = False, mimic: str = "refuse", balance_inertia: bool = False) -> "Tree":
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
        return read_urdf(source, cls, floating_base=floating_base, mimic=mimic, balance_inertia=balance_inertia)

    def mujoco_state(self, q, qd=None):
        """(qpos, qvel) of MuJoCo from this tree's (q, qd) (see :func:`spatialbook.states.mujoco_state`)."""
        return states.mujoco_state(self, q, qd)

    def state_from_mujoco(self, qpos, qvel=None):
        """(q, qd) of this tree from MuJoCo's (qpos, qvel); the inverse of ``mujoco_state``."""
        return states.state_from_mujoco(self, qpos, qvel)

    def pinocchio_state(self, q, qd=None):
        """(q, v) of Pinocchio from this tree's (q, qd) (see :func:`spatialbook.states.pinocchio_state`)."""
        return states.pinocchio_state(self, q, qd)

    def state_from_pinocchio(self, q, v=None):
        """(q, qd) of this tree from Pinocchio's (q, v); the inverse of ``pinocchio_state``."""
        return states.state_from_pinocchio(self, q, v)


def _check_tree(tree) -> Tree:
    if not isinstance(tree, Tree):
        raise ValueError(f"tree: expected a spatialbook.Tree(parents, placements, axes, inertias), got {type(tree).__name__}")
    return tree
