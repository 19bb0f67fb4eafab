//! The testbed page and vendored three.js, compiled into the binary (docs/testbed-protocol.md,
//! "HTTP"): the server serves exactly these, by URL path, and nothing from the file system.

/// One embedded file.
#[derive(Clone, Copy, Debug)]
pub struct Asset {
    /// URL path it is served at (`/` for the page).
    pub path: &'static str,
    /// `Content-Type` header value.
    pub content_type: &'static str,
    /// The file's bytes.
    pub bytes: &'static [u8],
}

/// `assets/index.html`: the page (also the template of replay files).
pub const INDEX_HTML: &str = include_str!("../assets/index.html");
/// `assets/app.js`: the page's script (an ES module importing `three` and
/// `three/addons/controls/OrbitControls.js` through the page's import map).
pub const APP_JS: &str = include_str!("../assets/app.js");
/// `assets/style.css`.
pub const STYLE_CSS: &str = include_str!("../assets/style.css");
/// three.js's module build (imports `./three.core.js`).
pub const THREE_MODULE_JS: &str = include_str!("../assets/vendor/three.module.js");
/// three.js's core, imported by `three.module.js`.
pub const THREE_CORE_JS: &str = include_str!("../assets/vendor/three.core.js");
/// three.js's orbit camera controls (imports `three`).
pub const ORBIT_CONTROLS_JS: &str = include_str!("../assets/vendor/OrbitControls.js");
/// three.js's licence (MIT).
pub const THREE_LICENSE: &str = include_str!("../assets/vendor/three-LICENSE");

const JS: &str = "text/javascript; charset=utf-8";

/// Every embedded file with its URL path.
pub const ASSETS: &[Asset] = &[
    Asset { path: "/", content_type: "text/html; charset=utf-8", bytes: INDEX_HTML.as_bytes() },
    Asset { path: "/app.js", content_type: JS, bytes: APP_JS.as_bytes() },
    Asset { path: "/style.css", content_type: "text/css; charset=utf-8", bytes: STYLE_CSS.as_bytes() },
    Asset { path: "/vendor/three.module.js", content_type: JS, bytes: THREE_MODULE_JS.as_bytes() },
    Asset { path: "/vendor/three.core.js", content_type: JS, bytes: THREE_CORE_JS.as_bytes() },
    Asset { path: "/vendor/OrbitControls.js", content_type: JS, bytes: ORBIT_CONTROLS_JS.as_bytes() },
    Asset { path: "/vendor/three-LICENSE", content_type: "text/plain; charset=utf-8", bytes: THREE_LICENSE.as_bytes() },
];

/// The embedded file served at URL path `path` (`/index.html` is `/`); `None` for any other
/// path.
pub fn asset(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    ASSETS.iter().find(|asset| asset.path == path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protocol_path_is_embedded_and_nothing_else() {
        let doc = include_str!("../../../docs/testbed-protocol.md");
        for asset in ASSETS {
            let listed = format!("`GET {}`", asset.path);
            assert!(doc.contains(&listed), "{} is not in the protocol's HTTP table", asset.path);
            assert!(!asset.bytes.is_empty(), "{} is empty", asset.path);
        }
        assert!(asset("/index.html").is_some());
        for path in ["/../Cargo.toml", "/vendor/", "/vendor/README.md", "/app.js/", "//app.js", "/APP.JS"] {
            assert!(asset(path).is_none(), "{path} must not be served");
        }
    }

    #[test]
    fn page_references_only_embedded_files() {
        // The import map and the script/style tags name the vendored files by their URL paths.
        for needle in ["./vendor/three.module.js", "./vendor/OrbitControls.js", "app.js", "style.css"] {
            assert!(INDEX_HTML.contains(needle), "index.html does not reference {needle}");
        }
        // three.module.js imports its core by this relative path; the replay writer rewrites it.
        assert!(THREE_MODULE_JS.contains("from './three.core.js'"));
        assert!(ORBIT_CONTROLS_JS.contains("from 'three'"));
    }
}
