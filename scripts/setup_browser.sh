#!/usr/bin/env bash
# Install Debian's Chromium for the browser-table tests (Playwright drives it
# through executable_path; nothing is downloaded by Playwright itself).
# Idempotent; needs root or sudo.  Without either it says so and the browser
# tests skip with that reason.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    sudo=()
elif command -v sudo > /dev/null; then
    sudo=(sudo)
else
    echo "setup_browser: not root and no sudo - cannot apt-get install chromium;" \
         "the browser-table tests will skip" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -qq chromium > /dev/null 2>&1 || {
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq chromium > /dev/null
}
/usr/bin/chromium --version
