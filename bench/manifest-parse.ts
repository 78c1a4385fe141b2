import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manifestFile } from "../src/export/yaml.ts";
import { parsePrecise, parseYamlFile } from "../src/manifest/yaml-source.ts";
import { launcherFlags } from "./lib/emulator-child.ts";
import { finish } from "./lib/verdict.ts";

/*
 * The manifest YAML readers on the "everything managed" case of plan-scale (issue 15 item 3): one
 * file of 10,000 users as `egp export` writes them (3.6 MB), read by
 * - egp's reader (`parseYamlFile`: js-yaml's event parser for plain files, the `yaml` library for the
 *   rest), and
 * - the `yaml` library alone (`parsePrecise`, what every file would take with one library).
 * Each reader runs in a child process of its own (the launcher's Node flags), five reads in a row:
 * the first is what a CLI run pays; peak RSS is the child's. Both must read the same values.
 *
 *   bash scripts/node24 node bench/manifest-parse.ts [users]
 */

const USERS = Number(process.argv[2] ?? 10_000);
const READS = 5;
const DEADLINE_MS = 180_000;
const READERS = { egp: parseYamlFile, "yaml only": parsePrecise } as const;
type Reader = keyof typeof READERS;

function usersFile(count: number): string {
  const documents = Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(6, "0");
    return {
      kind: "User",
      environments: ["scale"],
      userName: `user${n}`,
      firstName: `First${n}`,
      lastName: `Last${n}`,
      displayName: `Last${n}, First${n}`,
      status: "active",
      securityParameter: "General User Parameter",
      timeZoneId: "UTC",
      languageId: 1,
      forcePasswordChange: false,
      groups: ["Everyone"],
      contacts: [{ type: "email", subType: "business", value: `user${n}@example.com`, default: true }],
    };
  });
  return manifestFile(["Written by the manifest-parse bench, as `egp export` writes users."], documents);
}

/** In the child: reads the file READS times; prints one JSON line. */
function child(reader: Reader, path: string): void {
  const text = readFileSync(path, "utf8");
  const times: number[] = [];
  let values = "";
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    const parsed = READERS[reader]("manifests/live/users.yaml", text);
    // The loader locates at least one key per document.
    for (const document of parsed.documents) document.locate(["userName"]);
    times.push(performance.now() - started);
    if (i === 0) values = JSON.stringify(parsed.documents.map((document) => document.value));
  }
  const peakMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ times, peakMb, same: values })}\n`);
}

interface Figures {
  first: number;
  median: number;
  peakMb: number;
  values: string;
}

function measure(reader: Reader, path: string): Figures {
  const run = spawnSync(
    process.execPath,
    [...launcherFlags(), import.meta.filename, "--child", reader, path],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`${reader}: ${run.stderr}`);
  const { times, peakMb, same } = JSON.parse(run.stdout) as { times: number[]; peakMb: number; same: string };
  const sorted = [...times].sort((a, b) => a - b);
  return {
    first: times[0] as number,
    median: sorted[Math.floor(sorted.length / 2)] as number,
    peakMb,
    values: same,
  };
}

if (process.argv[2] === "--child") {
  child(process.argv[3] as Reader, process.argv[4] as string);
} else {
  await finish(DEADLINE_MS, async () => {
    const work = mkdtempSync(join(tmpdir(), "egp-bench-parse-"));
    try {
      const path = join(work, "users.yaml");
      const text = usersFile(USERS);
      writeFileSync(path, text);
      console.log(`manifest-parse: ${USERS} documents, ${(text.length / 1e6).toFixed(1)} MB, ${READS} reads`);
      console.log(
        `${"reader".padEnd(12)}${"first read".padStart(12)}${"median".padStart(10)}${"peak RSS".padStart(10)}`,
      );
      const figures = new Map<Reader, Figures>();
      for (const reader of Object.keys(READERS) as Reader[]) {
        const measured = measure(reader, path);
        figures.set(reader, measured);
        console.log(
          `${reader.padEnd(12)}${`${measured.first.toFixed(0)} ms`.padStart(12)}${`${measured.median.toFixed(0)} ms`.padStart(10)}${`${measured.peakMb.toFixed(0)} MB`.padStart(10)}`,
        );
      }
      const egp = figures.get("egp") as Figures;
      const single = figures.get("yaml only") as Figures;
      if (egp.values !== single.values) return { pass: false, reason: "the readers read different values" };
      return egp.first < single.first
        ? { pass: true }
        : { pass: false, reason: "egp's reader is not faster than the yaml library alone" };
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}
