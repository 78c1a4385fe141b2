// Every exported function of egp that applies a plan or releases to an environment, called through
// the published package: a promotion first (no freeze), then, with both environments frozen, the
// apply and the release build are refused and the rollback goes through.
// node governed.mjs <repository>. Prints one line of JSON.
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import * as egp from "egp";

const [dir] = process.argv.slice(2);
const stateDir = join(dir, ".egp");
const connections = egp.httpConnections();
const open = connections.open;
const hour = 3600_000;
const freeze = [
  "freeze:",
  `  - { from: "${new Date(Date.now() - hour).toISOString()}", to: "${new Date(Date.now() + hour).toISOString()}", reason: year-end }`,
  "",
].join("\n");

/** The code a call was refused with, or "resolved". */
const codeOf = (promise) =>
  promise.then(
    () => "resolved",
    (error) => error?.code ?? String(error),
  );

try {
  const promoted = await egp.apply({ dir, env: "local-prod", stateDir, open });
  for (const env of ["local-dev", "local-prod"])
    await appendFile(join(dir, `environments/${env}.yaml`), freeze);
  const refused = {
    apply: await codeOf(egp.apply({ dir, env: "local-prod", stateDir, open })),
    createRelease: await codeOf(
      egp.createRelease({ dir, from: "local-dev", name: "r-frozen", stateDir, open }),
    ),
  };
  const rolledBack = await egp.rollback({ dir, env: "local-prod", stateDir, open });
  const audit = await egp.readAudit(await egp.openProjectStore(dir));
  console.log(
    JSON.stringify({
      exported: Object.entries(egp).flatMap(([name, value]) => (typeof value === "function" ? [name] : [])),
      promoted: promoted.result,
      refused,
      rolledBack: rolledBack.result,
      audit: audit.records.map((r) => [r.action, r.environment, r.result, r.release?.name ?? null]),
      broken: audit.broken ?? null,
    }),
  );
} finally {
  await connections.close();
}
