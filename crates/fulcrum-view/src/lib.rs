//! The fulcrum testbed (`fulcrum view`): a scene simulated natively at real time and shown by
//! a browser page, which gets the scene's geometry once and then every body's pose in compact
//! binary frames over a WebSocket, and sends commands back. The contract between the two is
//! `docs/testbed-protocol.md`.
//!
//! ```text
//! tokio runtime (2 workers)                         simulation thread
//!   HTTP: embedded assets only (assets.rs)
//!   per tab: reader task --commands (bounded)-->    owns the World; steps at real time ×
//!            (limits, parsing: commands.rs)          speed; handles commands (handlers.rs);
//!            writer task <--Outbox (outbox.rs)--     publishes frames ≤ 60/s (frame.rs)
//!            texts in order, latest frame only       and text messages (messages.rs)
//! ```
//! A slow tab never makes the simulation wait: its frame slot holds only the newest frame, and
//! a tab that falls hundreds of text messages behind is closed.
//!
//! The page itself (`assets/`: index.html, app.js, style.css and the vendored three.js) is
//! embedded by [`assets`]. [`replay`] records a run with the same messages and frames and
//! writes it as one self-contained HTML page that plays it offline (`fulcrum run --html`).
//!
//! ```no_run
//! # async fn example() -> Result<(), String> {
//! use fulcrum_view::{SceneSource, ViewServer};
//! let server = ViewServer::bind("127.0.0.1", 0, SceneSource::resolve("pyramid")?).await?;
//! println!("http://{}/", server.local_addr());
//! server.serve(std::future::pending()).await
//! # }
//! ```
#![warn(missing_docs)]

pub mod assets;
pub mod commands;
pub mod frame;
mod handlers;
pub mod messages;
mod outbox;
pub mod replay;
pub mod samples;
mod saved;
mod server;
mod sim;
pub mod source;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

pub use source::SceneSource;

use sim::{Request, Simulation};

/// Default port of `fulcrum view`.
pub const DEFAULT_PORT: u16 = 7878;
/// Requests waiting for the simulation thread before readers are made to wait.
const REQUEST_QUEUE: usize = 1024;

/// A testbed server bound to its address, with its simulation thread running.
pub struct ViewServer {
    listener: tokio::net::TcpListener,
    address: SocketAddr,
    requests: SyncSender<Request>,
    simulation: JoinHandle<()>,
}

impl ViewServer {
    /// Builds the scene, binds `host:port` (port 0: any free port) and starts the simulation.
    /// A scene that does not build or an address that cannot be bound is an error.
    pub async fn bind(host: &str, port: u16, scene: SceneSource) -> Result<ViewServer, String> {
        Self::bind_with_threads(host, port, scene, 1).await
    }

    /// [`ViewServer::bind`] with the worlds stepped by `threads` worker threads (at least 1).
    pub async fn bind_with_threads(
        host: &str,
        port: u16,
        scene: SceneSource,
        threads: usize,
    ) -> Result<ViewServer, String> {
        let simulation = Simulation::new(scene, threads)?;
        let listener = tokio::net::TcpListener::bind((host, port))
            .await
            .map_err(|e| format!("cannot listen on {host}:{port}: {e}"))?;
        let address = listener.local_addr().map_err(|e| format!("cannot listen on {host}:{port}: {e}"))?;
        let (requests, receiver) = sync_channel(REQUEST_QUEUE);
        let simulation = std::thread::Builder::new()
            .name("fulcrum-simulation".to_string())
            .spawn(move || simulation.run(receiver))
            .map_err(|e| format!("cannot start the simulation thread: {e}"))?;
        Ok(ViewServer { listener, address, requests, simulation })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// True when only this machine can reach it (a loopback address).
    pub fn is_loopback(&self) -> bool {
        self.address.ip().is_loopback()
    }

    /// Serves until `shutdown` completes, then closes every tab and stops the simulation.
    pub async fn serve(self, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<(), String> {
        let state = server::AppState {
            requests: self.requests.clone(),
            next_client: Arc::new(AtomicU64::new(1)),
            loopback: self.is_loopback(),
        };
        let served = axum::serve(self.listener, server::router(state)).with_graceful_shutdown(shutdown).await;
        let _ = self.requests.send(Request::Shutdown);
        let _ = tokio::task::spawn_blocking(move || self.simulation.join()).await;
        served.map_err(|e| format!("server failed: {e}"))
    }
}

/// Runs a server on its own runtime until Ctrl-C: binds (worlds stepped by `threads` worker
/// threads), calls `ready` (to print the address), serves. For the command line tool.
pub fn serve_until_interrupted(
    host: &str,
    port: u16,
    scene: SceneSource,
    threads: usize,
    ready: impl FnOnce(&ViewServer),
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server runtime: {e}"))?;
    runtime.block_on(async {
        let server = ViewServer::bind_with_threads(host, port, scene, threads).await?;
        ready(&server);
        server
            .serve(async {
                // Without a signal handler the server runs until the process is killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
            })
            .await
    })
}
