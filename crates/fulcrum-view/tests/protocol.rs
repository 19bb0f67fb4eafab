//! The testbed protocol (docs/testbed-protocol.md) from the outside: a server on an ephemeral
//! loopback port, real WebSocket clients (tokio-tungstenite) and plain HTTP requests. Frames
//! are parsed here from the layout in the protocol document, not with the server's code.
//! Waits are generous and bounded; nothing asserts how fast anything is.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{timeout, Instant};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use fulcrum_view::{SceneSource, ViewServer};

/// Longest wait for anything the server should send.
const WAIT: Duration = Duration::from_secs(20);

async fn start(scene: &str) -> SocketAddr {
    let server = ViewServer::bind("127.0.0.1", 0, SceneSource::resolve(scene).unwrap()).await.unwrap();
    let address = server.local_addr();
    tokio::spawn(server.serve(std::future::pending()));
    address
}

/// One body of a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BodyPose {
    position: [f32; 3],
    rotation: [f32; 4],
    flags: u32,
}

/// A binary frame, parsed from the protocol's layout.
#[derive(Clone, Debug)]
struct Frame {
    step: u32,
    bodies: Vec<BodyPose>,
    contacts: Vec<[f32; 6]>,
    joints: u32,
    /// The floats after the contact points: characters' and particles' blocks, which only the
    /// scene message sizes.
    tail: Vec<f32>,
}

fn parse_frame(bytes: &[u8]) -> Frame {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let f32_at = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert!(bytes.len() >= 52, "frame of {} bytes", bytes.len());
    assert_eq!(u32_at(0), 0x3152_4D46, "magic");
    let (n, c) = (u32_at(12) as usize, u32_at(16) as usize);
    let tail_at = 52 + 32 * n + 24 * c;
    assert!(bytes.len() >= tail_at && bytes.len() % 4 == 0, "frame length for {n} bodies, {c} contact points");
    assert!(f32_at(8) >= 0.0, "time");
    for stage in 0..5 {
        assert!(f32_at(32 + 4 * stage) >= 0.0, "stage time {stage}");
    }
    let bodies = (0..n)
        .map(|i| {
            let at = 52 + 32 * i;
            BodyPose {
                position: [f32_at(at), f32_at(at + 4), f32_at(at + 8)],
                rotation: [f32_at(at + 12), f32_at(at + 16), f32_at(at + 20), f32_at(at + 24)],
                flags: u32_at(at + 28),
            }
        })
        .collect();
    let contacts = (0..c)
        .map(|i| {
            let at = 52 + 32 * n + 24 * i;
            [0, 4, 8, 12, 16, 20].map(|o| f32_at(at + o))
        })
        .collect();
    let tail = (tail_at..bytes.len()).step_by(4).map(f32_at).collect();
    Frame { step: u32_at(4), bodies, contacts, joints: u32_at(28), tail }
}

enum Incoming {
    Text(Value),
    Frame(Frame),
}

/// A browser tab.
struct Tab {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Tab {
    async fn open(address: SocketAddr) -> Tab {
        let (socket, _) = tokio_tungstenite::connect_async(format!("ws://{address}/ws")).await.unwrap();
        Tab { socket }
    }

    /// The next message, failing the test after [`WAIT`].
    async fn next(&mut self) -> Incoming {
        loop {
            let message = timeout(WAIT, self.socket.next()).await.expect("nothing from the server").unwrap().unwrap();
            match message {
                Message::Text(text) => return Incoming::Text(serde_json::from_str(text.as_str()).unwrap()),
                Message::Binary(bytes) => return Incoming::Frame(parse_frame(&bytes)),
                Message::Close(frame) => panic!("the server closed the connection: {frame:?}"),
                _ => {}
            }
        }
    }

    async fn send(&mut self, message: Value) {
        self.socket.send(Message::Text(message.to_string().into())).await.unwrap();
    }

    /// Skips frames and other texts until a text message of this type.
    async fn text(&mut self, kind: &str) -> Value {
        loop {
            if let Incoming::Text(value) = self.next().await {
                if value["type"] == kind {
                    return value;
                }
                assert_ne!(value["type"], "error", "unexpected error while waiting for {kind}: {value}");
            }
        }
    }

    /// Skips texts and frames until a frame that satisfies `wanted`.
    async fn frame_where(&mut self, wanted: impl Fn(&Frame) -> bool) -> Frame {
        loop {
            if let Incoming::Frame(frame) = self.next().await {
                if wanted(&frame) {
                    return frame;
                }
            }
        }
    }

    async fn frame(&mut self) -> Frame {
        self.frame_where(|_| true).await
    }

    /// Every frame that arrives within `period`.
    async fn frames_during(&mut self, period: Duration) -> Vec<Frame> {
        let end = Instant::now() + period;
        let mut frames = Vec::new();
        while let Ok(message) = tokio::time::timeout_at(end, self.socket.next()).await {
            if let Message::Binary(bytes) = message.unwrap().unwrap() {
                frames.push(parse_frame(&bytes));
            }
        }
        frames
    }

    /// Pauses and returns the step the simulation stopped at.
    async fn pause(&mut self) -> u32 {
        self.send(json!({"type": "pause"})).await;
        let state = self.text("state").await;
        assert_eq!(state["paused"], true);
        let frames = self.frames_during(Duration::from_millis(300)).await;
        match frames.last() {
            Some(frame) => frame.step,
            None => self.current_step().await,
        }
    }

    /// The current state (an overlay toggle makes the server send a frame).
    async fn current_frame(&mut self) -> Frame {
        self.send(json!({"type": "overlay", "contacts": false})).await;
        self.frame().await
    }

    async fn current_step(&mut self) -> u32 {
        self.current_frame().await.step
    }

    /// The error sent in reply to `message`.
    async fn error_for(&mut self, message: Message) -> String {
        self.socket.send(message).await.unwrap();
        let error = self.text_or_error().await;
        assert_eq!(error["type"], "error", "expected an error, got {error}");
        error["message"].as_str().unwrap().to_string()
    }

    async fn text_or_error(&mut self) -> Value {
        loop {
            if let Incoming::Text(value) = self.next().await {
                return value;
            }
        }
    }
}

/// A tab that has read hello, scene and settings.
async fn greeted(address: SocketAddr) -> (Tab, Value) {
    let mut tab = Tab::open(address).await;
    let Incoming::Text(hello) = tab.next().await else { panic!("hello must come first") };
    assert_eq!(hello["type"], "hello");
    let scene = tab.text("scene").await;
    tab.text("settings").await;
    (tab, scene)
}

#[tokio::test]
async fn connect_gets_hello_scene_settings_then_frames() {
    let address = start("pyramid").await;
    let mut tab = Tab::open(address).await;
    let Incoming::Text(hello) = tab.next().await else { panic!("hello must come first") };
    assert_eq!(hello["type"], "hello");
    assert_eq!(hello["version"], 1);
    let samples: Vec<&str> = hello["samples"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    for name in ["pyramid", "ragdoll_pile", "large_pyramid", "joint_grid"] {
        assert!(samples.contains(&name), "{name} in {samples:?}");
    }
    let Incoming::Text(scene) = tab.next().await else { panic!("scene must come second") };
    assert_eq!(scene["type"], "scene");
    assert_eq!(scene["name"], "pyramid");
    let bodies = scene["bodies"].as_array().unwrap();
    assert!(bodies.iter().any(|b| b["kind"] == "static"));
    let first_dynamic = bodies.iter().find(|b| b["kind"] == "dynamic").unwrap();
    assert_eq!(first_dynamic["colliders"][0]["shape"]["type"], "box");
    assert!(first_dynamic["mass"].as_f64().unwrap() > 0.0);
    let Incoming::Text(settings) = tab.next().await else { panic!("settings must come third") };
    assert_eq!(settings["type"], "settings");
    assert_eq!(settings["solver"]["mode"], "soft_step");
    assert_eq!(settings["substeps"], 4);
    let frame = tab.frame().await;
    assert_eq!(frame.bodies.len(), bodies.len());
    assert!(frame.bodies.iter().all(|b| b.position.iter().chain(&b.rotation).all(|x| x.is_finite())));
    let later = tab.frame_where(|f| f.step > frame.step).await;
    assert_eq!(later.bodies.len(), bodies.len());
}

#[tokio::test]
async fn pause_freezes_and_step_advances_exactly_one() {
    let address = start("bouncing_balls").await;
    let (mut tab, _) = greeted(address).await;
    tab.frame_where(|f| f.step > 2).await;
    let stopped = tab.pause().await;
    let frames = tab.frames_during(Duration::from_millis(500)).await;
    assert!(frames.iter().all(|f| f.step == stopped), "steps while paused: {:?}", frames.iter().map(|f| f.step));
    assert_eq!(tab.current_step().await, stopped);

    tab.send(json!({"type": "step"})).await;
    let stepped = tab.frame_where(|f| f.step != stopped).await;
    assert_eq!(stepped.step, stopped + 1);
    let frames = tab.frames_during(Duration::from_millis(500)).await;
    assert!(frames.iter().all(|f| f.step == stopped + 1), "one step only: {:?}", frames.iter().map(|f| f.step));

    tab.send(json!({"type": "play"})).await;
    assert_eq!(tab.text("state").await["paused"], false);
    tab.frame_where(|f| f.step > stopped + 5).await;
}

#[tokio::test]
async fn reset_returns_to_step_zero_and_the_initial_poses() {
    let address = start("bouncing_balls").await;
    let (mut tab, _) = greeted(address).await;
    tab.pause().await;
    tab.send(json!({"type": "reset"})).await;
    assert_eq!(tab.text("scene").await["reason"], "reset");
    let initial = tab.frame_where(|f| f.step == 0).await;

    tab.send(json!({"type": "play"})).await;
    let moved = tab.frame_where(|f| f.step >= 30).await;
    assert_ne!(moved.bodies, initial.bodies, "the balls fall");
    // Paused, so that the frame of step 0 is still the latest when this tab reads it.
    tab.pause().await;
    tab.send(json!({"type": "reset"})).await;
    tab.text("scene").await;
    let again = tab.frame_where(|f| f.step == 0).await;
    assert_eq!(again.bodies, initial.bodies);
}

/// One ball in empty space: its velocity shows the gravity.
const BALL_SCENE: &str = r#"{"format": 1, "settings": {"sleep": false}, "bodies": [
    {"name": "ball", "position": [0, 100, 0], "colliders": [{"shape": {"type": "sphere", "radius": 0.5}}]}]}"#;

#[tokio::test]
async fn settings_are_echoed_and_take_effect() {
    let address = start("pyramid").await;
    let (mut tab, _) = greeted(address).await;
    tab.send(json!({"type": "load_scene", "json": BALL_SCENE, "name": "ball.json"})).await;
    let scene = tab.text("scene").await;
    assert_eq!(scene["name"], "ball.json");
    assert_eq!(scene["bodies"].as_array().unwrap().len(), 1);
    let timestep = tab.text("settings").await["timestep"].as_f64().unwrap();
    tab.pause().await;

    tab.send(json!({"type": "settings", "solver": {"mode": "pgs", "iterations": 3, "warm_start": false},
        "gravity": [0, 5, 0]}))
        .await;
    let settings = tab.text("settings").await;
    assert_eq!(settings["solver"]["mode"], "pgs");
    assert_eq!(settings["solver"]["iterations"], 3);
    assert_eq!(settings["solver"]["warm_start"], false);
    assert_eq!(settings["solver"]["relax"], true, "fields not sent keep their values");
    assert_eq!(settings["gravity"], json!([0.0, 5.0, 0.0]));

    tab.send(json!({"type": "inspect", "body": 0})).await;
    let before = tab.text("body_info").await["velocity"][1].as_f64().unwrap();
    for _ in 0..6 {
        tab.send(json!({"type": "step"})).await;
    }
    tab.send(json!({"type": "inspect", "body": 0})).await;
    let after = tab.text("body_info").await["velocity"][1].as_f64().unwrap();
    let expected = 6.0 * timestep * 5.0;
    assert!((after - before - expected).abs() < 1e-3, "gained {} m/s, expected {expected}", after - before);

    let refused = tab.error_for(text(json!({"type": "settings", "substeps": 0}))).await;
    assert!(refused.starts_with("settings.substeps"), "{refused}");

    // A reset rebuilds the scene but keeps the settings the tabs chose.
    tab.send(json!({"type": "reset"})).await;
    tab.text("scene").await;
    let settings = tab.text("settings").await;
    assert_eq!(settings["solver"]["mode"], "pgs");
    assert_eq!(settings["gravity"], json!([0.0, 5.0, 0.0]));
}

#[tokio::test]
async fn drag_pulls_the_body_and_a_closed_tab_lets_go() {
    let address = start("pyramid").await;
    let (mut dragger, scene) = greeted(address).await;
    let (mut watcher, _) = greeted(address).await;
    dragger.pause().await;
    let frame = dragger.current_frame().await;
    let kinds: Vec<&str> = scene["bodies"].as_array().unwrap().iter().map(|b| b["kind"].as_str().unwrap()).collect();
    // The top box of the pyramid.
    let (top, pose) = frame
        .bodies
        .iter()
        .enumerate()
        .filter(|(i, _)| kinds[*i] == "dynamic")
        .max_by(|a, b| a.1.position[1].total_cmp(&b.1.position[1]))
        .unwrap();
    let start_y = pose.position[1];
    dragger.send(json!({"type": "drag_start", "body": top, "point": pose.position})).await;
    let target = [pose.position[0], start_y + 2.0, pose.position[2]];
    dragger.send(json!({"type": "drag_move", "target": target})).await;
    dragger.send(json!({"type": "play"})).await;
    let at = watcher.frame_where(|f| f.joints == 1).await.step;
    let lifted = watcher.frame_where(|f| f.step >= at + 90).await;
    let lift = lifted.bodies[top].position[1] - start_y;
    assert!(lift > 1.0, "lifted by {lift} m towards a target 2 m up");

    drop(dragger);
    let released = watcher.frame_where(|f| f.joints == 0).await;
    let fallen = watcher.frame_where(|f| f.step >= released.step + 90).await;
    assert!(fallen.bodies[top].position[1] < lifted.bodies[top].position[1] - 0.5, "falls once let go");
}

/// A cloth is listed in the scene message as its engine definition; every frame carries its
/// particles (12 bytes each, after the bodies); `drag_particle` holds a particle where
/// `drag_move` puts it, and `drag_end` lets it fall again.
#[tokio::test]
async fn cloth_particles_are_sent_and_draggable() {
    let address = start("flag_on_pole").await;
    let (mut tab, scene) = greeted(address).await;
    let sets = scene["particle_sets"].as_array().expect("particle_sets");
    assert_eq!(sets.len(), 1);
    assert_eq!(sets[0]["cloth"]["resolution"], json!([20, 12]));
    let particles = 21 * 13;
    tab.pause().await;
    let frame = tab.current_frame().await;
    assert_eq!(frame.tail.len(), 3 * particles, "one position per particle");
    // Particle [20, 6], the middle of the free edge.
    let edge = 6 * 21 + 20;
    let at = |frame: &Frame| [0, 1, 2].map(|k| frame.tail[3 * edge + k]);
    let start = at(&frame);
    let target = [start[0], start[1] + 1.0, start[2] + 0.5];
    tab.send(json!({"type": "drag_particle", "set": 0, "particle": edge})).await;
    tab.send(json!({"type": "drag_move", "target": target})).await;
    tab.send(json!({"type": "play"})).await;
    let first = tab.frame().await.step;
    let held = tab.frame_where(|f| f.step >= first + 30).await;
    let miss = (0..3).map(|k| (at(&held)[k] - target[k]).abs()).fold(0.0, f32::max);
    assert!(miss < 1e-5, "the dragged particle is {miss} m from the target");
    tab.send(json!({"type": "drag_end"})).await;
    let released = tab.frame_where(|f| f.step >= held.step + 30).await;
    assert!(at(&released)[1] < target[1] - 0.05, "falls once let go: {:?}", at(&released));
    let refused = tab
        .error_for(Message::Text(json!({"type": "drag_particle", "set": 1, "particle": 0}).to_string().into()))
        .await;
    assert!(refused.starts_with("drag_particle.set: no particle set 1"), "{refused}");
}

#[tokio::test]
async fn shoot_adds_a_ball_and_inspect_replies() {
    let address = start("pyramid").await;
    let (mut tab, scene) = greeted(address).await;
    let count = scene["bodies"].as_array().unwrap().len();
    tab.pause().await;
    tab.send(json!({"type": "shoot", "origin": [0, 2, 10], "direction": [0, 0, -1]})).await;
    let scene = tab.text("scene").await;
    assert_eq!(scene["reason"], "shoot");
    let bodies = scene["bodies"].as_array().unwrap();
    assert_eq!(bodies.len(), count + 1);
    assert_eq!(bodies[count]["colliders"][0]["shape"], json!({"type": "sphere", "radius": 0.25}));
    let frame = tab.frame().await;
    assert_eq!(frame.bodies.len(), count + 1, "frames after the scene message carry the ball");
    assert_eq!(frame.bodies[count].position, [0.0, 2.0, 10.0]);

    tab.send(json!({"type": "inspect", "body": count})).await;
    let info = tab.text("body_info").await;
    assert_eq!(info["body"], count);
    assert_eq!(info["name"], bodies[count]["name"]);
    let speed = info["velocity"][2].as_f64().unwrap();
    assert!((speed + 20.0).abs() < 1e-4, "launched at 20 m/s, got {speed}");
    assert!(info["mass"].as_f64().unwrap() > 0.0);

    let refused = tab.error_for(text(json!({"type": "inspect", "body": count + 1}))).await;
    assert!(refused.starts_with("inspect.body"), "{refused}");
}

fn text(value: Value) -> Message {
    Message::Text(value.to_string().into())
}

#[tokio::test]
async fn bad_messages_get_errors_and_the_server_keeps_serving() {
    let address = start("bouncing_balls").await;
    let (mut tab, _) = greeted(address).await;
    let malformed = tab.error_for(Message::Text("{\"type\": ".into())).await;
    assert!(malformed.starts_with("malformed JSON"), "{malformed}");
    let unknown = tab.error_for(text(json!({"type": "teleport"}))).await;
    assert!(unknown.contains("unknown message type"), "{unknown}");
    let bad_field = tab.error_for(text(json!({"type": "speed", "value": "fast"}))).await;
    assert!(bad_field.starts_with("speed.value"), "{bad_field}");
    let padding = "x".repeat(100 << 10);
    let oversized = tab.error_for(text(json!({"type": "pause", "padding": padding}))).await;
    assert!(oversized.contains("too large"), "{oversized}");
    let huge_scene = tab.error_for(text(json!({"type": "load_scene", "json": "x".repeat(9 << 20)}))).await;
    assert!(huge_scene.contains("too large"), "{huge_scene}");
    let bad_scene = tab.error_for(text(json!({"type": "load_scene", "json": "{\"format\": 1, \"bodies\": 3}"}))).await;
    assert!(bad_scene.contains("bodies"), "{bad_scene}");
    let binary = tab.error_for(Message::Binary(vec![1, 2, 3].into())).await;
    assert!(binary.contains("binary"), "{binary}");
    let drag = tab.error_for(text(json!({"type": "drag_start", "body": 0, "point": [0, 0, 0]}))).await;
    assert!(drag.starts_with("drag_start.body"), "the ground is static: {drag}");

    let now = tab.frame().await.step;
    tab.frame_where(|f| f.step > now + 5).await;
    tab.send(json!({"type": "load_sample", "name": "vertical_stack"})).await;
    let scene = tab.text("scene").await;
    assert_eq!(scene["name"], "vertical_stack");
    let count = scene["bodies"].as_array().unwrap().len();
    let frame = tab.frame_where(|f| f.step > 3).await;
    assert_eq!(frame.bodies.len(), count);
}

#[tokio::test]
async fn a_message_too_large_to_read_ends_only_that_connection() {
    let address = start("bouncing_balls").await;
    let (mut tab, _) = greeted(address).await;
    let _ = tab.socket.send(text(json!({"type": "load_scene", "json": "x".repeat(17 << 20)}))).await;
    let ended = timeout(WAIT, async {
        loop {
            match tab.socket.next().await {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(_)) => {}
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the connection ends");
    let (mut other, _) = greeted(address).await;
    let step = other.frame().await.step;
    other.frame_where(|f| f.step > step).await;
}

#[tokio::test]
async fn contacts_overlay_adds_points_to_this_tab_only() {
    let address = start("vertical_stack").await;
    let (mut with, _) = greeted(address).await;
    let (mut without, _) = greeted(address).await;
    with.send(json!({"type": "overlay", "contacts": true})).await;
    let frame = with.frame_where(|f| f.step > 10 && !f.contacts.is_empty()).await;
    for point in &frame.contacts {
        let normal_length = (point[3] * point[3] + point[4] * point[4] + point[5] * point[5]).sqrt();
        assert!((normal_length - 1.0).abs() < 1e-3, "unit normal: {point:?}");
    }
    let plain = without.frame_where(|f| f.step > frame.step).await;
    assert!(plain.contacts.is_empty());
}

#[tokio::test]
async fn two_tabs_both_receive_frames() {
    let address = start("pyramid").await;
    let (mut first, _) = greeted(address).await;
    let (mut second, _) = greeted(address).await;
    let a = first.frame().await.step;
    let b = second.frame().await.step;
    first.frame_where(|f| f.step > a + 10).await;
    second.frame_where(|f| f.step > b + 10).await;
    // A command of one tab is seen by both.
    first.send(json!({"type": "speed", "value": 0.5})).await;
    assert_eq!(second.text("state").await["speed"], 0.5);
}

/// A raw HTTP/1.1 GET (no client library normalises the path): status and Content-Type.
async fn get(address: SocketAddr, path: &str) -> (u16, String) {
    get_with_host(address, path, &address.to_string()).await
}

async fn get_with_host(address: SocketAddr, path: &str, host: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    timeout(WAIT, stream.read_to_end(&mut response)).await.unwrap().unwrap();
    let response = String::from_utf8_lossy(&response);
    let status = response.split(' ').nth(1).unwrap().parse().unwrap();
    let content_type = response
        .lines()
        .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-type: ").map(str::to_string))
        .unwrap_or_default();
    (status, content_type)
}

#[tokio::test]
async fn http_serves_the_embedded_assets_only() {
    let address = start("pyramid").await;
    for (path, content_type) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
        ("/vendor/three.module.js", "text/javascript"),
        ("/vendor/OrbitControls.js", "text/javascript"),
        ("/vendor/three-LICENSE", "text/plain"),
    ] {
        let (status, got) = get(address, path).await;
        assert_eq!(status, 200, "{path}");
        assert!(got.starts_with(content_type), "{path}: {got}");
    }
    for path in
        ["/index.htm", "/../Cargo.toml", "/vendor/../app.js", "/%2e%2e/Cargo.toml", "/assets/app.js", "/src/lib.rs"]
    {
        assert_eq!(get(address, path).await.0, 404, "{path}");
    }
}

#[tokio::test]
async fn a_restored_state_steps_on_as_the_saved_world_did() {
    let address = start("bouncing_balls").await;
    let mut tab = Tab::open(address).await;
    tab.text("hello").await;
    let scene = tab.text("scene").await;
    let substeps = tab.text("settings").await["substeps"].clone();
    assert_ne!(substeps, 1);
    tab.pause().await;
    let refused = tab.error_for(text(json!({"type": "restore_state"}))).await;
    assert!(refused.starts_with("restore_state: no state saved yet"), "{refused}");
    let refused = tab.error_for(text(json!({"type": "save_state", "now": true}))).await;
    assert!(refused.starts_with("save_state"), "{refused}");

    tab.send(json!({"type": "save_state"})).await;
    let saved = tab.text("saved_state").await;
    let step = saved["step"].as_u64().unwrap() as u32;
    assert!(saved["bytes"].as_u64().unwrap() > 0);
    for _ in 0..30 {
        tab.send(json!({"type": "step"})).await;
    }
    let later = tab.frame_where(|f| f.step == step + 30).await;
    // Change the world: a shot ball and other settings; the restore brings back both.
    tab.send(json!({"type": "shoot", "origin": [0, 2, 10], "direction": [0, 0, -1]})).await;
    tab.text("scene").await;
    tab.send(json!({"type": "settings", "substeps": 1})).await;
    tab.text("settings").await;

    tab.send(json!({"type": "restore_state"})).await;
    let restored = tab.text("scene").await;
    assert_eq!(restored["reason"], "restore");
    assert_eq!(restored["bodies"], scene["bodies"], "the shot ball is gone again");
    assert_eq!(tab.text("settings").await["substeps"], substeps);
    assert_eq!(tab.current_step().await, step);
    for _ in 0..30 {
        tab.send(json!({"type": "step"})).await;
    }
    let again = tab.frame_where(|f| f.step == step + 30).await;
    assert_eq!(again.bodies, later.bodies, "the restored world departs from the saved one");
}
