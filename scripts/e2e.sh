#!/usr/bin/env bash
# The testbed's end-to-end browser test: installs chromium and playwright-core if missing
# (scripts/install-e2e.sh), builds the `fulcrum` binary with the test profile (already built,
# so free, after `cargo test --workspace`), then runs e2e/testbed.spec.mjs, which drives
# `fulcrum view` in headless chromium. Artefacts: <target>/e2e/testbed.png (failure.png on a
# failure). UPDATE_SCREENSHOT=1 also refreshes docs/testbed.png.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-e2e.sh
# `cargo test --workspace` builds the binary for fulcrum-cli's integration tests with the test
# profile into <target>/debug; the same command (same profile, same unified features) is free
# after it, where a plain `cargo build` would compile the engine a second time.
cargo test --workspace --locked --no-run --quiet
target="${CARGO_TARGET_DIR:-target}"
FULCRUM_BIN="${FULCRUM_BIN:-$target/debug/fulcrum}" exec node e2e/testbed.spec.mjs
