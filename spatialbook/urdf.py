"""URDF robots read with the standard library into a Tree (``Tree.from_urdf``); what a loader
does is described in ``mjcf.py``."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET

import numpy as np

from ._loading import _ZERO6, _Builder, _axis6, _motion_transform, _rpy, _unit_axis


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


#: A URDF number: plain decimal digits, an optional point and exponent (what urdfdom's
#: stringstream reads).  Python's float() also takes "0_5" (as 5), "1_0" (10) and non-ASCII
#: digits ("١" as 1), which every other URDF reader refuses or reads differently.
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


def _number(token: str) -> float:
    """The float of one token, ValueError unless plain decimal syntax (or inf/nan, which the
    caller refuses as not finite)."""
    if _NUMBER.match(token) or token.lower().lstrip("+-") in ("inf", "infinity", "nan"):
        return float(token)
    raise ValueError(token)


def _floats(where: str, element, attribute: str, default: str, count: int) -> np.ndarray:
    text = default if element is None else element.get(attribute, default)
    what = "a number" if count == 1 else f"{count} numbers"
    tag = f"<{element.tag}> " if element is not None and f"<{element.tag}>" not in where else ""
    try:
        values = np.array([_number(v) for v in re.split(r"[ \t\n\r]+", text.strip(" \t\n\r")) if v])
    except ValueError:
        raise ValueError(f"{where}: expected {what} in {tag}{attribute}=\"{text}\" (plain decimal: "
                         f"ASCII digits, '.', an exponent)") from None
    if values.shape != (count,) or not np.all(np.isfinite(values)):
        raise ValueError(f"{where}: expected {what.replace('number', 'finite number')} in {tag}{attribute}=\"{text}\"")
    return values


#: the attributes of the elements read for the dynamics: any other is a misspelling (a silent
#: default would be a wrong number: <axis XYZ="0 0 1"/> read as the default x axis)
_MOMENTS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
_ATTRIBUTES = {"origin": {"xyz", "rpy"}, "mass": {"value"}, "inertia": set(_MOMENTS), "axis": {"xyz"},
               "parent": {"link"}, "child": {"link"}, "dynamics": {"damping", "friction"}}


def _refuse_attributes(where: str, element) -> None:
    if element is None:
        return
    unknown = sorted(set(element.attrib) - _ATTRIBUTES[element.tag])
    if unknown:
        raise ValueError(f"{where}: <{element.tag}> has unknown attribute(s) {unknown}; expected "
                         f"{', '.join(sorted(_ATTRIBUTES[element.tag]))} (a misspelt one would "
                         f"silently read as its default)")


def _origin(where: str, element):
    origin = element.find("origin")
    _refuse_attributes(where, origin)
    return _rpy(_floats(where, origin, "rpy", "0 0 0", 3)), _floats(where, origin, "xyz", "0 0 0", 3)


def _required(where: str, element, tag: str, attributes: tuple):
    """The child ``tag`` of ``element``, which must exist and carry every one of ``attributes``
    (as urdfdom, the ROS parser Pinocchio uses, requires of <mass> and <inertia>)."""
    found = element.find(tag)
    missing = attributes if found is None else [a for a in attributes if a not in found.attrib]
    if missing:
        raise ValueError(f"{where}: <inertial> needs <{tag} {' '.join(f'{a}=...' for a in attributes)}/>; "
                         + (f"<{tag}> is missing" if found is None else f"missing {', '.join(missing)}"))
    _refuse_attributes(where, found)
    return found


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
                             f"skipped); expected one of {sorted(allowed)}, or one of the ignored {sorted(_IGNORED.get(element.tag, ()))}")
    if element.tag != "robot":                           # (a robot has many links and joints)
        for tag in sorted(allowed):
            if len(element.findall(tag)) > 1:
                raise ValueError(f"{where}: expected at most one <{tag}> in <{element.tag}>, got "
                                 f"{len(element.findall(tag))} (only the first would be read)")


def _read_urdf(source):
    # XML text, after a byte-order mark too, or else a path
    is_text = isinstance(source, str) and source.lstrip("\ufeff").lstrip().startswith("<")
    if isinstance(source, (str, os.PathLike)) and not is_text:
        try:
            with open(source, "rb") as f:                # bytes: the XML declaration names the encoding
                text = f.read()
        except OSError as err:
            raise ValueError(f"source: expected a URDF file path or XML text, cannot read {str(source)!r:.80}: {err.strerror}") from None
    elif is_text:
        text = source.lstrip("\ufeff")
    else:
        raise ValueError(f"source: expected a URDF file path or XML text, got a {type(source).__name__}")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as err:
        raise ValueError(f"source: not well-formed XML ({err})") from None
    if root.tag != "robot":
        raise ValueError(f"source: expected a URDF <robot> element, got <{root.tag}>")
    return root


def read_urdf(source, make, floating_base=False, mimic="refuse", balance_inertia=False):
    """The Tree (made by ``make``, the Tree class) of a URDF robot: ``Tree.from_urdf``."""
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
        mass = float(_floats(where, _required(where, inertial, "mass", ("value",)), "value", "0", 1)[0])
        el = _required(where, inertial, "inertia", _MOMENTS)
        xx, xy, xz, yy, yz, zz = (float(_floats(where, el, k, "0", 1)[0]) for k in _MOMENTS)
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
            raise ValueError(f"{where} has type {kind!r}; expected one of revolute, continuous, prismatic, fixed, floating")
        _refuse_unknown(where, joint, {"parent", "child", "origin", "axis", "dynamics", "mimic"})
        for tag in ("parent", "child", "axis", "dynamics"):
            _refuse_attributes(where, joint.find(tag))
        dyn = joint.find("dynamics")
        if dyn is not None:                               # read (so malformed numbers are named), left out
            for attribute in ("damping", "friction"):
                _floats(f"{where}: <dynamics>", dyn, attribute, "0", 1)
        parent, child = (joint.find(t).get("link") if joint.find(t) is not None else None for t in ("parent", "child"))
        if parent not in links or child not in links:
            raise ValueError(f"{where}: expected <parent link=...> and <child link=...> naming links, got {parent!r}, {child!r}")
        if parent == child:
            raise ValueError(f"{where}: expected a child link other than its parent, got {child!r} for both")
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
    stack = [roots[0]]                                    # (a loop, not recursion: chains of any length)
    while stack:
        link = stack.pop()
        order.append(link)
        stack.extend(joints[j][2] for j in sorted(children.get(link, []), reverse=True))
    if len(order) != len(links):
        lost = sorted(set(links) - set(order))
        loop = sorted(name for name, j in joints.items() if j[2] in lost)
        raise ValueError(f"source: expected every link connected to the root {roots[0]!r}; links {lost} are "
                         f"not (their joints {loop} form a closed loop, which a tree cannot hold)")
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
    return out.build(make, "source", advice=" (or pass balance_inertia=True to set the principal moments of a link "
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
