import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { useEmulator } from "../helpers/raw.ts";

/*
 * Fuzz-style robustness of the content segment: a few hundred requests built from a seeded PRNG
 * (so a failure replays exactly) with random queries and bodies, many of them nearly valid so that
 * they reach the field checks by type code. The server must never answer 500 nor crash, every
 * failure must be an envelope, and it must still answer afterwards.
 */

const SEED = 0x5eed_c0de;
const REQUESTS = 400;

/** mulberry32: small, fast and deterministic. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
}

type Rng = ReturnType<typeof prng>;

const KEYS = [
  "Id",
  "ID",
  "LevelId",
  "FieldContents",
  "Version",
  "Content",
  "SubformFieldId",
  "Type",
  "Value",
  "FieldId",
  "Tag",
  "ValuesListIds",
  "OtherText",
  "UserList",
  "GroupList",
  "URL",
  "Name",
  "Row",
  "Column",
  "AttachmentName",
  "AttachmentBytes",
  "IsSensitive",
  "FieldIds",
  "ContentIds",
  "Alias",
  "ContentPartIds",
  "ExternalFieldIds",
  "__proto__",
  "constructor",
];

const STRINGS = [
  "",
  " ",
  "x",
  "1002",
  "-1",
  "1e309",
  "NaN",
  "true",
  "2026-02-30",
  "2026-01-31T09:30:00Z",
  "10.0.0.1",
  "::1",
  "999.1.1.1",
  "https://example.com",
  "javascript:alert(1)",
  "AAAA",
  "@@@",
  "'; DROP TABLE content; --",
  "é漢字🙂",
  "\u0000",
  "a".repeat(300),
];

function randomValue(rng: Rng, ids: readonly number[], depth = 0): unknown {
  const roll = rng.int(depth > 2 ? 6 : 9);
  switch (roll) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, -1, 1, 1.5, 2 ** 53, -(2 ** 31), 1e308, ...ids]);
    case 3:
    case 4:
      return rng.pick(STRINGS);
    case 5:
      return rng.pick(ids);
    case 6:
    case 7:
      return Array.from({ length: rng.int(4) }, () => randomValue(rng, ids, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: rng.int(5) }, () => [rng.pick(KEYS), randomValue(rng, ids, depth + 1)]),
      );
  }
}

/** A record body that is often nearly valid: a real level, real field ids, random values. */
function contentBody(rng: Rng, ctx: FuzzContext): unknown {
  if (rng.chance(0.15)) return randomValue(rng, ctx.ids);
  const contents: Record<string, unknown> = {};
  for (let i = rng.int(5); i > 0; i--) {
    const field = rng.pick(ctx.fields);
    const key = rng.chance(0.9) ? String(field.Id) : String(randomValue(rng, ctx.ids));
    contents[key] = rng.chance(0.9)
      ? {
          Type: rng.chance(0.8) ? field.Type : rng.int(30),
          FieldId: rng.chance(0.8) ? field.Id : randomValue(rng, ctx.ids),
          Value: randomValue(rng, ctx.ids),
        }
      : randomValue(rng, ctx.ids);
  }
  const record = {
    ...(rng.chance(0.5) ? { Id: rng.pick(ctx.ids) } : {}),
    LevelId: rng.chance(0.85) ? rng.pick(ctx.levels) : randomValue(rng, ctx.ids),
    FieldContents: contents,
  };
  if (rng.chance(0.5)) return record;
  return { Content: record, ...(rng.chance(0.5) ? { SubformFieldId: randomValue(rng, ctx.ids) } : {}) };
}

function filterText(rng: Rng, ctx: FuzzContext): string {
  const parts = Array.from({ length: 1 + rng.int(7) }, () =>
    rng.pick([
      rng.pick(ctx.aliases),
      rng.pick(["eq", "ne", "gt", "lt", "ge", "le", "and", "or", "not"]),
      rng.pick(["'x'", "'it''s'", "'open", "12", "-3.5", "null", "true", "2026-01-01", "2026-99-01"]),
      rng.pick(["(", ")", "#", "$", "contains(Name,'a')", ","]),
    ]),
  );
  return parts.join(" ");
}

function odataQuery(rng: Rng, ctx: FuzzContext): string {
  const options: string[] = [];
  if (rng.chance(0.6)) options.push(`$filter=${encodeURIComponent(filterText(rng, ctx))}`);
  if (rng.chance(0.3))
    options.push(`$select=${encodeURIComponent(rng.pick([...ctx.aliases, "*", "", "Id,,x"]))}`);
  if (rng.chance(0.3)) options.push(`$top=${rng.pick(["0", "5", "1000", "1001", "-1", "x", "99999999999"])}`);
  if (rng.chance(0.3)) options.push(`$skip=${rng.pick(["0", "2", "-5", "1.5"])}`);
  if (rng.chance(0.3))
    options.push(
      `$orderby=${encodeURIComponent(`${rng.pick(ctx.aliases)} ${rng.pick(["asc", "desc", "up", ""])}`)}`,
    );
  if (rng.chance(0.1)) options.push(rng.pick(["$expand=x", "$format=json", "%zz=1", "$top=1&$top=2"]));
  return options.join("&");
}

interface FuzzContext {
  ids: number[];
  levels: number[];
  fields: Array<{ Id: number; Type: number }>;
  aliases: string[];
}

interface Call {
  path: string;
  method: string;
  override?: boolean;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

function randomCall(rng: Rng, ctx: FuzzContext): Call {
  const id = () => String(rng.chance(0.8) ? rng.pick(ctx.ids) : randomValue(rng, ctx.ids));
  const q = () => odataQuery(rng, ctx);
  switch (rng.int(12)) {
    case 0:
      return { path: "/core/content", method: "POST", body: contentBody(rng, ctx) };
    case 1:
      return { path: "/core/content", method: "PUT", body: contentBody(rng, ctx) };
    case 2:
      return {
        path: `/core/content/contentid?id=${encodeURIComponent(id())}&${q()}`,
        method: "POST",
        override: true,
      };
    case 3:
      return {
        path: `/core/content/referencefield/referencefieldid?id=${rng.pick(ctx.fields).Id}&${q()}`,
        method: "POST",
        override: true,
      };
    case 4:
      return {
        path: `/core/content/fieldcontent?${q()}`,
        method: "POST",
        override: true,
        body: rng.chance(0.7)
          ? {
              FieldIds: randomValue(rng, ctx.ids),
              ContentIds: [rng.pick(ctx.ids), randomValue(rng, ctx.ids)],
            }
          : randomValue(rng, ctx.ids),
      };
    case 5:
      return { path: `/core/content/history/${encodeURIComponent(id())}`, method: "POST", override: true };
    case 6:
      return { path: `/core/content/${encodeURIComponent(id())}`, method: "DELETE" };
    case 7:
      return {
        path: "/core/content/externalContentChangeNotification",
        method: "PUT",
        body: {
          Alias: randomValue(rng, ctx.ids),
          ContentPartIds: randomValue(rng, ctx.ids),
          ExternalFieldIds: [String(rng.pick(ctx.fields).Id), randomValue(rng, ctx.ids)],
        },
      };
    case 8:
      return {
        path: "/core/content/attachment",
        method: "POST",
        body: rng.chance(0.8)
          ? {
              AttachmentName: randomValue(rng, ctx.ids),
              AttachmentBytes: rng.chance(0.5) ? "aGVsbG8=" : randomValue(rng, ctx.ids),
              IsSensitive: randomValue(rng, ctx.ids),
            }
          : randomValue(rng, ctx.ids),
      };
    case 9: {
      const boundary = "fuzz";
      const name = rng.pick(["AttachmentName", "AttachmentBytes", "IsSensitive", "x"]);
      const file = rng.chance(0.5) ? '; filename="f.bin"' : "";
      const body = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n${rng.pick(STRINGS)}\r\n${rng.chance(0.7) ? `--${boundary}--\r\n` : ""}`;
      return {
        path: "/core/content/multipartattachment",
        method: "POST",
        rawBody: body,
        headers: {
          "content-type": rng.chance(0.8)
            ? `multipart/form-data; boundary=${boundary}`
            : "multipart/form-data",
        },
      };
    }
    case 10:
      return { path: `/core/content/attachment/${encodeURIComponent(id())}`, method: "POST", override: true };
    default:
      return {
        path: rng.pick(["/core/content", "/core/content/contentid", "/core/content/fieldcontent"]),
        method: rng.pick(["POST", "PUT"]),
        rawBody: rng.pick(["{", '{"LevelId":', "[1,2", "null", '"text"', "{}", "\u0000"]),
        headers: { "content-type": "application/json" },
      };
  }
}

describe("content fuzz", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });

  it(`${REQUESTS} random requests: never a 500, always an envelope, and the server still answers`, async () => {
    const catalogue = catalogueOf(emulator().store);
    const fields = catalogue.all("fields");
    const ctx: FuzzContext = {
      ids: [...Array.from({ length: 14 }, (_, i) => 1001 + i), 1, 2, 3, 0, -1, 999999],
      levels: catalogue.all("levels").map((l) => l.Id),
      fields,
      aliases: [...new Set(fields.map((f) => f.Alias)), "Id", "LevelId", "Bogus"],
    };
    const rng = prng(SEED);
    const token = await raw().token();
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < REQUESTS; i++) {
      const call = randomCall(rng, ctx);
      const response = await raw().call(call.path, { ...call, token });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const envelope = Array.isArray(response.body) || typeof response.body?.IsSuccessful === "boolean";
      if (
        response.status >= 500 ||
        !envelope ||
        (response.status >= 400 && response.body.IsSuccessful !== false)
      ) {
        problems.push(
          `#${i} ${call.method} ${call.path} → ${response.status} ${response.text.slice(0, 200)}`,
        );
      }
    }
    expect(problems).toEqual([]);
    // The run reached both sides: successes and refusals.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(10);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(100);

    const after = await raw().read("/core/content/contentid?id=1001", await raw().token());
    expect([200, 404]).toContain(after.status);
    expect((await raw().read("/core/system/applicationinfo/version", token)).status).toBe(200);
  });
});
