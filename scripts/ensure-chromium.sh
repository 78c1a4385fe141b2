#!/usr/bin/env bash
# Installs Debian's chromium for the browser test of `egp compare --format html` when it is missing.
# playwright-core drives it; a test tool's own browser download cannot work on these machines.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "ensure-chromium: installing Debian's chromium" >&2
$SUDO apt-get update -qq >&2 || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >&2
command -v chromium >/dev/null
