#!/usr/bin/env bash
# Installs the project's packages with the Node 24 that ensure-node.sh put first on PATH, when they
# are missing or older than package-lock.json. Source it after ensure-node.sh. Installing with Node
# 24, not the machine's Node 20, is what keeps `npm ci` free of engine warnings.
_egp_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ ! "$_egp_root/node_modules/.package-lock.json" -nt "$_egp_root/package-lock.json" ]; then
  echo "ensure-deps: installing the project's packages (npm ci)" >&2
  (cd "$_egp_root" && npm ci --no-audit --no-fund --loglevel=error >&2) || { return 1 2>/dev/null || exit 1; }
fi
unset _egp_root
