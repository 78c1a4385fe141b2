import { request } from "undici";
import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { parseXml } from "../../src/emulator/soap/xml.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { all, post } from "../helpers/soap.ts";

/*
 * The workflow action POST and the form binding's report search, each sent byte for byte in the
 * shape public clients send them (docs/emulator.md, "Calls a public client makes that were checked
 * here"): the headers they set, their scheme word, their body encoding, and read as they read the
 * answer.
 */

/** The Accept header a public TypeScript client sends with every REST call. */
const BROWSER_ACCEPT = "application/json,text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

describe("the workflow action POST as a public TypeScript client sends it", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev", scheme: "Archer" });

  /** A plain POST under `/platformapi/core/`, no override, the scheme word quoted. */
  async function clientPost(path: string, token: string, body?: unknown, override = false) {
    const headers: Record<string, string> = {
      accept: BROWSER_ACCEPT,
      "content-type": "application/json",
      authorization: `Archer session-id="${token}"`,
      ...(override ? { "x-http-method-override": "GET" } : {}),
    };
    const response = await request(`${emulator().url}/platformapi/core/${path}`, {
      method: "POST",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    return { status: response.statusCode, text, body: JSON.parse(text) as Json };
  }

  async function createRecord(token: string, name: string): Promise<number> {
    const field = catalogueOf(emulator().store).byGuid("fields", demoGuid("risks/risk/name"));
    const created = await clientPost("content", token, {
      Content: { LevelId: field?.LevelId, FieldContents: { [String(field?.Id)]: { Type: 1, Value: name } } },
    });
    expect(created.status, created.text).toBe(200);
    return created.body.RequestedObject.Id as number;
  }

  it("moves a REST-created record's job, the node id sent as text", async () => {
    const token = await raw().token();
    const contentId = await createRecord(token, "Acted on by a client");
    const read = await clientPost(`system/WorkflowAction/${contentId}`, token, undefined, true);
    expect(read.status, read.text).toBe(200);
    const { WorkflowNodeId, Actions } = read.body.RequestedObject;
    const completionCode = Number(Actions[0].CompletionCode);
    // The client's signature: contentId number, workflowNodeId string, completionCode number.
    const moved = await clientPost("system/WorkflowAction", token, {
      ContentId: contentId,
      CompletionCode: completionCode,
      WorkflowNodeId: String(WorkflowNodeId),
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.IsSuccessful).toBe(true);
    expect(moved.body.RequestedObject.WorkflowNodeId).not.toBe(String(WorkflowNodeId));
    const after = await clientPost(`system/WorkflowAction/${contentId}`, token, undefined, true);
    expect(after.body.RequestedObject.WorkflowNodeId).toBe(moved.body.RequestedObject.WorkflowNodeId);
  });

  it("refuses a body naming a transition instead of the node and completion code", async () => {
    const token = await raw().token();
    const contentId = await createRecord(token, "Acted on by transition");
    const read = await clientPost(`system/WorkflowAction/${contentId}`, token, undefined, true);
    const transition = read.body.RequestedObject.Actions[0].WorkflowTransitionId;
    const answer = await clientPost("system/WorkflowAction", token, {
      ContentId: String(contentId),
      TransitionId: String(transition),
    });
    expect(answer.status, answer.text).toBe(400);
    const after = await clientPost(`system/WorkflowAction/${contentId}`, token, undefined, true);
    expect(after.body.RequestedObject.WorkflowNodeId).toBe(read.body.RequestedObject.WorkflowNodeId);
  });

  it("moves a seeded record's job from the node the seed left it at", async () => {
    const token = await raw().token();
    const moved: number[] = [];
    for (const contentId of [1002, 1008, 1012, 1013]) {
      const read = await clientPost(`system/WorkflowAction/${contentId}`, token, undefined, true);
      expect(read.status, read.text).toBe(200);
      const { WorkflowNodeId, Actions } = read.body.RequestedObject;
      if (Actions.length === 0) continue;
      const answer = await clientPost("system/WorkflowAction", token, {
        ContentId: contentId,
        CompletionCode: Actions[0].CompletionCode,
        WorkflowNodeId: String(WorkflowNodeId),
      });
      expect(answer.status, answer.text).toBe(200);
      moved.push(contentId);
    }
    expect(moved.length).toBeGreaterThan(0);
  });
});

describe("SearchRecordsByReport in the form binding as public Python clients send it", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });

  /** The body as the clients build it: a formatted string, nothing escaped, the report's number. */
  const search = (token: string, report: string, page: number) =>
    post(
      `${emulator().url}/ws/search.asmx/SearchRecordsByReport`,
      `sessionToken=${token}&reportIdOrGuid=${report}&pageNumber=${page}`,
      { "content-type": "application/x-www-form-urlencoded" },
    );

  it("answers a <string> with an attribute around the Records document, counted, by report id", async () => {
    const token = await raw().token();
    const report = catalogueOf(emulator().store).all("reports")[0];
    const answer = await search(token, String(report?.Id), 1);
    expect(answer.status, answer.text).toBe(200);
    // The clients read `outer['string']['#text']`, which a dict parser gives only when the element
    // carries an attribute; without one it parses to a bare string.
    expect(answer.text).toMatch(/<string xmlns="http:\/\/archer-tech\.com\/webservices\/">/);
    const records = parseXml(parseXml(answer.text).text);
    expect(records.local).toBe("Records");
    const listed = all(records, "Record");
    expect(listed.length).toBeGreaterThan(0);
    expect(Number(records.attributes.count)).toBeGreaterThanOrEqual(listed.length);
    for (const record of listed) expect(record.attributes.contentId).toMatch(/^\d+$/);
  });

  it("answers no Record past the last page, which ends a client's paging", async () => {
    const token = await raw().token();
    const report = catalogueOf(emulator().store).all("reports")[0];
    const answer = await search(token, String(report?.Id), 99);
    expect(answer.status, answer.text).toBe(200);
    expect(all(parseXml(parseXml(answer.text).text), "Record")).toEqual([]);
  });
});
