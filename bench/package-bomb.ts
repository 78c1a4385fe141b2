import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { request } from "undici";
import yauzl from "yauzl";
import { type Deflated, deflated, type RawEntry, rawZip } from "../test/helpers/zip.ts";
import { spawnEmulator } from "./lib/emulator-child.ts";
import { authorization, rawLogin, smallPackage } from "./lib/package-zip.ts";
import { machine, memoryOf, RssSampler } from "./lib/proc.ts";
import { finish } from "./lib/verdict.ts";

/*
 * Zip bombs uploaded to the emulator (issue 14): a real package plus entries that deflate about
 * 1000:1, each case uploaded once and then twice at once to a fresh emulator whose resident memory
 * is sampled. Each upload must be refused with a 4xx envelope and the emulator's peak RSS must stay
 * under 300 MB.
 *
 *   bash scripts/node24 node bench/package-bomb.ts
 *
 * Cases (each expands to about 1.8 GiB, under the 2 GiB default of `zipExpandedBytes`):
 * - `unlisted-60`: 30 object files of 60 MiB of spaces the manifest does not list (the zip);
 * - `unlisted-6`: 300 such files of 6 MiB, each under the JSON limits;
 * - `listed-6`: the same, listed by the manifest;
 * - `lying`: 30 listed files of 60 MiB whose directory entries claim 100 bytes each;
 * - `nodes`: one listed file of 12 MiB of `[{},{},…]` (under the byte limit; JSON.parse would make
 *   four million objects of it).
 * And two controls near the default limits, which must be accepted: `most-nodes` (Risk Register
 * with 24,000 more fields: about 7 MiB of JSON and 97,000 objects and arrays) and `most-bytes`
 * (60 more fields with descriptions of 250,000 characters: about 15 MiB of JSON).
 */

const RSS_LIMIT_MB = 300;
const DEADLINE_MS = 300_000;
const MiB = 1024 * 1024;

const work = mkdtempSync(join(tmpdir(), "egp-bench-bomb-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

async function entriesOf(file: string): Promise<RawEntry[]> {
  const zip = await yauzl.openPromise(file);
  const entries: RawEntry[] = [];
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of (await zip.openReadStreamPromise(entry)) as AsyncIterable<Buffer>)
      chunks.push(chunk);
    entries.push({ name: entry.fileName, data: Buffer.concat(chunks), deflate: true });
  }
  zip.close();
  return entries;
}

interface Case {
  name: string;
  /** A valid package of `count` more fields that must be accepted (default: refused with a 4xx). */
  accepted?: boolean;
  /** Length of each added field's description, for `accepted`. */
  description?: number;
  count: number;
  /** What each extra entry expands to. */
  padding: Deflated;
  listed: boolean;
  declaredSize?: number;
}

function listing(valid: RawEntry[], guids: string[]): RawEntry[] {
  return valid.map((entry) => {
    if (entry.name !== "manifest.json") return entry;
    const manifest = JSON.parse(entry.data.toString("utf8"));
    for (const guid of guids) {
      manifest.Objects.push({ Guid: guid, Type: "Application", Name: guid, File: `objects/${guid}.json` });
    }
    return { ...entry, data: Buffer.from(JSON.stringify(manifest)) };
  });
}

/** The valid package with its application grown by `extra` fields on its first level. */
function largest(valid: RawEntry[], extra: number, description: number, file: string): string {
  const entries = valid.map((entry) => {
    if (!entry.name.startsWith("objects/")) return entry;
    const object = JSON.parse(entry.data.toString("utf8"));
    const level = object.Module.Levels[0];
    const template = level.Fields[0];
    for (let i = 0; i < extra; i++) {
      level.Fields.push({
        ...template,
        Guid: randomUUID(),
        Alias: `bench_field_${i}`,
        Name: `Bench field ${i}`,
        Description: `A field added by bench/package-bomb.ts, number ${i}.`.padEnd(description, "."),
        Values: [],
        ReferencedLevelGuids: [],
        SubformGuid: null,
        Translations: [],
        Type: 1,
      });
    }
    return { ...entry, data: Buffer.from(JSON.stringify(object)) };
  });
  writeFileSync(file, rawZip(entries));
  return file;
}

function bomb(valid: RawEntry[], spec: Case): string {
  const file = join(work, `bomb-${spec.name}.zip`);
  if (spec.accepted) return largest(valid, spec.count, spec.description ?? 0, file);
  const guids = Array.from({ length: spec.count }, () => randomUUID());
  const extra: RawEntry[] = guids.map((guid) => ({
    name: `objects/${guid}.json`,
    data: Buffer.alloc(0),
    precompressed: spec.padding,
    ...(spec.declaredSize === undefined ? {} : { declaredSize: spec.declaredSize }),
  }));
  writeFileSync(file, rawZip([...(spec.listed ? listing(valid, guids) : valid), ...extra]));
  return file;
}

function cases(): Case[] {
  const spaces60 = deflated(Buffer.alloc(60 * MiB, 0x20));
  const spaces6 = deflated(Buffer.alloc(6 * MiB, 0x20));
  const objects = Buffer.from(`[${"{},".repeat(4 * MiB)}{}]`);
  return [
    { name: "unlisted-60", count: 30, padding: spaces60, listed: false },
    { name: "unlisted-6", count: 300, padding: spaces6, listed: false },
    { name: "listed-6", count: 300, padding: spaces6, listed: true },
    { name: "lying", count: 30, padding: spaces60, listed: true, declaredSize: 100 },
    { name: "nodes", count: 1, padding: deflated(objects), listed: true },
    { name: "most-nodes", count: 24_000, padding: spaces6, listed: true, accepted: true },
    { name: "most-bytes", count: 60, padding: spaces6, listed: true, accepted: true, description: 250_000 },
  ];
}

async function upload(url: string, token: string, file: string): Promise<{ status: number; key: string }> {
  const boundary = "egp-bench-boundary";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bomb.zip"\r\nContent-Type: application/zip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const response = await request(`${url}/api/core/package/upload`, {
    method: "POST",
    headers: {
      authorization: authorization(token),
      "content-type": `multipart/form-data; boundary=${boundary}`,
      accept: "application/json",
    },
    body: Readable.from([head, readFileSync(file), tail]),
  });
  const text = await response.body.text();
  let key = "";
  try {
    key = JSON.parse(text).ValidationMessages?.[0]?.MessageKey ?? "";
  } catch {
    key = `(not an envelope: ${text.slice(0, 80)})`;
  }
  return { status: response.statusCode, key };
}

/** Uploads `file` once, then twice at once, to a fresh emulator; returns its peak RSS. */
async function measure(spec: Case, file: string, failures: string[]): Promise<number> {
  const emulator = await spawnEmulator({ seed: "demo-dev" });
  try {
    const token = await rawLogin(emulator.url, "Password1!");
    const idle = memoryOf(emulator.pid).rss;
    const sampler = new RssSampler();
    sampler.start(emulator.pid, 10);
    const started = Date.now();
    const answers = [await upload(emulator.url, token, file)];
    const single = Math.max(sampler.peak, memoryOf(emulator.pid).hwm);
    answers.push(...(await Promise.all([1, 2].map(() => upload(emulator.url, token, file)))));
    const peak = Math.max(sampler.stop(), memoryOf(emulator.pid).hwm);
    const summary = [...new Set(answers.map((a) => `${a.status} ${a.key}`))].join(", ");
    console.log(
      `${spec.name.padEnd(12)} ${(statSync(file).size / MiB).toFixed(2)} MB zip -> ${summary} ` +
        `(3 uploads, ${Date.now() - started} ms); emulator RSS idle ${idle.toFixed(0)} MB, ` +
        `peak ${single.toFixed(0)} MB after one upload, ${peak.toFixed(0)} MB after two more at once`,
    );
    for (const answer of answers) {
      const ok = spec.accepted ? answer.status === 200 : answer.status >= 400 && answer.status < 500;
      if (!ok) failures.push(`${spec.name}: ${answer.status} ${answer.key}`);
    }
    return peak;
  } finally {
    await emulator.stop();
  }
}

await finish(DEADLINE_MS, async () => {
  console.log(machine());
  const source = await spawnEmulator({ seed: "demo-dev" });
  const small = join(work, "small.zip");
  try {
    await smallPackage(source.url, await rawLogin(source.url, "Password1!"), small);
  } finally {
    await source.stop();
  }
  const valid = await entriesOf(small);
  const failures: string[] = [];
  let worst = 0;
  for (const spec of cases()) worst = Math.max(worst, await measure(spec, bomb(valid, spec), failures));
  if (failures.length > 0) return { pass: false, reason: `unexpected answers: ${failures.join(", ")}` };
  if (worst > RSS_LIMIT_MB)
    return { pass: false, reason: `peak RSS ${worst.toFixed(0)} MB > ${RSS_LIMIT_MB} MB` };
  return { pass: true };
});
