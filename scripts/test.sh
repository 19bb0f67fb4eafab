#!/usr/bin/env bash
# The project's test command (the README's second command): the Rust tests, then the testbed's
# end-to-end browser test (scripts/e2e.sh; FULCRUM_SKIP_E2E=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked
if [ "${FULCRUM_SKIP_E2E:-0}" = "1" ]; then
    echo "test.sh: FULCRUM_SKIP_E2E=1, browser test skipped" >&2
else
    ./scripts/e2e.sh
fi
