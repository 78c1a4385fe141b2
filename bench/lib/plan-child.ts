import { enableCompileCache } from "node:module";
import { join } from "node:path";
import type { ClientMachinery } from "../../src/client/machinery.ts";
import type * as Compose from "../../src/compose/plan-environment.ts";
import type { EnvironmentConfig } from "../../src/manifest/index.ts";
import { egpModule, isVariant, type Variant } from "./pieces.ts";

/*
 * A plan as `egp plan --env ENV --dir DIR` composes it, made through the library with one piece of
 * the speed machinery off (its plain variant passed in) or none (`all`), in a process of its own:
 *
 *   node bench/lib/plan-child.ts <dir> <env> <all|parse|validate|cache>
 *
 * The password comes from EGP_BENCH_PASSWORD (the environment files name it); EGP_BENCH_DIST=1
 * loads the compiled dist/. It prints one JSON line: the plan's summary and the requests made.
 */

// As egp's launcher (bin/egp.js) does: a module's compiled code is kept between runs, so that a
// variant that loads another library (the yaml library) pays for it as a user's second run would.
enableCompileCache();

const dist = process.env.EGP_BENCH_DIST === "1";
const [dir = "", env = "", variant = "all"] = process.argv.slice(2);
if (!isVariant(variant)) throw new Error(`unknown variant ${variant}`);

const [compose, connections, client, cache, yaml, validate, stateDir] = await Promise.all([
  egpModule<typeof Compose>("compose/plan-environment.ts", dist),
  egpModule<typeof import("../../src/compose/connections.ts")>("compose/connections.ts", dist),
  egpModule<typeof import("../../src/client/client.ts")>("client/client.ts", dist),
  egpModule<typeof import("../../src/manifest/cache.ts")>("manifest/cache.ts", dist),
  egpModule<typeof import("../../src/manifest/yaml-source.ts")>("manifest/yaml-source.ts", dist),
  egpModule<typeof import("../../src/schema/validate.ts")>("schema/validate.ts", dist),
  egpModule<typeof import("../../src/cli/state-dir.ts")>("cli/state-dir.ts", dist),
]);

/** What the plan is given for `variant`: every piece's default but the one turned off. */
function machineryOf(off: Variant) {
  const machinery: ClientMachinery = off === "validate" ? { validate: validate.zodParse } : {};
  const read = {
    ...(off === "parse" ? { parser: yaml.yamlParser } : {}),
    ...(off === "validate" ? { validate: validate.zodParse } : {}),
  };
  const manifestCache =
    off === "cache"
      ? undefined
      : new cache.ManifestCache(stateDir.stateDirOf(dir), { prepare: stateDir.ensureStateDir });
  return { machinery, read, cache: manifestCache };
}

const { machinery, read, cache: manifestCache } = machineryOf(variant);
const clients = new Map<string, ReturnType<typeof client.createClient>>();
const open = async (config: EnvironmentConfig) => {
  let opened = clients.get(config.name);
  if (!opened) {
    const url = config.endpoint.kind === "http" ? config.endpoint.url : "";
    opened = client.createClient({ ...connections.clientOptionsOf(config), url }, machinery);
    clients.set(config.name, opened);
  }
  return opened;
};

try {
  const { plan } = await compose.planEnvironment({
    dir: join(dir),
    env,
    open,
    read,
    ...(manifestCache ? { cache: manifestCache } : {}),
  });
  await Promise.all([...clients.values()].map((opened) => opened.close()));
  const requests = [...clients.values()].reduce((sum, opened) => sum + opened.stats().requests, 0);
  process.stdout.write(`${JSON.stringify({ summary: plan.summary, requests })}\n`);
} finally {
  await Promise.all([...clients.values()].map((opened) => opened.close()));
}
