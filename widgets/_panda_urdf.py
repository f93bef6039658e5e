"""The Franka Emika Panda's URDF, embedded so that the arm explorer (E11) needs no file path
(live mode ships only the packages' .py files to the browser).

A verbatim copy of ``book/models/panda.urdf``; ``tests/test_widget_arm.py`` fails when they differ.
Regenerate it from that file rather than editing it here.
"""

PANDA_URDF = r'''<?xml version="1.0"?>
<!--
  The Franka Emika Panda (7 revolute joints), written for the spatialbook from published numbers.
  No meshes, no gripper: link 1 to link 7 and the flange frame. Units: m, kg, kg m^2, rad.

  KINEMATICS - Franka Emika's documented modified (Craig) Denavit-Hartenberg parameters
  ("Robot and interface specifications", Franka Control Interface documentation,
  frankaemika.github.io/docs/control_parameters.html). Frame i relative to frame i-1:
      T = RotX(alpha) TransX(a) RotZ(theta_i) TransZ(d)
  so at theta = 0 frame i sits at (a, -d sin(alpha), d cos(alpha)) turned by RotX(alpha):

      joint     a (m)     d (m)    alpha (rad)
      1         0         0.333    0
      2         0         0        -pi/2
      3         0         0.316    pi/2
      4         0.0825    0        pi/2
      5        -0.0825    0.384    -pi/2
      6         0         0        pi/2
      7         0.088     0        pi/2
      flange    0         0.107    0        (fixed)

  Every joint turns about the z axis of its own frame. Joint limits (rad), joint speed limits
  (rad/s) and torque limits (N m) from the same page:
      q_min  = -2.8973 -1.7628 -2.8973 -3.0718 -2.8973 -0.0175 -2.8973
      q_max  =  2.8973  1.7628  2.8973 -0.0698  2.8973  3.7525  2.8973
      dq_max =  2.1750  2.1750  2.1750  2.1750  2.6100  2.6100  2.6100
      tau_max = 87 87 87 87 12 12 12

  INERTIA - per link: mass (kg), centre of mass in the link frame (m), inertia tensor about
  the centre of mass in link-frame axes (kg m^2). The numbers are those of MuJoCo Menagerie's
  franka_emika_panda/panda_nohand.xml (compared entry by entry: they agree), whose README says
  its inertial parameters were matched to franka_description's robots/common/inertial.yaml
  (franka_ros). That set is commonly attributed to the identification by C. Gaz, M. Cognetti,
  A. Oliva, P. Robuffo Giordano, A. De Luca, "Dynamic Identification of the Franka Emika Panda
  Robot With Retrieval of Feasible Parameters Using Penalty-Based Optimization", IEEE Robotics
  and Automation Letters 4(4):4147-4154, 2019 (doi 10.1109/LRA.2019.2931248), but not every
  number is an identified one: link 1's centre-of-mass z (-0.04762 m) is franka_description's
  and Menagerie's value, not one published by Gaz et al. (see below).
  Caveats (read before trusting a digit):
  - These are identified values, rounded to 4-7 significant digits as published; they are an
    approximation of one robot, not ground truth. No gripper or payload is modelled (the
    Franka Hand, roughly 0.7 kg, is not included: add it as a welded body if you need it).
  - Link 1's centre-of-mass z and its moments Ixx, Iyy (0.70337, 0.70661: a radius of gyration
    of 0.38 m for a 5 kg link, physically implausible) do not enter the dynamics of a fixed
    base arm (link 1 only turns about z, so H(q) and the joint torques do not depend on them;
    book chapter 12 checks it), so identification cannot fix them: treat them as placeholders
    that merely keep the tensor feasible.
  - Friction (identified in the same paper) and motor inertia (armature) are left out: this
    file is the rigid-body model only.

  THIS FILE (URDF): the same robot as panda.xml. Each joint's <origin> is the DH row in its
  comment (rpy = "alpha 0 0" is RotX(alpha)); <axis> is z. <inertial> origin = centre of mass,
  <inertia> = tensor about it in link axes. link0 is the fixed base; "flange" is welded to
  link7 (a fixed joint: sb.Tree.from_urdf merges it, it has no mass). No <dynamics>: the
  rigid-body model only. No visual or collision geometry.
-->
<robot name="panda">
  <link name="link0"/>
  <link name="link1">
    <inertial>
      <origin xyz="0.003875 0.002081 -0.04762" rpy="0 0 0"/>
      <mass value="4.970684"/>
      <inertia ixx="0.70337" iyy="0.70661" izz="0.009117" ixy="-0.000139" ixz="0.006772" iyz="0.019169"/>
    </inertial>
  </link>
  <link name="link2">
    <inertial>
      <origin xyz="-0.003141 -0.02872 0.003495" rpy="0 0 0"/>
      <mass value="0.646926"/>
      <inertia ixx="0.007962" iyy="0.02811" izz="0.025995" ixy="-0.003925" ixz="0.010254" iyz="0.000704"/>
    </inertial>
  </link>
  <link name="link3">
    <inertial>
      <origin xyz="0.027518 0.039252 -0.066502" rpy="0 0 0"/>
      <mass value="3.228604"/>
      <inertia ixx="0.037242" iyy="0.036155" izz="0.01083" ixy="-0.004761" ixz="-0.011396" iyz="-0.012805"/>
    </inertial>
  </link>
  <link name="link4">
    <inertial>
      <origin xyz="-0.05317 0.104419 0.027454" rpy="0 0 0"/>
      <mass value="3.587895"/>
      <inertia ixx="0.025853" iyy="0.019552" izz="0.028323" ixy="0.007796" ixz="-0.001332" iyz="0.008641"/>
    </inertial>
  </link>
  <link name="link5">
    <inertial>
      <origin xyz="-0.011953 0.041065 -0.038437" rpy="0 0 0"/>
      <mass value="1.225946"/>
      <inertia ixx="0.035549" iyy="0.029474" izz="0.008627" ixy="-0.002117" ixz="-0.004037" iyz="0.000229"/>
    </inertial>
  </link>
  <link name="link6">
    <inertial>
      <origin xyz="0.060149 -0.014117 -0.010517" rpy="0 0 0"/>
      <mass value="1.666555"/>
      <inertia ixx="0.001964" iyy="0.004354" izz="0.005433" ixy="0.000109" ixz="-0.001158" iyz="0.000341"/>
    </inertial>
  </link>
  <link name="link7">
    <inertial>
      <origin xyz="0.010517 -0.004252 0.061597" rpy="0 0 0"/>
      <mass value="0.735522"/>
      <inertia ixx="0.012516" iyy="0.010027" izz="0.004815" ixy="-0.000428" ixz="-0.001196" iyz="-0.000741"/>
    </inertial>
  </link>
  <link name="flange"/>
  <joint name="joint1" type="revolute">   <!-- a = 0, d = 0.333, alpha = 0 -->
    <parent link="link0"/>
    <child link="link1"/>
    <origin xyz="0 0 0.333" rpy="0 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-2.8973" upper="2.8973" velocity="2.1750" effort="87"/>
  </joint>
  <joint name="joint2" type="revolute">   <!-- a = 0, d = 0, alpha = -pi/2 -->
    <parent link="link1"/>
    <child link="link2"/>
    <origin xyz="0 0 0" rpy="-1.5707963267948966 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1.7628" upper="1.7628" velocity="2.1750" effort="87"/>
  </joint>
  <joint name="joint3" type="revolute">   <!-- a = 0, d = 0.316, alpha = pi/2 -->
    <parent link="link2"/>
    <child link="link3"/>
    <origin xyz="0 -0.316 0" rpy="1.5707963267948966 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-2.8973" upper="2.8973" velocity="2.1750" effort="87"/>
  </joint>
  <joint name="joint4" type="revolute">   <!-- a = 0.0825, d = 0, alpha = pi/2 -->
    <parent link="link3"/>
    <child link="link4"/>
    <origin xyz="0.0825 0 0" rpy="1.5707963267948966 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3.0718" upper="-0.0698" velocity="2.1750" effort="87"/>
  </joint>
  <joint name="joint5" type="revolute">   <!-- a = -0.0825, d = 0.384, alpha = -pi/2 -->
    <parent link="link4"/>
    <child link="link5"/>
    <origin xyz="-0.0825 0.384 0" rpy="-1.5707963267948966 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-2.8973" upper="2.8973" velocity="2.6100" effort="12"/>
  </joint>
  <joint name="joint6" type="revolute">   <!-- a = 0, d = 0, alpha = pi/2 -->
    <parent link="link5"/>
    <child link="link6"/>
    <origin xyz="0 0 0" rpy="1.5707963267948966 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-0.0175" upper="3.7525" velocity="2.6100" effort="12"/>
  </joint>
  <joint name="joint7" type="revolute">   <!-- a = 0.088, d = 0, alpha = pi/2 -->
    <parent link="link6"/>
    <child link="link7"/>
    <origin xyz="0.088 0 0" rpy="1.5707963267948966 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-2.8973" upper="2.8973" velocity="2.6100" effort="12"/>
  </joint>
  <joint name="flange_joint" type="fixed">   <!-- a = 0, d = 0.107, alpha = 0 -->
    <parent link="link7"/>
    <child link="flange"/>
    <origin xyz="0 0 0.107" rpy="0 0 0"/>
  </joint>
</robot>
'''
