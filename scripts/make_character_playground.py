#!/usr/bin/env python3
"""Writes scenes/character_playground.json, the characters' sample:

- 'hero' climbs stairs of 0.25 m steps, jumps on the landing, walks down a 30 degree ramp,
  pushes a 50 kg crate (a 5,000 kg one stands beside its path) and walks over a heightfield hill;
- 'climber' walks and jumps against a 60 degree slope and slides back each time;
- 'rider' stands on a platform turning at 0.8 rad/s and turns with it;
- 'passenger' rides a platform moving at 1 m/s, then walks off its edge;
- 'explorer' walks into a corridor closing in a 30 degree wedge and rests in its corner.

Usage: python3 scripts/make_character_playground.py   (from the repository root)
"""
import math

from scene_json import pretty

SETTINGS = {"gravity": [0.0, -9.81, 0.0], "timestep": 1.0 / 60.0, "substeps": 4}


def r4(value):
    return round(value, 4)


def box(name, position, half_extents, kind="static", rotation=None, density=None, **extra):
    """A body with one box collider; `rotation` is (axis, degrees)."""
    entry = {"name": name, "kind": kind, "position": [r4(p) for p in position]}
    if rotation:
        entry["rotation"] = {"axis": rotation[0], "angle_deg": r4(rotation[1])}
    entry.update(extra)
    collider = {"shape": {"type": "box", "half_extents": [r4(h) for h in half_extents]}}
    if density:
        collider["density"] = r4(density)
    entry["colliders"] = [collider]
    return entry


def stairs():
    """Six steps of 0.25 m, 0.4 m deep, from x = -17 up to a landing at 1.5 m ending at x = -11;
    each step is a box from the floor to its top reaching to the landing's end."""
    steps = []
    for k in range(1, 7):
        start, end, top = -17 + 0.4 * (k - 1), -11.0, 0.25 * k
        steps.append(box(f"step{k}", [(start + end) / 2, top / 2, 0], [(end - start) / 2, top / 2, 2]))
    return steps


def slope(name, degrees, surface_center, half_length, z):
    """A ramp box 0.5 m thick turned `degrees` about z, its top surface centred at
    `surface_center` (x, y): the box centre is that less the turned half thickness."""
    angle = math.radians(degrees)
    down = [math.sin(angle) * 0.25, -math.cos(angle) * 0.25]
    center = [surface_center[0] + down[0], surface_center[1] + down[1], z]
    return box(name, center, [half_length, 0.25, 2], rotation=([0, 0, 1], degrees))


def hill():
    """A 13 x 13 heightfield, 1 m cells, a 1.5 m bump in the middle, centred at (1, 0, 10)."""
    heights = [[r4(1.5 * math.exp(-((j - 6) ** 2 + (i - 6) ** 2) / 10.0)) for j in range(13)] for i in range(13)]
    shape = {"type": "heightfield", "heights": heights, "scale": [1.0, 1.0, 1.0]}
    return {"name": "hill", "kind": "static", "position": [1, 0, 10], "colliders": [{"shape": shape}]}


def wedge():
    """Two walls closing at 30 degrees, apex at (16, 0, -3), opening towards -x."""
    walls = []
    for name, side in (("wedge_left", 1), ("wedge_right", -1)):
        turn = math.radians(15) * side
        along = [-math.cos(turn), math.sin(turn)]
        outwards = [math.sin(turn) * side, math.cos(turn) * side]
        center = [16 + 4 * along[0] + 0.1 * outwards[0], 1, -3 + 4 * along[1] + 0.1 * outwards[1]]
        walls.append(box(name, center, [4, 1, 0.1], rotation=([0, 1, 0], math.degrees(turn))))
    return walls


def character(name, position, script):
    return {
        "name": name,
        "position": position,
        "capsule": {"half_height": 0.5, "radius": 0.3},
        "max_slope_deg": 45,
        "step_height": 0.3,
        "snap_distance": 0.3,
        "mass": 80,
        "max_push_force": 500,
        "script": script,
    }


def playground():
    ramp_length = 1.5 / math.sin(math.radians(30)) + 0.4
    ramp_center = [-11 + math.cos(math.radians(30)) * (ramp_length / 2 - 0.2), 1.5 - 0.5 * (ramp_length / 2 - 0.2)]
    bodies = [box("floor", [0, -0.5, 0], [30, 0.5, 30])]
    bodies += stairs()
    bodies.append(slope("ramp_30", -30, ramp_center, ramp_length / 2, 0))
    bodies.append(slope("slope_60", 60, [-6, 1.2], 1.5, -16))
    bodies.append(box("crate_light", [-5, 0.4, 0], [0.4, 0.4, 0.4], kind="dynamic", density=50 / 0.512))
    bodies.append(box("crate_heavy", [-3, 0.5, -3], [0.5, 0.5, 0.5], kind="dynamic", density=5000))
    bodies.append(hill())
    bodies.append(box("platform_moving", [8, 0.5, -8], [1.5, 0.1, 1.5], kind="kinematic", linear_velocity=[0, 0, 1]))
    bodies.append(
        box("platform_turning", [-12, 0.25, -8], [2.5, 0.25, 2.5], kind="kinematic", angular_velocity=[0, 0.8, 0])
    )
    bodies += wedge()
    characters = [
        character(
            "hero",
            [-20, 0.81, 0],
            [
                {"from": 0, "velocity": [3, 0, 0]},
                {"from": 2.4, "velocity": [3, 0, 0], "jump_speed": 4},
                {"from": 7, "velocity": [0, 0, 3]},
                {"from": 13, "velocity": [0, 0, 0]},
            ],
        ),
        character(
            "climber",
            [-10, 0.81, -16],
            [
                {"from": 0, "velocity": [2, 0, 0]},
                {"from": 3, "velocity": [2, 0, 0], "jump_speed": 5},
                {"from": 6, "velocity": [2, 0, 0], "jump_speed": 5},
            ],
        ),
        character("rider", [-10.5, 1.31, -8], []),
        character("passenger", [8, 1.41, -8], [{"from": 4, "velocity": [0.5, 0, 0]}]),
        character("explorer", [9, 0.81, -3], [{"from": 0, "velocity": [2, 0, 0]}]),
    ]
    description = (
        "The character playground: 'hero' climbs 0.25 m stairs, jumps on the landing, walks down a 30 degree "
        "ramp, pushes a 50 kg crate (500 N at most; the 5,000 kg one stays put) and walks over a heightfield "
        "hill; 'climber' walks and jumps against a 60 degree slope and slides back; 'rider' turns with a "
        "platform spinning at 0.8 rad/s; 'passenger' rides a platform moving at 1 m/s and walks off its edge; "
        "'explorer' walks into a 30 degree wedge and rests in its corner."
    )
    return {"format": 1, "description": description, "settings": SETTINGS, "bodies": bodies, "characters": characters}


def main():
    path = "scenes/character_playground.json"
    with open(path, "w") as f:
        f.write(pretty(playground()) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
