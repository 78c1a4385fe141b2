#!/usr/bin/env bash
# `npm start`: the main job on the embedded example. Promotes the package from local-dev to
# local-prod and applies the users and security parameters, then checks for drift.
# Both environments are emulators started in-process; their state is kept in .egp/ between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/ensure-node.sh
. scripts/ensure-deps.sh
node --max-semi-space-size=8 bin/egp.js apply --env local-prod --yes
echo
echo "Drift check:"
# Exit 2 is the demo's: what only local-prod has stays open until someone acts on it (docs/drift.md).
node --max-semi-space-size=8 bin/egp.js drift --env local-prod || [ $? -eq 2 ]
