#!/usr/bin/env python3
"""Writes the small test level of scenes/assets/ twice: as a Wavefront OBJ (level.obj) and as a
glTF 2.0 file with its buffer embedded as base64 (level.gltf). Both hold the same 48 triangles:

- floor: x, z in [-4, 4] at y = 0, 4 x 4 squares of 2 m (OBJ: quads, split by the reader);
- ramp: from x = 0 (y = 0) up to x = 3 (y = 1), z in [-1, 1], with its end and side faces;
- wall: a 8 x 2 x 0.5 m box without a bottom along the far edge (z in [3.5, 4]).

The glTF stores the wall as a second mesh in a child node translated by (0, 0, 3.75), so
loading it exercises node transforms; its vertices end where the OBJ's are.
Every face is counter-clockwise seen from outside (front faces point away from the solid).

Usage: python3 scripts/make_mesh_assets.py   (from the repository root)
"""
import base64
import json
import struct

WALL_CENTRE_Z = 3.75


def floor():
    vertices = [(x, 0.0, z) for z in (-4, -2, 0, 2, 4) for x in (-4, -2, 0, 2, 4)]
    quads = []
    for i in range(4):
        for j in range(4):
            a = 5 * i + j
            # Seen from above (+y), counter-clockwise: (x, z) -> (x, z+1) -> (x+1, z+1) -> (x+1, z).
            quads.append((a, a + 5, a + 6, a + 1))
    return vertices, quads


def ramp():
    vertices = [(0, 0, -1), (0, 0, 1), (3, 1, 1), (3, 1, -1), (3, 0, 1), (3, 0, -1)]
    faces = [
        (0, 1, 2, 3),  # slope, facing up and back (-x)
        (3, 2, 4, 5),  # end face at x = 3, facing +x
        (0, 3, 5),  # side at z = -1, facing -z
        (1, 4, 2),  # side at z = +1, facing +z
    ]
    return vertices, faces


def wall(centre_z):
    """A box x in [-4, 4], y in [0, 2], z in centre_z +- 0.25, without its bottom face."""
    (x0, x1), (y0, y1), (z0, z1) = (-4, 4), (0, 2), (centre_z - 0.25, centre_z + 0.25)
    vertices = [(x, y, z) for y in (y0, y1) for z in (z0, z1) for x in (x0, x1)]
    # index = 4*y + 2*z + x (each 0 or 1)
    faces = [
        (4, 6, 7, 5),  # top, +y
        (0, 4, 5, 1),  # front, -z
        (3, 7, 6, 2),  # back, +z
        (2, 6, 4, 0),  # left, -x
        (1, 5, 7, 3),  # right, +x
    ]
    return vertices, faces


def triangles(faces):
    """Fans, as the OBJ reader splits polygons."""
    return [(f[0], f[k - 1], f[k]) for f in faces for k in range(2, len(f))]


def write_obj(path, parts):
    lines = ["# A small test level for fulcrum (scripts/make_mesh_assets.py): floor, ramp, wall."]
    offset = 1
    for name, (vertices, faces) in parts:
        lines.append(f"o {name}")
        lines += [f"v {x:g} {y:g} {z:g}" for x, y, z in vertices]
        lines += ["f " + " ".join(str(offset + i) for i in face) for face in faces]
        offset += len(vertices)
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


def write_gltf(path, meshes):
    """meshes: [(name, vertices, triangles, translation)], one node each; the first is the
    root, the others its children."""
    blob = b""
    accessors, views, gltf_meshes, nodes = [], [], [], []
    for name, vertices, tris, translation in meshes:
        positions = b"".join(struct.pack("<3f", *v) for v in vertices)
        indices = b"".join(struct.pack("<3H", *t) for t in tris)
        for data, target in ((positions, 34962), (indices, 34963)):
            views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data), "target": target})
            blob += data + b"\0" * (-len(data) % 4)
        lows = [min(v[k] for v in vertices) for k in range(3)]
        highs = [max(v[k] for v in vertices) for k in range(3)]
        accessors.append({"bufferView": len(views) - 2, "componentType": 5126, "count": len(vertices),
                          "type": "VEC3", "min": lows, "max": highs})
        accessors.append({"bufferView": len(views) - 1, "componentType": 5123, "count": 3 * len(tris),
                          "type": "SCALAR"})
        gltf_meshes.append({"name": name, "primitives": [
            {"attributes": {"POSITION": len(accessors) - 2}, "indices": len(accessors) - 1, "mode": 4}]})
        node = {"name": name, "mesh": len(gltf_meshes) - 1}
        if translation != (0, 0, 0):
            node["translation"] = list(translation)
        nodes.append(node)
    nodes[0]["children"] = list(range(1, len(nodes)))
    document = {
        "asset": {"version": "2.0", "generator": "fulcrum scripts/make_mesh_assets.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "meshes": gltf_meshes,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
    }
    with open(path, "w") as out:
        json.dump(document, out, indent=1)
        out.write("\n")


def main():
    parts = [("floor", floor()), ("ramp", ramp()), ("wall", wall(WALL_CENTRE_Z))]
    write_obj("scenes/assets/level.obj", parts)
    floor_v, floor_f = floor()
    ramp_v, ramp_f = ramp()
    ground_v = floor_v + ramp_v
    ground_t = triangles(floor_f) + [tuple(i + len(floor_v) for i in t) for t in triangles(ramp_f)]
    wall_v, wall_f = wall(0.0)
    write_gltf("scenes/assets/level.gltf", [
        ("ground", ground_v, ground_t, (0, 0, 0)),
        ("wall", wall_v, triangles(wall_f), (0, 0, WALL_CENTRE_Z)),
    ])


if __name__ == "__main__":
    main()
