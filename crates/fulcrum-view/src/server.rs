//! HTTP and WebSocket: the embedded assets, the `/ws` upgrade, and one reader and one writer
//! task per tab.
//!
//! The reader parses each text message (size limits, JSON, fields) and hands the command to
//! the simulation thread, or answers an `error` itself. The writer sends what the tab's
//! [`Outbox`] holds: texts in order, then the latest frame only.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};

use crate::assets;
use crate::commands::{self, MAX_TEXT_BYTES};
use crate::messages;
use crate::outbox::Outbox;
use crate::sim::{ClientId, Request};
use crate::source::SceneSource;

/// Largest WebSocket message read at all. Text between [`MAX_TEXT_BYTES`] and this is
/// answered with an `error`; anything larger closes the connection (code 1009).
pub const MAX_READ_BYTES: usize = 2 * MAX_TEXT_BYTES;

/// What every handler shares.
#[derive(Clone)]
pub(crate) struct AppState {
    pub requests: SyncSender<Request>,
    pub next_client: Arc<AtomicU64>,
    /// Bound to a loopback address: only loopback `Host` names are served (DNS rebinding).
    pub loopback: bool,
}

/// The router: `/ws`, and the embedded assets for every other path (404 when none).
pub(crate) fn router(state: AppState) -> Router {
    Router::new().route("/ws", get(upgrade)).fallback(asset).with_state(state)
}

async fn asset(State(state): State<AppState>, method: Method, headers: HeaderMap, uri: Uri) -> Response {
    if let Err(refused) = check_host(&headers, state.loopback) {
        return forbidden(refused);
    }
    if method != Method::GET && method != Method::HEAD {
        return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "GET, HEAD")], "only GET\n").into_response();
    }
    match assets::find(uri.path()) {
        Some(asset) => {
            let headers = [
                (header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            ];
            (headers, asset.body).into_response()
        }
        None => (StatusCode::NOT_FOUND, "not found\n").into_response(),
    }
}

/// When the server listens on loopback only, a request must name a loopback host: a page
/// from another site whose name was made to resolve to 127.0.0.1 (DNS rebinding) is refused.
fn check_host(headers: &HeaderMap, loopback: bool) -> Result<(), &'static str> {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else { return Ok(()) };
    if !loopback || is_loopback_host(host) {
        Ok(())
    } else {
        Err("this server answers to localhost / 127.0.0.1 only")
    }
}

fn forbidden(reason: &str) -> Response {
    (StatusCode::FORBIDDEN, format!("forbidden: {reason}\n")).into_response()
}

/// `localhost`, `127.x.y.z` or `[::1]`, with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A browser sends `Origin`; it must be the page's own (`http://` + the `Host` it asked), so
/// that another site open in the browser cannot drive the simulation. Clients that send no
/// `Origin` (tests, tools) are let in.
fn check_origin(headers: &HeaderMap) -> Result<(), &'static str> {
    let Some(origin) = headers.get(header::ORIGIN) else { return Ok(()) };
    let origin = origin.to_str().unwrap_or("");
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let authority = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
    if authority.is_some_and(|a| !host.is_empty() && a.eq_ignore_ascii_case(host)) {
        Ok(())
    } else {
        Err("WebSocket from another origin")
    }
}

async fn upgrade(State(state): State<AppState>, headers: HeaderMap, upgrade: WebSocketUpgrade) -> Response {
    if let Err(refused) = check_host(&headers, state.loopback).and_then(|()| check_origin(&headers)) {
        return forbidden(refused);
    }
    upgrade
        .max_message_size(MAX_READ_BYTES)
        .max_frame_size(MAX_READ_BYTES)
        .on_upgrade(move |socket| connection(socket, state))
}

/// One tab, from upgrade to close.
async fn connection(socket: WebSocket, state: AppState) {
    let client: ClientId = state.next_client.fetch_add(1, Ordering::Relaxed);
    let outbox = Arc::new(Outbox::default());
    if send(&state.requests, Request::Connect { client, outbox: outbox.clone() }).await.is_err() {
        return;
    }
    let (sink, mut stream) = socket.split();
    let mut writer = tokio::spawn(write(sink, outbox.clone()));
    let mut writer_done = false;
    loop {
        let message = tokio::select! {
            message = stream.next() => message,
            _ = &mut writer => { writer_done = true; break }
        };
        let text = match message {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Binary(_))) => {
                outbox.push_text(messages::error("binary messages are not accepted: send JSON text"));
                continue;
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            Some(Ok(Message::Close(_)) | Err(_)) | None => break,
        };
        match commands::parse(text.as_str(), |name| SceneSource::named(name).is_some()) {
            Ok(command) => {
                if send(&state.requests, Request::Command { client, command }).await.is_err() {
                    break;
                }
            }
            Err(message) => outbox.push_text(messages::error(&message)),
        }
    }
    let _ = send(&state.requests, Request::Disconnect { client }).await;
    outbox.close("closed");
    if !writer_done && tokio::time::timeout(Duration::from_secs(1), &mut writer).await.is_err() {
        writer.abort();
    }
}

/// Sends what the outbox holds until it asks to close or the socket fails.
async fn write(mut sink: SplitSink<WebSocket, Message>, outbox: Arc<Outbox>) {
    loop {
        let pending = outbox.take().await;
        for text in pending.texts {
            if sink.send(Message::Text(text.into())).await.is_err() {
                return;
            }
        }
        if let Some(frame) = pending.frame {
            if sink.send(Message::Binary(frame)).await.is_err() {
                return;
            }
        }
        if let Some(reason) = pending.close {
            let close = CloseFrame { code: axum::extract::ws::close_code::AWAY, reason: reason.into() };
            let _ = sink.send(Message::Close(Some(close))).await;
            return;
        }
    }
}

/// Hands a request to the simulation thread, waiting while its queue is full (the reader
/// then stops reading, and TCP slows the tab down). Fails when the simulation has stopped.
async fn send(requests: &SyncSender<Request>, mut request: Request) -> Result<(), ()> {
    loop {
        match requests.try_send(request) {
            Ok(()) => return Ok(()),
            Err(TrySendError::Full(back)) => {
                request = back;
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            Err(TrySendError::Disconnected(_)) => return Err(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn loopback_hosts() {
        for host in ["localhost", "localhost:7878", "127.0.0.1:80", "127.1.2.3", "[::1]:7878", "LOCALHOST:1"] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in ["evil.example:7878", "192.168.1.2:7878", "[::2]:1", "localhost.evil.example", ""] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }
}
