#!/usr/bin/env python3
"""Writes the cloth and rope samples (particles moved by the position solver):

- scenes/flag_on_pole.json: a 2 x 1.2 m flag pinned along a pole by its first column;
- scenes/cloth_drop.json: a 2.5 x 1.5 m cloth dropped onto a sphere and a box;
- scenes/crate_on_rope.json: a 40 kg crate on a rope from the end of a beam hinged at its other
  end, released level so beam, rope and crate swing together;
- scenes/plank_bridge.json: two ropes pinned between posts, eight planks tied across them and a
  crate dropped on the middle.

Usage: python3 scripts/make_particle_samples.py   (from the repository root)
"""
from scene_json import pretty

SETTINGS = {"gravity": [0.0, -9.81, 0.0], "timestep": 1.0 / 60.0, "substeps": 4}
GROUND = {"name": "ground", "kind": "static", "position": [0, -0.5, 0],
          "colliders": [{"shape": {"type": "box", "half_extents": [20, 0.5, 20]}}]}


def r4(value):
    return round(value, 4)


def scene(description, bodies, joints=None, cloths=None, ropes=None):
    out = {"format": 1, "description": description, "settings": SETTINGS, "bodies": bodies}
    for key, value in (("joints", joints), ("cloths", cloths), ("ropes", ropes)):
        if value:
            out[key] = value
    return out


def flag_on_pole():
    """The flag lies in a vertical plane: its local Z turned to world -Y (90 degrees about X),
    so row b runs down the pole and column 0 touches it."""
    pole = {"name": "pole", "kind": "static", "position": [0, 1.75, 0],
            "colliders": [{"shape": {"type": "cylinder", "half_height": 1.75, "radius": 0.05}}]}
    columns, rows = 20, 12
    flag = {"name": "flag", "position": [1.05, 2.9, 0], "rotation": {"axis": [1, 0, 0], "angle_deg": 90},
            "size": [2.0, 1.2], "resolution": [columns, rows], "mass": 0.4, "stretch_compliance": 0,
            "bend_compliance": 1e-3, "thickness": 0.01, "friction": 0.3,
            "pinned": [[0, b] for b in range(rows + 1)]}
    description = ("A 2 x 1.2 m flag of 21 x 13 particles pinned along a pole by its first column, "
                   "hanging in still air (no wind): it droops from the pole and settles in folds.")
    return scene(description, [GROUND, pole], cloths=[flag])


def cloth_drop():
    sphere = {"name": "ball", "kind": "static", "position": [-0.7, 0.5, 0],
              "colliders": [{"shape": {"type": "sphere", "radius": 0.5}, "friction": 0.5}]}
    block = {"name": "block", "kind": "static", "position": [0.8, 0.4, 0], "rotation": {"axis": [0, 1, 0], "angle_deg": 20},
             "colliders": [{"shape": {"type": "box", "half_extents": [0.4, 0.4, 0.4]}, "friction": 0.5}]}
    cloth = {"name": "sheet", "position": [0, 1.6, 0], "size": [2.5, 1.5], "resolution": [50, 30], "mass": 0.5,
             "stretch_compliance": 0, "bend_compliance": 1e-3, "thickness": 0.01, "friction": 0.4, "damping": 0.5}
    description = ("A 2.5 x 1.5 m cloth of 51 x 31 particles dropped from 1.6 m onto a ball and a turned box: "
                   "it drapes over both and its free edges settle on the ground between and around them.")
    return scene(description, [GROUND, sphere, block], cloths=[cloth])


def crate_on_rope():
    length, height = 2.0, 5.5
    post = {"name": "post", "kind": "static", "position": [0, 2.0, 0],
            "colliders": [{"shape": {"type": "box", "half_extents": [0.1, 2.0, 0.1]}}]}
    beam = {"name": "beam", "kind": "dynamic", "position": [length / 2, height + 0.2, 0],
            "colliders": [{"shape": {"type": "box", "half_extents": [length / 2, 0.05, 0.05]}, "density": 600}]}
    crate = {"name": "crate", "kind": "dynamic", "position": [length, height + 0.2 - 2.25, 0], "mass": 40,
             "colliders": [{"shape": {"type": "box", "half_extents": [0.25, 0.25, 0.25]}}]}
    hinge = {"name": "hinge", "kind": "hinge", "body_b": "beam", "anchor": [0, height + 0.2, 0], "axis": [0, 0, 1]}
    top, bottom = [length, height + 0.15, 0], [length, height + 0.2 - 2.0, 0]
    rope = {"name": "rope", "start": top, "end": bottom, "segments": 30, "mass": 0.3, "stretch_compliance": 0,
            "bend_compliance": 0.01, "thickness": 0.02, "friction": 0.3,
            "attached": [{"particle": 0, "body": "beam", "anchor": top},
                         {"particle": 30, "body": "crate", "anchor": bottom}]}
    description = ("A 40 kg crate on a 1.85 m rope from the end of a 2 m beam hinged at a post, released level: "
                   "beam, rope and crate swing down together, the rope pulling the beam and holding the crate.")
    return scene(description, [GROUND, post, beam, crate], joints=[hinge], ropes=[rope])


def plank_bridge():
    """Each plank spans three rope segments and is tied to both ropes at both of its ends, so
    the ropes hold it level (a plank tied at one point a side swings about the line between its
    two ties, and a crate on it tips it over). A 4 kg crate is dropped on the fifth plank."""
    span, height, width, segments = 8.0, 3.0, 1.0, 40
    step = span / segments
    posts = [{"name": f"post_{side}_{end}", "kind": "static", "position": [x, height / 2, z],
              "colliders": [{"shape": {"type": "box", "half_extents": [0.1, height / 2, 0.1]}}]}
             for end, x in (("w", -span / 2 - 0.1), ("e", span / 2 + 0.1)) for side, z in (("s", -width / 2), ("n", width / 2))]
    planks, ropes = [], []
    for side, z in (("s", -width / 2), ("n", width / 2)):
        ropes.append({"name": f"rope_{side}", "start": [-span / 2, height, z], "end": [span / 2, height, z],
                      "segments": segments, "mass": 1.0, "stretch_compliance": 0, "bend_compliance": 0.01,
                      "thickness": 0.02, "friction": 0.5, "damping": 2.0, "pinned": [0, segments], "attached": []})
    for k in range(8):
        first = 1 + 5 * k
        ends = [-span / 2 + step * first, -span / 2 + step * (first + 3)]
        x = 0.5 * (ends[0] + ends[1])
        planks.append({"name": f"plank{k + 1}", "kind": "dynamic", "position": [r4(x), height - 0.06, 0], "mass": 0.6,
                       "colliders": [{"shape": {"type": "box", "half_extents": [0.32, 0.05, width / 2 + 0.05]},
                                      "friction": 0.8}]})
        for rope, z in zip(ropes, (-width / 2, width / 2)):
            for particle, end in zip((first, first + 3), ends):
                rope["attached"].append({"particle": particle, "body": f"plank{k + 1}", "anchor": [r4(end), height, z]})
    crate = {"name": "crate", "kind": "dynamic", "position": [0.5, height + 0.6, 0], "mass": 4.0,
             "colliders": [{"shape": {"type": "box", "half_extents": [0.2, 0.2, 0.2]}, "friction": 0.8}]}
    description = ("A rope bridge of particles: two 8 m ropes pinned between posts, eight 0.6 kg planks tied "
                   "across them at both ends, and a 4 kg crate dropped on the fifth: the ropes give under the "
                   "load and the bridge settles with the crate on it.")
    return scene(description, [GROUND] + posts + planks + [crate], ropes=ropes)


def main():
    for name, make in (("flag_on_pole", flag_on_pole), ("cloth_drop", cloth_drop),
                       ("crate_on_rope", crate_on_rope), ("plank_bridge", plank_bridge)):
        path = f"scenes/{name}.json"
        with open(path, "w") as f:
            f.write(pretty(make()) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
