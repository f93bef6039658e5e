"""The small biped's URDF, embedded so that the floating-biped experiment (E12) needs no file
path (live mode ships only the packages' .py files to the browser).

A verbatim copy of ``book/models/biped.urdf``; ``tests/test_widget_floating_biped.py`` fails when
they differ.  Regenerate it from that file rather than editing it here.
"""

BIPED_URDF = r'''<?xml version="1.0"?>
<!--
  A small biped made for the spatialbook (URDF): a torso on a free joint and two 3-dof legs.
  The robot is MADE UP: its masses and inertias are plausible round numbers for a robot about
  1.1 m tall and 19.2 kg, computed from simple solids (stated below), not a real machine.
  biped.xml is the same robot. Units: m, kg, kg m^2, rad.

  Bodies (inertia about the centre of mass, in body axes):
    torso  10 kg, solid box 0.2 x 0.3 x 0.4 m (x forward, y left, z up), COM at (0, 0, 0.15)
           from the torso frame (the pelvis point between the hips):
           Ixx = m (0.3^2 + 0.4^2)/12 = 0.2083, Iyy = m (0.2^2 + 0.4^2)/12 = 0.1667,
           Izz = m (0.2^2 + 0.3^2)/12 = 0.1083
    thigh  2.5 kg, solid cylinder r = 0.05 m, L = 0.35 m along -z, COM at (0, 0, -0.175):
           Ixx = Iyy = m (3 r^2 + L^2)/12 = 0.02708, Izz = m r^2/2 = 0.003125
    shin   1.5 kg, solid cylinder r = 0.04 m, L = 0.35 m along -z, COM at (0, 0, -0.175):
           Ixx = Iyy = 0.01591, Izz = 0.0012
    foot   0.6 kg, solid box 0.2 x 0.08 x 0.04 m, welded to the shin at the ankle
           (0, 0, -0.35), COM 0.03 m ahead and 0.02 m below the ankle:
           Ixx = 0.0004, Iyy = 0.00208, Izz = 0.00232
  Joints: no free joint is written here: load with sb.Tree.from_urdf(path, floating_base=True)
  (Pinocchio: buildModel(path, JointModelFreeFlyer())), which floats the root link, the
  torso. Per leg, at the hip (0, +-0.1, -0.05) in torso axes, hip_roll about x then
  hip_pitch about y (two hinges in one MuJoCo body, the same point; the URDF puts a massless
  link between them), and the knee about y at the end of the thigh.
  Positive pitch and knee angles swing the leg and the foot backwards (about +y).

  No visual or collision geometry, no <dynamics>: the rigid-body tree only. The ankles are
  fixed joints: the loaders merge each foot into its shin.
-->
<robot name="biped">
  <link name="torso">
    <inertial><origin xyz="0 0 0.15"/><mass value="10"/>
      <inertia ixx="0.2083" iyy="0.1667" izz="0.1083" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="left_hip"/>
  <link name="left_thigh">
    <inertial><origin xyz="0 0 -0.175"/><mass value="2.5"/>
      <inertia ixx="0.02708" iyy="0.02708" izz="0.003125" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="left_shin">
    <inertial><origin xyz="0 0 -0.175"/><mass value="1.5"/>
      <inertia ixx="0.01591" iyy="0.01591" izz="0.0012" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="left_foot">
    <inertial><origin xyz="0.03 0 -0.02"/><mass value="0.6"/>
      <inertia ixx="0.0004" iyy="0.00208" izz="0.00232" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="left_hip_roll" type="revolute">
    <parent link="torso"/><child link="left_hip"/>
    <origin xyz="0 0.1 -0.05" rpy="0 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-0.5" upper="0.5" effort="100" velocity="10"/>
  </joint>
  <joint name="left_hip_pitch" type="revolute">
    <parent link="left_hip"/><child link="left_thigh"/>
    <origin xyz="0 0 0" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.0" effort="100" velocity="10"/>
  </joint>
  <joint name="left_knee" type="revolute">
    <parent link="left_thigh"/><child link="left_shin"/>
    <origin xyz="0 0 -0.35" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="2.4" effort="100" velocity="10"/>
  </joint>
  <joint name="left_ankle" type="fixed">
    <parent link="left_shin"/><child link="left_foot"/>
    <origin xyz="0 0 -0.35" rpy="0 0 0"/>
  </joint>
  <link name="right_hip"/>
  <link name="right_thigh">
    <inertial><origin xyz="0 0 -0.175"/><mass value="2.5"/>
      <inertia ixx="0.02708" iyy="0.02708" izz="0.003125" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="right_shin">
    <inertial><origin xyz="0 0 -0.175"/><mass value="1.5"/>
      <inertia ixx="0.01591" iyy="0.01591" izz="0.0012" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="right_foot">
    <inertial><origin xyz="0.03 0 -0.02"/><mass value="0.6"/>
      <inertia ixx="0.0004" iyy="0.00208" izz="0.00232" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="right_hip_roll" type="revolute">
    <parent link="torso"/><child link="right_hip"/>
    <origin xyz="0 -0.1 -0.05" rpy="0 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-0.5" upper="0.5" effort="100" velocity="10"/>
  </joint>
  <joint name="right_hip_pitch" type="revolute">
    <parent link="right_hip"/><child link="right_thigh"/>
    <origin xyz="0 0 0" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.0" effort="100" velocity="10"/>
  </joint>
  <joint name="right_knee" type="revolute">
    <parent link="right_thigh"/><child link="right_shin"/>
    <origin xyz="0 0 -0.35" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="2.4" effort="100" velocity="10"/>
  </joint>
  <joint name="right_ankle" type="fixed">
    <parent link="right_shin"/><child link="right_foot"/>
    <origin xyz="0 0 -0.35" rpy="0 0 0"/>
  </joint>
</robot>
'''
