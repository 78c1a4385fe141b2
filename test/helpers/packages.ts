import { createReadStream, createWriteStream, statSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import type { Json, Raw, RawResponse } from "./raw.ts";

/*
 * The five package calls over raw HTTP, and the metadata tree of a module read through the
 * metadata calls with instance ids mapped to GUIDs (the way a planner compares two instances).
 */

export async function createPackage(raw: Raw, token: string, body: Json): Promise<number> {
  const response = await raw.call("/core/package", { method: "POST", token, body, prefix: "/api" });
  if (response.status !== 200 || !response.body.IsSuccessful) {
    throw new Error(`create failed: ${response.status} ${response.text}`);
  }
  return response.body.RequestedObject.Id;
}

export async function packageInfo(raw: Raw, token: string, id: number): Promise<Json> {
  const response = await raw.read(`/core/package/${id}`, token, { prefix: "/api" });
  if (response.status !== 200) throw new Error(`package read failed: ${response.status} ${response.text}`);
  return response.body.RequestedObject;
}

export async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export function generate(raw: Raw, token: string, id: number): Promise<RawResponse<Json>> {
  return raw.call(`/core/package/generate/${id}`, { method: "POST", token, prefix: "/api" });
}

export async function generateAndWait(raw: Raw, token: string, id: number): Promise<Json> {
  const response = await generate(raw, token, id);
  if (response.status !== 200) throw new Error(`generate failed: ${response.status} ${response.text}`);
  return until(async () => {
    const info = await packageInfo(raw, token, id);
    if (info.Status === "Failed")
      throw new Error(`generation failed: ${JSON.stringify(info.ValidationMessages)}`);
    return info.Status === "Ready" ? info : undefined;
  }, `package ${id} to be generated`);
}

/** GET download, streamed to `file`; a non-200 answer is returned as text instead. */
export async function download(
  raw: Raw,
  token: string,
  id: number,
  file: string,
): Promise<{ status: number; headers: Record<string, unknown>; text?: string }> {
  const response = await request(`${raw.url}/api/core/package/download/${id}`, {
    headers: { authorization: `Platform session-id="${token}"` },
  });
  if (response.statusCode !== 200) {
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  }
  await pipeline(response.body, createWriteStream(file));
  return { status: 200, headers: response.headers };
}

/** A multipart/form-data body with one file part, streamed from disk, with a known length. */
export function multipartFromFile(
  file: string,
  fileName = "package.zip",
): { body: Readable; contentType: string; length: number } {
  const boundary = "egp-test-boundary-7d2f1c";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
      "Content-Type: application/zip\r\n\r\n",
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts() {
    yield head;
    yield* createReadStream(file);
    yield tail;
  }
  return {
    body: Readable.from(parts()),
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: head.length + statSync(file).size + tail.length,
  };
}

/** Uploads `file`; `chunked` sends the body without a length (Transfer-Encoding: chunked). */
export async function upload(
  raw: Raw,
  token: string,
  file: string,
  options: { chunked?: boolean } = {},
): Promise<RawResponse<Json>> {
  const { body, contentType, length } = multipartFromFile(file);
  const response = await request(`${raw.url}/api/core/package/upload`, {
    method: "POST",
    headers: {
      authorization: `Platform session-id="${token}"`,
      "content-type": contentType,
      ...(options.chunked ? {} : { "content-length": String(length) }),
      accept: "application/json",
    },
    body,
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(text), text };
}

export function install(raw: Raw, token: string, body: Json): Promise<RawResponse<Json>> {
  return raw.call("/core/package/install", { method: "POST", token, body, prefix: "/api" });
}

/** Installs and waits for the job; returns the finished job. */
export async function installAndWait(raw: Raw, token: string, body: Json): Promise<Json> {
  const response = await install(raw, token, body);
  if (response.status !== 200) throw new Error(`install failed: ${response.status} ${response.text}`);
  const before = await packageInfo(raw, token, body.PackageId);
  const job = before.Installs.at(-1);
  return until(async () => {
    const info = await packageInfo(raw, token, body.PackageId);
    const current = info.Installs.find((j: Json) => j.Id === job.Id);
    return current.Status === "Succeeded" || current.Status === "Failed" ? current : undefined;
  }, `install job ${job.Id}`);
}

// ---- metadata trees

async function collection(raw: Raw, token: string, path: string): Promise<Json[]> {
  const response = await raw.read(path, token);
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.text}`);
  return response.body.map((e: Json) => e.RequestedObject);
}

async function single(raw: Raw, token: string, path: string): Promise<Json> {
  const response = await raw.read(path, token);
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.text}`);
  return response.body.RequestedObject;
}

export async function applications(raw: Raw, token: string): Promise<Json[]> {
  return collection(raw, token, "/core/system/application");
}

export async function moduleByName(raw: Raw, token: string, name: string): Promise<Json | undefined> {
  const all = [
    ...(await applications(raw, token)),
    ...(await collection(raw, token, "/core/system/questionnaire")),
  ];
  return all.find((m) => m.Name === name);
}

const byGuid = (a: Json, b: Json) => String(a.Guid).localeCompare(String(b.Guid));

/**
 * A module's metadata tree read through the metadata calls, with every instance id replaced by the
 * GUID it stands for, ids and UpdateInformation dropped, and collections sorted by GUID.
 */
export async function moduleTree(raw: Raw, token: string, guid: string): Promise<Json> {
  const modules = [
    ...(await applications(raw, token)),
    ...(await collection(raw, token, "/core/system/questionnaire")),
  ];
  const module = modules.find((m) => m.Guid === guid);
  if (!module) throw new Error(`no module ${guid}`);
  const moduleGuid = new Map(modules.map((m) => [m.Id, m.Guid]));
  const levelGuid = new Map((await collection(raw, token, "/core/system/level")).map((l) => [l.Id, l.Guid]));
  const levels = await collection(raw, token, `/core/system/level/module/${module.Id}`);
  const fieldGuid = new Map<number, string>();
  const fieldsByLevel = new Map<number, Json[]>();
  for (const level of levels) {
    const fields = await collection(raw, token, `/core/system/fielddefinition/level/${level.Id}`);
    for (const field of fields) fieldGuid.set(field.Id, field.Guid);
    fieldsByLevel.set(level.Id, fields);
  }
  const f = (ids: number[]) => ids.map((id) => fieldGuid.get(id) ?? `unknown field ${id}`);
  const tree: Json = {
    ...strip(module),
    TargetField: module.TargetFieldId ? f([module.TargetFieldId])[0] : null,
  };
  delete tree.TargetFieldId;
  tree.Levels = [];
  for (const level of levels) {
    const fields = [];
    for (const field of fieldsByLevel.get(level.Id) ?? []) {
      const targets = [9, 23].includes(field.Type)
        ? (await collection(raw, token, `/core/system/level/referencefield/${field.Id}`)).map((l) => l.Guid)
        : [];
      const {
        ReferencedLevelIds,
        RelatedSubformId,
        ValuesListValues,
        LevelId: _l,
        RelatedValuesListId: _list,
        ...rest
      } = strip(field);
      fields.push({
        ...rest,
        ReferencedLevels: ReferencedLevelIds.map((id: number) => levelGuid.get(id)),
        TargetedLevels: targets,
        Subform: RelatedSubformId === null ? null : moduleGuid.get(RelatedSubformId),
        Values: ValuesListValues.map((v: Json) => ({ Guid: v.Guid, Name: v.Name })),
      });
    }
    const layout = strip(await single(raw, token, `/core/system/levellayout/level/${level.Id}`));
    const rules = [];
    for (const rule of await collection(raw, token, `/core/system/eventrule/level/${level.Id}`)) {
      const actions = (await collection(raw, token, `/core/system/eventaction/eventrule/${rule.Id}`)).map(
        (a) => {
          const { TargetFieldIds, EventRuleId: _r, ...rest } = strip(a);
          return { ...rest, TargetFields: f(TargetFieldIds) };
        },
      );
      const { ConditionFieldIds, LevelId: _l, ...rest } = strip(rule);
      rules.push({ ...rest, ConditionFields: f(ConditionFieldIds), Actions: actions.sort(byGuid) });
    }
    const questionnaireRules = (
      await collection(raw, token, `/core/system/questionnairerule/level/${level.Id}`)
    ).map((q) => {
      const { ConditionFieldIds, LevelId: _l, ...rest } = strip(q);
      return { ...rest, ConditionFields: f(ConditionFieldIds) };
    });
    const { ModuleId, ...levelRest } = strip(level);
    tree.Levels.push({
      ...levelRest,
      Module: moduleGuid.get(ModuleId),
      Fields: fields.sort(byGuid),
      Layout: {
        Guid: layout.Guid,
        Name: layout.Name,
        Sections: layout.Sections.map((s: Json) => ({ Name: s.Name, Fields: f(s.FieldIds) })),
      },
      EventRules: rules.sort(byGuid),
      QuestionnaireRules: questionnaireRules.sort(byGuid),
    });
  }
  tree.Levels.sort(byGuid);
  return tree;
}

function strip(record: Json): Json {
  const { Id: _id, UpdateInformation: _info, ...rest } = record;
  return rest;
}
