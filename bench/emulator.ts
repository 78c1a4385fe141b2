import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { request } from "undici";
import { spawnEmulator } from "./lib/emulator-child.ts";
import { rawLogin } from "./lib/package-zip.ts";
import { cpuSecondsOf, machine } from "./lib/proc.ts";
import { finish } from "./lib/verdict.ts";

/*
 * §4 emulator throughput, with autocannon, against an emulator child on the demo-dev seed:
 * - read: `applicationinfo/version` as the seed sends reads (POST + `X-Http-Method-Override: GET`),
 *   with a session made once beforehand. "Login-free" means no login per request: every request
 *   of the emulator but login needs a session (seed, Authentication 2), so the session's check is
 *   part of what is measured;
 * - write: `PUT securityparameter` of the Services Parameter, each request with another
 *   Description, so that every request is a real validated write.
 * Each runs for --seconds (default 10) after a 2 s warm-up, over --connections (default 10)
 * connections. It prints requests/s, latency percentiles and the emulator's CPU share.
 *
 *   bash scripts/node24 node bench/emulator.ts [--seconds 10] [--connections 10] [--dist] [--data]
 *
 * `--data` runs the emulator with `--data` (a file in a temp folder): every write is then on disk
 * before it is answered, and the write figure is the durable one (target ≥ 5,000 writes/s).
 *
 * Bounded: 2 minutes. Target: no errors, timeouts or non-2xx answers, and the last write is what
 * the emulator then reads back. DESIGN §5 sets no rate, so the figures are reported, not judged.
 */

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const SECONDS = option("seconds", 10);
const CONNECTIONS = option("connections", 10);
const DIST = args.includes("--dist");
const DATA = args.includes("--data");
const DEADLINE_MS = 120_000;
const SERVICES_PARAMETER = 3;

async function readParameter(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await request(`${url}/platformapi/core/system/securityparameter/${SERVICES_PARAMETER}`, {
    method: "POST",
    headers: { ...headers, "x-http-method-override": "GET" },
  });
  const json = (await response.body.json()) as { RequestedObject: Record<string, unknown> };
  return json.RequestedObject;
}

interface Scenario {
  name: string;
  options: autocannon.Options;
}

function describeResult(name: string, result: autocannon.Result, cpuShare: number): string {
  const l = result.latency;
  return (
    `${name}: ${result.requests.average.toFixed(0)} req/s (min ${result.requests.min}, max ${result.requests.max} per second), ` +
    `${result.requests.total} requests; latency ms p50 ${l.p50} p90 ${l.p90} p97.5 ${l.p97_5} p99 ${l.p99} max ${l.max}; ` +
    `errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}; emulator CPU ${cpuShare.toFixed(0)}% of a core`
  );
}

async function measure(
  pid: number,
  scenario: Scenario,
): Promise<{ result: autocannon.Result; line: string }> {
  await autocannon({ ...scenario.options, duration: 2 });
  const cpuBefore = cpuSecondsOf(pid);
  const started = performance.now();
  const result = await autocannon({ ...scenario.options, duration: SECONDS });
  const cpuShare = ((cpuSecondsOf(pid) - cpuBefore) / ((performance.now() - started) / 1000)) * 100;
  return { result, line: describeResult(scenario.name, result, cpuShare) };
}

await finish(DEADLINE_MS, async () => {
  console.log(machine());
  const dataDir = DATA ? mkdtempSync(join(tmpdir(), "egp-bench-data-")) : undefined;
  const emulator = await spawnEmulator({
    seed: "demo-dev",
    dist: DIST,
    ...(dataDir ? { dataFile: join(dataDir, "state.json") } : {}),
  });
  try {
    const token = await rawLogin(emulator.url, "Password1!");
    const headers = {
      authorization: `Platform session-id="${token}"`,
      "content-type": "application/json",
      accept: "application/json",
    };
    const parameter = await readParameter(emulator.url, headers);
    let writes = 0;
    const base = { url: emulator.url, connections: CONNECTIONS };
    const scenarios: Scenario[] = [
      {
        name: "read  POST+override applicationinfo/version",
        options: {
          ...base,
          url: `${emulator.url}/platformapi/core/system/applicationinfo/version`,
          method: "POST",
          headers: { ...headers, "x-http-method-override": "GET" },
        },
      },
      {
        name: "write PUT securityparameter",
        options: {
          ...base,
          requests: [
            {
              method: "PUT",
              path: "/platformapi/core/system/securityparameter",
              headers,
              setupRequest: (req) => {
                writes += 1;
                return {
                  ...req,
                  body: JSON.stringify({ ...parameter, Description: `bench write ${writes}` }),
                };
              },
            },
          ],
        },
      },
    ];
    console.log(
      `emulator: child process (${DIST ? "dist/" : "sources"}), seed demo-dev${DATA ? ", --data (durable writes)" : ""}; ${CONNECTIONS} connections, ${SECONDS} s per scenario after a 2 s warm-up; bound ${DEADLINE_MS / 1000} s`,
    );
    const problems: string[] = [];
    for (const scenario of scenarios) {
      const { result, line } = await measure(emulator.pid, scenario);
      console.log(line);
      if (result.errors + result.timeouts + result.non2xx > 0 || result.requests.total === 0)
        problems.push(`${scenario.name.split(" ")[0]} had errors or non-2xx answers`);
      if (DATA && scenario.name.startsWith("write") && result.requests.average < 5_000)
        problems.push(`durable writes ${result.requests.average.toFixed(0)}/s, under 5,000/s`);
    }
    const after = await readParameter(emulator.url, headers);
    const stored = String(after.Description ?? "");
    console.log(`writes sent ${writes}; the parameter now reads "${stored}"`);
    if (!/^bench write \d+$/.test(stored)) problems.push("the writes did not stick");
    console.log(
      `target: no errors, timeouts or non-2xx answers${DATA ? "; with --data, ≥ 5,000 durable writes/s (the reliability issue)" : " (no rate target in DESIGN §5)"}`,
    );
    return problems.length === 0 ? { pass: true } : { pass: false, reason: problems.join("; ") };
  } finally {
    await emulator.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
});
