//! Recordings of a run, written as one self-contained HTML file that replays it offline
//! (`fulcrum run SCENE --html replay.html`).
//!
//! The file is the testbed page with everything inlined: the style sheet in a `<style>`, and
//! three.js, OrbitControls and the page's script as JSON strings in
//! `<script type="application/json" id="fulcrum-modules">`, turned into `blob:` module URLs
//! and an import map by a small inline loader (a page opened from `file://` can fetch nothing;
//! `data:` URLs would exceed Chromium's 2 MiB URL limit for three.js's core). The recording sits
//! in `<script type="application/json" id="fulcrum-replay">`:
//!
//! ```text
//! {"format": 1, "name": "pyramid", "timestep": 0.016666668, "stride": 1, "frame_count": 601,
//!  "scene": {scene message}, "settings": {settings message},
//!  "frames": "<base64 of the binary frames, back to back>"}
//! ```
//! The scene and settings messages and the frames are the live server's ([`crate::messages`],
//! [`crate::frame`]: the protocol's binary layout, contact points included). The page finds that
//! element and plays the frames without a WebSocket. Every `<` in the inlined
//! JSON is written as `\u003c`, so no text inside can close its `<script>` element.

use fulcrum::{BodyId, CharacterId, ParticleSetId, SceneIndex, World};

use crate::assets;
use crate::frame::{self, FrameOrder};
use crate::messages::{self, SceneReason};
use crate::source;

/// Size of the frames as embedded in the page (base64 characters, 4 per 3 frame bytes) a
/// recording keeps by default: 4 MiB, on top of three.js's 2.1 MB. A 10 s run of a hundred
/// bodies keeps every step.
pub const DEFAULT_BUDGET_BYTES: usize = 4 << 20;

/// The page's tags the replay writer replaces (each must occur exactly once in index.html).
const STYLE_TAG: &str = r#"<link rel="stylesheet" href="style.css">"#;
const IMPORT_MAP_BEGIN: &str = r#"<script type="importmap">"#;
const APP_TAG: &str = r#"<script type="module" src="app.js"></script>"#;

/// A run being recorded: the scene message at the start and a frame every `stride` steps.
///
/// When the kept frames, base64-encoded, grow past the budget, every other one is dropped and
/// the stride doubles, so a long run ends with between half the budget and the budget, evenly
/// spaced.
pub struct Recorder {
    name: String,
    /// The bodies in scene-message and frame order.
    bodies: Vec<BodyId>,
    /// The characters, likewise.
    characters: Vec<CharacterId>,
    /// The cloths and ropes, likewise.
    particle_sets: Vec<ParticleSetId>,
    scene: String,
    settings: String,
    timestep: f32,
    /// Step number of the first frame; kept frames are `first + k·stride`.
    first: u64,
    stride: u64,
    budget: usize,
    /// (step, frame bytes)
    frames: Vec<(u64, Vec<u8>)>,
    bytes: usize,
}

impl Recorder {
    /// Starts a recording of a world built from a scene file, as it is now (its scene message,
    /// and the current state as the first frame), keeping every `stride`-th step (at least 1).
    /// Bodies and joints are listed in the scene's order, as `fulcrum view` lists them.
    pub fn new(world: &World, index: &SceneIndex, name: &str, stride: u64) -> Recorder {
        let (body_names, bodies): (Vec<String>, Vec<BodyId>) =
            index.iter().map(|(name, id)| (name.to_string(), id)).unzip();
        let joints: Vec<_> = index.joints().map(|(_, id)| id).collect();
        let characters: Vec<CharacterId> = index.characters().map(|(_, id)| id).collect();
        let particle_sets = source::particle_sets(index);
        let listed = messages::Listed {
            bodies: &bodies,
            body_names: &body_names,
            joints: &joints,
            particle_sets: &particle_sets,
        };
        let mut recorder = Recorder {
            name: name.to_string(),
            scene: messages::scene_of(world, &listed, &characters, name, SceneReason::Load),
            bodies,
            characters,
            particle_sets,
            settings: messages::settings(world),
            timestep: world.settings().timestep,
            first: world.step_count(),
            stride: stride.max(1),
            budget: DEFAULT_BUDGET_BYTES,
            frames: Vec::new(),
            bytes: 0,
        };
        recorder.push(world);
        recorder
    }

    /// Sets the budget of the kept frames as embedded, in base64 characters (at least one
    /// frame is always kept).
    pub fn with_budget(mut self, bytes: usize) -> Recorder {
        self.budget = bytes;
        self.thin();
        self
    }

    /// Records the world after a step, if its step number is a multiple of the stride.
    pub fn record(&mut self, world: &World) {
        if world.step_count().saturating_sub(self.first) % self.stride == 0 {
            self.push(world);
            self.thin();
        }
    }

    /// Frames kept so far.
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// Steps between kept frames.
    pub fn stride(&self) -> u64 {
        self.stride
    }

    /// Size of the kept frames as embedded in the page: base64 characters.
    pub fn encoded_frame_bytes(&self) -> usize {
        base64_len(self.bytes)
    }

    fn push(&mut self, world: &World) {
        let order =
            FrameOrder { bodies: &self.bodies, characters: &self.characters, particle_sets: &self.particle_sets };
        let bytes = frame::encode(world, order, true);
        self.bytes += bytes.len();
        self.frames.push((world.step_count(), bytes));
    }

    fn thin(&mut self) {
        while self.encoded_frame_bytes() > self.budget && self.frames.len() > 1 {
            let stride = self.stride.saturating_mul(2);
            let first = self.first;
            self.frames.retain(|(step, _)| (step - first) % stride == 0);
            self.bytes = self.frames.iter().map(|(_, f)| f.len()).sum();
            self.stride = stride;
        }
    }

    /// The recording's JSON (what goes into `#fulcrum-replay`).
    pub fn to_json(&self) -> String {
        let mut frames = Vec::with_capacity(self.bytes);
        for (_, bytes) in &self.frames {
            frames.extend_from_slice(bytes);
        }
        format!(
            r#"{{"format":1,"name":{},"timestep":{},"stride":{},"frame_count":{},"scene":{},"settings":{},"frames":"{}"}}"#,
            json_string(&self.name),
            serde_json::to_string(&self.timestep).unwrap_or_else(|_| "null".into()),
            self.stride,
            self.frames.len(),
            self.scene,
            self.settings,
            base64(&frames),
        )
    }

    /// The self-contained replay page.
    pub fn to_html(&self) -> String {
        replay_html(&self.to_json())
    }
}

/// The testbed page with everything inlined and `recording_json` (see the module docs) as its
/// recording.
pub fn replay_html(recording_json: &str) -> String {
    let page = assets::INDEX_HTML;
    let style = format!("<style>\n{}</style>", assets::STYLE_CSS.replace("</style", "<\\/style"));
    let page = replace_once(page, STYLE_TAG, &style);
    // The import map's script element, up to and including its closing tag.
    let map_start = page.find(IMPORT_MAP_BEGIN).expect("index.html has an import map");
    let map_end =
        map_start + page[map_start..].find("</script>").expect("the import map is closed") + "</script>".len();
    let page = format!("{}{}", &page[..map_start], &page[map_end..]);
    let modules = format!(
        r#"{{"three_core":{},"three":{},"orbit_controls":{},"app":{}}}"#,
        json_string(assets::THREE_CORE_JS),
        json_string(assets::THREE_MODULE_JS),
        json_string(assets::ORBIT_CONTROLS_JS),
        json_string(assets::APP_JS),
    );
    let inline = format!(
        "<script type=\"application/json\" id=\"fulcrum-replay\">{}</script>\n\
         <script type=\"application/json\" id=\"fulcrum-modules\">{}</script>\n\
         <script>{LOADER}</script>",
        escape_lt(recording_json),
        escape_lt(&modules),
    );
    replace_once(&page, APP_TAG, &inline)
}

/// Turns the inlined module texts into `blob:` URLs (three.module.js's relative import of its
/// core rewritten to the core's URL), declares the import map, then starts the page's module.
const LOADER: &str = r#"
(function () {
  var m = JSON.parse(document.getElementById('fulcrum-modules').textContent);
  var url = function (text) { return URL.createObjectURL(new Blob([text], { type: 'text/javascript' })); };
  var core = url(m.three_core);
  var three = url(m.three.split("'./three.core.js'").join(JSON.stringify(core)));
  var map = document.createElement('script');
  map.type = 'importmap';
  map.textContent = JSON.stringify({ imports: { 'three': three, 'three/addons/controls/OrbitControls.js': url(m.orbit_controls) } });
  document.head.appendChild(map);
  var app = document.createElement('script');
  app.type = 'module';
  app.src = url(m.app);
  document.body.appendChild(app);
})();
"#;

fn replace_once(text: &str, pattern: &str, with: &str) -> String {
    assert_eq!(text.matches(pattern).count(), 1, "index.html must contain {pattern} exactly once");
    text.replacen(pattern, with, 1)
}

/// A JSON string literal.
fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

/// JSON with every `<` escaped, safe inside a `<script>` element (JSON has `<` only inside
/// strings, where `\u003c` means the same).
fn escape_lt(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// Length of the base64 text of `bytes` bytes: 4 characters per 3 bytes, the last group padded.
pub fn base64_len(bytes: usize) -> usize {
    bytes.div_ceil(3) * 4
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(base64_len(bytes.len()));
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            out.push(if i <= chunk.len() { ALPHABET[(n >> shift) as usize & 63] as char } else { '=' });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{BODY_BYTES, CONTACT_BYTES, HEADER_BYTES, MAGIC};
    use fulcrum::Scene;

    fn pyramid() -> (World, SceneIndex) {
        let text = include_str!("../../../scenes/pyramid.json");
        Scene::from_json_str(text, "pyramid").unwrap().build().unwrap()
    }

    /// The step number and length of the frame at the start of `bytes`.
    fn frame_step_and_len(bytes: &[u8]) -> (u32, usize) {
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!(u32_at(0), MAGIC);
        (u32_at(4), HEADER_BYTES + u32_at(12) as usize * BODY_BYTES + u32_at(16) as usize * CONTACT_BYTES)
    }

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let cases =
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("foobar", "Zm9vYmFy")];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
            assert_eq!(base64_len(plain.len()), encoded.len());
        }
    }

    #[test]
    fn recorder_keeps_every_stride_and_thins_to_the_budget() {
        let (mut world, index) = pyramid();
        let mut recorder = Recorder::new(&world, &index, "pyramid", 2);
        for _ in 0..20 {
            world.step(world.settings().timestep).unwrap();
            recorder.record(&world);
        }
        assert_eq!(recorder.frame_count(), 11);
        assert_eq!(recorder.stride(), 2);
        let one = recorder.encoded_frame_bytes() / recorder.frame_count();
        let mut recorder = recorder.with_budget(one * 4);
        assert!(recorder.encoded_frame_bytes() <= one * 4, "{} bytes", recorder.encoded_frame_bytes());
        assert!(recorder.stride() >= 4);
        for _ in 0..40 {
            world.step(world.settings().timestep).unwrap();
            recorder.record(&world);
        }
        assert!(recorder.frame_count() >= 2 && recorder.encoded_frame_bytes() <= one * 4);
        // The kept frames are evenly spaced from step 0.
        let json: serde_json::Value = serde_json::from_str(&recorder.to_json()).unwrap();
        assert_eq!(json["scene"]["type"], "scene");
        assert_eq!(json["settings"]["type"], "settings");
        assert_eq!(json["frame_count"], recorder.frame_count());
        assert_eq!(json["frames"].as_str().unwrap().len(), recorder.encoded_frame_bytes());
        let bytes = decode_base64(json["frames"].as_str().unwrap());
        let (mut at, mut steps) = (0, Vec::new());
        while at < bytes.len() {
            let (step, len) = frame_step_and_len(&bytes[at..]);
            assert_eq!(u32::from_le_bytes(bytes[at + 12..at + 16].try_into().unwrap()) as usize, world.body_count());
            steps.push(step as u64);
            at += len;
        }
        let stride = recorder.stride();
        assert!(steps.iter().enumerate().all(|(i, &s)| s == i as u64 * stride), "{steps:?} stride {stride}");
    }

    #[test]
    fn replay_html_inlines_everything_and_nothing_closes_a_script_early() {
        let (world, index) = pyramid();
        let html = Recorder::new(&world, &index, "pyramid <x></script>", 1).to_html();
        assert!(!html.contains(STYLE_TAG) && !html.contains(APP_TAG) && !html.contains(IMPORT_MAP_BEGIN));
        assert!(!html.contains("src=\"./vendor") && !html.contains("href=\"style.css"));
        for id in ["fulcrum-replay", "fulcrum-modules"] {
            let start = html.find(&format!("id=\"{id}\">")).unwrap();
            let body = &html[start..];
            let end = body.find("</script>").unwrap();
            let json = &body[body.find('>').unwrap() + 1..end];
            let value: serde_json::Value = serde_json::from_str(json).expect("the element holds the whole JSON");
            if id == "fulcrum-modules" {
                assert_eq!(value["three_core"].as_str().unwrap(), assets::THREE_CORE_JS);
                assert_eq!(value["app"].as_str().unwrap(), assets::APP_JS);
            } else {
                assert_eq!(value["name"], "pyramid <x></script>");
            }
        }
    }

    fn decode_base64(text: &str) -> Vec<u8> {
        let value = |c: u8| match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            _ => 63,
        };
        let mut out = Vec::new();
        for chunk in text.as_bytes().chunks(4) {
            let n = chunk.iter().take_while(|&&c| c != b'=').count();
            let mut acc = 0u32;
            for (i, &c) in chunk.iter().enumerate() {
                acc |= u32::from(if c == b'=' { 0 } else { value(c) }) << (18 - 6 * i);
            }
            out.extend_from_slice(&acc.to_be_bytes()[1..n]);
        }
        out
    }
}
