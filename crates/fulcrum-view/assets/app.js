// The fulcrum testbed page (contract: docs/testbed-protocol.md).
//
// Live mode: a WebSocket to the `fulcrum view` process at ws://<host>/ws. The server sends a
// `scene` message (bodies with their colliders, joints, characters, cloths and ropes), `settings`,
// `state`, and a binary frame after every step (poses, flags, counts, per-stage timings, contact
// points, character and particle positions); the page draws it with three.js and sends commands
// back (play, pause, step, reset, speed, samples, scene files, solver settings, mouse drag of
// bodies and particles, shoot, inspect, contact overlay).
//
// Replay mode: when the document holds <script type="application/json" id="fulcrum-replay">
// (written by `fulcrum run SCENE --html FILE`), the same page plays that recording offline: the
// scene message and the frames (base64, protocol layout, back to back), no WebSocket.
//
// window.fulcrumTestbed is a small read-only view of the state for tests (see the end).

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

// ---------------------------------------------------------------------------------------------
// Protocol constants

const FRAME_MAGIC = 0x31524d46; // "FMR1"
const HEADER_BYTES = 52;
const BODY_BYTES = 32;
const CONTACT_BYTES = 24;
const CHARACTER_BYTES = 16;
const PARTICLE_BYTES = 12;
const FLAG_SLEEPING = 1;
const FLAG_GROUNDED = 1; // a character's flag
const FLAG_DISABLED = 2;
const MAX_SCENE_FILE_BYTES = 8 * 1024 * 1024;
const PLOT_SECONDS = 6;
const STAGES = [
  { name: 'broad', color: '#4f9ad8' },
  { name: 'narrow', color: '#5fb49c' },
  { name: 'solve', color: '#f08a4b' },
  { name: 'sleep', color: '#b58ce0' },
  { name: 'total', color: '#e6e9ee' },
];

// ---------------------------------------------------------------------------------------------
// State

const $ = (id) => document.getElementById(id);
const replayElement = document.getElementById('fulcrum-replay');
const mode = replayElement ? 'replay' : 'live';
if (mode === 'replay') document.body.classList.add('replay');

const state = {
  connected: false,
  paused: false,
  speed: 1,
  samples: [],
  scene: null, // the last scene message
  sceneName: '',
  settings: null,
  step: 0,
  time: 0,
  framesReceived: 0,
  lastFrame: null, // parsed header of the last frame applied
  lastError: null,
  errors: [],
  selected: -1,
  info: null,
  overlays: { contacts: false, joints: false, aabbs: false, com: false, wireframe: false },
};

// Body poses of the current frame: position xyz, rotation xyzw per body, and flags.
let poses = new Float32Array(0);
let flags = new Uint32Array(0);
let posesValid = false;

// ---------------------------------------------------------------------------------------------
// Small DOM helpers

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : String(x));
const fmtVec = (v, digits = 2) => `(${v.map((x) => fmt(x, digits)).join(', ')})`;

let messageTimer = 0;
function showMessage(text, kind = 'error') {
  const box = $('message');
  $('message-text').textContent = text;
  box.classList.toggle('note', kind !== 'error');
  box.classList.remove('hidden');
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => box.classList.add('hidden'), kind === 'error' ? 12000 : 4000);
}
$('message-close').addEventListener('click', () => $('message').classList.add('hidden'));

function reportError(text) {
  state.lastError = text;
  state.errors.push(text);
  if (state.errors.length > 50) state.errors.shift();
  showMessage(text, 'error');
}

// ---------------------------------------------------------------------------------------------
// Renderer, camera, lights, ground grid

const view = $('view');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
renderer.shadowMap.enabled = true;
renderer.shadowMap.type = THREE.PCFShadowMap;
renderer.domElement.tabIndex = 0;
view.prepend(renderer.domElement);

const scene3d = new THREE.Scene();
scene3d.background = new THREE.Color('#c9d3de');
scene3d.fog = new THREE.Fog('#c9d3de', 80, 400);

const camera = new THREE.PerspectiveCamera(50, 1, 0.05, 2000);
camera.position.set(8, 6, 12);

scene3d.add(new THREE.HemisphereLight('#eef4ff', '#6b6156', 1.6));
const sun = new THREE.DirectionalLight('#ffffff', 2.2);
sun.castShadow = true;
sun.shadow.mapSize.set(2048, 2048);
sun.shadow.bias = -0.0004;
sun.shadow.normalBias = 0.02;
scene3d.add(sun, sun.target);

let grid = null;
const bodiesRoot = new THREE.Group();
const overlayRoot = new THREE.Group();
scene3d.add(bodiesRoot, overlayRoot);

// The picking pointer: mouse handlers are registered before OrbitControls so that a press on a
// body can turn the controls off before they see it.
const canvas = renderer.domElement;
canvas.addEventListener('pointerdown', onPointerDown);
canvas.addEventListener('pointermove', onPointerMove);
canvas.addEventListener('pointerup', onPointerUp);
canvas.addEventListener('pointercancel', onPointerUp);
canvas.addEventListener('pointerleave', () => { pointerInside = false; });

const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;
controls.target.set(0, 1, 0);
controls.addEventListener('change', requestRender);

let renderDirty = true;
function requestRender() {
  renderDirty = true;
}

function resize() {
  const w = Math.max(1, view.clientWidth);
  const h = Math.max(1, view.clientHeight);
  renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
  requestRender();
}
new ResizeObserver(resize).observe(view);
resize();

// ---------------------------------------------------------------------------------------------
// Colours by body state

const PALETTE = ['#e8834f', '#f2b84b', '#5fb49c', '#5aa2e0', '#9bc25a', '#d9a066', '#47b8c4'].map(
  (c) => new THREE.Color(c),
);
const COLOR_STATIC = new THREE.Color('#9aa3ad');
const COLOR_KINEMATIC = new THREE.Color('#7c6cf0');
const COLOR_SLEEPING = new THREE.Color('#7d8b99');
const COLOR_DISABLED = new THREE.Color('#e03131');
const COLOR_WHITE = new THREE.Color('#ffffff');

function bodyColor(index, out) {
  const body = state.scene.bodies[index];
  const f = flags[index] || 0;
  if (f & FLAG_DISABLED) out.copy(COLOR_DISABLED);
  else if (body.kind === 'static') out.copy(COLOR_STATIC);
  else if (body.kind === 'kinematic') out.copy(COLOR_KINEMATIC);
  else {
    out.copy(PALETTE[index % PALETTE.length]);
    if (f & FLAG_SLEEPING) out.lerp(COLOR_SLEEPING, 0.75);
  }
  if (index === state.selected) out.lerp(COLOR_WHITE, 0.45);
  return out;
}

{
  const legend = $('legend');
  const entries = [
    ['static', COLOR_STATIC],
    ['kinematic', COLOR_KINEMATIC],
    ['dynamic', PALETTE[0]],
    ['sleeping', PALETTE[0].clone().lerp(COLOR_SLEEPING, 0.75)],
    ['disabled', COLOR_DISABLED],
  ];
  for (const [name, color] of entries) {
    const swatch = el('i');
    swatch.style.background = `#${color.getHexString()}`;
    legend.append(el('span', {}, swatch, name));
  }
}

// ---------------------------------------------------------------------------------------------
// Geometry of every shape kind

// Vertex colours give round shapes a pattern, so that their rotation shows.
function paint(geometry, darker) {
  const pos = geometry.attributes.position;
  const colors = new Float32Array(pos.count * 3);
  for (let i = 0; i < pos.count; i++) {
    const k = darker(pos.getX(i), pos.getY(i), pos.getZ(i)) ? 0.72 : 1;
    colors[3 * i] = colors[3 * i + 1] = colors[3 * i + 2] = k;
  }
  geometry.setAttribute('color', new THREE.BufferAttribute(colors, 3));
  return geometry;
}

function shapeGeometry(shape) {
  switch (shape.type) {
    case 'sphere':
      return paint(new THREE.SphereGeometry(shape.radius, 32, 16), (x, y, z) => x * y * z > 0);
    case 'box': {
      const [x, y, z] = shape.half_extents;
      return paint(new THREE.BoxGeometry(2 * x, 2 * y, 2 * z), () => false);
    }
    case 'capsule':
      return paint(new THREE.CapsuleGeometry(shape.radius, 2 * shape.half_height, 8, 24), (x, _y, z) => x * z > 0);
    case 'cylinder':
      return paint(
        new THREE.CylinderGeometry(shape.radius, shape.radius, 2 * shape.half_height, 32),
        (x, _y, z) => x * z > 0,
      );
    case 'convex_hull':
      return paint(hullGeometry(shape.points), () => false);
    case 'trimesh':
      return paint(meshGeometry(shape.vertices, shape.indices), () => false);
    case 'heightfield':
      return paint(heightfieldGeometry(shape.heights, shape.scale || [1, 1, 1]), () => false);
    default:
      return null; // planes are drawn separately; anything else is not drawn
  }
}

// Flat-shaded triangles from vertices and index triples.
function meshGeometry(vertices, triangles) {
  const positions = new Float32Array(triangles.length * 9);
  let k = 0;
  for (const tri of triangles) {
    for (const i of tri) {
      const v = vertices[i];
      positions[k++] = v[0];
      positions[k++] = v[1];
      positions[k++] = v[2];
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
  geometry.computeVertexNormals(); // non-indexed: one normal per face
  return geometry;
}

// Convex hull of a point cloud (incremental, O(n²)): outward triangles as index triples.
function convexHull(points) {
  const P = points.map((p) => new THREE.Vector3(p[0], p[1], p[2]));
  const n = P.length;
  if (n < 4) return null;
  const box = new THREE.Box3().setFromPoints(P);
  const eps = 1e-6 * Math.max(box.getSize(new THREE.Vector3()).length(), 1e-9);
  const tmp = new THREE.Vector3();
  const tmp2 = new THREE.Vector3();
  // Initial tetrahedron: extreme pair, farthest from their line, farthest from their plane.
  let a = 0;
  let b = 0;
  for (let i = 1; i < n; i++) {
    if (P[i].x < P[a].x) a = i;
    if (P[i].x > P[b].x) b = i;
  }
  if (P[a].distanceTo(P[b]) <= eps) {
    for (let i = 0; i < n; i++) if (P[i].distanceTo(P[a]) > P[b].distanceTo(P[a])) b = i;
  }
  const ab = new THREE.Vector3().subVectors(P[b], P[a]).normalize();
  let c = -1;
  let best = eps;
  for (let i = 0; i < n; i++) {
    tmp.subVectors(P[i], P[a]);
    const d = tmp.sub(tmp2.copy(ab).multiplyScalar(tmp.dot(ab))).length();
    if (d > best) [best, c] = [d, i];
  }
  if (c < 0) return null;
  const normal = new THREE.Vector3().subVectors(P[b], P[a]).cross(tmp.subVectors(P[c], P[a])).normalize();
  let d = -1;
  best = eps;
  for (let i = 0; i < n; i++) {
    const dist = Math.abs(tmp.subVectors(P[i], P[a]).dot(normal));
    if (dist > best) [best, d] = [dist, i];
  }
  if (d < 0) return null;
  const centre = new THREE.Vector3().add(P[a]).add(P[b]).add(P[c]).add(P[d]).multiplyScalar(0.25);
  const faces = [];
  const makeFace = (i, j, k) => {
    const nrm = new THREE.Vector3().subVectors(P[j], P[i]).cross(tmp.subVectors(P[k], P[i])).normalize();
    const face = { v: [i, j, k], n: nrm, d: nrm.dot(P[i]), alive: true };
    if (nrm.dot(centre) - face.d > 0) {
      face.v = [i, k, j];
      face.n.negate();
      face.d = -face.d;
    }
    faces.push(face);
  };
  makeFace(a, b, c);
  makeFace(a, b, d);
  makeFace(a, c, d);
  makeFace(b, c, d);
  for (let p = 0; p < n; p++) {
    if (p === a || p === b || p === c || p === d) continue;
    const visible = faces.filter((f) => f.alive && f.n.dot(P[p]) - f.d > eps);
    if (visible.length === 0) continue;
    const edges = new Set();
    for (const f of visible) for (let e = 0; e < 3; e++) edges.add(`${f.v[e]},${f.v[(e + 1) % 3]}`);
    for (const f of visible) {
      f.alive = false;
      for (let e = 0; e < 3; e++) {
        const [i, j] = [f.v[e], f.v[(e + 1) % 3]];
        if (!edges.has(`${j},${i}`)) {
          const nrm = new THREE.Vector3().subVectors(P[j], P[i]).cross(tmp.subVectors(P[p], P[i])).normalize();
          faces.push({ v: [i, j, p], n: nrm, d: nrm.dot(P[i]), alive: true });
        }
      }
    }
  }
  return faces.filter((f) => f.alive).map((f) => f.v);
}

function hullGeometry(points) {
  const triangles = convexHull(points);
  if (!triangles) return new THREE.SphereGeometry(0.01);
  return meshGeometry(points, triangles);
}

// Heights in rows along Z, columns along X, centred on the origin; `scale` is the cell size in
// X and Z and the height factor in Y. Cells split along the diagonal from sample (i, j) to
// (i + 1, j + 1), as the engine's (scene-format.md).
function heightfieldGeometry(heights, scale) {
  const rows = heights.length;
  const cols = rows ? heights[0].length : 0;
  const vertices = [];
  const triangles = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      vertices.push([(c - (cols - 1) / 2) * scale[0], heights[r][c] * scale[1], (r - (rows - 1) / 2) * scale[2]]);
    }
  }
  for (let r = 0; r + 1 < rows; r++) {
    for (let c = 0; c + 1 < cols; c++) {
      const i = r * cols + c;
      triangles.push([i, i + cols, i + cols + 1], [i, i + cols + 1, i + 1]);
    }
  }
  return meshGeometry(vertices, triangles);
}

// ---------------------------------------------------------------------------------------------
// Scene: bodies drawn as instanced meshes, one batch per distinct shape

const solidMaterial = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.62, metalness: 0.04 });
const sensorMaterial = new THREE.MeshStandardMaterial({
  vertexColors: true,
  transparent: true,
  opacity: 0.28,
  depthWrite: false,
});
// Triangle meshes and heightfields: pushed back a little in depth so that their wireframe
// overlay draws on top of the faces without flicker.
const surfaceMaterial = new THREE.MeshStandardMaterial({
  vertexColors: true,
  roughness: 0.8,
  metalness: 0.02,
  polygonOffset: true,
  polygonOffsetFactor: 1,
  polygonOffsetUnits: 1,
});
const wireframeMaterial = new THREE.MeshBasicMaterial({ color: '#2b3138', wireframe: true, transparent: true, opacity: 0.45 });
const isSurface = (shape) => shape.type === 'trimesh' || shape.type === 'heightfield';

const planeMaterial = new THREE.MeshStandardMaterial({
  color: '#aeb8c3',
  roughness: 0.95,
  polygonOffset: true,
  polygonOffsetFactor: 1,
  polygonOffsetUnits: 1,
});

let batches = []; // { mesh, wire (surfaces only), instances: [{ body, local: Matrix4 }] }
let planeMeshes = []; // { mesh, body, local }
let bodyInstances = []; // per body: [{ batch, index }]
let bodyLocalBoxes = []; // per body: Box3 of its drawn colliders in its own frame (may be empty)
let bodyMatrices = []; // per body: Matrix4 of its current pose
let framedScene = ''; // the scene the camera was last framed on
let needsFraming = false;

function disposeScene() {
  for (const batch of batches) {
    batch.mesh.geometry.dispose();
    batch.mesh.dispose();
    if (batch.wire) batch.wire.dispose();
  }
  for (const p of planeMeshes) p.mesh.geometry.dispose();
  bodiesRoot.clear();
  batches = [];
  planeMeshes = [];
}

function buildScene(message) {
  disposeScene();
  state.scene = message;
  state.sceneName = message.name;
  const count = message.bodies.length;
  // A body index means another body in another scene: the inspector closes on a load.
  if (state.selected >= count || message.reason === 'load') {
    state.selected = -1;
    state.info = null;
    clearInterval(inspectTimer);
    refreshInfo();
  }
  poses = new Float32Array(count * 7);
  flags = new Uint32Array(count);
  posesValid = false;
  bodyInstances = Array.from({ length: count }, () => []);
  bodyLocalBoxes = Array.from({ length: count }, () => new THREE.Box3());
  bodyMatrices = Array.from({ length: count }, () => new THREE.Matrix4());
  const byKey = new Map();
  const geometryBox = new THREE.Box3();
  message.bodies.forEach((body, bodyIndex) => {
    body.colliders.forEach((collider, colliderIndex) => {
      const local = new THREE.Matrix4().compose(
        new THREE.Vector3().fromArray(collider.position || [0, 0, 0]),
        new THREE.Quaternion().fromArray(collider.rotation || [0, 0, 0, 1]),
        new THREE.Vector3(1, 1, 1),
      );
      if (collider.shape.type === 'plane') {
        addPlane(collider.shape, bodyIndex, local);
        return;
      }
      // A surface (possibly a million triangles) is its own batch: no need to compare its text.
      const surface = isSurface(collider.shape);
      const key = surface
        ? `surface ${bodyIndex} ${colliderIndex}`
        : `${collider.sensor ? 's' : 'o'}${JSON.stringify(collider.shape)}`;
      let entry = byKey.get(key);
      if (!entry) {
        const geometry = shapeGeometry(collider.shape);
        if (!geometry) return;
        geometry.computeBoundingBox();
        entry = { geometry, sensor: !!collider.sensor, surface, instances: [] };
        byKey.set(key, entry);
      }
      entry.instances.push({ body: bodyIndex, local });
      geometryBox.copy(entry.geometry.boundingBox).applyMatrix4(local);
      bodyLocalBoxes[bodyIndex].union(geometryBox);
    });
  });
  const color = new THREE.Color();
  for (const entry of byKey.values()) {
    const material = entry.sensor ? sensorMaterial : entry.surface ? surfaceMaterial : solidMaterial;
    const mesh = new THREE.InstancedMesh(entry.geometry, material, entry.instances.length);
    mesh.castShadow = !entry.sensor;
    mesh.receiveShadow = true;
    // Instances move every frame: never cull, and let the ray test every instance.
    mesh.frustumCulled = false;
    mesh.boundingSphere = new THREE.Sphere(new THREE.Vector3(), Infinity);
    const batch = { mesh, wire: null, instances: entry.instances };
    mesh.userData.batch = batch;
    if (entry.surface) {
      // The wireframe overlay: the same geometry drawn as lines, moved with the mesh.
      batch.wire = new THREE.InstancedMesh(entry.geometry, wireframeMaterial, entry.instances.length);
      batch.wire.frustumCulled = false;
      batch.wire.raycast = () => {};
      batch.wire.visible = state.overlays.wireframe;
      bodiesRoot.add(batch.wire);
    }
    entry.instances.forEach((instance, i) => {
      bodyInstances[instance.body].push({ batch, index: i });
      mesh.setColorAt(i, color.set('#ffffff'));
      mesh.setMatrixAt(i, instance.local);
      if (batch.wire) batch.wire.setMatrixAt(i, instance.local);
    });
    batches.push(batch);
    bodiesRoot.add(mesh);
  }
  for (let i = 0; i < count; i++) refreshBodyColor(i);
  buildCharacters(message);
  buildParticles(message);
  buildOverlayBuffers();
  // A newly loaded scene gets the camera framed on it; a reset or a shot ball keeps the view.
  needsFraming = message.reason === 'load' ? 'reframe' : true;
  $('scene-name').textContent = message.name;
  for (const button of $('gallery').children) button.classList.toggle('active', button.dataset.sample === message.name);
  requestRender();
}

function addPlane(shape, bodyIndex, local) {
  const size = 400;
  const geometry = new THREE.PlaneGeometry(size, size);
  const normal = new THREE.Vector3().fromArray(shape.normal).normalize();
  const planeLocal = new THREE.Matrix4().compose(
    normal.clone().multiplyScalar(shape.offset),
    new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 0, 1), normal),
    new THREE.Vector3(1, 1, 1),
  );
  const mesh = new THREE.Mesh(geometry, planeMaterial);
  mesh.receiveShadow = true;
  mesh.matrixAutoUpdate = false;
  mesh.userData.body = bodyIndex;
  planeMeshes.push({ mesh, body: bodyIndex, local: new THREE.Matrix4().multiplyMatrices(local, planeLocal) });
  bodiesRoot.add(mesh);
}

function refreshBodyColor(index) {
  if (!bodyInstances[index] || !state.scene.bodies[index]) return;
  const color = bodyColor(index, new THREE.Color());
  for (const { batch, index: i } of bodyInstances[index]) {
    batch.mesh.setColorAt(i, color);
    batch.mesh.instanceColor.needsUpdate = true;
  }
}

// Applies poses[] and flags[] to the meshes and overlays.
const _m = new THREE.Matrix4();
const _p = new THREE.Vector3();
const _q = new THREE.Quaternion();
const _s = new THREE.Vector3(1, 1, 1);

function applyPoses(changedFlags) {
  const count = bodyMatrices.length;
  for (let b = 0; b < count; b++) {
    const o = 7 * b;
    _p.set(poses[o], poses[o + 1], poses[o + 2]);
    _q.set(poses[o + 3], poses[o + 4], poses[o + 5], poses[o + 6]);
    if (!Number.isFinite(_p.x + _p.y + _p.z + _q.x + _q.y + _q.z + _q.w)) continue;
    bodyMatrices[b].compose(_p, _q, _s);
    for (const { batch, index } of bodyInstances[b]) {
      _m.multiplyMatrices(bodyMatrices[b], batch.instances[index].local);
      batch.mesh.setMatrixAt(index, _m);
      if (batch.wire) batch.wire.setMatrixAt(index, _m);
    }
  }
  for (const batch of batches) {
    batch.mesh.instanceMatrix.needsUpdate = true;
    if (batch.wire) batch.wire.instanceMatrix.needsUpdate = true;
  }
  for (const plane of planeMeshes) plane.mesh.matrix.multiplyMatrices(bodyMatrices[plane.body], plane.local);
  for (const b of changedFlags) refreshBodyColor(b);
  posesValid = true;
  if (needsFraming) {
    const reframe = needsFraming === 'reframe';
    needsFraming = false;
    fitGroundAndLights();
    if (framedScene !== state.sceneName || reframe) {
      framedScene = state.sceneName;
      frameCamera();
    }
  }
  updateOverlays();
  refreshInfo();
  requestRender();
}

// World bounds of one body's drawn colliders (empty for plane-only bodies).
function bodyWorldBox(b, out) {
  out.copy(bodyLocalBoxes[b]);
  if (!out.isEmpty()) out.applyMatrix4(bodyMatrices[b]);
  return out;
}

// The bounds worth looking at: moving bodies and static ones of a modest size.
function interestingBounds() {
  const all = new THREE.Box3();
  const moving = new THREE.Box3();
  const box = new THREE.Box3();
  const size = new THREE.Vector3();
  state.scene.bodies.forEach((body, b) => {
    bodyWorldBox(b, box);
    if (box.isEmpty()) return;
    if (body.kind !== 'static') moving.union(box);
    else if (box.getSize(size).length() < 60) all.union(box);
  });
  moving.union(particleBounds(box));
  all.union(moving);
  return { all, moving };
}

function fitGroundAndLights() {
  const { all, moving } = interestingBounds();
  const focus = moving.isEmpty() ? all : moving;
  const centre = focus.isEmpty() ? new THREE.Vector3() : focus.getCenter(new THREE.Vector3());
  const radius = focus.isEmpty() ? 5 : Math.max(2, all.getSize(new THREE.Vector3()).length() * 0.5);
  // Ground: a horizontal plane, else the top of the widest flat static body, else below all.
  let groundY = null;
  const box = new THREE.Box3();
  const size = new THREE.Vector3();
  for (const plane of planeMeshes) {
    const normal = new THREE.Vector3(0, 0, 1).transformDirection(plane.mesh.matrix);
    if (normal.y > 0.999) groundY = Math.max(groundY ?? -Infinity, plane.mesh.matrix.elements[13]);
  }
  let groundBox = null; // the grid covers a ground box's top
  if (groundY === null) {
    let bestArea = 4;
    state.scene.bodies.forEach((body, b) => {
      if (body.kind !== 'static') return;
      bodyWorldBox(b, box);
      if (box.isEmpty()) return;
      box.getSize(size);
      if (size.x * size.z > bestArea && size.y < 0.5 * Math.min(size.x, size.z)) {
        bestArea = size.x * size.z;
        groundY = box.max.y;
        groundBox = box.clone();
      }
    });
  }
  if (groundY === null) groundY = all.isEmpty() ? 0 : all.min.y;
  if (grid) {
    scene3d.remove(grid);
    grid.geometry.dispose();
  }
  let extent = Math.max(20, Math.ceil((radius * 3) / 10) * 10);
  const gridCentre = new THREE.Vector3(Math.round(centre.x), groundY + 0.003, Math.round(centre.z));
  if (groundBox) {
    const half = Math.floor(Math.min(groundBox.max.x - groundBox.min.x, groundBox.max.z - groundBox.min.z) / 2);
    if (half >= 2) {
      extent = Math.min(extent, half);
      groundBox.getCenter(size);
      gridCentre.set(size.x, groundY + 0.003, size.z);
    }
  }
  grid = makeGrid(extent, 1);
  grid.position.copy(gridCentre);
  scene3d.add(grid);
  // The sun's shadow box covers the interesting part of the scene.
  const r = Math.min(radius * 1.3, 80);
  sun.position.copy(centre).add(new THREE.Vector3(-0.6, 1, 0.35).normalize().multiplyScalar(r * 2.5));
  sun.target.position.copy(centre);
  const cam = sun.shadow.camera;
  cam.left = -r;
  cam.right = r;
  cam.top = r;
  cam.bottom = -r;
  cam.near = 0.1;
  cam.far = r * 5;
  cam.updateProjectionMatrix();
  scene3d.fog.near = radius * 8;
  scene3d.fog.far = radius * 30 + 100;
}

// A square grid in the XZ plane, `half` metres each way, a line every `step` (darker every
// tenth). Lines are cut into short segments: a software rasteriser (SwiftShader, headless
// browsers) drops a line whose ends lie far outside the view, and a long grid line near the
// camera is one.
function makeGrid(half, step) {
  const positions = [];
  const colors = [];
  const major = new THREE.Color('#39424c');
  const minor = new THREE.Color('#58636f');
  const piece = step * 2;
  const lines = Math.round(half / step);
  for (let k = -lines; k <= lines; k++) {
    const at = k * step;
    const c = k % 10 === 0 ? major : minor;
    for (let t = -half; t < half - 1e-9; t += piece) {
      const u = Math.min(half, t + piece);
      positions.push(at, 0, t, at, 0, u, t, 0, at, u, 0, at);
      for (let n = 0; n < 4; n++) colors.push(c.r, c.g, c.b);
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
  geometry.setAttribute('color', new THREE.Float32BufferAttribute(colors, 3));
  const material = new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, opacity: 0.45 });
  return new THREE.LineSegments(geometry, material);
}

function frameCamera() {
  if (!state.scene || !posesValid) return;
  // Frame the moving bodies with some room around them (the whole scene when nothing moves).
  const { all, moving } = interestingBounds();
  const box = moving.isEmpty() ? all : moving;
  if (box.isEmpty()) return;
  const centre = box.getCenter(new THREE.Vector3());
  const radius = Math.max(1.5, box.getSize(new THREE.Vector3()).length() * 0.5) * 1.15;
  const distance = radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2));
  const direction = new THREE.Vector3(0.55, 0.42, 1).normalize();
  camera.position.copy(centre).addScaledVector(direction, distance);
  camera.near = Math.max(0.01, distance / 500);
  camera.far = distance * 50 + 500;
  camera.updateProjectionMatrix();
  controls.target.copy(centre);
  controls.update();
  requestRender();
}

// ---------------------------------------------------------------------------------------------
// Overlays: contacts and normals, joint anchors and axes, AABBs, centres of mass

// A growable set of coloured line segments drawn on top of everything.
class Lines {
  constructor() {
    this.capacity = 0;
    this.count = 0;
    this.geometry = new THREE.BufferGeometry();
    this.object = new THREE.LineSegments(
      this.geometry,
      new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false, transparent: true, opacity: 0.9 }),
    );
    this.object.frustumCulled = false;
    this.object.renderOrder = 10;
    this.reserve(256);
  }

  reserve(segments) {
    if (segments <= this.capacity) return;
    this.capacity = Math.max(segments, this.capacity * 2);
    this.positions = new Float32Array(this.capacity * 6);
    this.colors = new Float32Array(this.capacity * 6);
    this.geometry.setAttribute('position', new THREE.BufferAttribute(this.positions, 3));
    this.geometry.setAttribute('color', new THREE.BufferAttribute(this.colors, 3));
  }

  begin() {
    this.count = 0;
  }

  push(a, b, color) {
    if (this.count >= this.capacity) {
      const [positions, colors] = [this.positions, this.colors];
      this.reserve(this.count + 1);
      this.positions.set(positions);
      this.colors.set(colors);
    }
    const o = this.count * 6;
    this.positions.set([a.x, a.y, a.z, b.x, b.y, b.z], o);
    this.colors.set([color.r, color.g, color.b, color.r, color.g, color.b], o);
    this.count++;
  }

  end() {
    this.geometry.setDrawRange(0, this.count * 2);
    this.geometry.attributes.position.needsUpdate = true;
    this.geometry.attributes.color.needsUpdate = true;
  }
}

// A growable set of small spheres drawn on top of everything.
class Dots {
  constructor(color) {
    this.geometry = new THREE.SphereGeometry(1, 10, 6);
    this.material = new THREE.MeshBasicMaterial({ color, depthTest: false, transparent: true });
    this.mesh = null;
    this.count = 0;
    this.radius = 0.03;
    this.object = new THREE.Group();
    this.object.renderOrder = 11;
    this.grow(64);
  }

  grow(capacity) {
    if (this.mesh) {
      this.object.remove(this.mesh);
      this.mesh.dispose();
    }
    this.mesh = new THREE.InstancedMesh(this.geometry, this.material, capacity);
    this.mesh.frustumCulled = false;
    this.mesh.renderOrder = 11;
    this.mesh.count = 0;
    this.capacity = capacity;
    this.object.add(this.mesh);
  }

  set(points) {
    if (points.length > this.capacity) this.grow(Math.max(points.length, this.capacity * 2));
    const m = new THREE.Matrix4();
    const s = new THREE.Vector3(this.radius, this.radius, this.radius);
    const q = new THREE.Quaternion();
    points.forEach((p, i) => this.mesh.setMatrixAt(i, m.compose(p, q, s)));
    this.mesh.count = points.length;
    this.mesh.instanceMatrix.needsUpdate = true;
  }
}

const contactLines = new Lines();
const contactDots = new Dots('#ff3b3b');
const jointLines = new Lines();
const jointDots = new Dots('#ffd43b');
const aabbLines = new Lines();
const comLines = new Lines();
const comDots = new Dots('#111111');
overlayRoot.add(contactLines.object, contactDots.object, jointLines.object, jointDots.object);
overlayRoot.add(aabbLines.object, comLines.object, comDots.object);
let overlayScale = 0.1;
let lastContacts = { view: null, offset: 0, count: 0 };

function buildOverlayBuffers() {
  // Sizes follow the scene: the median body size sets marker sizes.
  const sizes = [];
  const size = new THREE.Vector3();
  for (const box of bodyLocalBoxes) if (!box.isEmpty()) sizes.push(box.getSize(size).length());
  sizes.sort((x, y) => x - y);
  const typical = sizes.length ? sizes[Math.floor(sizes.length / 2)] : 1;
  overlayScale = THREE.MathUtils.clamp(typical * 0.5, 0.05, 2);
  contactDots.radius = overlayScale * 0.06;
  jointDots.radius = overlayScale * 0.08;
  comDots.radius = overlayScale * 0.05;
  lastContacts = { view: null, offset: 0, count: 0 };
}

const OVERLAY_COLORS = {
  normal: new THREE.Color('#ff3b3b'),
  link: new THREE.Color('#ffd43b'),
  arm: new THREE.Color('#c0c6ce'),
  x: new THREE.Color('#ff922b'),
  y: new THREE.Color('#51cf66'),
  z: new THREE.Color('#339af0'),
  aabbAwake: new THREE.Color('#37b24d'),
  aabbSleeping: new THREE.Color('#868e96'),
  aabbStatic: new THREE.Color('#495057'),
};

function updateOverlays() {
  const o = state.overlays;
  contactLines.object.visible = contactDots.object.visible = o.contacts;
  jointLines.object.visible = jointDots.object.visible = o.joints;
  aabbLines.object.visible = o.aabbs;
  comLines.object.visible = comDots.object.visible = o.com;
  for (const batch of batches) if (batch.wire) batch.wire.visible = o.wireframe;
  if (!state.scene || !posesValid) return;
  if (o.contacts) drawContacts();
  if (o.joints) drawJoints();
  if (o.aabbs) drawAabbs();
  if (o.com) drawCentresOfMass();
}

function drawContacts() {
  const { view, offset, count } = lastContacts;
  const points = [];
  contactLines.begin();
  const length = overlayScale * 0.6;
  for (let i = 0; i < count; i++) {
    const at = offset + i * CONTACT_BYTES;
    const p = new THREE.Vector3(view.getFloat32(at, true), view.getFloat32(at + 4, true), view.getFloat32(at + 8, true));
    const n = new THREE.Vector3(
      view.getFloat32(at + 12, true),
      view.getFloat32(at + 16, true),
      view.getFloat32(at + 20, true),
    );
    points.push(p);
    contactLines.push(p, p.clone().addScaledVector(n, length), OVERLAY_COLORS.normal);
  }
  contactLines.end();
  contactDots.set(points);
}

function jointWorldFrame(bodyIndex, frame) {
  const m = new THREE.Matrix4().compose(
    new THREE.Vector3().fromArray(frame.position),
    new THREE.Quaternion().fromArray(frame.rotation),
    new THREE.Vector3(1, 1, 1),
  );
  if (bodyIndex !== null && bodyIndex !== undefined && bodyMatrices[bodyIndex]) m.premultiply(bodyMatrices[bodyIndex]);
  return m;
}

function drawJoints() {
  jointLines.begin();
  const dots = [];
  const axisLength = overlayScale * 0.9;
  for (const joint of state.scene.joints || []) {
    const a = jointWorldFrame(joint.body_a, joint.frame_a);
    const b = jointWorldFrame(joint.body_b, joint.frame_b);
    const pa = new THREE.Vector3().setFromMatrixPosition(a);
    const pb = new THREE.Vector3().setFromMatrixPosition(b);
    dots.push(pa, pb);
    jointLines.push(pa, pb, OVERLAY_COLORS.link);
    // Arms from each body's centre of mass to its anchor.
    for (const [bodyIndex, anchor] of [[joint.body_a, pa], [joint.body_b, pb]]) {
      if (bodyIndex === null || bodyIndex === undefined) continue;
      jointLines.push(centreOfMass(bodyIndex), anchor, OVERLAY_COLORS.arm);
    }
    // The joint frame of A: X (the joint axis) long, Y and Z short; B's X axis too.
    const xa = new THREE.Vector3();
    const ya = new THREE.Vector3();
    const za = new THREE.Vector3();
    a.extractBasis(xa, ya, za);
    jointLines.push(pa, pa.clone().addScaledVector(xa, axisLength), OVERLAY_COLORS.x);
    jointLines.push(pa, pa.clone().addScaledVector(ya, axisLength * 0.4), OVERLAY_COLORS.y);
    jointLines.push(pa, pa.clone().addScaledVector(za, axisLength * 0.4), OVERLAY_COLORS.z);
    b.extractBasis(xa, ya, za);
    jointLines.push(pb, pb.clone().addScaledVector(xa, axisLength * 0.7), OVERLAY_COLORS.x);
  }
  jointLines.end();
  jointDots.set(dots);
}

function centreOfMass(b) {
  const com = state.scene.bodies[b].center_of_mass || [0, 0, 0];
  return new THREE.Vector3().fromArray(com).applyMatrix4(bodyMatrices[b]);
}

const BOX_EDGES = [
  [0, 1], [1, 3], [3, 2], [2, 0], [4, 5], [5, 7], [7, 6], [6, 4], [0, 4], [1, 5], [2, 6], [3, 7],
];

function drawAabbs() {
  aabbLines.begin();
  const box = new THREE.Box3();
  const corners = Array.from({ length: 8 }, () => new THREE.Vector3());
  state.scene.bodies.forEach((body, b) => {
    bodyWorldBox(b, box);
    if (box.isEmpty()) return;
    for (let i = 0; i < 8; i++) {
      corners[i].set(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z);
    }
    const color =
      body.kind === 'static'
        ? OVERLAY_COLORS.aabbStatic
        : flags[b] & FLAG_SLEEPING
          ? OVERLAY_COLORS.aabbSleeping
          : OVERLAY_COLORS.aabbAwake;
    for (const [i, j] of BOX_EDGES) aabbLines.push(corners[i], corners[j], color);
  });
  aabbLines.end();
}

function drawCentresOfMass() {
  comLines.begin();
  const dots = [];
  const length = overlayScale * 0.5;
  const x = new THREE.Vector3();
  const y = new THREE.Vector3();
  const z = new THREE.Vector3();
  state.scene.bodies.forEach((body, b) => {
    if (body.kind === 'static') return;
    const c = centreOfMass(b);
    dots.push(c);
    bodyMatrices[b].extractBasis(x, y, z);
    comLines.push(c, c.clone().addScaledVector(x, length), OVERLAY_COLORS.x);
    comLines.push(c, c.clone().addScaledVector(y, length), OVERLAY_COLORS.y);
    comLines.push(c, c.clone().addScaledVector(z, length), OVERLAY_COLORS.z);
  });
  comLines.end();
  comDots.set(dots);
}

for (const name of Object.keys(state.overlays)) {
  $(`o-${name}`).addEventListener('change', (event) => {
    state.overlays[name] = event.target.checked;
    if (name === 'contacts') send({ type: 'overlay', contacts: event.target.checked });
    updateOverlays();
    requestRender();
  });
}

// ---------------------------------------------------------------------------------------------
// Characters: capsules placed from the frames' character block. In a scene with characters,
// WASD or the arrows walk the driven one (the first) relative to the camera, Space makes it
// jump (instead of play/pause), and the camera follows it once it is driven.

const WALK_SPEED = 4; // m/s
const JUMP_SPEED = 5; // m/s
const DRIVE_KEYS = {
  w: [1, 0], arrowup: [1, 0], s: [-1, 0], arrowdown: [-1, 0],
  d: [0, 1], arrowright: [0, 1], a: [0, -1], arrowleft: [0, -1],
};
const characterRoot = new THREE.Group();
scene3d.add(characterRoot);
const characterMaterials = [
  new THREE.MeshStandardMaterial({ color: '#f2c14e', roughness: 0.6 }),
  new THREE.MeshStandardMaterial({ color: '#7fb3d5', roughness: 0.6 }),
];
let characterCount = 0; // characters in each frame (of the current scene)
let characterMeshes = [];
let characterPositions = [];
let characterFlags = [];
const keysDown = new Set();
let following = false; // the camera follows the driven character (after it was first driven)

function buildCharacters(message) {
  for (const mesh of characterMeshes) mesh.geometry.dispose();
  characterRoot.clear();
  const list = message.characters || [];
  const gravity = new THREE.Vector3().fromArray((state.settings && state.settings.gravity) || [0, -9.81, 0]);
  const up = gravity.lengthSq() > 0 ? gravity.negate().normalize() : new THREE.Vector3(0, 1, 0);
  const upright = new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
  characterMeshes = list.map((c, i) => {
    const geometry = new THREE.CapsuleGeometry(c.capsule.radius, 2 * c.capsule.half_height, 6, 16);
    const mesh = new THREE.Mesh(geometry, characterMaterials[i === 0 ? 0 : 1]);
    mesh.castShadow = true;
    mesh.quaternion.copy(upright);
    mesh.position.fromArray(c.position);
    characterRoot.add(mesh);
    return mesh;
  });
  characterCount = list.length;
  characterPositions = list.map((c) => c.position.slice());
  characterFlags = list.map(() => 0);
  if (message.reason === 'load') following = false;
}

// Reads the character block (interpolated towards `next` by `alpha` in a replay) and moves
// the capsules; a followed character drags the camera along by its motion.
function readCharacters(view, frame, next, alpha) {
  const count = Math.min(frame.characters || 0, characterMeshes.length);
  for (let i = 0; i < count; i++) {
    const at = frame.characterOffset + i * CHARACTER_BYTES;
    const p = [0, 1, 2].map((k) => view.getFloat32(at + 4 * k, true));
    if (next && alpha > 0 && i < (next.characters || 0)) {
      const bt = next.characterOffset + i * CHARACTER_BYTES;
      for (let k = 0; k < 3; k++) p[k] += (view.getFloat32(bt + 4 * k, true) - p[k]) * alpha;
    }
    if (!Number.isFinite(p[0] + p[1] + p[2])) continue;
    if (i === 0 && following) {
      const delta = new THREE.Vector3().fromArray(p).sub(characterMeshes[0].position);
      camera.position.add(delta);
      controls.target.add(delta);
      controls.update();
    }
    characterPositions[i] = p;
    characterFlags[i] = view.getUint32(at + 12, true);
    characterMeshes[i].position.fromArray(p);
  }
}

// A key of the driving set went down or up; returns whether it was one.
function driveKey(key, down, repeat) {
  if (mode !== 'live') return false;
  if (key === ' ') {
    if (down && !repeat) sendDrive(JUMP_SPEED);
    return true;
  }
  if (!DRIVE_KEYS[key]) return false;
  if (down) keysDown.add(key);
  else keysDown.delete(key);
  if (!repeat) sendDrive(0);
  return true;
}

// The walking velocity the held keys ask for, relative to where the camera looks (across up).
function driveVelocity() {
  let forward = 0;
  let right = 0;
  for (const key of keysDown) {
    forward += DRIVE_KEYS[key][0];
    right += DRIVE_KEYS[key][1];
  }
  const look = new THREE.Vector3().subVectors(controls.target, camera.position);
  look.y = 0;
  if (look.lengthSq() < 1e-12) look.set(0, 0, -1);
  look.normalize();
  const side = new THREE.Vector3(-look.z, 0, look.x);
  const v = look.multiplyScalar(forward).add(side.multiplyScalar(right));
  if (v.lengthSq() > 0) v.normalize().multiplyScalar(WALK_SPEED);
  return v;
}

function sendDrive(jumpSpeed) {
  if (!characterMeshes.length) return;
  if (!following) {
    following = true;
    const delta = characterMeshes[0].position.clone().sub(controls.target);
    camera.position.add(delta);
    controls.target.add(delta);
    controls.update();
  }
  send({ type: 'drive', character: 0, velocity: driveVelocity().toArray(), jump_speed: jumpSpeed });
}

// ---------------------------------------------------------------------------------------------
// Cloths and ropes: the scene message's particle_sets (engine definitions), moved by the
// frames' particle block. A cloth is its grid of triangles, lit on both faces with normals per
// vertex from the grid; a rope is a tube around its chain of particles.

const ROPE_SIDES = 8; // vertices around a rope's tube
const MIN_ROPE_RADIUS = 0.01; // m: a thinner rope is drawn this thick
const PARTICLE_PICK_RADIUS = 0.05; // m beyond a particle's thickness that the pointer ray may miss it by
const particleRoot = new THREE.Group();
scene3d.add(particleRoot);
const clothMaterial = new THREE.MeshStandardMaterial({ color: '#d9644a', roughness: 0.8, side: THREE.DoubleSide });
const ropeMaterial = new THREE.MeshStandardMaterial({ color: '#c9a46a', roughness: 0.9 });
let particleCount = 0; // particles in each frame (of the current scene)
let particleSets = []; // { kind, def, count, offset (first particle in the block), positions, mesh }

// Particles per frame of a scene message: a cloth's grid, a rope's segments + 1.
function particleSetCount(entry) {
  if (entry.cloth) return (entry.cloth.resolution[0] + 1) * (entry.cloth.resolution[1] + 1);
  return entry.rope.segments + 1;
}

function countParticles(message) {
  return ((message && message.particle_sets) || []).reduce((sum, entry) => sum + particleSetCount(entry), 0);
}

function buildParticles(message) {
  for (const set of particleSets) set.mesh.geometry.dispose();
  particleRoot.clear();
  let offset = 0;
  particleSets = ((message.particle_sets) || []).map((entry) => {
    const kind = entry.cloth ? 'cloth' : 'rope';
    const def = entry[kind];
    const count = particleSetCount(entry);
    const set = { kind, def, count, offset, positions: new Float32Array(3 * count), mesh: null };
    offset += count;
    const geometry = kind === 'cloth' ? clothGeometry(def.resolution) : ropeGeometry(count);
    set.mesh = new THREE.Mesh(geometry, kind === 'cloth' ? clothMaterial : ropeMaterial);
    set.mesh.castShadow = true;
    // A sheet drawn into the shadow map from both faces shadows itself in stripes (acne) at
    // any bias that keeps the bodies' shadows attached: cloths only cast.
    set.mesh.receiveShadow = kind === 'rope';
    set.mesh.frustumCulled = false;
    set.mesh.visible = false; // until a frame places it
    particleRoot.add(set.mesh);
    return set;
  });
  particleCount = offset;
}

// Two triangles per cell of a grid of (resolution + 1) particles a side, row by row.
function clothGeometry([cellsA, cellsB]) {
  const rowLength = cellsA + 1;
  const indices = [];
  for (let b = 0; b < cellsB; b++) {
    for (let a = 0; a < cellsA; a++) {
      const i = b * rowLength + a;
      indices.push(i, i + 1, i + rowLength + 1, i, i + rowLength + 1, i + rowLength);
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * rowLength * (cellsB + 1)), 3));
  geometry.setIndex(indices);
  return geometry;
}

// A ring of ROPE_SIDES vertices per particle, quads between neighbouring rings.
function ropeGeometry(count) {
  const indices = [];
  for (let i = 0; i + 1 < count; i++) {
    for (let j = 0; j < ROPE_SIDES; j++) {
      const a = i * ROPE_SIDES + j;
      const b = i * ROPE_SIDES + ((j + 1) % ROPE_SIDES);
      indices.push(a, b, b + ROPE_SIDES, a, b + ROPE_SIDES, a + ROPE_SIDES);
    }
  }
  const geometry = new THREE.BufferGeometry();
  const vertices = 3 * ROPE_SIDES * count;
  geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(vertices), 3));
  geometry.setAttribute('normal', new THREE.BufferAttribute(new Float32Array(vertices), 3));
  geometry.setIndex(indices);
  return geometry;
}

// Reads the particle block (interpolated towards `next` by `alpha` in a replay) into every
// set and reshapes its mesh.
function readParticles(view, frame, next, alpha) {
  for (const set of particleSets) {
    const at = frame.particleOffset + set.offset * PARTICLE_BYTES;
    const bt = next && alpha > 0 ? next.particleOffset + set.offset * PARTICLE_BYTES : -1;
    for (let k = 0; k < 3 * set.count; k++) {
      let value = view.getFloat32(at + 4 * k, true);
      if (bt >= 0) value += (view.getFloat32(bt + 4 * k, true) - value) * alpha;
      set.positions[k] = value;
    }
    if (set.kind === 'cloth') shapeCloth(set);
    else shapeRope(set);
    set.mesh.geometry.computeBoundingBox();
    set.mesh.geometry.computeBoundingSphere();
    set.mesh.visible = true;
  }
}

// Vertex normals: the area-weighted mean of the normals of the triangles around each
// particle (three.js' computeVertexNormals); the material lights the back face with their
// negation.
function shapeCloth(set) {
  const geometry = set.mesh.geometry;
  geometry.attributes.position.array.set(set.positions);
  geometry.attributes.position.needsUpdate = true;
  geometry.computeVertexNormals();
}

// Each ring lies in the plane across the chain's direction t_i (from the previous particle to
// the next); its frame is carried along by parallel transport (the previous side vector u made
// perpendicular to t_i: u − (u·t_i) t_i, normalised) so that the tube does not twist.
const _t = new THREE.Vector3();
const _u = new THREE.Vector3();
const _w = new THREE.Vector3();
const _prev = new THREE.Vector3();
const _next = new THREE.Vector3();
const _side = new THREE.Vector3();
function shapeRope(set) {
  const { positions, count } = set;
  const radius = Math.max(set.def.thickness, MIN_ROPE_RADIUS);
  const position = set.mesh.geometry.attributes.position;
  const normal = set.mesh.geometry.attributes.normal;
  _u.set(0, 0, 0);
  for (let i = 0; i < count; i++) {
    _prev.fromArray(positions, 3 * Math.max(i - 1, 0));
    _next.fromArray(positions, 3 * Math.min(i + 1, count - 1));
    _t.subVectors(_next, _prev);
    if (_t.lengthSq() < 1e-12) _t.set(1, 0, 0);
    _t.normalize();
    _u.addScaledVector(_t, -_u.dot(_t));
    if (_u.lengthSq() < 1e-6) {
      // The first ring, or a fold back on itself: any side vector across t.
      _u.set(Math.abs(_t.x) < 0.9 ? 1 : 0, Math.abs(_t.x) < 0.9 ? 0 : 1, 0);
      _u.addScaledVector(_t, -_u.dot(_t));
    }
    _u.normalize();
    _w.crossVectors(_t, _u);
    _prev.fromArray(positions, 3 * i);
    for (let j = 0; j < ROPE_SIDES; j++) {
      const angle = (2 * Math.PI * j) / ROPE_SIDES;
      _side.copy(_u).multiplyScalar(Math.cos(angle)).addScaledVector(_w, Math.sin(angle));
      const v = i * ROPE_SIDES + j;
      normal.setXYZ(v, _side.x, _side.y, _side.z);
      position.setXYZ(v, _prev.x + radius * _side.x, _prev.y + radius * _side.y, _prev.z + radius * _side.z);
    }
  }
  position.needsUpdate = true;
  normal.needsUpdate = true;
}

// The particle under the pointer: on a cloth, the corner nearest the point where the ray
// meets its triangles; otherwise the particle nearest the ray within its thickness +
// PARTICLE_PICK_RADIUS. { set, particle, point, distance (along the ray) } or null.
function pickParticle() {
  let best = null;
  const ray = raycaster.ray;
  const point = new THREE.Vector3();
  particleSets.forEach((set, s) => {
    if (!set.mesh.visible) return;
    if (set.kind === 'cloth') {
      const hit = raycaster.intersectObject(set.mesh, false)[0];
      if (hit && (!best || hit.distance < best.distance)) {
        const corners = [hit.face.a, hit.face.b, hit.face.c];
        const nearest = (i) => point.fromArray(set.positions, 3 * i).distanceToSquared(hit.point);
        const particle = corners.reduce((a, b) => (nearest(b) < nearest(a) ? b : a));
        best = { set: s, particle, point: new THREE.Vector3().fromArray(set.positions, 3 * particle), distance: hit.distance };
      }
    }
    const reach = (set.def.thickness || 0) + PARTICLE_PICK_RADIUS;
    for (let i = 0; i < set.count; i++) {
      point.fromArray(set.positions, 3 * i);
      const along = point.clone().sub(ray.origin).dot(ray.direction);
      if (along <= 0 || (best && along >= best.distance) || ray.distanceSqToPoint(point) > reach * reach) continue;
      best = { set: s, particle: i, point: point.clone(), distance: along };
    }
  });
  return best;
}

// The world box around every drawn particle (for framing the camera).
function particleBounds(out) {
  out.makeEmpty();
  for (const set of particleSets) {
    if (set.mesh.visible) out.union(set.mesh.geometry.boundingBox);
  }
  return out;
}

function particleScreenPosition(s, i) {
  const set = particleSets[s];
  if (!set || i < 0 || i >= set.count || !set.mesh.visible) return null;
  const p = new THREE.Vector3().fromArray(set.positions, 3 * i).project(camera);
  const rect = canvas.getBoundingClientRect();
  return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height, depth: p.z };
}

// ---------------------------------------------------------------------------------------------
// Frames

function parseFrame(view, offset) {
  if (view.byteLength - offset < HEADER_BYTES) throw new Error(`frame of ${view.byteLength - offset} bytes`);
  const magic = view.getUint32(offset, true);
  if (magic !== FRAME_MAGIC) throw new Error(`bad frame magic 0x${magic.toString(16)}`);
  const header = {
    offset,
    step: view.getUint32(offset + 4, true),
    time: view.getFloat32(offset + 8, true),
    bodies: view.getUint32(offset + 12, true),
    contacts: view.getUint32(offset + 16, true),
    pairs: view.getUint32(offset + 20, true),
    awake: view.getUint32(offset + 24, true),
    joints: view.getUint32(offset + 28, true),
    ms: [0, 1, 2, 3, 4].map((i) => view.getFloat32(offset + 32 + 4 * i, true)),
  };
  header.bodyOffset = offset + HEADER_BYTES;
  header.contactOffset = header.bodyOffset + header.bodies * BODY_BYTES;
  header.characterOffset = header.contactOffset + header.contacts * CONTACT_BYTES;
  header.characters = characterCount;
  header.particleOffset = header.characterOffset + header.characters * CHARACTER_BYTES;
  header.particles = particleCount;
  header.length = header.particleOffset - offset + header.particles * PARTICLE_BYTES;
  if (view.byteLength - offset < header.length) {
    throw new Error(`frame of ${header.bodies} bodies and ${header.contacts} contact points is truncated`);
  }
  return header;
}

// Copies a frame's poses into poses[] (interpolated towards `next` by `alpha` when given) and
// returns the bodies whose flags changed.
function readPoses(view, frame, next = null, alpha = 0) {
  const count = Math.min(frame.bodies, flags.length);
  const changed = [];
  const qa = new THREE.Quaternion();
  const qb = new THREE.Quaternion();
  for (let b = 0; b < count; b++) {
    const at = frame.bodyOffset + b * BODY_BYTES;
    for (let k = 0; k < 7; k++) poses[7 * b + k] = view.getFloat32(at + 4 * k, true);
    if (next && alpha > 0 && b < next.bodies) {
      const bt = next.bodyOffset + b * BODY_BYTES;
      for (let k = 0; k < 3; k++) {
        poses[7 * b + k] += (view.getFloat32(bt + 4 * k, true) - poses[7 * b + k]) * alpha;
      }
      qa.fromArray(poses, 7 * b + 3);
      qb.set(
        view.getFloat32(bt + 12, true),
        view.getFloat32(bt + 16, true),
        view.getFloat32(bt + 20, true),
        view.getFloat32(bt + 24, true),
      );
      qa.slerp(qb, alpha).toArray(poses, 7 * b + 3);
    }
    const f = view.getUint32(at + 28, true);
    if (f !== flags[b] || !posesValid) changed.push(b);
    flags[b] = f;
  }
  return changed;
}

function showFrame(view, frame, next = null, alpha = 0) {
  if (!state.scene) return;
  const changed = readPoses(view, frame, next, alpha);
  state.step = frame.step;
  state.time = frame.time;
  state.lastFrame = frame;
  lastContacts = { view, offset: frame.contactOffset, count: frame.contacts };
  readCharacters(view, frame, next, alpha);
  readParticles(view, frame, next, alpha);
  applyPoses(changed);
  updateClock();
}

function onBinaryFrame(buffer) {
  let frame;
  const view = new DataView(buffer);
  try {
    frame = parseFrame(view, 0);
  } catch (error) {
    reportError(`bad frame from the server: ${error.message}`);
    return;
  }
  state.framesReceived++;
  showFrame(view, frame);
  pushStats(frame);
}

// ---------------------------------------------------------------------------------------------
// Stats panel and the live plot of ms per stage

const samples = []; // { t (ms, wall clock), ms: [5] }

function pushStats(frame) {
  const now = performance.now();
  samples.push({ t: now, ms: frame.ms });
  while (samples.length && samples[0].t < now - PLOT_SECONDS * 1000) samples.shift();
  statsDirty = true;
}

let statsDirty = true;
let lastStatsDraw = 0;

{
  const legend = $('plot-legend');
  for (const stage of STAGES) {
    const swatch = el('i');
    swatch.style.background = stage.color;
    legend.append(el('span', {}, swatch, stage.name));
  }
}

function drawStats() {
  const f = state.lastFrame;
  const rows = [
    ['bodies', state.scene ? state.scene.bodies.length : 0, 'awake', f ? f.awake : 0],
    ['pairs', f ? f.pairs : 0, 'points', f ? (state.overlays.contacts ? f.contacts : '–') : 0],
    ['joints', f ? f.joints : 0, 'frames', state.framesReceived],
  ];
  if (f) {
    STAGES.forEach((stage, i) => {
      if (i % 2 === 0) rows.push([]);
      rows[rows.length - 1].push(`${stage.name} ms`, fmt(f.ms[i], 3));
    });
  }
  const stats = $('stats');
  stats.replaceChildren();
  for (const row of rows) {
    for (let i = 0; i < 4; i++) {
      stats.append(el('span', { class: i % 2 === 0 ? 'k' : 'v' }, row[i] === undefined ? '' : String(row[i])));
    }
  }
  // The plot: one line per stage over the last PLOT_SECONDS.
  const plot = $('plot');
  // The drawing buffer follows the shown width (the panel's, less its scrollbar).
  const shownWidth = Math.round(plot.clientWidth);
  if (shownWidth > 0 && plot.width !== shownWidth) plot.width = shownWidth;
  const ctx = plot.getContext('2d');
  const { width, height } = plot;
  ctx.clearRect(0, 0, width, height);
  const now = performance.now();
  // The scale follows the usual totals; a rare spike (a scene load) is clipped at the top.
  const totals = samples.map((s) => s.ms[4]).sort((a, b) => a - b);
  const usual = totals.length ? totals[Math.floor((totals.length - 1) * 0.97)] : 0;
  const scale = niceCeiling(Math.max(0.1, usual * 1.15));
  ctx.strokeStyle = '#2b3139';
  ctx.lineWidth = 1;
  for (let k = 1; k < 4; k++) {
    const y = Math.round(height - (k / 4) * (height - 12)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(0, y);
    ctx.lineTo(width, y);
    ctx.stroke();
  }
  STAGES.forEach((stage, i) => {
    ctx.strokeStyle = stage.color;
    ctx.lineWidth = i === 4 ? 1.5 : 1;
    ctx.beginPath();
    samples.forEach((s, k) => {
      const x = width - ((now - s.t) / (PLOT_SECONDS * 1000)) * width;
      const y = Math.max(1, height - (s.ms[i] / scale) * (height - 12));
      if (k === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    });
    ctx.stroke();
  });
  ctx.fillStyle = '#8b96a3';
  ctx.font = '10px system-ui, sans-serif';
  ctx.fillText(`${scale} ms`, 4, 10);
  ctx.fillText(`${PLOT_SECONDS} s`, width - 22, height - 3);
}

function niceCeiling(x) {
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return +(m * p).toPrecision(3);
  return x;
}

function updateClock() {
  $('clock').textContent = `t ${fmt(state.time)} s · step ${state.step}`;
  statsDirty = true;
}

// ---------------------------------------------------------------------------------------------
// Controls panel

function setPaused(paused) {
  state.paused = paused;
  $('play').textContent = paused ? 'Play' : 'Pause';
}

function setSpeed(speed) {
  state.speed = speed;
  const select = $('speed');
  const options = [...select.options].map((o) => Number(o.value));
  if (!options.includes(speed)) select.append(el('option', { value: String(speed) }, `${speed}×`));
  select.value = String(speed);
}

function fillGallery(names) {
  state.samples = names.slice();
  const gallery = $('gallery');
  gallery.replaceChildren();
  for (const name of names) {
    const button = el(
      'button',
      { type: 'button', dataset: { sample: name }, onclick: () => send({ type: 'load_sample', name }) },
      name.replaceAll('_', ' '),
    );
    button.classList.toggle('active', name === state.sceneName);
    gallery.append(button);
  }
}

// Solver settings: every control names its field; a change sends that field alone. The
// settings message is fulcrum's WorldSettings: `substeps` sits at its top level, the other
// controls' fields in `solver`.
const solverControls = [...document.querySelectorAll('[data-field]')];
const WORLD_FIELDS = new Set(['substeps']);
const gravityControls = ['g-x', 'g-y', 'g-z'].map($);

for (const control of solverControls) {
  control.addEventListener('change', () => {
    const field = control.dataset.field;
    let value;
    if (control.type === 'checkbox') value = control.checked;
    else if (control.type === 'number') {
      value = Number(control.value);
      if (control.value === '' || !Number.isFinite(value)) {
        reportError(`${field}: not a number`);
        return;
      }
    } else value = control.value;
    send(WORLD_FIELDS.has(field) ? { type: 'settings', [field]: value } : { type: 'settings', solver: { [field]: value } });
    markActiveSolverFields(field === 'mode' ? value : undefined);
  });
}
$('w-sleep').addEventListener('change', (event) => send({ type: 'settings', sleep: event.target.checked }));

for (const control of gravityControls) {
  control.addEventListener('change', () => {
    const gravity = gravityControls.map((c) => Number(c.value));
    if (gravityControls.some((c) => c.value === '') || !gravity.every(Number.isFinite)) {
      reportError('gravity: every component must be a number');
      return;
    }
    send({ type: 'settings', gravity });
  });
}

function applySettings(message) {
  state.settings = message;
  const solver = message.solver || {};
  for (const control of solverControls) {
    const field = control.dataset.field;
    const value = WORLD_FIELDS.has(field) ? message[field] : solver[field];
    if (value === undefined) continue;
    if (control.type === 'checkbox') control.checked = !!value;
    else control.value = String(value);
  }
  if (Array.isArray(message.gravity)) gravityControls.forEach((c, i) => (c.value = String(message.gravity[i])));
  if (typeof message.sleep === 'boolean') $('w-sleep').checked = message.sleep;
  markActiveSolverFields(solver.mode);
}

// Dims the switches the current mode ignores (substeps and relax are soft-step's, iterations
// and position correction pgs').
function markActiveSolverFields(solverMode) {
  const current = solverMode || $('s-mode').value;
  for (const node of document.querySelectorAll('#solver-section .soft')) {
    node.classList.toggle('inactive', current !== 'soft_step');
  }
  for (const node of document.querySelectorAll('#solver-section .pgs')) node.classList.toggle('inactive', current !== 'pgs');
}

$('play').addEventListener('click', () => togglePlay());
$('step').addEventListener('click', () => stepOnce());
$('reset').addEventListener('click', () => resetScene());
$('shoot').addEventListener('click', () => shoot());
$('save-state').addEventListener('click', () => send({ type: 'save_state' }));
$('restore-state').addEventListener('click', () => send({ type: 'restore_state' }));
$('speed').addEventListener('change', (event) => {
  const speed = Number(event.target.value);
  if (mode === 'live') send({ type: 'speed', value: speed });
  else setSpeed(speed);
});

function togglePlay() {
  if (mode === 'live') send({ type: state.paused ? 'play' : 'pause' });
  else replay.toggle();
}

function stepOnce() {
  if (mode === 'live') {
    send({ type: 'step' });
    if (state.selected >= 0) send({ type: 'inspect', body: state.selected });
  } else replay.stepFrame(1);
}

function resetScene() {
  if (mode === 'live') send({ type: 'reset' });
  else replay.seek(0);
}

window.addEventListener('keydown', (event) => {
  const tag = (event.target && event.target.tagName) || '';
  if (['INPUT', 'SELECT', 'TEXTAREA'].includes(tag) || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.toLowerCase();
  if (characterMeshes.length && driveKey(key, true, event.repeat)) {
    event.preventDefault();
    return;
  }
  if (key === ' ') togglePlay();
  else if (key === '.') stepOnce();
  else if (key === 'r') resetScene();
  else if (key === 'b' && mode === 'live') shoot();
  else if (key === 'f') frameCamera();
  else if (key === 'escape') select(-1);
  else return;
  event.preventDefault();
});

window.addEventListener('keyup', (event) => {
  if (characterMeshes.length && driveKey(event.key.toLowerCase(), false, false)) event.preventDefault();
});
window.addEventListener('blur', () => {
  if (keysDown.size) {
    keysDown.clear();
    sendDrive(0);
  }
});

// Scene files: the file picker, or dropped anywhere on the page.
$('file-input').addEventListener('change', (event) => {
  const file = event.target.files[0];
  if (file) loadSceneFile(file);
  event.target.value = '';
});

let dragDepth = 0;
window.addEventListener('dragenter', (event) => {
  if (mode !== 'live' || !event.dataTransfer || ![...event.dataTransfer.types].includes('Files')) return;
  dragDepth++;
  $('drop').classList.remove('hidden');
});
window.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (dragDepth === 0) $('drop').classList.add('hidden');
});
window.addEventListener('dragover', (event) => event.preventDefault());
window.addEventListener('drop', (event) => {
  event.preventDefault();
  dragDepth = 0;
  $('drop').classList.add('hidden');
  if (mode !== 'live') {
    showMessage('a replay cannot load scene files: open the live testbed (fulcrum view)', 'note');
    return;
  }
  const file = event.dataTransfer && event.dataTransfer.files[0];
  if (file) loadSceneFile(file);
});

function loadSceneFile(file) {
  if (file.size > MAX_SCENE_FILE_BYTES) {
    reportError(`${file.name}: ${file.size} bytes; scene files of at most 8 MiB can be loaded`);
    return;
  }
  file.text().then(
    (json) => {
      send({ type: 'load_scene', json, name: file.name });
      showMessage(`loading ${file.name}…`, 'note');
    },
    (error) => reportError(`${file.name}: cannot read the file: ${error.message}`),
  );
}

// ---------------------------------------------------------------------------------------------
// Mouse: pick, drag (through the server's target joint), click to inspect, shoot

const raycaster = new THREE.Raycaster();
const pointerNdc = new THREE.Vector2();
let pointerInside = false;
let press = null; // { x, y, body, moved }
let drag = null; // { plane }: the drag target stays on this plane
let hoverPending = false;

function setPointer(event) {
  const rect = canvas.getBoundingClientRect();
  pointerNdc.set(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
  raycaster.setFromCamera(pointerNdc, camera);
}

// The nearest body under the pointer (planes included): { body, point, distance } or null.
function pick() {
  if (!state.scene || !posesValid) return null;
  const targets = batches.map((b) => b.mesh).concat(planeMeshes.map((p) => p.mesh));
  const hits = raycaster.intersectObjects(targets, false);
  for (const hit of hits) {
    const batch = hit.object.userData.batch;
    const { distance } = hit;
    if (batch) return { body: batch.instances[hit.instanceId].body, point: hit.point.clone(), distance };
    if (hit.object.userData.body !== undefined) return { body: hit.object.userData.body, point: hit.point.clone(), distance };
  }
  return null;
}

function onPointerDown(event) {
  pointerInside = true;
  if (event.button !== 0) return;
  setPointer(event);
  const hit = pick();
  const particle = mode === 'live' ? nearerParticle(hit) : null;
  press = { x: event.clientX, y: event.clientY, body: hit && !particle ? hit.body : -1, moved: false };
  // A press on a particle or a dynamic body drags it; anywhere else the camera orbits (a click
  // selects).
  const draggable = particle || (hit && mode === 'live' && state.scene.bodies[hit.body].kind === 'dynamic');
  if (!draggable) return;
  controls.enabled = false;
  canvas.setPointerCapture(event.pointerId);
  const normal = camera.getWorldDirection(new THREE.Vector3()).negate();
  const point = (particle || hit).point;
  drag = { plane: new THREE.Plane().setFromNormalAndCoplanarPoint(normal, point) };
  if (particle) send({ type: 'drag_particle', set: particle.set, particle: particle.particle });
  else send({ type: 'drag_start', body: hit.body, point: point.toArray() });
  canvas.style.cursor = 'grabbing';
}

// The particle under the pointer when it is no further along the ray than the body `hit`.
function nearerParticle(hit) {
  const particle = pickParticle();
  return particle && (!hit || particle.distance <= hit.distance) ? particle : null;
}

function onPointerMove(event) {
  pointerInside = true;
  setPointer(event);
  if (press && Math.hypot(event.clientX - press.x, event.clientY - press.y) > 4) press.moved = true;
  if (drag) {
    const target = raycaster.ray.intersectPlane(drag.plane, new THREE.Vector3());
    if (target) send({ type: 'drag_move', target: target.toArray() });
    return;
  }
  if (!press && !hoverPending) {
    // Hover feedback at most once per animation frame.
    hoverPending = true;
    requestAnimationFrame(() => {
      hoverPending = false;
      const hit = pick();
      const draggable =
        mode === 'live' && ((hit && state.scene.bodies[hit.body].kind === 'dynamic') || nearerParticle(hit));
      canvas.style.cursor = draggable ? 'grab' : hit ? 'pointer' : '';
    });
  }
}

// Forgets the page's drag (the server's is gone) and gives the mouse back to the camera.
function endDrag() {
  drag = null;
  press = null;
  controls.enabled = true;
  canvas.style.cursor = '';
}

function onPointerUp(event) {
  if (drag) {
    send({ type: 'drag_end' });
    drag = null;
  }
  if (press && !press.moved && event.type === 'pointerup') select(press.body);
  press = null;
  controls.enabled = true;
  canvas.style.cursor = '';
  if (canvas.hasPointerCapture(event.pointerId)) canvas.releasePointerCapture(event.pointerId);
}

function shoot() {
  if (mode !== 'live' || !state.scene) return;
  const direction = new THREE.Vector3();
  if (pointerInside) direction.copy(raycaster.ray.direction);
  else camera.getWorldDirection(direction);
  send({ type: 'shoot', origin: camera.position.toArray(), direction: direction.normalize().toArray() });
}

// The inspected body: the server answers `inspect` with `body_info` (asked again while it stays
// selected); a replay shows what its frames tell.
let inspectTimer = 0;

function select(body) {
  const previous = state.selected;
  state.selected = body;
  state.info = null;
  if (previous >= 0 && previous < flags.length) refreshBodyColor(previous);
  if (body >= 0 && state.scene) refreshBodyColor(body);
  clearInterval(inspectTimer);
  if (body >= 0 && mode === 'live') {
    send({ type: 'inspect', body });
    inspectTimer = setInterval(() => {
      if (state.selected === body && !state.paused) send({ type: 'inspect', body });
    }, 300);
  }
  refreshInfo();
  requestRender();
}

function refreshInfo() {
  const box = $('info');
  const b = state.selected;
  if (b < 0 || !state.scene || b >= state.scene.bodies.length) {
    box.classList.add('hidden');
    return;
  }
  const body = state.scene.bodies[b];
  const rows = [
    ['kind', body.kind],
    ['mass', body.kind === 'dynamic' ? `${fmt(body.mass, 3)} kg` : '∞'],
    ['position', fmtVec([...poses.subarray(7 * b, 7 * b + 3)])],
  ];
  const info = state.info && state.info.body === b ? state.info : null;
  if (info) {
    const v = info.velocity || [0, 0, 0];
    rows.push(['velocity', `${fmtVec(v)} |${fmt(Math.hypot(...v))}| m/s`]);
    rows.push(['angular vel.', `${fmtVec(info.angular_velocity || [0, 0, 0])} rad/s`]);
    rows.push(['contacts', String(info.contacts)]);
    rows.push(['sleeping', info.sleeping ? 'yes' : 'no']);
    if (info.mass !== undefined && body.kind === 'dynamic') rows[1][1] = `${fmt(info.mass, 3)} kg`;
  } else {
    rows.push(['sleeping', flags[b] & FLAG_SLEEPING ? 'yes' : 'no']);
    if (flags[b] & FLAG_DISABLED) rows.push(['disabled', 'yes (non-finite state)']);
    if (mode === 'replay') {
      const v = replay.velocityOf(b);
      if (v) rows.push(['velocity', `${fmtVec(v)} |${fmt(Math.hypot(...v))}| m/s`]);
    }
  }
  const list = el('dl');
  for (const [k, v] of rows) list.append(el('dt', {}, k), el('dd', {}, v));
  box.replaceChildren(el('h3', {}, `${body.name || '(unnamed)'} #${b}`), list);
  box.classList.remove('hidden');
}

// ---------------------------------------------------------------------------------------------
// Live mode: the WebSocket

let socket = null;

function send(message) {
  if (mode !== 'live') return;
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    if (message.type !== 'drag_move' && message.type !== 'inspect') reportError('not connected to the fulcrum process');
    return;
  }
  socket.send(JSON.stringify(message));
}

function setConnection(text, kind) {
  const pill = $('connection');
  pill.textContent = text;
  pill.className = `pill ${kind}`;
}

function connect() {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  socket.addEventListener('open', () => {
    state.connected = true;
    setConnection('live', 'ok');
    if (state.overlays.contacts) send({ type: 'overlay', contacts: true });
  });
  socket.addEventListener('message', (event) => {
    if (typeof event.data === 'string') onTextMessage(event.data);
    else onBinaryFrame(event.data);
  });
  socket.addEventListener('close', () => {
    const was = state.connected;
    state.connected = false;
    drag = null;
    setConnection('disconnected', 'bad');
    if (was) showMessage('connection to the fulcrum process lost; reconnecting…', 'note');
    setTimeout(connect, 1000);
  });
}

function onTextMessage(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    reportError(`malformed message from the server: ${text.slice(0, 120)}`);
    return;
  }
  switch (message.type) {
    case 'hello':
      if (message.version !== 1) showMessage(`the server speaks protocol version ${message.version}; this page, 1`);
      fillGallery(message.samples || []);
      setPaused(!!message.paused);
      if (message.speed) setSpeed(message.speed);
      break;
    case 'scene':
      if (['load', 'reset', 'restore'].includes(message.reason)) endDrag(); // the server ended it
      buildScene(message);
      $('message').classList.add('hidden');
      break;
    case 'settings':
      applySettings(message);
      break;
    case 'state':
      setPaused(!!message.paused);
      if (message.speed) setSpeed(message.speed);
      break;
    case 'saved_state':
      $('restore-state').disabled = false;
      $('restore-state').title = `go back to the state saved after step ${message.step} (${(message.bytes / 1024).toFixed(0)} KiB)`;
      break;
    case 'body_info':
      state.info = message;
      refreshInfo();
      break;
    case 'error':
      reportError(message.message || 'error');
      break;
    default:
      break; // newer servers may send more; ignore what this page does not know
  }
  statsDirty = true;
}

// ---------------------------------------------------------------------------------------------
// Replay mode: frames from the document, played at real time × speed (interpolated)

const replay = {
  view: null,
  frames: [], // parsed headers
  index: 0,
  playhead: 0, // simulated seconds
  playing: true,
  lastWall: 0,
  stride: 1,
  timestep: 1 / 60,

  load() {
    const data = JSON.parse(replayElement.textContent);
    const binary = atob(data.frames || '');
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    this.view = new DataView(bytes.buffer);
    characterCount = ((data.scene && data.scene.characters) || []).length;
    particleCount = countParticles(data.scene);
    for (let at = 0; at < bytes.length; ) {
      const frame = parseFrame(this.view, at);
      this.frames.push(frame);
      at += frame.length;
    }
    this.stride = data.stride || 1;
    this.timestep = data.timestep || 1 / 60;
    buildScene(data.scene);
    if (data.settings) applySettings(data.settings);
    for (const control of [...solverControls, ...gravityControls, $('w-sleep')]) control.disabled = true;
    setConnection('replay', 'ok');
    const last = this.frames[this.frames.length - 1];
    $('replay-note').textContent =
      `Recorded run: ${this.frames.length} frames, every ${this.stride} step${this.stride > 1 ? 's' : ''}, ` +
      `${last ? fmt(last.time) : 0} s simulated. Written by fulcrum run --html.`;
    const scrub = $('scrub');
    scrub.max = String(Math.max(0, this.frames.length - 1));
    scrub.addEventListener('input', () => {
      this.pause();
      this.seekFrame(Number(scrub.value));
    });
    this.seek(0);
    setPaused(false);
  },

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  },

  play() {
    if (this.index >= this.frames.length - 1) this.seek(0);
    this.playing = true;
    this.lastWall = performance.now();
    setPaused(false);
  },

  pause() {
    this.playing = false;
    setPaused(true);
  },

  seek(time) {
    this.playhead = time;
    this.show();
  },

  seekFrame(i) {
    const frame = this.frames[Math.max(0, Math.min(i, this.frames.length - 1))];
    if (frame) this.seek(frame.time);
  },

  stepFrame(delta) {
    this.pause();
    this.seekFrame(this.index + delta);
  },

  // Shows the state at the playhead: the last frame at or before it, blended towards the next.
  show() {
    const frames = this.frames;
    if (!frames.length) return;
    let i = Math.min(this.index, frames.length - 1);
    while (i > 0 && frames[i].time > this.playhead) i--;
    while (i + 1 < frames.length && frames[i + 1].time <= this.playhead) i++;
    this.index = i;
    const next = frames[i + 1];
    const alpha = next ? THREE.MathUtils.clamp((this.playhead - frames[i].time) / (next.time - frames[i].time), 0, 1) : 0;
    const changedFrame = state.lastFrame !== frames[i];
    showFrame(this.view, frames[i], next, alpha);
    if (changedFrame) {
      state.framesReceived = i + 1;
      pushStats(frames[i]);
    }
    $('scrub').value = String(i);
  },

  tick(now) {
    if (!this.playing || !this.frames.length) return;
    const dt = Math.min(0.1, (now - this.lastWall) / 1000);
    this.lastWall = now;
    const end = this.frames[this.frames.length - 1].time;
    this.playhead = Math.min(end, this.playhead + dt * state.speed);
    this.show();
    if (this.playhead >= end) this.pause();
  },

  // Velocity of a body from the frames around the current one (finite difference).
  velocityOf(b) {
    const a = this.frames[Math.max(0, this.index - 1)];
    const c = this.frames[Math.min(this.frames.length - 1, this.index + 1)];
    if (!a || !c || a === c || b >= a.bodies) return null;
    const dt = c.time - a.time;
    return [0, 1, 2].map(
      (k) =>
        (this.view.getFloat32(c.bodyOffset + b * BODY_BYTES + 4 * k, true) -
          this.view.getFloat32(a.bodyOffset + b * BODY_BYTES + 4 * k, true)) /
        dt,
    );
  },
};

// ---------------------------------------------------------------------------------------------
// The render loop: draws only when something changed

function animate(now) {
  requestAnimationFrame(animate);
  if (mode === 'replay') replay.tick(now);
  if (statsDirty && now - lastStatsDraw > 80) {
    statsDirty = false;
    lastStatsDraw = now;
    drawStats();
  }
  if (!renderDirty) return;
  renderDirty = false;
  renderer.render(scene3d, camera);
}

// ---------------------------------------------------------------------------------------------
// Test hook: a read-only view of the page's state

function bodyScreenPosition(i) {
  if (!state.scene || i < 0 || i >= bodyMatrices.length || !posesValid) return null;
  const box = bodyWorldBox(i, new THREE.Box3());
  const p = box.isEmpty() ? new THREE.Vector3().setFromMatrixPosition(bodyMatrices[i]) : box.getCenter(new THREE.Vector3());
  p.project(camera);
  const rect = canvas.getBoundingClientRect();
  return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height, depth: p.z };
}

window.fulcrumTestbed = Object.freeze({
  get mode() { return mode; },
  get connected() { return state.connected; },
  get paused() { return state.paused; },
  get speed() { return state.speed; },
  get step() { return state.step; },
  get time() { return state.time; },
  get framesReceived() { return state.framesReceived; },
  get sceneName() { return state.sceneName; },
  get bodyCount() { return state.scene ? state.scene.bodies.length : 0; },
  get jointCount() { return state.scene ? (state.scene.joints || []).length : 0; },
  get samples() { return state.samples.slice(); },
  get lastError() { return state.lastError; },
  get errors() { return state.errors.slice(); },
  get settings() { return state.settings ? JSON.parse(JSON.stringify(state.settings)) : null; },
  get selected() { return state.selected; },
  get info() { return state.info ? { ...state.info } : null; },
  get stats() {
    const f = state.lastFrame;
    return f ? { pairs: f.pairs, contacts: f.contacts, awake: f.awake, joints: f.joints, ms: f.ms.slice() } : null;
  },
  bodyName: (i) => (state.scene && state.scene.bodies[i] ? state.scene.bodies[i].name : null),
  bodyKind: (i) => (state.scene && state.scene.bodies[i] ? state.scene.bodies[i].kind : null),
  bodyPosition: (i) => (posesValid && i >= 0 && i < flags.length ? [...poses.subarray(7 * i, 7 * i + 3)] : null),
  bodyRotation: (i) => (posesValid && i >= 0 && i < flags.length ? [...poses.subarray(7 * i + 3, 7 * i + 7)] : null),
  bodySleeping: (i) => !!(flags[i] & FLAG_SLEEPING),
  get characterCount() { return characterMeshes.length; },
  // Per cloth and rope: what is drawn of it.
  get particleSets() {
    return particleSets.map((set) => ({
      kind: set.kind,
      name: set.def.name,
      particles: set.count,
      triangles: set.mesh.geometry.index.count / 3,
      drawn: set.mesh.visible,
    }));
  },
  particlePosition: (s, i) => (particleSets[s] && i >= 0 && i < particleSets[s].count ? [...particleSets[s].positions.subarray(3 * i, 3 * i + 3)] : null),
  particleScreenPosition,
  characterName: (i) => (state.scene && state.scene.characters && state.scene.characters[i] ? state.scene.characters[i].name : null),
  characterPosition: (i) => (i >= 0 && i < characterPositions.length ? characterPositions[i].slice() : null),
  characterGrounded: (i) => !!(characterFlags[i] & FLAG_GROUNDED),
  get camera() { return { position: camera.position.toArray(), target: controls.target.toArray() }; },
  bodyScreenPosition,
});

// ---------------------------------------------------------------------------------------------
// Start

markActiveSolverFields();
if (mode === 'replay') {
  try {
    replay.load();
  } catch (error) {
    reportError(`cannot read the embedded recording: ${error.message}`);
  }
} else {
  connect();
}
requestAnimationFrame(animate);
