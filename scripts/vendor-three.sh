#!/usr/bin/env bash
# Vendors three.js from the npm registry into crates/fulcrum-view/assets/vendor/ (the testbed
# page's only dependency, embedded in the `fulcrum` binary so nothing is fetched at run time).
#
#   scripts/vendor-three.sh [VERSION]    default: the version in vendor/README.md
#
# Copies build/three.module.js and build/three.core.js (since r171 the module build is split in
# two: three.module.js imports './three.core.js'), examples/jsm/controls/OrbitControls.js
# (unchanged: it imports 'three', which the page's import map resolves) and the licence as
# three-LICENSE, then rewrites vendor/README.md with the version and the files' SHA-256.
# Needs npm (only `npm pack`, which checks the tarball's integrity against the registry).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=crates/fulcrum-view/assets/vendor
version="${1:-$(sed -n 's/^three version: *//p' "$dest/README.md" 2>/dev/null | head -1)}"
if [ -z "$version" ]; then
    echo "usage: scripts/vendor-three.sh VERSION (no version in $dest/README.md)" >&2
    exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "three@$version" >/dev/null && tar xzf "three-$version.tgz")
pkg="$tmp/package"
mkdir -p "$dest"
cp "$pkg/build/three.module.js" "$pkg/build/three.core.js" "$dest/"
cp "$pkg/examples/jsm/controls/OrbitControls.js" "$dest/"
cp "$pkg/LICENSE" "$dest/three-LICENSE"
# The page and the replay writer rely on these imports; fail loudly if a new release moves them.
grep -q "from './three.core.js'" "$dest/three.module.js"
grep -q "from 'three'" "$dest/OrbitControls.js"
{
    echo "# Vendored three.js"
    echo
    echo "three version: $version"
    echo
    echo "From the npm registry's \`three@$version\` package (MIT, see three-LICENSE), copied"
    echo "unchanged by \`scripts/vendor-three.sh $version\`; re-run it to update or to check."
    echo "The testbed page (\`../index.html\`) maps the bare specifier \`three\` to"
    echo "\`vendor/three.module.js\` with an import map, so the files need no edits."
    echo
    echo "| file | from the package | sha256 |"
    echo "|---|---|---|"
    for pair in three.module.js:build/three.module.js three.core.js:build/three.core.js \
        OrbitControls.js:examples/jsm/controls/OrbitControls.js three-LICENSE:LICENSE; do
        file="${pair%%:*}"
        echo "| $file | $(printf '%s' "${pair#*:}") | $(sha256sum "$dest/$file" | cut -d' ' -f1) |"
    done
} > "$dest/README.md"
echo "vendored three@$version into $dest"
