//! The simulation thread: owns the world, steps it at real time × speed, handles every tab's
//! commands in arrival order and publishes frames at most 60 times a second.
//!
//! ```text
//! loop:  publish a frame if the state changed and the frame clock allows
//!        step once if playing and the step clock is due (it falls back to real time when
//!          stepping is slower than real time, instead of piling up debt)
//!        wait for a request until the next of those two deadlines
//! ```
//! Requests come from the connection tasks over a bounded channel; replies and broadcasts go
//! into each tab's [`Outbox`]. Command handlers live in `handlers.rs`.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use fulcrum::{BodyId, JointId, ParticleSetId};

use crate::commands::Command;
use crate::frame;
use crate::messages::{self, SceneReason};
use crate::outbox::Outbox;
use crate::source::{gallery, LoadedScene, SceneSource};

/// A connected tab.
pub type ClientId = u64;

/// What connection tasks ask of the simulation thread.
pub enum Request {
    /// A tab connected: greet it and start sending it frames.
    Connect {
        /// Its id.
        client: ClientId,
        /// Where its messages go.
        outbox: Arc<Outbox>,
    },
    /// A parsed command of a tab.
    Command {
        /// The tab.
        client: ClientId,
        /// What it asked.
        command: Command,
    },
    /// A tab closed: end its drag, forget it.
    Disconnect {
        /// The tab.
        client: ClientId,
    },
    /// The server stops: close every tab and end the thread.
    Shutdown,
}

/// Shortest time between two frames (60 per second).
const FRAME_INTERVAL: Duration = Duration::from_nanos(16_666_667);
/// When stepping falls further than this behind real time, the rest is dropped: the
/// simulation runs slower than real time instead of stepping in bursts.
const MAX_LAG: Duration = Duration::from_millis(100);

/// Most requests handled between two steps.
const MAX_BATCH: usize = 256;

/// A tab's drag.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Drag {
    /// A target joint pulling a body.
    Body {
        /// The drag joint.
        joint: JointId,
        /// The body it pulls.
        body: BodyId,
    },
    /// A particle pinned where the drag target is.
    Particle {
        /// Its cloth or rope.
        set: ParticleSetId,
        /// Its number in the set.
        particle: usize,
        /// Whether it was pinned before the drag (and stays so after).
        pinned: bool,
    },
}

/// A tab as the simulation sees it.
pub(crate) struct Client {
    pub id: ClientId,
    pub outbox: Arc<Outbox>,
    /// What it drags, if anything.
    pub drag: Option<Drag>,
    /// Contacts overlay on.
    pub contacts: bool,
}

/// The shared simulation and everything the tabs see of it.
pub(crate) struct Simulation {
    pub source: SceneSource,
    pub scene: LoadedScene,
    /// Shot balls still in the world, oldest first.
    pub shot_balls: Vec<BodyId>,
    /// Balls shot since the scene was loaded (names them).
    pub shots: u64,
    pub clients: Vec<Client>,
    pub paused: bool,
    pub speed: f32,
    /// The state changed since the last frame.
    pub dirty: bool,
    /// When the next step is due.
    pub next_step: Instant,
    /// When the next frame may go out.
    next_frame: Instant,
    /// The state kept by `save_state`, if any.
    pub saved: Option<crate::saved::SavedState>,
    /// Worker threads of every world this simulation builds.
    pub threads: usize,
}

impl Simulation {
    /// Builds the first scene (so that a bad scene fails before the server starts), stepped
    /// by `threads` worker threads (at least 1).
    pub fn new(source: SceneSource, threads: usize) -> Result<Simulation, String> {
        let mut scene = source.build()?;
        scene.world.set_threads(threads).map_err(|e| e.to_string())?;
        let now = Instant::now();
        Ok(Simulation {
            source,
            scene,
            shot_balls: Vec::new(),
            shots: 0,
            clients: Vec::new(),
            paused: false,
            speed: 1.0,
            dirty: true,
            next_step: now,
            next_frame: now,
            saved: None,
            threads,
        })
    }

    /// Runs until [`Request::Shutdown`] or until every sender is gone.
    pub fn run(mut self, requests: Receiver<Request>) {
        loop {
            let now = Instant::now();
            if self.dirty && now >= self.next_frame {
                self.publish(now);
            }
            if !self.paused && now >= self.next_step {
                self.step_on_time(now);
            }
            let request = match self.deadline() {
                Some(deadline) => requests.recv_timeout(deadline.saturating_duration_since(Instant::now())),
                None => requests.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            let mut next = match request {
                Ok(request) => Some(request),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            // What arrived meanwhile is handled before the next step (a bounded batch, so that
            // a flood of commands cannot stop the simulation).
            let mut handled = 0;
            while let Some(request) = next {
                if matches!(request, Request::Shutdown) {
                    return self.close_all();
                }
                self.handle(request);
                handled += 1;
                next = if handled < MAX_BATCH { requests.try_recv().ok() } else { None };
            }
        }
        self.close_all();
    }

    fn close_all(&self) {
        for client in &self.clients {
            client.outbox.close("the server stopped");
        }
    }

    /// The next moment something is due, if anything is.
    fn deadline(&self) -> Option<Instant> {
        let step = (!self.paused).then_some(self.next_step);
        let frame = self.dirty.then_some(self.next_frame);
        step.into_iter().chain(frame).min()
    }

    fn handle(&mut self, request: Request) {
        match request {
            Request::Connect { client, outbox } => self.connect(client, outbox),
            Request::Command { client, command } => {
                if let Err(message) = self.command(client, command) {
                    self.reply(client, messages::error(&message));
                }
            }
            Request::Disconnect { client } => {
                self.end_drag(client);
                self.clients.retain(|c| c.id != client);
            }
            Request::Shutdown => self.close_all(),
        }
    }

    fn connect(&mut self, id: ClientId, outbox: Arc<Outbox>) {
        outbox.push_text(messages::hello(&gallery(), self.paused, self.speed));
        outbox.push_text(messages::scene(&self.source.name(), &self.scene, SceneReason::Connect));
        outbox.push_text(messages::settings(&self.scene.world));
        let scene = &self.scene;
        outbox.set_frame(Bytes::from(frame::encode(&scene.world, scene.frame_order(), false)));
        self.clients.push(Client { id, outbox, drag: None, contacts: false });
    }

    /// One step at the scene's timestep; the step clock moves on by its wall-clock share.
    fn step_on_time(&mut self, now: Instant) {
        self.step_once();
        let dt = self.scene.world.settings().timestep;
        self.next_step += Duration::from_secs_f32(dt / self.speed);
        if self.next_step + MAX_LAG < now {
            self.next_step = now;
        }
    }

    /// One step at the scene's timestep.
    pub fn step_once(&mut self) {
        let dt = self.scene.world.settings().timestep;
        // Fails only for a bad dt, which the settings' validation rules out.
        let _ = self.scene.world.step(dt);
        self.dirty = true;
    }

    /// Sends the current state to every tab (with contact points to those that asked).
    fn publish(&mut self, now: Instant) {
        let world = &self.scene.world;
        let plain = Bytes::from(frame::encode(world, self.scene.frame_order(), false));
        let with_contacts = self
            .clients
            .iter()
            .any(|c| c.contacts)
            .then(|| Bytes::from(frame::encode(world, self.scene.frame_order(), true)));
        for client in &self.clients {
            let frame = match (&with_contacts, client.contacts) {
                (Some(frame), true) => frame.clone(),
                _ => plain.clone(),
            };
            client.outbox.set_frame(frame);
        }
        self.dirty = false;
        // On schedule when keeping up; never two frames in quick succession after a pause.
        self.next_frame = (self.next_frame + FRAME_INTERVAL).max(now + FRAME_INTERVAL * 3 / 4);
    }

    /// A new scene (load, reset): its first frame goes out before the next step.
    pub fn restart_clocks(&mut self) {
        let dt = self.scene.world.settings().timestep;
        self.next_step = (Instant::now() + Duration::from_secs_f32(dt / self.speed)).max(self.next_frame);
        self.dirty = true;
    }

    /// Sends a text message to one tab.
    pub fn reply(&self, client: ClientId, text: String) {
        if let Some(client) = self.clients.iter().find(|c| c.id == client) {
            client.outbox.push_text(text);
        }
    }

    /// Sends a text message to every tab.
    pub fn broadcast(&self, text: &str) {
        for client in &self.clients {
            client.outbox.push_text(text.to_string());
        }
    }

    /// Sends a `scene` message to every tab; frames of the scene before it are dropped.
    pub fn broadcast_scene(&self, reason: SceneReason) {
        let text = messages::scene(&self.source.name(), &self.scene, reason);
        for client in &self.clients {
            client.outbox.push_scene(text.clone());
        }
    }

    pub fn client_mut(&mut self, id: ClientId) -> Option<&mut Client> {
        self.clients.iter_mut().find(|c| c.id == id)
    }
}
