#!/usr/bin/env bash
# The project's test command (the README's second command).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked
