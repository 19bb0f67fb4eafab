//! `save_state` / `restore_state`: one snapshot of the world kept in the server's memory
//! (`fulcrum::World::snapshot`), with what the tabs' messages list beside the world, so that a
//! restore brings back the scene as it was, shot balls included, and goes on bit-identically.

use fulcrum::World;

use crate::messages::{self, SceneReason};
use crate::sim::{Drag, Simulation};
use crate::source::{LoadedScene, SceneSource};

/// A kept state: the world's snapshot and the lists that name its contents.
pub(crate) struct SavedState {
    snapshot: Vec<u8>,
    /// The scene it came from (a reset after the restore rebuilds this one).
    source: SceneSource,
    /// The loaded scene's lists, its world left empty.
    lists: LoadedScene,
    shot_balls: Vec<fulcrum::BodyId>,
    shots: u64,
    /// The tabs' drags when it was taken: their joints and pins are in the snapshot and are
    /// released once it is restored (the tabs' drags end on a restore).
    drags: Vec<Drag>,
}

impl Simulation {
    /// Keeps a snapshot of the world now, replacing any kept before, and tells every tab.
    pub(crate) fn save_state(&mut self) {
        let snapshot = self.scene.world.snapshot();
        self.broadcast(&messages::saved_state(self.scene.world.step_count(), snapshot.len()));
        let lists = self.scene.lists();
        self.saved = Some(SavedState {
            snapshot,
            source: self.source.clone(),
            lists,
            shot_balls: self.shot_balls.clone(),
            shots: self.shots,
            drags: self.clients.iter().filter_map(|client| client.drag).collect(),
        });
    }

    /// Replaces the world with the kept snapshot (its settings too) and sends every tab the
    /// scene and settings again; the kept state stays for the next restore.
    pub(crate) fn restore_state(&mut self) -> Result<(), String> {
        let saved = self.saved.as_ref().ok_or("restore_state: no state saved yet (send save_state first)")?;
        let mut world = World::restore(&saved.snapshot).map_err(|e| format!("restore_state: {e}"))?;
        // A snapshot carries no thread pool: the restored world steps with the testbed's count.
        world.set_threads(self.threads).map_err(|e| format!("restore_state: {e}"))?;
        self.scene = LoadedScene { world, ..saved.lists.lists() };
        self.source = saved.source.clone();
        self.shot_balls = saved.shot_balls.clone();
        self.shots = saved.shots;
        for drag in saved.drags.clone() {
            self.release(drag);
        }
        for client in &mut self.clients {
            client.drag = None;
        }
        self.dirty = true;
        self.broadcast_scene(SceneReason::Restore);
        self.broadcast(&messages::settings(&self.scene.world));
        self.restart_clocks();
        Ok(())
    }
}
