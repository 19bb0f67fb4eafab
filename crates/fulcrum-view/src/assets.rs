//! The page, compiled into the binary. These are the only things served over HTTP: a request
//! path is looked up in this table and nothing else, so no request ever reaches the file
//! system. The texts are also what `fulcrum run --html` inlines into a replay page
//! ([`crate::replay`]).

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

/// `assets/index.html`: the page (also the template of replay pages).
pub const INDEX_HTML: &str = include_str!("../assets/index.html");
/// `assets/app.js`: the page's script, an ES module importing `three` and
/// `three/addons/controls/OrbitControls.js` through the page's import map.
pub const APP_JS: &str = include_str!("../assets/app.js");
/// `assets/style.css`.
pub const STYLE_CSS: &str = include_str!("../assets/style.css");
/// three.js's module build; it imports `./three.core.js`.
pub const THREE_MODULE_JS: &str = include_str!("../assets/vendor/three.module.js");
/// three.js's core, imported by `three.module.js`.
pub const THREE_CORE_JS: &str = include_str!("../assets/vendor/three.core.js");
/// three.js's orbit camera controls; imports `three`.
pub const ORBIT_CONTROLS_JS: &str = include_str!("../assets/vendor/OrbitControls.js");
/// three.js's licence (MIT).
pub const THREE_LICENSE: &str = include_str!("../assets/vendor/three-LICENSE");

/// Every embedded file (testbed-protocol.md, HTTP).
pub const ASSETS: &[Asset] = &[
    Asset { path: "/", content_type: HTML, body: INDEX_HTML.as_bytes() },
    Asset { path: "/app.js", content_type: JAVASCRIPT, body: APP_JS.as_bytes() },
    Asset { path: "/style.css", content_type: CSS, body: STYLE_CSS.as_bytes() },
    Asset { path: "/vendor/three.module.js", content_type: JAVASCRIPT, body: THREE_MODULE_JS.as_bytes() },
    Asset { path: "/vendor/three.core.js", content_type: JAVASCRIPT, body: THREE_CORE_JS.as_bytes() },
    Asset { path: "/vendor/OrbitControls.js", content_type: JAVASCRIPT, body: ORBIT_CONTROLS_JS.as_bytes() },
    Asset { path: "/vendor/three-LICENSE", content_type: TEXT, body: THREE_LICENSE.as_bytes() },
];

/// The asset served at exactly `path`.
pub fn find(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|asset| asset.path == path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protocol_path_is_embedded_and_nothing_else() {
        let doc = include_str!("../../../docs/testbed-protocol.md");
        for asset in ASSETS {
            assert!(
                doc.contains(&format!("`GET {}`", asset.path)),
                "{} is not in the protocol's HTTP table",
                asset.path
            );
            assert!(!asset.body.is_empty(), "{} is empty", asset.path);
        }
        for path in ["/../Cargo.toml", "/vendor/", "/vendor/README.md", "/app.js/", "//app.js", "/APP.JS"] {
            assert!(find(path).is_none(), "{path} must not be served");
        }
    }

    #[test]
    fn the_page_loads_only_embedded_files() {
        // The import map and the script and style tags name the files by their served paths.
        for needle in ["./vendor/three.module.js", "./vendor/OrbitControls.js", "src=\"app.js\"", "href=\"style.css\""]
        {
            assert!(INDEX_HTML.contains(needle), "index.html does not reference {needle}");
        }
        // three.module.js imports its core by this relative path (the replay writer rewrites
        // it); OrbitControls imports the bare `three` the import map resolves.
        assert!(THREE_MODULE_JS.contains("from './three.core.js'"));
        assert!(ORBIT_CONTROLS_JS.contains("from 'three'"));
    }
}
