// End-to-end test of the testbed in a real headless browser (Debian's chromium, driven by
// playwright-core): starts `fulcrum view newtons_cradle` on a free port, opens the page and
// checks, through the page's read-only hook window.fulcrumTestbed and real mouse and button
// input:
//   - the page loads and connects with no console errors (checked again at the end),
//   - the canvas is not blank (pixel variance of a screenshot),
//   - bodies move; pause freezes them; a single step advances exactly one step,
//   - a sample switch from the gallery loads the new scene; solver switches reach the server,
//   - dragging a body with the mouse moves it; shooting adds a ball that flies,
//   - a scene file opened from disk loads; a bad one is refused in the page's message area,
//   - a character driven with the keyboard (camera-relative WASD) walks up a flight of stairs,
//   - the flag_on_pole sample draws its cloth, and dragging a particle of it moves it,
//   - a replay page written by `fulcrum run --html` plays from file:// with no server,
//   - at 1280×800 the side panel, live and in a replay, has no horizontal scrollbar.
// Saves a screenshot as target/e2e/testbed.png (and, with UPDATE_SCREENSHOT=1, the README's
// docs/testbed.png). Run by scripts/e2e.sh, which installs and builds what it needs.
//
// Environment: FULCRUM_BIN (the binary; default target/debug/fulcrum under CARGO_TARGET_DIR or
// ./target), CHROMIUM (default: chromium on PATH), E2E_OUT (artefact folder, default
// <target>/e2e), UPDATE_SCREENSHOT=1.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const targetDir = process.env.CARGO_TARGET_DIR ? path.resolve(process.env.CARGO_TARGET_DIR) : path.join(root, 'target');
const binary = process.env.FULCRUM_BIN || path.join(targetDir, 'debug', 'fulcrum');
const outDir = process.env.E2E_OUT || path.join(targetDir, 'e2e');
const chromiumPath = process.env.CHROMIUM || findOnPath(['chromium', 'chromium-browser']);
const FIRST_SAMPLE = 'newtons_cradle'; // never sleeps: its balls keep swinging
const SECOND_SAMPLE = 'pyramid';

const started = Date.now();
const consoleErrors = [];
let server = null;
let serverLog = '';
let browser = null;
let page = null;

function findOnPath(names) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (fs.existsSync(candidate)) return candidate;
    }
  }
  return null;
}

function log(text) {
  console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${text}`);
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let lastError = null;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`fulcrum view exited with ${server.exitCode}:\n${serverLog}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
      lastError = new Error(`HTTP ${response.status}`);
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (${lastError && lastError.message}):\n${serverLog}`);
}

// Waits until `predicate` (run in the page, given `arg`) is truthy; the message says what was
// expected.
async function waitFor(message, predicate, arg, timeoutMs = 15000) {
  try {
    await page.waitForFunction(predicate, arg, { timeout: timeoutMs, polling: 50 });
  } catch {
    const hook = await page.evaluate(() => {
      const t = window.fulcrumTestbed;
      return t && { connected: t.connected, scene: t.sceneName, step: t.step, paused: t.paused, lastError: t.lastError };
    });
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}; page state: ${JSON.stringify(hook)}`);
  }
}

const hook = (fn, arg) => page.evaluate(fn, arg);

// Positions of every non-static body.
const movingPositions = () =>
  hook(() => {
    const t = window.fulcrumTestbed;
    const out = [];
    for (let i = 0; i < t.bodyCount; i++) if (t.bodyKind(i) !== 'static') out.push(t.bodyPosition(i));
    return out;
  });

function largestMove(a, b) {
  let max = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    max = Math.max(max, Math.hypot(a[i][0] - b[i][0], a[i][1] - b[i][1], a[i][2] - b[i][2]));
  }
  return max;
}

// Standard deviation of the canvas's luminance and the number of distinct colours, from a
// screenshot decoded by the page itself.
async function canvasVariance() {
  const png = await page.locator('#view canvas').screenshot();
  return page.evaluate(async (base64) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    const { data } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
    let sum = 0;
    let sumSq = 0;
    const colours = new Set();
    const n = data.length / 4;
    for (let i = 0; i < data.length; i += 4) {
      const y = 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
      sum += y;
      sumSq += y * y;
      if (colours.size < 5000) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    }
    const mean = sum / n;
    return { stddev: Math.sqrt(Math.max(0, sumSq / n - mean * mean)), colours: colours.size };
  }, png.toString('base64'));
}

async function main() {
  check(fs.existsSync(binary), `no fulcrum binary at ${binary} (build it, or set FULCRUM_BIN)`);
  check(chromiumPath, 'chromium is not installed (scripts/install-e2e.sh installs it)');
  fs.mkdirSync(outDir, { recursive: true });

  const port = await freePort();
  server = spawn(binary, ['view', FIRST_SAMPLE, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout.on('data', (d) => (serverLog += d));
  server.stderr.on('data', (d) => (serverLog += d));
  const url = `http://127.0.0.1:${port}/`;
  await waitForHttp(url, 20000);
  log(`fulcrum view ${FIRST_SAMPLE} serving ${url}`);

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // WebGL on the CPU (no GPU on CI machines); root in containers needs --no-sandbox.
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
    // Scrollbars take their width, as in a desktop browser (headless hides them by default),
    // so that the panel check below sees the width its content really has.
    ignoreDefaultArgs: ['--hide-scrollbars'],
  });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
  await page.goto(url);

  // Loads, connects, receives the scene and frames.
  await waitFor(
    `the ${FIRST_SAMPLE} scene and frames`,
    (name) => {
      const t = window.fulcrumTestbed;
      return t && t.connected && t.sceneName === name && t.framesReceived > 5 && t.bodyPosition(0) !== null;
    },
    FIRST_SAMPLE,
  );
  const samples = await hook(() => window.fulcrumTestbed.samples);
  check(samples.includes(SECOND_SAMPLE), `hello.samples lacks ${SECOND_SAMPLE}: ${samples}`);
  check(consoleErrors.length === 0, `console errors while loading: ${consoleErrors.join(' | ')}`);
  log(`page loaded: ${await hook(() => window.fulcrumTestbed.bodyCount)} bodies, ${samples.length} samples`);

  // The canvas is not blank.
  await sleep(300);
  const pixels = await canvasVariance();
  check(pixels.stddev > 8 && pixels.colours > 50, `the canvas looks blank: ${JSON.stringify(pixels)}`);
  log(`canvas drawn: luminance stddev ${pixels.stddev.toFixed(1)}, ${pixels.colours}+ colours`);

  // Bodies move.
  const before = await movingPositions();
  await sleep(600);
  const after = await movingPositions();
  const moved = largestMove(before, after);
  check(moved > 1e-3, `bodies did not move in 0.6 s (largest move ${moved} m)`);
  log(`bodies move: up to ${moved.toFixed(3)} m in 0.6 s`);

  // Pause freezes them.
  await page.click('#play');
  await waitFor('the paused state', () => window.fulcrumTestbed.paused);
  await sleep(300); // frames already on their way
  const pausedStep = await hook(() => window.fulcrumTestbed.step);
  const pausedAt = await movingPositions();
  await sleep(700);
  const pausedStepLater = await hook(() => window.fulcrumTestbed.step);
  const drift = largestMove(pausedAt, await movingPositions());
  check(pausedStepLater === pausedStep, `paused, yet the step went from ${pausedStep} to ${pausedStepLater}`);
  check(drift === 0, `paused, yet bodies moved by ${drift} m`);
  log(`pause freezes the simulation at step ${pausedStep}`);

  // A single step advances exactly one step.
  await page.click('#step');
  await waitFor(`step ${pausedStep + 1}`, (s) => window.fulcrumTestbed.step === s, pausedStep + 1, 5000);
  await sleep(500);
  const afterStep = await hook(() => window.fulcrumTestbed.step);
  check(afterStep === pausedStep + 1, `one step went from ${pausedStep} to ${afterStep}`);
  check(largestMove(pausedAt, await movingPositions()) > 0, 'a single step did not move the swinging balls');
  log(`single step: ${pausedStep} -> ${afterStep}`);

  // Play resumes.
  await page.click('#play');
  await waitFor('running again', (s) => !window.fulcrumTestbed.paused && window.fulcrumTestbed.step > s + 2, afterStep);

  // A sample switch loads the new scene.
  const expectedBodies = JSON.parse(fs.readFileSync(path.join(root, 'scenes', `${SECOND_SAMPLE}.json`), 'utf8')).bodies.length;
  await page.click(`#gallery button[data-sample="${SECOND_SAMPLE}"]`);
  await waitFor(
    `the ${SECOND_SAMPLE} scene`,
    ([name, count]) => {
      const t = window.fulcrumTestbed;
      return t.sceneName === name && t.bodyCount === count && t.bodyPosition(count - 1) !== null;
    },
    [SECOND_SAMPLE, expectedBodies],
  );
  log(`sample switch: ${SECOND_SAMPLE} loaded with ${expectedBodies} bodies`);

  // At 1280×800 the panel fits its column: it scrolls down, never sideways.
  await page.setViewportSize({ width: 1280, height: 800 });
  await sleep(300);
  await checkPanelFits('live page at 1280×800');
  await page.setViewportSize({ width: 1440, height: 900 });

  // The solver switches go to the server, and the panel shows what the server answers.
  await page.selectOption('#s-mode', 'pgs');
  await waitFor('pgs mode', () => window.fulcrumTestbed.settings.solver.mode === 'pgs');
  await page.uncheck('#s-warm_start');
  await waitFor('warm start off', () => window.fulcrumTestbed.settings.solver.warm_start === false);
  await page.fill('#s-iterations', '12');
  await page.press('#s-iterations', 'Enter');
  await waitFor('12 iterations', () => window.fulcrumTestbed.settings.solver.iterations === 12);
  await page.selectOption('#s-mode', 'soft_step');
  await page.check('#s-warm_start');
  await waitFor(
    'soft step with warm start',
    () => window.fulcrumTestbed.settings.solver.mode === 'soft_step' && window.fulcrumTestbed.settings.solver.warm_start,
  );
  log('solver switches: pgs, warm start off, 12 iterations, then back, all echoed by the server');

  // Dragging a body moves it: grab the top box of the pyramid and pull it up and sideways.
  await sleep(800); // let the camera frame the new scene and the pyramid settle
  const top = await hook(() => {
    const t = window.fulcrumTestbed;
    let best = -1;
    for (let i = 0; i < t.bodyCount; i++) {
      if (t.bodyKind(i) === 'dynamic' && (best < 0 || t.bodyPosition(i)[1] > t.bodyPosition(best)[1])) best = i;
    }
    return { index: best, position: t.bodyPosition(best), screen: t.bodyScreenPosition(best) };
  });
  check(top.index >= 0 && top.screen, 'no dynamic body to drag');
  await page.mouse.move(top.screen.x, top.screen.y);
  await page.mouse.down();
  for (let k = 1; k <= 12; k++) {
    await page.mouse.move(top.screen.x + 6 * k, top.screen.y - 12 * k);
    await sleep(40);
  }
  await sleep(900);
  const dragged = await hook((i) => window.fulcrumTestbed.bodyPosition(i), top.index);
  const dragInfo = await hook(() => window.fulcrumTestbed.selected);
  await page.mouse.up();
  const lift = dragged[1] - top.position[1];
  const dragMove = largestMove([top.position], [dragged]);
  check(dragMove > 0.2 && lift > 0.1, `dragging body ${top.index} moved it ${dragMove.toFixed(3)} m (up ${lift.toFixed(3)} m)`);
  log(`drag: body ${top.index} moved ${dragMove.toFixed(2)} m (up ${lift.toFixed(2)} m), selected ${dragInfo}`);

  // Shooting a ball from the camera adds a body (at the end of the list) that flies off.
  const middle = await hook(() => window.fulcrumTestbed.bodyScreenPosition(20));
  await page.mouse.move(middle.x, middle.y);
  await page.keyboard.press('b');
  await waitFor(
    'the shot ball',
    (count) => {
      const t = window.fulcrumTestbed;
      return t.bodyCount === count + 1 && t.bodyPosition(count) !== null && t.bodyKind(count) === 'dynamic';
    },
    expectedBodies,
  );
  const ballStart = await hook((i) => window.fulcrumTestbed.bodyPosition(i), expectedBodies);
  await sleep(300);
  const ballFlew = largestMove([ballStart], [await hook((i) => window.fulcrumTestbed.bodyPosition(i), expectedBodies)]);
  check(ballFlew > 0.5, `the shot ball moved only ${ballFlew.toFixed(3)} m in 0.3 s`);
  log(`shoot: ball ${expectedBodies} flew ${ballFlew.toFixed(2)} m in 0.3 s`);

  // Overlays on for the picture, then the screenshot.
  await page.check('#o-contacts');
  await sleep(500);
  const shot = path.join(outDir, 'testbed.png');
  await page.screenshot({ path: shot });
  log(`screenshot: ${path.relative(root, shot)}`);

  const serverErrors = await hook(() => window.fulcrumTestbed.errors);
  check(serverErrors.length === 0, `the page showed errors: ${serverErrors.join(' | ')}`);

  // A scene file opened from disk loads under its file name; a bad one is refused with the
  // loader's message in the page's message area, and the scene stays.
  const dropped = {
    format: 1,
    bodies: [
      { name: 'floor', kind: 'static', colliders: [{ shape: { type: 'plane', normal: [0, 1, 0], offset: 0 } }] },
      { name: 'rock', position: [0, 2, 0], colliders: [{ shape: { type: 'convex_hull', points: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.6, 0.6, 0.6]] } }] },
      { name: 'pill', position: [2, 2, 0], colliders: [{ shape: { type: 'capsule', half_height: 0.4, radius: 0.2 } }] },
      { name: 'can', position: [-2, 2, 0], colliders: [{ shape: { type: 'cylinder', half_height: 0.3, radius: 0.3 } }] },
    ],
  };
  const upload = (name, json) =>
    page.setInputFiles('#file-input', { name, mimeType: 'application/json', buffer: Buffer.from(json) });
  await upload('dropped.json', JSON.stringify(dropped));
  await waitFor(
    'the uploaded scene',
    () => /dropped/.test(window.fulcrumTestbed.sceneName) && window.fulcrumTestbed.bodyCount === 4,
  );
  const bad = JSON.stringify({ format: 1, bodies: [{ name: 'x', colliders: [{ shape: { type: 'sphere', radius: -1 } }] }] });
  await upload('bad.json', bad);
  await waitFor('the refusal of bad.json', () => window.fulcrumTestbed.errors.length === 1);
  const refusal = await hook(() => window.fulcrumTestbed.lastError);
  check(/radius/.test(refusal), `the refusal does not name the field: ${refusal}`);
  check(await page.isVisible('#message'), 'the refusal is not shown on the page');
  check((await page.textContent('#message-text')).includes('radius'), 'the message area does not show the refusal');
  check(/dropped/.test(await hook(() => window.fulcrumTestbed.sceneName)), 'a refused scene replaced the loaded one');
  log(`scene files: dropped.json loaded; bad.json refused with "${refusal}"`);

  // A character driven with the keyboard up a flight of stairs (0.25 m steps, 0.4 m deep, from
  // x = 1.5 to a landing at 1.5 m high): hold the keys that walk it along +x as seen from the
  // camera, until it stands on the landing.
  await page.click('#message-close');
  if (await hook(() => window.fulcrumTestbed.paused)) await page.click('#play');
  const steps = [];
  for (let k = 1; k <= 6; k++) {
    const [start, end, top] = [1.5 + 0.4 * (k - 1), 8, 0.25 * k];
    steps.push({ name: `step${k}`, kind: 'static', position: [(start + end) / 2, top / 2, 0],
                 colliders: [{ shape: { type: 'box', half_extents: [(end - start) / 2, top / 2, 6] } }] });
  }
  const stairs = {
    format: 1,
    bodies: [{ name: 'floor', kind: 'static', position: [0, -0.5, 0],
               colliders: [{ shape: { type: 'box', half_extents: [12, 0.5, 12] } }] }, ...steps],
    characters: [{ name: 'walker', position: [-1, 0.81, 0] }],
  };
  await upload('stairs.json', JSON.stringify(stairs));
  await waitFor('the stairs scene', () => /stairs/.test(window.fulcrumTestbed.sceneName) && window.fulcrumTestbed.characterCount === 1);
  // The keys whose camera-relative direction is closest to +x (the page walks along the
  // camera's horizontal view direction for W, to its right for D).
  const { position, target } = await hook(() => window.fulcrumTestbed.camera);
  const look = [target[0] - position[0], target[2] - position[2]];
  const norm = Math.hypot(look[0], look[1]);
  const ahead = look[0] / norm; // x of the forward direction
  const right = -look[1] / norm; // x of the right direction (forward turned a quarter, clockwise from above)
  const combos = [['w'], ['s'], ['d'], ['a'], ['w', 'd'], ['w', 'a'], ['s', 'd'], ['s', 'a']];
  const alongX = (keys) => {
    const f = keys.reduce((sum, k) => sum + ({ w: 1, s: -1 }[k] || 0), 0);
    const r = keys.reduce((sum, k) => sum + ({ d: 1, a: -1 }[k] || 0), 0);
    return (f * ahead + r * right) / Math.hypot(f, r);
  };
  const keys = combos.reduce((best, c) => (alongX(c) > alongX(best) ? c : best));
  for (const key of keys) await page.keyboard.down(key);
  await waitFor(
    'the driven character on the landing',
    () => {
      const t = window.fulcrumTestbed;
      const p = t.characterPosition(0);
      return p && p[0] > 1.5 + 0.4 * 5 + 0.3 && p[1] > 1.5 + 0.8 && t.characterGrounded(0);
    },
    undefined,
    20000,
  );
  for (const key of keys) await page.keyboard.up(key);
  const arrived = await hook(() => window.fulcrumTestbed.characterPosition(0));
  check(Math.abs(arrived[1] - (1.5 + 0.81)) < 0.02, `the character is not standing on the landing: ${arrived}`);
  log(`character: driven with ${keys.join('+')} up six 0.25 m steps to ${arrived.map((v) => v.toFixed(2)).join(', ')}`);

  // Cloth: the flag sample draws its cloth (a mesh of the grid's triangles, placed by the
  // frames), and dragging the middle of its free edge with the mouse lifts that particle.
  await page.click('#gallery button[data-sample="flag_on_pole"]');
  await waitFor('the flag drawn', () => {
    const t = window.fulcrumTestbed;
    return t.sceneName === 'flag_on_pole' && t.particleSets.length === 1 && t.particleSets[0].drawn;
  });
  const flag = await hook(() => window.fulcrumTestbed.particleSets[0]);
  check(
    flag.kind === 'cloth' && flag.particles === 21 * 13 && flag.triangles === 2 * 20 * 12,
    `the flag is drawn as ${JSON.stringify(flag)}, not 21 × 13 particles and 480 triangles`,
  );
  await sleep(1500); // let the camera frame the flag and the flag droop
  const edge = 6 * 21 + 20; // particle [20, 6]: the middle of the free edge
  const grabbed = await hook(
    (i) => ({ position: window.fulcrumTestbed.particlePosition(0, i), screen: window.fulcrumTestbed.particleScreenPosition(0, i) }),
    edge,
  );
  check(grabbed.screen, 'the flag edge particle is not on screen');
  await page.mouse.move(grabbed.screen.x, grabbed.screen.y);
  await page.mouse.down();
  for (let k = 1; k <= 12; k++) {
    await page.mouse.move(grabbed.screen.x + 4 * k, grabbed.screen.y - 10 * k);
    await sleep(40);
  }
  await sleep(600);
  const pulled = await hook((i) => window.fulcrumTestbed.particlePosition(0, i), edge);
  await page.mouse.up();
  const particleLift = pulled[1] - grabbed.position[1];
  const particleMove = largestMove([grabbed.position], [pulled]);
  check(
    particleMove > 0.2 && particleLift > 0.1,
    `dragging flag particle ${edge} moved it ${particleMove.toFixed(3)} m (up ${particleLift.toFixed(3)} m)`,
  );
  log(`cloth: flag drawn (${flag.particles} particles, ${flag.triangles} triangles); particle ${edge} dragged ${particleMove.toFixed(2)} m (up ${particleLift.toFixed(2)} m)`);

  if (process.env.UPDATE_SCREENSHOT === '1') {
    // The README's picture: the default scene of `fulcrum view`, a pile of ragdolls, mid-fall.
    await page.click('#message-close');
    await page.uncheck('#o-contacts');
    await page.click('#gallery button[data-sample="ragdoll_pile"]');
    await waitFor('ragdoll_pile', () => window.fulcrumTestbed.sceneName === 'ragdoll_pile');
    await sleep(2500);
    await page.keyboard.press('f'); // frame the pile where it landed
    await sleep(400);
    await page.screenshot({ path: path.join(root, 'docs', 'testbed.png') });
    log('updated docs/testbed.png');
  }
  check(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);

  // Replay: `fulcrum run --html` writes one page that plays the run from file:// with no server
  // (the live page and server are closed first: software WebGL needs the CPU).
  await page.close();
  server.kill('SIGTERM');
  const replayPath = path.join(outDir, 'replay.html');
  const run = spawnSync(binary, ['run', SECOND_SAMPLE, '--steps', '180', '--html', replayPath], { encoding: 'utf8' });
  check(run.status === 0, `fulcrum run --html failed: ${run.stderr}`);
  const replayPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  replayPage.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`replay: ${message.text()}`);
  });
  replayPage.on('pageerror', (error) => consoleErrors.push(`replay uncaught: ${error.message}`));
  page = replayPage;
  await page.goto(pathToFileURL(replayPath).href);
  await waitFor(
    'the replay to play',
    (count) => {
      const t = window.fulcrumTestbed;
      return t && t.mode === 'replay' && t.bodyCount === count && t.step > 10;
    },
    expectedBodies,
  );
  const replayPixels = await canvasVariance();
  check(replayPixels.stddev > 8, `the replay's canvas looks blank: ${JSON.stringify(replayPixels)}`);
  await page.click('#play');
  await waitFor('the replay paused', () => window.fulcrumTestbed.paused);
  const replayStep = await hook(() => window.fulcrumTestbed.step);
  await page.click('#step');
  const nextStep = await hook(() => window.fulcrumTestbed.step);
  check(nextStep === replayStep + 1, `replay step went from ${replayStep} to ${nextStep}`);
  await checkPanelFits('replay page at 1280×800');
  check(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
  log(`replay: ${path.relative(root, replayPath)} (${(fs.statSync(replayPath).size / 1e6).toFixed(1)} MB) plays from file://`);
}

// The side panel's content is no wider than the panel (no horizontal scrollbar), and the
// widest element in it is named when it is.
async function checkPanelFits(where) {
  const fit = await page.evaluate(() => {
    const panel = document.getElementById('panel');
    const right = panel.getBoundingClientRect().left + panel.clientWidth;
    let widest = null;
    for (const element of panel.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && box.right > right + 0.5 && (!widest || box.right > widest.right)) {
        widest = { right: box.right, what: element.id || element.className || element.tagName };
      }
    }
    const scrollsDown = panel.scrollHeight > panel.clientHeight;
    return { scrollWidth: panel.scrollWidth, clientWidth: panel.clientWidth, scrollsDown, widest };
  });
  check(
    fit.scrollWidth <= fit.clientWidth,
    `${where}: the panel scrolls sideways (scrollWidth ${fit.scrollWidth} > clientWidth ${fit.clientWidth}; ` +
      `widest: ${JSON.stringify(fit.widest)})`,
  );
  const scrollbar = fit.scrollsDown ? ', beside its vertical scrollbar' : '';
  log(`${where}: the panel fits (scrollWidth ${fit.scrollWidth} <= clientWidth ${fit.clientWidth}${scrollbar})`);
}

let failed = false;
try {
  await main();
} catch (error) {
  failed = true;
  console.error(`[e2e] FAILED: ${error.message}`);
  if (consoleErrors.length) console.error(`[e2e] console errors: ${consoleErrors.join(' | ')}`);
  if (page) {
    try {
      fs.mkdirSync(outDir, { recursive: true });
      await page.screenshot({ path: path.join(outDir, 'failure.png') });
      console.error(`[e2e] screenshot of the failure: ${path.join(outDir, 'failure.png')}`);
    } catch {
      // the page may be gone
    }
  }
  if (serverLog) console.error(`[e2e] fulcrum view output:\n${serverLog}`);
} finally {
  if (browser) await browser.close().catch(() => {});
  if (server && server.exitCode === null) server.kill('SIGTERM');
}
log(failed ? 'failed' : 'passed');
process.exit(failed ? 1 : 0);
