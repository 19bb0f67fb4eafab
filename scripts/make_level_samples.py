#!/usr/bin/env python3
"""Writes the level-geometry samples of scenes/ (meshes and heightfields):

- terrain_pile.json: 80 mixed bodies dropped in a column into a valley of a bumpy heightfield;
- ramp_and_bowl.json: balls rolling down a ramp of triangles into a bowl of triangles;
- mesh_level.json: a small level read from scenes/assets/level.obj with bodies on it;
- terrain_car.json: a car-like body on four line joints (sprung suspension, sphere wheels)
  coasting over a bumpy heightfield.

Heights and vertices are rounded to 4 decimals so the files stay small and readable.
Usage: python3 scripts/make_level_samples.py   (from the repository root)
"""
import math
import subprocess

from scene_json import pretty

GRAVITY = [0.0, -9.81, 0.0]
SETTINGS = {"gravity": GRAVITY, "timestep": 1.0 / 60.0, "substeps": 4}


def r4(value):
    return round(value, 4)


def scene(description, materials, bodies, joints=None):
    """A scene file's object with the samples' settings."""
    entry = {"format": 1, "description": description, "settings": SETTINGS, "materials": materials, "bodies": bodies}
    if joints:
        entry["joints"] = joints
    return entry


def heightfield(rows, cols, spacing, height):
    """Samples of height(x, z) on the grid of the scene format (rows along z, centred)."""
    heights = []
    for i in range(rows):
        z = (i - (rows - 1) / 2) * spacing
        heights.append([r4(height((j - (cols - 1) / 2) * spacing, z)) for j in range(cols)])
    return {"type": "heightfield", "heights": heights, "scale": [spacing, 1.0, spacing]}


def body(name, position, shape, material=None, **extra):
    collider = {"shape": shape}
    if material:
        collider["material"] = material
    entry = {"name": name, "position": [r4(c) for c in position], "colliders": [collider]}
    entry.update(extra)
    return entry


def fixed(name, shape, material=None, position=(0.0, 0.0, 0.0)):
    entry = body(name, position, shape, material)
    entry["kind"] = "static"
    return entry


def mixed_shape(k):
    return [
        {"type": "box", "half_extents": [0.4, 0.3, 0.5]},
        {"type": "sphere", "radius": 0.4},
        {"type": "capsule", "half_height": 0.3, "radius": 0.3},
        {"type": "cylinder", "half_height": 0.3, "radius": 0.35},
    ][k % 4]


def terrain_height(x, z):
    return 2.0 * math.sin(0.1 * x) * math.cos(0.13 * z) + 0.5 * math.sin(0.37 * x + 0.2 * z)


def terrain_pile():
    bodies = [fixed("terrain", heightfield(41, 41, 1.5, terrain_height), "ground")]
    valley = (-16.0, 0.0, 0.0)
    for k in range(80):
        layer, across, along = k // 16, k % 4, (k // 4) % 4
        x = valley[0] + 1.1 * (across - 1.5)
        z = valley[2] + 1.1 * (along - 1.5)
        bodies.append(body(f"body_{k}", (x, 1.5 + 1.2 * layer, z), mixed_shape(k + layer), "stone"))
    return scene(
        "80 boxes, balls, capsules and cylinders dropped in a column into a valley of a "
        "bumpy 41 x 41 heightfield (1.5 m cells). The heightfield is solid below its surface, so "
        "nothing is ever pushed under it; rolling resistance 0.1 brings the round bodies to rest.",
        {"ground": {"friction": 0.6}, "stone": {"friction": 0.6, "density": 1000.0, "rolling_resistance": 0.1}},
        bodies,
    )


BOWL_RADIUS = 5.0  # radius of the sphere the bowl is cut from
BOWL_RIM = 4.5  # horizontal radius of the rim
RAMP_END_RADIUS = 3.5  # where the ramp meets the bowl (x = -3.5)
RAMP_TOP = (-10.0, 2.4)  # (x, y) of the ramp's upper edge


def bowl_height(r):
    return BOWL_RADIUS - math.sqrt(BOWL_RADIUS * BOWL_RADIUS - r * r)


def bowl():
    """A spherical cap of rings of triangles, front faces up (towards the sphere's centre)."""
    rings, segments = 9, 32
    vertices = [[0.0, 0.0, 0.0]]
    for k in range(1, rings + 1):
        r = BOWL_RIM * k / rings
        for s in range(segments):
            a = 2.0 * math.pi * s / segments
            vertices.append([r4(r * math.cos(a)), r4(bowl_height(r)), r4(r * math.sin(a))])
    index = lambda k, s: 1 + (k - 1) * segments + s % segments
    triangles = []
    for s in range(segments):
        # Front faces up: (v1 - v0) x (v2 - v0) has y > 0 for every triangle listed here.
        triangles.append([0, index(1, s + 1), index(1, s)])
    for k in range(1, rings):
        for s in range(segments):
            a, b = index(k, s), index(k, s + 1)
            c, d = index(k + 1, s), index(k + 1, s + 1)
            triangles.append([a, b, d])
            triangles.append([a, d, c])
    return {"type": "trimesh", "vertices": vertices, "indices": triangles}


def ramp():
    """A 3 m wide strip from RAMP_TOP down to the bowl surface at x = -RAMP_END_RADIUS, in
    1 m long segments, two triangles each, facing up."""
    (x0, y0), x1 = RAMP_TOP, -RAMP_END_RADIUS
    y1 = bowl_height(RAMP_END_RADIUS) + 0.05
    segments = 7
    vertices = []
    for k in range(segments + 1):
        x = x0 + (x1 - x0) * k / segments
        y = y0 + (y1 - y0) * k / segments
        vertices += [[r4(x), r4(y), -1.5], [r4(x), r4(y), 1.5]]
    triangles = []
    for k in range(segments):
        a, b, c, d = 2 * k, 2 * k + 1, 2 * k + 2, 2 * k + 3
        # Seen from above, (x, -z) -> (x, +z) -> (x + 1, +z) runs counter-clockwise.
        triangles.append([a, b, d])
        triangles.append([a, d, c])
    return {"type": "trimesh", "vertices": vertices, "indices": triangles}


def ramp_and_bowl():
    bodies = [
        fixed("floor", {"type": "plane", "normal": [0.0, 1.0, 0.0], "offset": -0.5}, "ground"),
        fixed("bowl", bowl(), "ground"),
        fixed("ramp", ramp(), "ground"),
    ]
    (x0, y0), x1 = RAMP_TOP, -RAMP_END_RADIUS
    slope = (bowl_height(RAMP_END_RADIUS) + 0.05 - y0) / (x1 - x0)
    for k in range(6):
        x = x0 + 0.6 + 0.8 * (k % 3)
        z = -0.7 + 1.4 * (k // 3)
        y = y0 + slope * (x - x0) + 0.3 + 0.05
        bodies.append(body(f"ball_{k}", (x, y, z), {"type": "sphere", "radius": 0.3}, "rubber"))
    return scene(
        "Six balls roll down a ramp of triangles into a bowl of 576 triangles (a cap "
        "of a 5 m sphere). Both are one-sided meshes facing up: the balls roll across their inner "
        "edges without hopping and circle in the bowl until rolling resistance 0.02 stops them.",
        {"ground": {"friction": 0.6}, "rubber": {"friction": 0.8, "density": 1200.0, "rolling_resistance": 0.02}},
        bodies,
    )


def mesh_level():
    level = {"type": "trimesh", "file": "assets/level.obj"}
    bodies = [fixed("level", level, "ground")]
    bodies.append(body("crate_on_ramp", (2.0, 1.0, 0.0), {"type": "box", "half_extents": [0.3, 0.3, 0.3]}, "waxed",
                       rotation={"axis": [0.0, 0.0, 1.0], "angle_deg": 18.43}))
    for k in range(3):
        bodies.append(body(f"stack_{k}", (-2.0, 0.3 + 0.6 * k, 2.5), {"type": "box", "half_extents": [0.3, 0.3, 0.3]},
                           "wood"))
    bodies.append(body("ball", (2.6, 1.6, 0.5), {"type": "sphere", "radius": 0.25}, "rubber"))
    bodies.append(body("barrel", (-1.0, 1.5, -2.0), {"type": "cylinder", "half_height": 0.4, "radius": 0.3}, "wood"))
    bodies.append(body("capsule", (1.0, 2.0, -2.5), {"type": "capsule", "half_height": 0.3, "radius": 0.2}, "wood",
                       rotation={"axis": [1.0, 0.0, 0.0], "angle_deg": 90.0}))
    materials = {
        "ground": {"friction": 0.6},
        "wood": {"friction": 0.3, "density": 600.0},
        "waxed": {"friction": 0.05, "density": 600.0},
        "rubber": {"friction": 0.8, "density": 1200.0, "rolling_resistance": 0.3},
    }
    return scene(
        "A small level read from a Wavefront OBJ file (scenes/assets/level.obj, 48 "
        "triangles: a floor of 2 m squares, a ramp and a wall): a crate slides down the ramp, a ball "
        "rolls down it, a stack stands by the wall and a barrel and a capsule fall onto the floor.",
        materials,
        bodies,
    )


def road_height(x, z):
    return 0.35 * math.sin(0.45 * x) * math.cos(0.3 * z) + 0.12 * math.sin(1.1 * x + 0.5 * z)


def terrain_car():
    speed, wheel_radius = 8.0, 0.35
    start = (-30.0, 0.0, 0.0)
    chassis_y = road_height(start[0], start[2]) + wheel_radius + 0.55
    bodies = [fixed("road", heightfield(41, 41, 2.0, road_height), "ground")]
    chassis = body("chassis", (start[0], chassis_y, start[2]), {"type": "box", "half_extents": [1.1, 0.2, 0.55]},
                   "steel", linear_velocity=[speed, 0.0, 0.0])
    bodies.append(chassis)
    joints = []
    for name, dx, dz in [("front_left", 0.8, -0.7), ("front_right", 0.8, 0.7),
                         ("rear_left", -0.8, -0.7), ("rear_right", -0.8, 0.7)]:
        x, z = start[0] + dx, start[2] + dz
        centre = (x, road_height(x, z) + wheel_radius + 0.02, z)
        wheel = body(f"wheel_{name}", centre, {"type": "sphere", "radius": wheel_radius}, "tyre",
                     linear_velocity=[speed, 0.0, 0.0], angular_velocity=[0.0, 0.0, r4(-speed / wheel_radius)])
        bodies.append(wheel)
        joints.append({
            "name": f"suspension_{name}", "kind": "line", "body_a": "chassis", "body_b": f"wheel_{name}",
            "anchor": [r4(c) for c in centre], "axis": [0.0, 1.0, 0.0],
            "limits": {"lower": -0.2, "upper": 0.2},
            "spring": {"frequency_hz": 2.5, "damping_ratio": 0.6},
        })
    materials = {
        "ground": {"friction": 0.9},
        "steel": {"friction": 0.5, "density": 400.0},
        "tyre": {"friction": 1.0, "density": 600.0, "rolling_resistance": 0.02},
    }
    return scene(
        "A car-like body coasting at 8 m/s over a bumpy heightfield: a chassis on four "
        "line joints along its vertical axis, each with a sprung, damped suspension (2.5 Hz, damping "
        "ratio 0.6, travel +-0.2 m) and a ball wheel that rolls freely. The wheels follow the bumps "
        "while the chassis rides over them.",
        materials,
        bodies,
        joints,
    )


def main():
    samples = {
        "terrain_pile": terrain_pile(),
        "ramp_and_bowl": ramp_and_bowl(),
        "mesh_level": mesh_level(),
        "terrain_car": terrain_car(),
    }
    for name, scene in samples.items():
        path = f"scenes/{name}.json"
        with open(path, "w") as f:
            f.write(pretty(scene) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
