import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import { createClient, ResponseShapeError, ValidationError } from "../../src/index.ts";
import { optionsFor } from "./helpers/client.ts";
import { envelope, type Recorded, useRecorder } from "./helpers/recorder.ts";

/*
 * The calls the emulator does not serve yet (content, attachments, history, data gateway, workflow):
 * the request each method builds, checked on a recording server. Also prefix discovery on an
 * instance that answers the `/api/core/` calls only under `/platformapi`, and an injected dispatcher.
 */

const TOKEN = "0123456789ABCDEF0123456789ABCDEF";
const json = (r: Recorded) => r.json() as Record<string, unknown>;

function isRead(r: Recorded) {
  return r.method === "POST" && r.headers["x-http-method-override"] === "GET";
}

describe("requests built for content, attachments and workflow", () => {
  const { recorder, answer } = useRecorder();
  const client = () => createClient(optionsFor(recorder().url));
  const last = () => recorder().calls().at(-1) as Recorded;

  it("every call carries the session, JSON Accept, and the scheme word", async () => {
    answer(() => ({ body: envelope({ Id: 5, LevelId: 3, FieldContents: {} }) }));
    const c = createClient(optionsFor(recorder().url, { scheme: "Archer" }));
    await c.content.get(5);
    expect(last().headers.authorization).toBe(`Archer session-id="${TOKEN}"`);
    expect(last().headers.accept).toBe("application/json");
  });

  it("content by id: POST read with id and $select in the query", async () => {
    answer(() => ({ body: envelope({ Id: 5, LevelId: 3, FieldContents: {} }) }));
    const record = await client().content.get(5, { select: ["Title", "Status"] });
    expect(record).toMatchObject({ Id: 5 });
    expect(isRead(last())).toBe(true);
    expect(last().path).toBe("/platformapi/core/content/contentid");
    expect(last().url).toBe("/platformapi/core/content/contentid?id=5&$select=Title%2CStatus");
    expect(last().headers["content-type"]).toBe("application/json");
    expect(last().body.length).toBe(0);
  });

  it("content by reference field: id and every OData option", async () => {
    answer(() => ({ body: [envelope({ Id: 1 }), envelope({ Id: 2 })] }));
    const records = await client().content.byReferenceField(77, {
      filter: { field: "Status", op: "eq", value: "Open" },
      select: "Title",
      top: 10,
      skip: 20,
      orderBy: { field: "Title", direction: "asc" },
    });
    expect(records.map((r) => r.Id)).toEqual([1, 2]);
    expect(isRead(last())).toBe(true);
    expect(last().path).toBe("/platformapi/core/content/referencefield/referencefieldid");
    expect(Object.fromEntries(last().query)).toEqual({
      id: "77",
      $filter: "Status eq 'Open'",
      $select: "Title",
      $top: "10",
      $skip: "20",
      $orderby: "Title asc",
    });
  });

  it("field content: the ids in the body, OData in the query", async () => {
    answer(() => ({ body: [envelope({ ContentId: 1, FieldId: 9 })] }));
    await client().content.fieldContent({ FieldIds: [9], ContentIds: [1, 2] }, { top: 5 });
    expect(isRead(last())).toBe(true);
    expect(last().path).toBe("/platformapi/core/content/fieldcontent");
    expect(json(last())).toEqual({ FieldIds: [9], ContentIds: [1, 2] });
    expect(last().query.get("$top")).toBe("5");
  });

  it("SequentialId is typed: a record whose SequentialId is not a whole number is a ResponseShapeError", async () => {
    answer(() => ({ body: envelope({ Id: 5, LevelId: 3, SequentialId: "five", FieldContents: {} }) }));
    await expect(client().content.get(5)).rejects.toThrow(ResponseShapeError);
    answer(() => ({ body: envelope({ Id: 5, LevelId: 3, SequentialId: 7, FieldContents: {} }) }));
    await expect(client().content.get(5)).resolves.toMatchObject({ SequentialId: 7 });
  });

  it("content and reference-field reads by path id: POST reads of core/content/<id> and referencefield/<id>", async () => {
    answer(() => ({ body: envelope({ Id: 5, LevelId: 3, FieldContents: {} }) }));
    await client().content.getByPathId(5);
    expect(isRead(last())).toBe(true);
    expect(last().url).toBe("/platformapi/core/content/5");
    answer(() => ({ body: [envelope({ Id: 1 })] }));
    await client().content.byReferenceFieldPathId(77, { top: 3 });
    expect(isRead(last())).toBe(true);
    expect(last().url).toBe("/platformapi/core/content/referencefield/77?$top=3");
  });

  it("post content: a create, not retried; the id comes back", async () => {
    answer(() => ({ body: envelope({ Id: 321 }) }));
    const record = {
      LevelId: 3,
      FieldContents: {
        "12": { Type: 2, Value: 4.5, FieldId: 12 },
        "13": { Type: 23, Value: [7, 8], FieldId: 13 },
      },
    };
    await expect(client().content.create(record)).resolves.toBe(321);
    expect(last().method).toBe("POST");
    expect(last().headers["x-http-method-override"]).toBeUndefined();
    expect(last().path).toBe("/platformapi/core/content");
    expect(json(last())).toEqual(record);
  });

  it("put content: the wrapper with SubformFieldId only when given", async () => {
    answer(() => ({ body: envelope({ Id: 321 }) }));
    const content = { Id: 321, LevelId: 3, FieldContents: {}, Version: "4" };
    await expect(client().content.update({ Content: content })).resolves.toBe(321);
    expect(last().method).toBe("PUT");
    expect(json(last())).toEqual({ Content: content });
    await client().content.update({ Content: content, SubformFieldId: 99 });
    expect(json(last())).toEqual({ Content: content, SubformFieldId: 99 });
  });

  it("put of a record that does not exist is the seed's 403", async () => {
    answer(() => ({
      status: 403,
      body: { IsSuccessful: false, RequestedObject: {}, ValidationMessages: [] },
    }));
    await expect(
      client().content.update({ Content: { Id: 1, LevelId: 3, FieldContents: {} } }),
    ).rejects.toMatchObject({
      code: "EGP_FORBIDDEN",
    });
  });

  it("delete content and history go under /api/core", async () => {
    answer((r) => (r.path.startsWith("/api/core/content/history/") ? { body: [] } : { body: envelope({}) }));
    const c = client();
    await expect(c.content.remove(44)).resolves.toBeUndefined();
    expect(last().method).toBe("DELETE");
    expect(last().path).toBe("/api/core/content/44");
    await expect(c.content.history(44)).resolves.toEqual([]);
    expect(isRead(last())).toBe(true);
    expect(last().path).toBe("/api/core/content/history/44");
  });

  it("history: an empty response is an empty list", async () => {
    answer(() => ({ body: "" }));
    await expect(client().content.history(45)).resolves.toEqual([]);
  });

  it("data gateway: PUT with the seed's body; the messages come back", async () => {
    const message = { MessageKey: "Success", Description: "Content saved." };
    answer(() => ({ body: { ...envelope({}), ValidationMessages: [message] } }));
    const request = { Alias: "ext", ContentPartIds: ["1", "2"], ExternalFieldIds: ["f1"] };
    await expect(client().content.dataGateway(request)).resolves.toEqual([message]);
    expect(last().method).toBe("PUT");
    expect(last().path).toBe("/platformapi/core/content/externalContentChangeNotification");
    expect(json(last())).toEqual(request);
  });

  it("get attachment: a POST read; name and Base64 bytes back", async () => {
    answer(() => ({ body: envelope({ AttachmentName: "a.txt", AttachmentBytes: "aGk=" }) }));
    await expect(client().attachments.get(8)).resolves.toEqual({
      AttachmentName: "a.txt",
      AttachmentBytes: "aGk=",
    });
    expect(isRead(last())).toBe(true);
    expect(last().path).toBe("/platformapi/core/content/attachment/8");
  });

  it("post attachment (bytes): the AttachmentWrapper as JSON", async () => {
    answer(() => ({ body: envelope({ Id: 9 }) }));
    const wrapper = { AttachmentName: "a.txt", AttachmentBytes: "aGk=", IsSensitive: true };
    await expect(client().attachments.post(wrapper)).resolves.toBe(9);
    expect(last().path).toBe("/platformapi/core/content/attachment");
    expect(json(last())).toEqual(wrapper);
  });

  it("post attachment (bytes) missing a field: the badly-formatted message becomes a ValidationError", async () => {
    const message = { MessageKey: "BadRequest", Description: "The request was badly formatted." };
    answer(() => ({
      status: 400,
      body: { IsSuccessful: false, RequestedObject: {}, ValidationMessages: [message] },
    }));
    const failure = client().attachments.post({ AttachmentName: "", AttachmentBytes: "" });
    await expect(failure).rejects.toThrow(ValidationError);
    await expect(failure).rejects.toThrow(/badly formatted/);
  });

  it("post attachment (multipart): the three named parts, the file streamed", async () => {
    answer(() => ({ body: envelope({ Id: 10 }) }));
    const dir = mkdtempSync(join(tmpdir(), "egp-attach-"));
    const file = join(dir, "evidence.pdf");
    writeFileSync(file, "%PDF evidence");
    await expect(
      client().attachments.postMultipart({
        name: "evidence.pdf",
        file,
        isSensitive: true,
        contentType: "application/pdf",
      }),
    ).resolves.toBe(10);
    expect(last().path).toBe("/platformapi/core/content/multipartattachment");
    expect(last().headers["content-length"]).toBe(String(last().body.length));
    const form = await new Response(last().body, {
      headers: { "content-type": String(last().headers["content-type"]) },
    }).formData();
    expect(form.get("AttachmentName")).toBe("evidence.pdf");
    expect(form.get("IsSensitive")).toBe("true");
    const part = form.get("AttachmentBytes") as File;
    expect(part.name).toBe("evidence.pdf");
    expect(part.type).toBe("application/pdf");
    expect(await part.text()).toBe("%PDF evidence");
  });

  it("a large multipart upload arrives intact, though file buffers are reused", async () => {
    answer(() => ({ body: envelope({ Id: 11 }) }));
    const dir = mkdtempSync(join(tmpdir(), "egp-attach-"));
    const file = join(dir, "large.bin");
    // 5 MB: 80 chunks of 64 KiB, five times around the ring of 16 buffers.
    const bytes = randomBytes(5 * 1024 * 1024);
    writeFileSync(file, bytes);
    await client().attachments.postMultipart({ name: "large.bin", file });
    const form = await new Response(last().body, {
      headers: { "content-type": String(last().headers["content-type"]) },
    }).formData();
    const received = Buffer.from(await (form.get("AttachmentBytes") as File).arrayBuffer());
    expect(received.length).toBe(bytes.length);
    expect(received.equals(bytes)).toBe(true);
  });

  it("workflow actions: GET with the override header, under /api/core", async () => {
    const result = {
      WorkflowNodeId: "n1",
      WorkflowNodeName: "Review",
      JobStatus: "Active",
      Actions: [{ WorkflowTransitionId: "t1", WorkflowTransitionName: "Approve", CompletionCode: 1 }],
    };
    answer(() => ({ body: envelope(result) }));
    await expect(client().workflow.actions(501)).resolves.toEqual(result);
    expect(last().method).toBe("GET");
    expect(last().headers["x-http-method-override"]).toBe("GET");
    expect(last().headers["content-type"]).toBe("application/json");
    expect(last().path).toBe("/api/core/system/WorkflowAction/501");
  });

  it("a body of the wrong shape is a ResponseShapeError with the zod issues", async () => {
    answer(() => ({ body: envelope({ WorkflowNodeId: 7 }) }));
    const failure = client().workflow.actions(502);
    await expect(failure).rejects.toThrow(ResponseShapeError);
    await expect(failure).rejects.toMatchObject({
      code: "EGP_RESPONSE_SHAPE",
      issues: expect.arrayContaining([
        expect.objectContaining({ path: ["RequestedObject", "WorkflowNodeId"] }),
      ]),
    });
    answer(() => ({ body: "<html>proxy error</html>" }));
    await expect(client().workflow.actions(503)).rejects.toThrow(/body is not JSON/);
  });
});

describe("prefix discovery of the /api/core calls", () => {
  // An instance that serves those calls only under /platformapi.
  const { recorder } = useRecorder((r) => {
    if (r.path.startsWith("/api/")) return { status: 404, body: "<html>Not Found</html>" };
    if (r.path.startsWith("/platformapi/core/content/history/")) return { body: [envelope({ Entry: 1 })] };
    if (r.path.startsWith("/platformapi/core/system/WorkflowAction/"))
      return { status: 404, body: envelope({}) };
    return undefined;
  });

  it("one wrong guess costs one request, for the client's lifetime", async () => {
    const c = createClient(optionsFor(recorder().url));
    await expect(c.content.history(1)).resolves.toEqual([{ Entry: 1 }]);
    expect(c.paths().apiCore).toBe("/platformapi");
    await c.content.history(2);
    await c.content.history(3);
    const history = recorder()
      .calls()
      .map((r) => r.path);
    expect(history).toEqual([
      "/api/core/content/history/1",
      "/platformapi/core/content/history/1",
      "/platformapi/core/content/history/2",
      "/platformapi/core/content/history/3",
    ]);
    // Once settled, a 404 means "not found", not "try the other prefix".
    await expect(c.workflow.actions(9)).rejects.toMatchObject({ code: "EGP_NOT_FOUND" });
    expect(recorder().calls().at(-1)?.path).toBe("/platformapi/core/system/WorkflowAction/9");
    expect(recorder().calls()).toHaveLength(5);
  });
});

describe("an injected dispatcher", () => {
  it("carries every request", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get("http://platform.invalid");
    pool
      .intercept({ path: "/platformapi/core/security/login", method: "POST" })
      .reply(200, envelope({ SessionToken: TOKEN }));
    pool
      .intercept({ path: "/platformapi/core/system/applicationinfo/version", method: "POST" })
      .reply(200, envelope({ Version: "6.9.1" }));
    const c = createClient(optionsFor("http://platform.invalid", { dispatcher: agent }));
    await expect(c.metadata.version()).resolves.toMatchObject({ Version: "6.9.1" });
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
});
