#!/usr/bin/env bash
# Puts a Node.js 24 first on PATH. Source it: `. scripts/ensure-node.sh`.
# Machines here ship Node 20, which is too old for undici 8, vitest 5 and p-retry 9; Node 24 comes
# from the npm registry (the `node` package) into a cache prefix, so no machine needs it by hand.
_egp_prefix="${EGP_NODE_PREFIX:-$HOME/.cache/egp-node24}"
_egp_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(_egp_major)" -lt 24 ]; then
  if [ ! -x "$_egp_prefix/node_modules/.bin/node" ]; then
    echo "ensure-node: installing Node 24 into $_egp_prefix" >&2
    npm install --prefix "$_egp_prefix" --no-save --no-audit --no-fund --loglevel=error node@24 >&2 || return 1 2>/dev/null || exit 1
  fi
  export PATH="$_egp_prefix/node_modules/.bin:$PATH"
  hash -r
fi
if [ "$(_egp_major)" -lt 24 ]; then
  echo "ensure-node: Node 24 is not first on PATH (found $(node --version 2>/dev/null || echo none))" >&2
  return 1 2>/dev/null || exit 1
fi
unset -f _egp_major
unset _egp_prefix
