//! What waits to be sent to one tab: its text messages in order, and only the latest frame.
//!
//! The simulation thread puts messages in; the tab's writer task takes everything out at
//! once and sends the texts, then the frame. A frame that was not sent yet is replaced by the
//! next one, so a slow tab skips frames instead of queueing them. Texts are few and must all
//! arrive; they are bounded too: a tab that falls [`MAX_QUEUED_TEXTS`] messages or
//! [`MAX_QUEUED_BYTES`] behind is closed.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::body::Bytes;
use tokio::sync::Notify;

/// Most text messages waiting for one tab before it is closed as too slow.
pub const MAX_QUEUED_TEXTS: usize = 256;
/// Most bytes of text waiting for one tab before it is closed as too slow.
pub const MAX_QUEUED_BYTES: usize = 64 << 20;

/// The pending messages of one tab.
#[derive(Default)]
pub struct Outbox {
    pending: Mutex<Pending>,
    wake: Notify,
}

/// What the writer takes out in one go.
#[derive(Default)]
pub struct Pending {
    /// Text messages, oldest first.
    pub texts: VecDeque<String>,
    /// Bytes in `texts`.
    text_bytes: usize,
    /// The latest frame not yet sent.
    pub frame: Option<Bytes>,
    /// Why the connection must close, once it must.
    pub close: Option<&'static str>,
}

impl Outbox {
    /// Queues a text message; closes the tab instead when it is too far behind.
    pub fn push_text(&self, text: String) {
        let mut pending = self.lock();
        if pending.close.is_some() {
            return;
        }
        if pending.texts.len() >= MAX_QUEUED_TEXTS || pending.text_bytes + text.len() > MAX_QUEUED_BYTES {
            pending.close = Some("too slow: too many messages waiting");
        } else {
            pending.text_bytes += text.len();
            pending.texts.push_back(text);
        }
        drop(pending);
        self.wake.notify_one();
    }

    /// Queues a `scene` message. A frame still waiting belongs to the scene before it and is
    /// dropped, so a tab never gets a frame of one scene after the message of the next.
    pub fn push_scene(&self, text: String) {
        self.lock().frame = None;
        self.push_text(text);
    }

    /// Replaces the waiting frame with `frame`.
    pub fn set_frame(&self, frame: Bytes) {
        self.lock().frame = Some(frame);
        self.wake.notify_one();
    }

    /// Asks the writer to close the connection.
    pub fn close(&self, reason: &'static str) {
        self.lock().close.get_or_insert(reason);
        self.wake.notify_one();
    }

    /// Waits until something is pending and takes all of it.
    pub async fn take(&self) -> Pending {
        loop {
            {
                let mut pending = self.lock();
                if !pending.texts.is_empty() || pending.frame.is_some() || pending.close.is_some() {
                    return std::mem::take(&mut *pending);
                }
            }
            // A notification sent between the check and here is stored as a permit.
            self.wake.notified().await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        // A panic while holding the lock cannot leave `Pending` inconsistent: take it anyway.
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
