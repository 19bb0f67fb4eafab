#!/usr/bin/env python3
"""Writes the joint sample scenes of scenes/ (shared/docs/scene-format.md).

    python3 scripts/make_joint_scenes.py          # rewrite every joint sample
    python3 scripts/make_joint_scenes.py --check  # exit 1 if a file differs from what it would write

Each sample is a function returning the scene as plain dicts; numbers are rounded to 6 decimals
and written the way the engine's own pretty printer writes scenes (a short container holding no
object stays on one line). Python 3 standard library only.
"""

import json
import math
import os
import sys

SCENES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes")
SETTINGS = {"gravity": [0.0, -9.81, 0.0], "timestep": 0.016666668, "substeps": 4}
INLINE_WIDTH = 100
INDENT = 2

# ---- small vector and quaternion helpers (quaternions are [x, y, z, w]) ----


def add(a, b):
    return [a[0] + b[0], a[1] + b[1], a[2] + b[2]]


def sub(a, b):
    return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]


def scale(a, s):
    return [a[0] * s, a[1] * s, a[2] * s]


def length(a):
    return math.sqrt(a[0] ** 2 + a[1] ** 2 + a[2] ** 2)


def quat(axis, degrees):
    """Rotation by `degrees` about the unit `axis`."""
    half = math.radians(degrees) / 2.0
    s = math.sin(half)
    return [axis[0] * s, axis[1] * s, axis[2] * s, math.cos(half)]


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]


def rotate(q, v):
    """q v q*."""
    p = qmul(qmul(q, [v[0], v[1], v[2], 0.0]), [-q[0], -q[1], -q[2], q[3]])
    return p[:3]


IDENTITY = [0.0, 0.0, 0.0, 1.0]
CAPSULE_ALONG_X = quat([0.0, 0.0, 1.0], 90.0)  # capsules and cylinders are along local Y
CYLINDER_ALONG_Z = quat([1.0, 0.0, 0.0], 90.0)

# ---- scene pieces ----


def box(half_extents, **fields):
    return dict({"shape": {"type": "box", "half_extents": half_extents}}, **fields)


def sphere(radius, **fields):
    return dict({"shape": {"type": "sphere", "radius": radius}}, **fields)


def capsule(half_height, radius, **fields):
    return dict({"shape": {"type": "capsule", "half_height": half_height, "radius": radius}}, **fields)


def cylinder(half_height, radius, **fields):
    return dict({"shape": {"type": "cylinder", "half_height": half_height, "radius": radius}}, **fields)


def body(name, position, colliders, kind=None, **fields):
    entry = {"name": name}
    if kind is not None:
        entry["kind"] = kind
    entry["position"] = position
    entry.update(fields)
    entry["colliders"] = colliders
    return entry


def ground(top=0.0, half=(20.0, 0.5, 20.0)):
    return body("ground", [0.0, top - half[1], 0.0], [box(list(half))], kind="static")


def scene(description, bodies, joints, settings=None, materials=None):
    out = {"format": 1, "description": description, "settings": settings or dict(SETTINGS)}
    if materials:
        out["materials"] = materials
    out["bodies"] = bodies
    out["joints"] = joints
    return out


# ---- the samples ----


def rope_bridge():
    """As in the rope bridge of shared/seeds/000_29247595330d770f.txt, in metres: two fixed
    ends 12 spacings apart, 10 cubes between them one spacing apart, each joined to the next by
    a distance joint of maximum length 1.5 spacings (the seed's 30 for 20)."""
    spacing, half, height = 1.0, 0.2, 8.0
    bodies = [ground()]
    bodies.append(body("start", [0.0, height, 0.0], [box([half, half, half])], kind="static"))
    links = [f"link{i}" for i in range(10)]
    for i, name in enumerate(links):
        bodies.append(
            body(name, [spacing * (i + 1), height, 0.0], [box([half, half, half])], mass=1.0,
                 linear_damping=1.5, angular_damping=1.5)
        )
    bodies.append(body("end", [spacing * 11, height, 0.0], [box([half, half, half])], kind="static"))
    chain = ["start"] + links + ["end"]
    joints = []
    for i, (a, b) in enumerate(zip(chain, chain[1:])):
        joints.append({
            "name": f"rope{i}", "kind": "distance", "body_a": a, "body_b": b,
            "anchor_a": [spacing * i, height, 0.0], "anchor_b": [spacing * (i + 1), height, 0.0],
            "max_length": 1.5 * spacing,
        })
    return scene(
        "A rope bridge: "
        "10 cubes of 1 kg between two fixed ends 12 m apart, each joined to the next by a rope "
        "(distance joint with only max_length 1.5 m) between their centres. Released in a straight "
        "line, the ropes go taut and the bridge sags into a U, about 4.5 m deep, and comes to rest "
        "(the links have some air damping).",
        bodies, joints)


def newtons_cradle():
    """Five touching steel balls, each hung from the frame on two strings in a V (so it swings in
    one plane); the first is pulled back 35 degrees."""
    radius, bar_y, drop, half_width = 0.1, 1.97, 0.97, 0.3
    pull = math.radians(35.0)
    bodies = [ground(), body("frame", [0.4, bar_y + 0.03, 0.0], [box([0.8, 0.03, 0.4])], kind="static")]
    joints = []
    string = math.sqrt(drop ** 2 + half_width ** 2)
    for i in range(5):
        x = 2.0 * radius * i
        centre = [x, bar_y - drop, 0.0]
        if i == 0:
            centre = [x - drop * math.sin(pull), bar_y - drop * math.cos(pull), 0.0]
        bodies.append(body(f"ball{i}", centre, [sphere(radius, material="steel")]))
        for side, z in (("front", half_width), ("back", -half_width)):
            joints.append({
                "name": f"string{i}_{side}", "kind": "distance", "body_a": "frame", "body_b": f"ball{i}",
                "anchor_a": [x, bar_y, z], "anchor_b": centre, "rest_length": string,
            })
    settings = dict(SETTINGS, substeps=8, sleep=False)
    return scene(
        "Newton's cradle: five touching steel balls of 10 cm radius (restitution 1, no friction), each "
        "hung from the frame by two strings in a V (rigid distance joints of 1.015 m), the first pulled "
        "back 35 degrees. The swing passes through the row: the last ball flies out and the first stops.",
        bodies, joints, settings=settings,
        materials={"steel": {"friction": 0.0, "restitution": 1.0, "density": 7800.0}})


def swinging_rope():
    """The ninja rope of shared/seeds/000_29247595330d770f.txt: a worm (sphere) on a rope of maximum
    length 4 m from a point under a ceiling girder."""
    bodies = [
        body("floor", [0.0, -0.25, 0.0], [box([10.0, 0.25, 2.0])], kind="static"),
        body("ceiling", [0.0, 8.25, 0.0], [box([6.0, 0.25, 1.0])], kind="static"),
        body("worm", [-2.5, 5.6, 0.0], [sphere(0.3)], mass=20.0, linear_velocity=[4.0, 0.0, 0.0]),
        body("other_worm", [4.0, 0.3, 0.0], [sphere(0.3)], mass=20.0),
    ]
    joints = [{
        "name": "ninja_rope", "kind": "distance", "body_a": "ceiling", "body_b": "worm",
        "anchor_a": [0.0, 8.0, 0.0], "anchor_b": [-2.5, 5.6, 0.0], "max_length": 4.0,
    }]
    return scene(
        "A ninja rope, as in the game Worms: a 20 kg worm fired its rope "
        "at a point under the ceiling girder and runs off at 4 m/s. The rope (a distance joint with "
        "only max_length 4 m) is slack at first; the worm falls until it is taut, then swings under "
        "the girder. It pulls, never pushes. Another worm waits on the floor girder.",
        bodies, joints)


def door_hinge():
    """A wooden door hinged to a post along its left edge, opened by a thrown ball."""
    hinge = [0.0, 1.05, 0.0]
    bodies = [
        ground(),
        body("post", [-0.05, 1.05, 0.0], [box([0.05, 1.05, 0.05])], kind="static"),
        body("door", [0.46, 1.05, 0.0], [box([0.45, 1.0, 0.025], material="wood")]),
        body("ball", [0.75, 1.2, 1.2], [sphere(0.15)], mass=6.0, linear_velocity=[0.0, 1.5, -6.0]),
    ]
    joints = [{
        "name": "hinge", "kind": "hinge", "body_a": "post", "body_b": "door", "anchor": hinge,
        "axis": [0.0, 1.0, 0.0], "limits": {"lower": 0.0, "upper": 1.5},
        "motor": {"target_velocity": 0.0, "max_force": 3.0},
    }]
    return scene(
        "A 54 kg wooden door hinged to a post along its left edge (hinge about Y, limits 0 to 1.5 rad: "
        "closed to 86 degrees open). A 6 kg ball thrown at 6 m/s pushes it open; a velocity motor with "
        "target 0 and at most 3 N·m stands in for the hinge's friction. The door stops at its limit.",
        bodies, joints, materials={"wood": {"density": 600.0, "friction": 0.5}})


def pistol_slide():
    """A pistol slide recoiling on its frame: prismatic joint with limits and a recoil spring."""
    bodies = [
        ground(),
        body("frame", [0.0, 1.0, 0.0], [box([0.1, 0.015, 0.012])], kind="static"),
        body("slide", [0.0, 1.03, 0.0], [box([0.095, 0.014, 0.013])], mass=0.35,
             linear_velocity=[-5.0, 0.0, 0.0]),
    ]
    joints = [{
        "name": "rails", "kind": "prismatic", "body_a": "frame", "body_b": "slide", "anchor": [0.0, 1.03, 0.0],
        "axis": [1.0, 0.0, 0.0], "limits": {"lower": -0.065, "upper": 0.0},
        "spring": {"frequency_hz": 6.0, "damping_ratio": 0.15},
    }]
    return scene(
        "A pistol slide on its frame (held in a vise): a prismatic joint along X with limits -6.5 cm "
        "(the rear stop) to 0 (in battery) and a recoil spring (6 Hz, damping ratio 0.15) pulling it "
        "back to 0. Fired, the 350 g slide recoils at 5 m/s, hits the rear stop, and the spring returns "
        "it forward into battery.",
        bodies, joints)


def roller_coaster():
    """A suspended coaster car on a straight rail: a line joint along the rail with end buffers
    (limits) and a spring standing in for the dip of the track."""
    rail_y = 6.0
    bodies = [
        ground(half=(20.0, 0.5, 5.0)),
        body("rail", [0.0, rail_y, 0.0], [box([10.0, 0.05, 0.1])], kind="static"),
        body("car", [-6.0, 4.6, 0.0],
             [box([0.8, 0.5, 0.6]), box([0.05, 0.4, 0.05], position=[0.0, 0.9, 0.0])], mass=400.0),
    ]
    joints = [{
        "name": "track", "kind": "line", "body_a": "rail", "body_b": "car",
        "local_anchor_a": [0.0, -0.05, 0.0], "local_anchor_b": [0.0, 1.35, 0.0], "axis": [1.0, 0.0, 0.0],
        "limits": {"lower": -9.0, "upper": 9.0},
        "spring": {"frequency_hz": 0.12, "damping_ratio": 0.02},
    }]
    return scene(
        "A suspended roller coaster car hanging from its rail by a line joint: its bogie (1.35 m above "
        "the car's centre) slides along the rail (X) while the car swings freely under it. The anchors "
        "are local: the rail's is its centre, so the car starts 6 m along. Buffers at ±9 m are the "
        "limits; a soft spring (0.12 Hz) stands in for the dip of the track (a valley of about 17 m "
        "radius: f = sqrt(g/R)/2π), so the car rolls to and fro, swinging as it speeds up and slows down.",
        bodies, joints)


def block_and_tackle():
    """A pulley joint with ratio 2: len_a + 2·len_b stays constant."""
    ground_a, ground_b = [-1.0, 4.85, 0.0], [1.0, 4.85, 0.0]
    bodies = [
        ground(),
        body("beam", [0.0, 5.1, 0.0], [box([1.5, 0.1, 0.2])], kind="static"),
        body("sheave_a", ground_a, [cylinder(0.03, 0.12, rotation=CYLINDER_ALONG_Z)], kind="static"),
        body("sheave_b", ground_b, [cylinder(0.03, 0.12, rotation=CYLINDER_ALONG_Z)], kind="static"),
        body("counterweight", [-1.0, 2.5, 0.0], [box([0.2, 0.2, 0.2])], mass=20.0),
        body("load", [1.0, 1.0, 0.0], [box([0.3, 0.25, 0.3])], mass=30.0),
    ]
    joints = [{
        "name": "tackle", "kind": "pulley", "body_a": "counterweight", "body_b": "load",
        "anchor_a": [-1.0, 2.7, 0.0], "anchor_b": [1.0, 1.25, 0.0],
        "ground_anchor_a": ground_a, "ground_anchor_b": ground_b, "ratio": 2.0,
    }]
    return scene(
        "A block and tackle: a pulley joint of ratio 2 (len_a + 2·len_b constant) between a 20 kg "
        "counterweight and a 30 kg load hung from two sheaves on a beam. With a mechanical advantage of "
        "2 the counterweight wins: it falls at a = g·(2·20 − 30)/(2·20 + 30/2) = 1.78 m/s² and lifts "
        "the load at half its speed until it lands.",
        bodies, joints)


def weld_cantilever():
    """Five boxes welded end to end to a wall."""
    height, half = 2.0, [0.25, 0.1, 0.2]
    bodies = [ground(), body("wall", [-0.1, 1.5, 0.0], [box([0.1, 1.5, 1.0])], kind="static")]
    joints = []
    previous = "wall"
    for i in range(5):
        name = f"segment{i}"
        bodies.append(body(name, [0.25 + 0.5 * i, height, 0.0], [box(half, density=500.0)]))
        joints.append({"name": f"weld{i}", "kind": "weld", "body_a": previous, "body_b": name,
                       "anchor": [0.5 * i, height, 0.0]})
        previous = name
    return scene(
        "A cantilever of five 20 kg boxes (0.5 x 0.2 x 0.4 m) welded end to end to a wall, 2.5 m long. "
        "Rigid welds hold it straight: the tip sags less than a centimetre.",
        bodies, joints)


def gear_pair():
    """Two hinged wheels coupled by a gear of ratio 2, the big one driven by a motor."""
    def wheel(name, x, radius):
        spoke = box([radius * 0.4, 0.02, 0.06], position=[radius * 0.45, 0.0, 0.0])
        return body(name, [x, 1.5, 0.0],
                    [cylinder(0.05, radius, rotation=CYLINDER_ALONG_Z, density=800.0), spoke])
    bodies = [ground(), wheel("big_wheel", 0.0, 0.4), wheel("small_wheel", 0.6, 0.2)]
    joints = [
        {"name": "drive", "kind": "hinge", "body_b": "big_wheel", "anchor": [0.0, 1.5, 0.0],
         "axis": [0.0, 0.0, 1.0], "motor": {"target_velocity": 2.0, "max_force": 20.0}},
        {"name": "driven", "kind": "hinge", "body_b": "small_wheel", "anchor": [0.6, 1.5, 0.0],
         "axis": [0.0, 0.0, 1.0]},
        {"name": "mesh", "kind": "gear", "hinge_a": "drive", "hinge_b": "driven", "ratio": 2.0},
    ]
    return scene(
        "A gear pair: a 0.4 m wheel and a 0.2 m wheel hinged to the world about Z, their rims touching. "
        "A gear joint of ratio 2 couples their angles (θ_small = −2·θ_big, as meshing teeth would, and "
        "keeps them from colliding); a motor drives the big wheel at 2 rad/s (at most 20 N·m), so the "
        "small one turns the other way at 4 rad/s. The spokes show the turning.",
        bodies, joints)


def heavy_chain():
    """The acceptance chain: 20 capsule links 0.5 m long and a 100 kg ball, released horizontally."""
    spacing, height = 0.5, 12.0
    groups = {"memberships": 2, "filter": 0xFFFFFFFF & ~2}
    bodies = [ground()]
    joints = []
    previous = None
    for i in range(20):
        name = f"link{i}"
        bodies.append(body(name, [spacing * (i + 0.5), height, 0.0],
                           [capsule(0.2, 0.05, rotation=CAPSULE_ALONG_X, groups=groups)], mass=1.0))
        joint = {"name": f"joint{i}", "kind": "ball"}
        if previous:  # the first link hangs from the static world
            joint["body_a"] = previous
        joint.update({"body_b": name, "anchor": [spacing * i, height, 0.0]})
        joints.append(joint)
        previous = name
    end = spacing * 20
    bodies.append(body("ball", [end + 0.15, height, 0.0], [sphere(0.15, groups=groups)], mass=100.0))
    joints.append({"name": "joint20", "kind": "ball", "body_a": previous, "body_b": "ball",
                   "anchor": [end, height, 0.0]})
    settings = dict(SETTINGS, sleep=False)
    return scene(
        "A heavy ball on a chain: 20 capsule links of 1 kg, 0.5 m apart, on ball joints from a fixed "
        "point 12 m up, ending in a 100 kg ball (100:1), released horizontally. The links are in "
        "collision group 2 and do not collide with that group, so the chain passes through itself; "
        "the ground collides with everything. The joints must not stretch (within 1% of a link).",
        bodies, joints, settings=settings)


# A standing ragdoll (feet at y = 0, facing +z): part -> (position, collider).
RAGDOLL_PARTS = {
    "torso": ([0.0, 1.2, 0.0], capsule(0.15, 0.15)),
    "head": ([0.0, 1.63, 0.0], sphere(0.11)),
    "upper_arm_l": ([-0.35, 1.4, 0.0], capsule(0.1, 0.05, rotation=CAPSULE_ALONG_X)),
    "forearm_l": ([-0.64, 1.4, 0.0], capsule(0.095, 0.045, rotation=CAPSULE_ALONG_X)),
    "upper_arm_r": ([0.35, 1.4, 0.0], capsule(0.1, 0.05, rotation=CAPSULE_ALONG_X)),
    "forearm_r": ([0.64, 1.4, 0.0], capsule(0.095, 0.045, rotation=CAPSULE_ALONG_X)),
    "thigh_l": ([-0.1, 0.735, 0.0], capsule(0.145, 0.07)),
    "shin_l": ([-0.1, 0.3, 0.0], capsule(0.165, 0.055)),
    "thigh_r": ([0.1, 0.735, 0.0], capsule(0.145, 0.07)),
    "shin_r": ([0.1, 0.3, 0.0], capsule(0.165, 0.055)),
}

# A hinge's friction: a motor holding zero speed with at most 0.5 N·m.
HINGE_FRICTION = {"target_velocity": 0.0, "max_force": 0.5}

# Joints of a standing ragdoll: (name, kind, parent, child, anchor, axis, options). A ball's
# cone and twist are about the limb's direction; hinge angles grow as the joint flexes. Every
# joint has a little friction (`friction_torque` on balls is an engine extension): without it
# a limb hanging off the pile swings for ever and the pile never sleeps.
RAGDOLL_JOINTS = [
    ("neck", "ball", "torso", "head", [0.0, 1.5, 0.0], [0.0, 1.0, 0.0],
     {"cone_limit_deg": 40.0, "twist_limits_deg": {"lower": -45.0, "upper": 45.0}, "friction_torque": 0.5}),
    ("shoulder_l", "ball", "torso", "upper_arm_l", [-0.2, 1.4, 0.0], [-1.0, 0.0, 0.0],
     {"cone_limit_deg": 85.0, "twist_limits_deg": {"lower": -60.0, "upper": 60.0}, "friction_torque": 1.0}),
    ("elbow_l", "hinge", "upper_arm_l", "forearm_l", [-0.5, 1.4, 0.0], [0.0, 1.0, 0.0],
     {"limits": {"lower": 0.0, "upper": 2.5}, "motor": HINGE_FRICTION}),
    ("shoulder_r", "ball", "torso", "upper_arm_r", [0.2, 1.4, 0.0], [1.0, 0.0, 0.0],
     {"cone_limit_deg": 85.0, "twist_limits_deg": {"lower": -60.0, "upper": 60.0}, "friction_torque": 1.0}),
    ("elbow_r", "hinge", "upper_arm_r", "forearm_r", [0.5, 1.4, 0.0], [0.0, -1.0, 0.0],
     {"limits": {"lower": 0.0, "upper": 2.5}, "motor": HINGE_FRICTION}),
    ("hip_l", "ball", "torso", "thigh_l", [-0.1, 0.95, 0.0], [0.0, -1.0, 0.0],
     {"cone_limit_deg": 70.0, "twist_limits_deg": {"lower": -30.0, "upper": 30.0}, "friction_torque": 1.5}),
    ("knee_l", "hinge", "thigh_l", "shin_l", [-0.1, 0.52, 0.0], [1.0, 0.0, 0.0],
     {"limits": {"lower": 0.0, "upper": 2.4}, "motor": HINGE_FRICTION}),
    ("hip_r", "ball", "torso", "thigh_r", [0.1, 0.95, 0.0], [0.0, -1.0, 0.0],
     {"cone_limit_deg": 70.0, "twist_limits_deg": {"lower": -30.0, "upper": 30.0}, "friction_torque": 1.5}),
    ("knee_r", "hinge", "thigh_r", "shin_r", [0.1, 0.52, 0.0], [1.0, 0.0, 0.0],
     {"limits": {"lower": 0.0, "upper": 2.4}, "motor": HINGE_FRICTION}),
]


def ragdoll_pile():
    """Ten ragdolls lying face down, stacked 0.45 m apart and turned 36 degrees each, dropped."""
    pivot = [0.0, 0.85, 0.0]  # the standing ragdoll's middle
    lie_down = quat([1.0, 0.0, 0.0], 90.0)  # standing +y -> +z, facing down
    bodies = [ground()]
    joints = []
    for k in range(10):
        turn = qmul(quat([0.0, 1.0, 0.0], 36.0 * k), lie_down)
        offset = [0.15 * (k % 3 - 1), 0.5 + 0.45 * k, 0.1 * (k % 2)]

        def place(p):
            return add(offset, rotate(turn, sub(p, pivot)))

        prefix = f"ragdoll{k}_"
        for part, (position, collider) in RAGDOLL_PARTS.items():
            bodies.append(body(prefix + part, place(position), [collider], rotation=turn))
        for name, kind, parent, child, anchor, axis, options in RAGDOLL_JOINTS:
            joint = {"name": prefix + name, "kind": kind, "body_a": prefix + parent, "body_b": prefix + child,
                     "anchor": place(anchor), "axis": rotate(turn, axis)}
            joint.update(options)
            joints.append(joint)
    return scene(
        "A pile of 10 ragdolls dropped on the ground, lying face down in a T pose, stacked 0.45 m apart "
        "and each turned 36 degrees from the one below. Each has 10 capsule and sphere parts (about "
        "66 kg): ball joints with cone and twist limits at the neck, shoulders and hips (about the "
        "limb's direction), hinges with limits at the elbows and knees (0 = straight, growing as they "
        "bend). The joints have a little friction, as a body's do: 0.5 N·m at the neck and at the hinges "
        "(a motor holding zero speed), 1 N·m at the shoulders, 1.5 N·m at the hips, far below the "
        "torques gravity puts on the limbs. Parts joined to each other do not collide; other parts do. "
        "No joint should open.",
        bodies, joints)


SAMPLES = {
    "rope_bridge": rope_bridge,
    "newtons_cradle": newtons_cradle,
    "swinging_rope": swinging_rope,
    "door_hinge": door_hinge,
    "pistol_slide": pistol_slide,
    "roller_coaster": roller_coaster,
    "block_and_tackle": block_and_tackle,
    "weld_cantilever": weld_cantilever,
    "gear_pair": gear_pair,
    "heavy_chain": heavy_chain,
    "ragdoll_pile": ragdoll_pile,
}

# ---- writing ----


def clean(value):
    """Floats rounded to 6 decimals (no -0.0), the timestep kept as the f32 of 1/60; everything
    else as is."""
    if isinstance(value, float):
        value = round(value, 6)
        return 0.0 if value == 0.0 else value
    if isinstance(value, dict):
        return {k: v if k == "timestep" else clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


def holds_object(value):
    children = value.values() if isinstance(value, dict) else value
    return any(isinstance(c, dict) or (isinstance(c, list) and holds_object(c)) for c in children)


def pretty(value, indent=0, prefix_width=0):
    """The engine's scene layout: a container holding no object stays on one line when short."""
    compact = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if not isinstance(value, (dict, list)):
        return compact
    if not holds_object(value) and indent + prefix_width + len(compact) <= INLINE_WIDTH:
        return compact
    pad = " " * (indent + INDENT)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = []
        for k, v in value.items():
            key = json.dumps(k, ensure_ascii=False) + ": "
            items.append(pad + key + pretty(v, indent + INDENT, len(key)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if not value:
        return "[]"
    items = [pad + pretty(v, indent + INDENT, 0) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for name, make in SAMPLES.items():
        text = pretty(clean(make())) + "\n"
        path = os.path.join(SCENES, name + ".json")
        if check:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    stale.append(name)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
