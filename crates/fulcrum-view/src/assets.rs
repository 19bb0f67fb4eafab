//! The page, compiled into the binary. These are the only things served over HTTP: a request
//! path is looked up in this table and nothing else, so no request ever reaches the file
//! system.

/// One embedded file.
pub struct Asset {
    /// The request path that serves it.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub body: &'static [u8],
}

const HTML: &str = "text/html; charset=utf-8";
const JAVASCRIPT: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

/// Every embedded file (testbed-protocol.md, HTTP).
pub const ASSETS: &[Asset] = &[
    Asset { path: "/", content_type: HTML, body: include_bytes!("../assets/index.html") },
    Asset { path: "/app.js", content_type: JAVASCRIPT, body: include_bytes!("../assets/app.js") },
    Asset { path: "/style.css", content_type: CSS, body: include_bytes!("../assets/style.css") },
    Asset {
        path: "/vendor/three.module.js",
        content_type: JAVASCRIPT,
        body: include_bytes!("../assets/vendor/three.module.js"),
    },
    Asset {
        path: "/vendor/OrbitControls.js",
        content_type: JAVASCRIPT,
        body: include_bytes!("../assets/vendor/OrbitControls.js"),
    },
    Asset { path: "/vendor/three-LICENSE", content_type: TEXT, body: include_bytes!("../assets/vendor/three-LICENSE") },
];

/// The asset served at exactly `path`.
pub fn find(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|asset| asset.path == path)
}
