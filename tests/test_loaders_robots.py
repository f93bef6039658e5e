"""Features of real robot descriptions that the loaders met, each in a small robot written here.

Loading the URDFs of Gepetto's example-robot-data and MuJoCo Menagerie's MJCF found these
(none of those files is copied here; each feature is reproduced in a few links):

- joint ``<dynamics damping=... friction=...>`` (Panda, Talos, Baxter, Z1): left out, as
  Pinocchio's rnea/crba/aba and the MuJoCo loader's damping are;
- link extension tags that URDF parsers skip: PyBullet's ``<contact>`` (Solo, Bolt), ROS's
  ``<self_filter>`` (ANYmal C), Pinocchio's ``<collision_checking>`` (simple_humanoid),
  Gazebo's ``<surface>``, ``<kinematic>0`` and ``<gravity>1`` (TIAGo Pro);
- a massless-looking dummy link welded to the trunk with a rank-one inertia such as
  ``ixx = ixy = ... = 1e-6`` (ANYmal B, Go1, B1, HyQ, iCub): checked once merged, not alone;
- MJCF scenes that include a robot whose joints are named ``joint1``, ``joint2``, ... (KUKA
  iiwa 14, AgileX Piper) and add unnamed joints (an object's ``<freejoint/>``): the fallback
  name ``joint<id>`` must not take a named joint's name.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pinocchio as pin
import pytest

import spatialbook as sb
from test_loaders import assert_agrees_with_pinocchio, close, from_mujoco_dynamics, mujoco_random_state, random_state
from tree_helpers import free_blocks

ROBOT = """<robot name="legged">
  <link name="base">
    <inertial><origin xyz="0 0 0"/><mass value="0.001"/>
      <inertia ixx="1e-6" ixy="1e-6" ixz="1e-6" iyy="1e-6" iyz="1e-6" izz="1e-6"/></inertial>
    {link_extra}
  </link>
  <joint name="floating_base" type="fixed"><parent link="base"/><child link="trunk"/>
    <origin xyz="0.01 -0.02 0.03" rpy="0.1 0.2 0.3"/></joint>
  <link name="trunk">
    <inertial><origin xyz="0.02 0.01 -0.03" rpy="0.3 -0.2 0.1"/><mass value="6.0"/>
      <inertia ixx="0.05" ixy="0.001" ixz="-0.002" iyy="0.12" iyz="0.003" izz="0.14"/></inertial>
    <contact><lateral_friction value="1.0"/><restitution value="0.5"/></contact>
    <self_filter><origin xyz="0 0 0"/><geometry><box size="1 0.5 0.5"/></geometry></self_filter>
    <collision_checking><capsule name="trunk_capsule"/></collision_checking>
  </link>
  <joint name="hip" type="revolute"><parent link="trunk"/><child link="thigh"/>
    <origin xyz="0.2 0.1 0" rpy="0 0.4 0"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="30" velocity="10"/>
    <dynamics damping="0.5" friction="0.2"/></joint>
  <link name="thigh">
    <inertial><origin xyz="0 0 -0.1" rpy="0.2 0 0"/><mass value="1.2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.011" iyz="0.0005" izz="0.003"/></inertial>
    <surface><friction><ode><mu1>100000.0</mu1></ode></friction></surface>
    <kinematic>0</kinematic>
    <gravity>1</gravity>
  </link>
  <joint name="knee" type="continuous"><parent link="thigh"/><child link="shank"/>
    <origin xyz="0 0 -0.2" rpy="0 0 0.3"/><axis xyz="0 1 0"/>
    <dynamics damping="0.1"/></joint>
  <link name="shank">
    <inertial><origin xyz="0 0.01 -0.1"/><mass value="0.4"/>
      <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.0004"/></inertial>
    <contact><lateral_friction value="1.0"/></contact>
  </link>
  <joint name="slide" type="prismatic"><parent link="trunk"/><child link="arm"/>
    <origin xyz="-0.1 0 0.1"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="9" velocity="1"/>
    <dynamics friction="3"/></joint>
  <link name="arm">
    <inertial><mass value="0.7"/><inertia ixx="0.002" ixy="0" ixz="0" iyy="0.003" iyz="0" izz="0.004"/></inertial>
  </link>
</robot>"""


@pytest.mark.parametrize("floating_base", [False, True])
def test_real_robot_features_load_and_agree_with_pinocchio(floating_base):
    """Joint damping and friction, extension tags and a welded dummy link with a rank-one
    inertia: the Tree loads and its tau, H and qdd agree with Pinocchio's on the same text."""
    xml = ROBOT.format(link_extra="")
    tree = sb.Tree.from_urdf(xml, floating_base=floating_base)
    model = pin.buildModelFromXML(xml, pin.JointModelFreeFlyer()) if floating_base else pin.buildModelFromXML(xml)
    assert list(tree.joint_names) == list(model.names)[1:]
    rng = np.random.default_rng(4)
    for _ in range(3):
        assert_agrees_with_pinocchio(model, tree, *random_state(tree, rng))


def test_damping_and_friction_are_left_out_not_added():
    """The Tree is the rigid-body model: the same robot without <dynamics> gives the same tau."""
    with_dynamics = sb.Tree.from_urdf(ROBOT.format(link_extra=""))
    bare = ROBOT.format(link_extra="")
    for tag in ('<dynamics damping="0.5" friction="0.2"/>', '<dynamics damping="0.1"/>', '<dynamics friction="3"/>'):
        bare = bare.replace(tag, "")
    without = sb.Tree.from_urdf(bare)
    q, qd, qdd = np.array([0.3, -0.2, 0.1]), np.array([1.0, 2.0, -1.0]), np.array([0.5, 0.1, 0.2])
    np.testing.assert_array_equal(sb.inverse_dynamics(with_dynamics, q, qd, qdd), sb.inverse_dynamics(without, q, qd, qdd))


@pytest.mark.parametrize("extra, message", [
    ("<gravity>0</gravity>", r"^source: link 'base': <gravity>0</gravity> changes how the link moves"),
    ("<kinematic>true</kinematic>", r"^source: link 'base': <kinematic>true</kinematic> changes how the link moves"),
    ("<buoyancy volume='1'/>", r"^source: link 'base': unsupported tag <buoyancy>"),
])
def test_link_flags_away_from_their_default_and_unknown_tags_are_refused(extra, message):
    with pytest.raises(ValueError, match=message):
        sb.Tree.from_urdf(ROBOT.format(link_extra=extra))


def test_a_moving_link_with_a_non_physical_inertia_is_refused_naming_joint_and_link():
    bad = ROBOT.format(link_extra="").replace('ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.0004"',
                                              'ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.01"')
    with pytest.raises(ValueError, match=r"^source: the body moved by joint 'knee' \(made of \"link 'shank'\", "
                                         r"merged about its origin\) has an inertia that is not physical: .*triangle"):
        sb.Tree.from_urdf(bad)


def test_a_dummy_welded_to_the_fixed_base_is_dropped_and_one_merged_into_the_trunk_is_checked_merged():
    tree = sb.Tree.from_urdf(ROBOT.format(link_extra=""), floating_base=True)
    m = tree.inertias[0][3, 3]
    np.testing.assert_allclose(m, 6.001, rtol=1e-14)     # trunk 6 kg + dummy 1 g, one body


def test_an_empty_robot_is_refused_as_such():
    with pytest.raises(ValueError, match=r"^source: expected a <robot> with <link> elements, found none"):
        sb.Tree.from_urdf('<robot name="empty"></robot>')


GRIPPER = """<robot name="gripper">
  <link name="palm"><inertial><mass value="0.8"/>
    <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.003"/></inertial></link>
  <link name="left"><inertial><origin xyz="0 0.01 0.04"/><mass value="0.05"/>
    <inertia ixx="2e-5" ixy="0" ixz="0" iyy="2e-5" iyz="0" izz="1e-5"/></inertial></link>
  <link name="right"><inertial><origin xyz="0 -0.01 0.04"/><mass value="0.05"/>
    <inertia ixx="2e-5" ixy="0" ixz="0" iyy="2e-5" iyz="0" izz="1e-5"/></inertial></link>
  <joint name="finger_joint1" type="prismatic"><parent link="palm"/><child link="left"/>
    <origin xyz="0 0 0.06"/><axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="20" velocity="0.2"/></joint>
  <joint name="finger_joint2" type="prismatic"><parent link="palm"/><child link="right"/>
    <origin xyz="0 0 0.06" rpy="0 0 3.14159"/><axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="20" velocity="0.2"/>
    <mimic joint="finger_joint1"/></joint>
</robot>"""


def test_mimic_joints_are_refused_by_default_and_loaded_as_independent_on_request():
    """Panda's, Talos' and PR2's grippers have mimic joints: refused unless mimic="independent",
    which loads them as Pinocchio's buildModel does by default (each with its own q)."""
    with pytest.raises(ValueError, match=r"^source: joint 'finger_joint2' is a mimic joint \(it copies joint "
                                         r"'finger_joint1'\).*mimic=\"independent\""):
        sb.Tree.from_urdf(GRIPPER)
    with pytest.raises(ValueError, match=r"^mimic: expected 'refuse' or 'independent', got True"):
        sb.Tree.from_urdf(GRIPPER, mimic=True)
    for floating_base in (False, True):
        tree = sb.Tree.from_urdf(GRIPPER, floating_base=floating_base, mimic="independent")
        model = (pin.buildModelFromXML(GRIPPER, pin.JointModelFreeFlyer()) if floating_base
                 else pin.buildModelFromXML(GRIPPER))
        assert list(tree.joint_names) == list(model.names)[1:] and tree.nv == model.nv
        rng = np.random.default_rng(7)
        q = rng.normal(size=tree.nq)
        for _, k in free_blocks(tree):
            q[k + 3:k + 7] = [0.5, 0.5, -0.5, 0.5]
        qd, qdd, tau = (rng.normal(size=tree.nv) for _ in range(3))
        assert_agrees_with_pinocchio(model, tree, q, qd, qdd, tau, [0, 0, -9.81])


@pytest.mark.parametrize("axis", ["1 1 0", "0.7071 0 0.7071", "0 0 -2"])
def test_non_unit_urdf_axes_are_normalised_as_pinocchio_does(axis):
    """The URDF spec asks for unit axes, but files carry rounded (0.7071) and unnormalised ones;
    Pinocchio's parser (like MuJoCo's compiler) normalises them, and so does the loader."""
    xml = GRIPPER.replace('<origin xyz="0 0 0.06"/><axis xyz="0 1 0"/>', f'<origin xyz="0 0 0.06"/><axis xyz="{axis}"/>')
    xml = xml.replace('<mimic joint="finger_joint1"/>', "")
    tree = sb.Tree.from_urdf(xml)
    model = pin.buildModelFromXML(xml)
    q, qd, qdd, tau = np.array([0.01, 0.02]), np.array([0.3, -0.2]), np.array([1.0, 2.0]), np.array([0.5, -0.5])
    assert_agrees_with_pinocchio(model, tree, q, qd, qdd, tau, [0.0, -3.0, -9.0])


def test_a_urdf_file_is_read_in_the_encoding_its_xml_declaration_names(tmp_path):
    text = GRIPPER.replace('name="gripper"', 'name="pince à doigts"').replace("<mimic joint=\"finger_joint1\"/>", "")
    path = tmp_path / "pince.urdf"
    path.write_bytes(('<?xml version="1.0" encoding="iso-8859-1"?>\n' + text).encode("iso-8859-1"))
    tree = sb.Tree.from_urdf(path)
    assert tree.joint_names == ("finger_joint1", "finger_joint2")
    np.testing.assert_allclose(sb.mass_matrix(tree, [0.0, 0.0]), sb.mass_matrix(sb.Tree.from_urdf(text), [0.0, 0.0]))


ROUNDED_QPOS = """<mujoco><compiler angle="radian"/>
  <option gravity="0.5 -1 -9.81"><flag contact="disable" constraint="disable" spring="disable" damper="disable"/></option>
  <worldbody><body name="trunk" pos="0 0 0.3">
    <freejoint name="root"/><inertial pos="0.02 0 0.01" mass="5" diaginertia="0.05 0.08 0.1"/>
    <body name="leg" pos="0.2 0.1 0"><joint name="hip" axis="1 0 0"/>
      <inertial pos="0 0 -0.1" mass="1" diaginertia="0.01 0.01 0.002"/></body>
  </body></worldbody>
</mujoco>"""


def test_a_rounded_quaternion_in_qpos_is_read_as_mujoco_reads_it():
    """A qpos written by hand or read from a log carries quaternions rounded to a few digits
    (|quat| - 1 ~ 1e-5); MuJoCo's kinematics normalises them, and so does state_from_mujoco:
    its tau matches mj_inverse."""
    model = mujoco.MjModel.from_xml_string(ROUNDED_QPOS)
    data = mujoco.MjData(model)
    data.qpos[:] = [0.1, 0.2, 0.3, 0.7071, 0, 0, 0.7071, 0.4]
    assert abs(np.linalg.norm(data.qpos[3:7]) - 1) > 1e-6
    data.qvel[:] = [0.1, -0.2, 0.3, 0.5, -0.4, 0.2, 1.0]
    mujoco.mj_forward(model, data)
    M = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, M)
    data.qacc[:] = [0.3, 0.1, -0.2, 0.4, 0.5, -0.6, 2.0]
    mujoco.mj_inverse(model, data)
    tree = sb.Tree.from_mujoco(model)
    q, qd = tree.state_from_mujoco(data.qpos, data.qvel)
    np.testing.assert_allclose(q[3:7], np.array([0.7071, 0, 0, 0.7071]) / np.linalg.norm([0.7071, 0.7071]), rtol=1e-15)
    unit = data.qpos.copy()
    unit[3:7] = q[3:7]
    qdd, tau, H = from_mujoco_dynamics(tree, unit, data.qvel.copy(), data.qacc.copy(), data.qfrc_inverse.copy(), M)
    close(sb.inverse_dynamics(tree, q, qd, qdd, model.opt.gravity), tau)
    close(sb.mass_matrix(tree, q), H)
    with pytest.raises(ValueError, match=r"^qpos: expected a non-zero quaternion .*free joint 'root'"):
        tree.state_from_mujoco(np.r_[0.1, 0.2, 0.3, 0, 0, 0, 0, 0.4])


def _urdf_for_mujoco(xml, compiler):
    """The URDF with a <mujoco><compiler .../></mujoco> block, as MuJoCo's URDF import reads it."""
    return xml.replace('<robot name="legged">', f'<robot name="legged"><mujoco><compiler {compiler}/></mujoco>', 1)


def test_balance_inertia_matches_mujocos_balanceinertia_and_the_refusal_names_it():
    """Allegro's, Romeo's and PR2's URDFs carry link inertias whose principal moments break the
    triangle inequality.  Refused by default (naming joint, link and the option); with
    balance_inertia=True such a link's moments become their mean, as MuJoCo's compiler option
    balanceinertia does: tau and H equal mj_inverse's and mj_fullM's on the same URDF."""
    xml = ROBOT.format(link_extra="").replace('ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.0004"',
                                              'ixx="0.001" ixy="0.0001" ixz="0" iyy="0.0012" iyz="0" izz="0.01"')
    xml = xml.replace('ixx="1e-6" ixy="1e-6" ixz="1e-6" iyy="1e-6" iyz="1e-6" izz="1e-6"',   # MuJoCo checks the dummy too
                      'ixx="1e-6" ixy="0" ixz="0" iyy="1e-6" iyz="0" izz="1e-6"')
    with pytest.raises(ValueError, match=r"^source: the body moved by joint 'knee' \(made of \"link 'shank'\".*triangle.*"
                                         r"balance_inertia=True.*balanceinertia"):
        sb.Tree.from_urdf(xml)
    with pytest.raises(ValueError, match=r"^balance_inertia: expected True or False"):
        sb.Tree.from_urdf(xml, balance_inertia="yes")
    with pytest.raises(ValueError, match=r"inertia must satisfy A \+ B >= C"):
        mujoco.MjModel.from_xml_string(_urdf_for_mujoco(xml, 'fusestatic="false"'))
    tree = sb.Tree.from_urdf(xml, balance_inertia=True)
    model = mujoco.MjModel.from_xml_string(_urdf_for_mujoco(xml, 'balanceinertia="true" fusestatic="false"'))
    model.opt.disableflags |= (mujoco.mjtDisableBit.mjDSBL_CONSTRAINT | mujoco.mjtDisableBit.mjDSBL_DAMPER
                               | mujoco.mjtDisableBit.mjDSBL_FRICTIONLOSS)
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(model.njnt)]
    order = [names.index(n) for n in tree.joint_names]  # MuJoCo's joint order -> the Tree's
    data = mujoco.MjData(model)
    rng = np.random.default_rng(3)
    data.qpos[:], data.qvel[:] = rng.normal(size=(2, model.nv))
    mujoco.mj_forward(model, data)
    M = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, M)
    data.qacc[:] = rng.normal(size=model.nv)
    mujoco.mj_inverse(model, data)
    q, qd, qdd = data.qpos[order], data.qvel[order], data.qacc[order]
    close(sb.inverse_dynamics(tree, q, qd, qdd, model.opt.gravity), data.qfrc_inverse[order])
    close(sb.mass_matrix(tree, q), M[np.ix_(order, order)])
    unbalanced_links = sb.Tree.from_urdf(ROBOT.format(link_extra=""), balance_inertia=True)
    np.testing.assert_array_equal(unbalanced_links.inertias, sb.Tree.from_urdf(ROBOT.format(link_extra="")).inertias)


def test_balance_inertia_does_not_hide_a_negative_moment():
    """romeo_laas_small's links carry inertias with a negative principal moment: MuJoCo refuses
    them before balancing, and so does the loader, with or without balance_inertia."""
    xml = ROBOT.format(link_extra="").replace('ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.0004"',
                                              'ixx="0.004" ixy="0" ixz="0.0045" iyy="0.004" iyz="0" izz="0.0004"')
    for balance in (False, True):
        with pytest.raises(ValueError, match=r"^source: the body moved by joint 'knee' .*not physical: expected a positive semi-definite"):
            sb.Tree.from_urdf(xml, balance_inertia=balance)


# --- MJCF features met in MuJoCo Menagerie's models ------------------------------------------


def _agree_with_mujoco(model, seed=0, states=3):
    """tau, H and qdd of sb.Tree.from_mujoco(model) against mj_inverse, mj_fullM and mj_forward
    (with qfrc_applied) at random states, MuJoCo's extra effects switched off."""
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT | mujoco.mjtDisableBit.mjDSBL_SPRING
                                  | mujoco.mjtDisableBit.mjDSBL_DAMPER | mujoco.mjtDisableBit.mjDSBL_ACTUATION)
    model.dof_armature[:] = 0
    tree = sb.Tree.from_mujoco(model)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(seed)
    for _ in range(states):
        qpos, qvel, qacc = mujoco_random_state(model, rng)
        model.opt.gravity[:] = rng.normal(size=3) * 5
        data.qpos[:], data.qvel[:], data.qfrc_applied[:] = qpos, qvel, 0
        mujoco.mj_forward(model, data)
        M = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, M)
        data.qacc[:] = qacc
        mujoco.mj_inverse(model, data)
        qpos = data.qpos.copy()
        q, qd = tree.state_from_mujoco(qpos, qvel)
        qdd, tau, H = from_mujoco_dynamics(tree, qpos, qvel, qacc, data.qfrc_inverse.copy(), M)
        close(sb.inverse_dynamics(tree, q, qd, qdd, model.opt.gravity), tau)
        close(sb.mass_matrix(tree, q), H)
        applied = rng.normal(size=model.nv)
        data.qfrc_applied[:] = applied
        mujoco.mj_forward(model, data)
        qdd, tau, _ = from_mujoco_dynamics(tree, qpos, qvel, data.qacc.copy(), applied, M)
        close(sb.forward_dynamics(tree, q, qd, tau, model.opt.gravity), qdd)
    return tree


ARM_AND_CUBE = """<mujoco>
  <worldbody>
    <body name="link1" pos="0 0 0.1"><joint name="joint1" axis="0 0 1"/>
      <inertial pos="0 0.03 0.1" mass="2" diaginertia="0.02 0.02 0.01"/>
      <body name="link2" pos="0 0 0.2" quat="1 1 0 0"><joint name="joint2" axis="0 0 1"/>
        <inertial pos="0.1 0 0.02" mass="1" diaginertia="0.01 0.008 0.004"/>
        <body pos="0.2 0 0"><joint axis="1 0 0" pos="0 0.01 0"/>
          <inertial pos="0.02 0 0" mass="0.2" diaginertia="0.001 0.001 0.0005"/></body>
      </body>
    </body>
    <body name="cube" pos="0.5 0 0.05"><freejoint/><geom type="box" size="0.02 0.03 0.04" mass="0.1"/></body>
  </worldbody>
</mujoco>"""


def test_an_unnamed_joint_does_not_take_the_name_of_a_named_one():
    """A Menagerie scene includes an arm whose joints are named joint1, joint2, ... and adds
    unnamed joints (an object's free joint, a gripper's hinge); MuJoCo numbers them on, so the
    fallback name joint<id> can be taken (here id 2: joint2), and the Tree refused the duplicate.
    Such a joint is now called <body>_joint<id>; the dynamics still agree with MuJoCo's."""
    model = mujoco.MjModel.from_xml_string(ARM_AND_CUBE)
    tree = _agree_with_mujoco(model)
    assert tree.joint_names == ("joint1", "joint2", "body3_joint2", "joint3")
    assert tree.kinds == ("revolute", "revolute", "revolute", "free")


MENAGERIE_FEATURES = """<mujoco>
  <compiler angle="degree" eulerseq="zyx"/>
  <default>
    <default class="follower"><joint axis="1 0 0" pos="0 -0.018 0.0065" range="-50 50"/></default>
  </default>
  <worldbody>
    <body name="target" mocap="true" pos="1 0 1"><geom size="0.05" mass="1"/></body>
    <body name="pelvis" pos="0 0 1">
      <body name="camera" pos="-0.16 0 0.014" euler="180 60 0" gravcomp="0">
        <inertial pos="0 0 0" mass="0.115" diaginertia="1.4e-4 3.9e-5 1.3e-4"/></body>
      <inertial pos="-0.05 0 -0.07" quat="0.66 0.66 0.25 -0.25" mass="7.4" diaginertia="0.063 0.051 0.028"/>
      <joint name="floating_base" type="free"/>
      <body name="hip" pos="0.02 0.13 0" xyaxes="0 0 -1 0 1 0">
        <inertial pos="-0.018 0.0001 -0.044" mass="1.82" fullinertia="0.0034 0.0038 0.0021 -6.7e-07 -0.00084 4e-06"/>
        <joint name="hip" type="hinge" ref="-45" range="-164 -37"/>
        <body name="hip-spring" pos="0.06 0.08 0">
          <inertial pos="0.08 0.003 0" mass="0.19" fullinertia="5.2e-05 0.00041 0.00037 6.9e-06 0 0"/></body>
        <body name="shin" pos="0.06 0.05 0"><joint name="shin" type="hinge" ref="58"/>
          <inertial pos="0.18 0.001 0.0002" mass="0.58"
            fullinertia="0.00036 0.0147 0.0147 -0.00021 2.3e-05 -1.2e-07"/></body>
      </body>
    </body>
    <body name="base_link">
      <inertial pos="0 0 0.035" mass="60" diaginertia="0.001 0.001 0.001"/>
      <joint name="joint_x" type="slide" axis="1 0 0"/>
      <joint name="joint_y" type="slide" axis="0 1 0"/>
      <joint name="joint_th"/>
      <body name="arm_base" pos="0 0 0.335">
        <inertial pos="-0.0006 -0.0002 0.084" mass="1.7" diaginertia="0.0046 0.0045 0.0021"/>
        <body name="driver" pos="0 0.03 0.055"><joint name="driver" axis="1 0 0" range="0 46"/>
          <inertial pos="0 0.018 0.001" quat="0.68 0.73 0 0" mass="0.009" diaginertia="1.7e-06 1.6e-06 3.2e-07"/>
          <body name="follower" pos="0 0.055 0.0375"><joint name="follower" class="follower"/>
            <inertial pos="0 -0.011 0.012" quat="1 0.1664 0 0" mass="0.0125" diaginertia="2.7e-06 2.5e-06 6e-07"/>
            <body name="pad" pos="0 -0.019 0.0135">
              <inertial pos="0 -0.0025 0.0185" quat="1 0 0 1" mass="0.0035" diaginertia="4.7e-07 3.6e-07 1.2e-07"/>
              <body name="silicone_pad"/>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def test_mjcf_features_of_menagerie_robots_agree_with_mujoco():
    """What Menagerie's MJCF (MuJoCo 4.0) showed, in one model: a mocap body; a free joint
    declared after welded child bodies placed by euler angles with eulerseq="zyx" (Apptronik
    Apollo's pelvis cameras); angles in degrees, xyaxes, fullinertia and hinge ref (Agility
    Cassie's legs, its knee spring welded); a mobile base with slide, slide and hinge joints in
    one body, and a gripper hinge whose anchor comes from a default class, with a massless
    welded pad (Stanford Tidybot).  tau, H and qdd equal MuJoCo's; q = 0 is qpos0."""
    model = mujoco.MjModel.from_xml_string(MENAGERIE_FEATURES)
    tree = _agree_with_mujoco(model, seed=3)
    assert tree.joint_names == ("floating_base", "hip", "shin", "joint_x", "joint_y", "joint_th", "driver", "follower")
    assert tree.nq == model.nq and tree.nv == model.nv
    qpos0 = model.qpos0.copy()
    qpos, _ = tree.mujoco_state(np.r_[qpos0[:7], np.zeros(tree.nq - 7)])
    np.testing.assert_allclose(qpos, qpos0, rtol=0, atol=1e-15)
