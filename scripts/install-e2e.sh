#!/usr/bin/env bash
# Installs what the browser test (scripts/e2e.sh) needs, if missing: Debian's `chromium`
# package (apt-get; as root, or through sudo) and playwright-core, pinned by
# e2e/package-lock.json (`npm ci` in e2e/). Node.js 20 or newer must already be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    echo "install-e2e: installing Debian's chromium package" >&2
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "install-e2e: node and npm (Node.js 20 or newer) are needed" >&2
    exit 1
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
    echo "install-e2e: Node.js $(node --version) is too old; playwright-core needs 20 or newer" >&2
    exit 1
fi

# npm ci only when the installed playwright-core is not the locked one.
wanted="$(node -p 'require("./e2e/package-lock.json").packages["node_modules/playwright-core"].version')"
have="$(node -p 'try { require("./e2e/node_modules/playwright-core/package.json").version } catch { "" }')"
if [ "$have" != "$wanted" ]; then
    echo "install-e2e: npm ci in e2e/ (playwright-core $wanted)" >&2
    (cd e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
