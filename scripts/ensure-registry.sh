#!/usr/bin/env bash
# Installs Debian's docker-registry (the CNCF distribution registry) for the OCI release store's
# tests, which run against a real registry on 127.0.0.1 when it is missing.
set -euo pipefail
if command -v docker-registry >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "ensure-registry: installing Debian's docker-registry" >&2
$SUDO apt-get update -qq >&2 || true
# The package's postinst starts a service on :5000 where systemd runs; the tests start their own.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker-registry >&2
command -v docker-registry >/dev/null
