//! `fulcrum view [SCENE_OR_SAMPLE] [--port P] [--host H]`: the live testbed. Serves the page
//! and runs the scene at real time until Ctrl-C (crate `fulcrum-view`; the page's contract is
//! docs/testbed-protocol.md).

use clap::Args;
use fulcrum_view::{SceneSource, DEFAULT_PORT};

use crate::usage::count;

/// The sample shown when no scene is given: a pile of ragdolls falls and settles.
pub const DEFAULT_SCENE: &str = "ragdoll_pile";

/// Arguments of `fulcrum view`.
#[derive(Args)]
pub struct ViewArgs {
    /// A scene file, a built-in sample or a benchmark scene (default: ragdoll_pile).
    pub scene: Option<String>,
    /// Port to listen on (0: any free port).
    #[arg(long, value_name = "P", default_value_t = DEFAULT_PORT, value_parser = count(0..=u16::MAX), allow_negative_numbers = true)]
    pub port: u16,
    /// Address to listen on. Anything but loopback lets other machines drive the simulation.
    #[arg(long, value_name = "H", default_value = "127.0.0.1")]
    pub host: String,
    /// Worker threads stepping the world (at least 1).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count(1..=u32::MAX), allow_negative_numbers = true)]
    pub threads: u32,
}

/// Starts the server, prints its address and serves until Ctrl-C.
pub fn view(args: &ViewArgs) -> Result<(), String> {
    let source = SceneSource::resolve(args.scene.as_deref().unwrap_or(DEFAULT_SCENE))?;
    let name = source.name();
    fulcrum_view::serve_until_interrupted(&args.host, args.port, source, args.threads as usize, |server| {
        let address = server.local_addr();
        if !server.is_loopback() {
            eprintln!(
                "warning: listening on {address}: anyone who can reach this address can load scenes and drive \
                 the simulation (use --host 127.0.0.1 to keep it to this machine)"
            );
        }
        let url = if address.ip().is_unspecified() {
            format!("http://127.0.0.1:{}/", address.port())
        } else {
            format!("http://{address}/")
        };
        // Printed at once: scripts wait for this line.
        let _ = crate::print_out(&format!("fulcrum testbed: {name} at {url} (Ctrl-C to stop)\n"));
    })?;
    crate::print_out("stopped\n")
}
