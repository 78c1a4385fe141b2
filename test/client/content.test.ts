import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { contentOf } from "../../src/emulator/content/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { DEMO_SENSITIVE_TEXT } from "../../src/emulator/seeds/demo-content.ts";
import { DEMO_PASSWORD } from "../../src/emulator/seeds/demo-users.ts";
import { type ContentPost, ForbiddenError, NotFoundError, ValidationError } from "../../src/index.ts";
import { useClientEmulator } from "./helpers/client.ts";

/*
 * The client's content, attachments and workflow modules against the emulator over HTTP: every
 * call of the seed's Content and Workflow action sections, its rules, and the errors they map to.
 */

describe("client: content, attachments and workflow", () => {
  const { emulator, client } = useClientEmulator({ seed: "demo-dev" });
  const catalogue = () => catalogueOf(emulator().store);
  const field = (path: string) => catalogue().byGuid("fields", demoGuid(path))!;
  const level = (path: string) => catalogue().byGuid("levels", demoGuid(path))!.Id;
  const fc = (path: string, value: unknown) => {
    const f = field(path);
    return { [String(f.Id)]: { Type: f.Type, Value: value, FieldId: f.Id } };
  };
  const risk = (name: string, extra = {}): ContentPost => ({
    LevelId: level("risks/risk"),
    FieldContents: { ...fc("risks/risk/name", name), ...extra },
  });
  const as = (username: string) => client({ username, password: DEMO_PASSWORD });

  describe("content", () => {
    it("create, get, update and remove a record", async () => {
      const c = client();
      const id = await c.content.create(risk("Client-made risk", fc("risks/risk/score", 6)));
      expect(id).toBeGreaterThan(1000);
      const read = await c.content.get(id);
      expect(read).toMatchObject({ Id: id, Version: "1", FieldContents: fc("risks/risk/score", 6) });
      await expect(
        c.content.update({ Content: { ...risk("Client-made risk", fc("risks/risk/score", 9)), Id: id } }),
      ).resolves.toBe(id);
      expect((await c.content.get(id)).FieldContents).toMatchObject(fc("risks/risk/score", 9));
      await c.content.remove(id);
      await expect(c.content.get(id)).rejects.toThrow(NotFoundError);
    });

    it("POST of an existing record and PUT of a missing one are ForbiddenErrors", async () => {
      const c = client();
      await expect(c.content.create({ ...risk("Again"), Id: 1002 })).rejects.toThrow(ForbiddenError);
      await expect(c.content.update({ Content: { ...risk("Ghost"), Id: 987654 } })).rejects.toThrow(
        ForbiddenError,
      );
    });

    it("the SubformFieldId rule: update of sub-form content with it saves, without it is a ValidationError", async () => {
      const c = client();
      const comment = {
        LevelId: level("comments/comment"),
        FieldContents: fc("comments/comment/text", "Noted."),
      };
      const subformField = field("risks/risk/comments").Id;
      await expect(c.content.update({ Content: { ...comment, Id: 1009 } })).rejects.toThrow(ValidationError);
      await expect(
        c.content.update({ Content: { ...comment, Id: 1009 }, SubformFieldId: subformField }),
      ).resolves.toBe(1009);
      await expect(
        c.content.update({ Content: { ...risk("Not a comment"), Id: 1002 }, SubformFieldId: subformField }),
      ).rejects.toThrow(/SubformFieldId must be omitted/);
    });

    it("create of sub-form content: the record with SubformFieldId beside it saves", async () => {
      // The seed's SubformFieldId rule applies to POST too: ContentPost carries it beside the record.
      const body: ContentPost = {
        LevelId: level("comments/comment"),
        FieldContents: fc("comments/comment/text", "From the client."),
        SubformFieldId: field("risks/risk/comments").Id,
      };
      await expect(client().content.create(body)).resolves.toBeGreaterThan(1000);
    });

    it("a wrong Type and a bad value are ValidationErrors naming the field", async () => {
      const c = client();
      const score = field("risks/risk/score");
      await expect(
        c.content.create(risk("Typed", { [score.Id]: { Type: 1, Value: 5, FieldId: score.Id } })),
      ).rejects.toThrow(/Type must be 2/);
      await expect(c.content.create(risk("Typed", fc("risks/risk/score", "high")))).rejects.toThrow(
        /Risk Score\): must be a number/,
      );
    });

    it("get by id with $select", async () => {
      const read = await client().content.get(1002, { select: "Risk_Score" });
      expect(read).toEqual({
        Id: 1002,
        LevelId: level("risks/risk"),
        SequentialId: 1,
        FieldContents: fc("risks/risk/score", 16),
      });
    });

    it("by reference field: lookup content with OData, and the questionnaire target rule", async () => {
      const c = client();
      const related = field("findings/finding/related").Id;
      const scored = await c.content.byReferenceField(related, {
        filter: {
          or: [
            { field: "Risk_Score", op: "gt", value: 10 },
            { field: "Control_Name", op: "eq", value: "AC-2 Account management" },
          ],
        },
        orderBy: { field: "Id", direction: "desc" },
      });
      expect(scored.map((r) => r.Id)).toEqual([1004, 1002]);
      const page = await c.content.byReferenceField(related, {
        orderBy: "Id",
        skip: 1,
        top: 1,
        select: ["Control_Name"],
      });
      expect(page).toEqual([
        {
          Id: 1003,
          LevelId: level("controls/control"),
          SequentialId: 1,
          FieldContents: fc("controls/control/name", "Quarterly user access review"),
        },
      ]);
      const target = field("vendor-assessment/assessment/target").Id;
      const vendors = await c.content.byReferenceField(target);
      const allVendors = Object.values(contentOf(emulator().store).records)
        .filter((r) => r.LevelId === level("vendors/vendor"))
        .map((r) => r.Id);
      expect(vendors.map((r) => r.Id)).toEqual(allVendors);
      await expect(c.content.byReferenceField(related, { top: 5000 })).rejects.toThrow(
        /\$top: must be at most 1000/,
      );
    });

    it("field content for FieldIds × ContentIds, with OData", async () => {
      const name = field("risks/risk/name").Id;
      const score = field("risks/risk/score").Id;
      const rows = await client().content.fieldContent(
        { FieldIds: [name, score], ContentIds: [1002, 1008] },
        { filter: { field: "Risk_Score", op: "lt", value: 12 } },
      );
      expect(rows).toEqual([
        expect.objectContaining({
          Id: 1008,
          FieldContents: {
            ...fc("risks/risk/name", "Privileged access misuse"),
            ...fc("risks/risk/score", 10),
          },
        }),
      ]);
    });

    it("history: one item per history-log field; empty for an application without one", async () => {
      const c = client();
      const items = await c.content.history(1002);
      expect(items.map((i) => i.FieldName)).toEqual(["Assessment History", "Treatment History"]);
      expect(await c.content.history(1005)).toEqual([]);
      await expect(c.content.history(999999)).rejects.toThrow(NotFoundError);
    });

    it("data gateway: the success message is returned; a failure is a ValidationError with the messages", async () => {
      const c = client();
      const score = String(field("risks/risk/score").Id);
      const messages = await c.content.dataGateway({
        Alias: "Ext",
        ContentPartIds: ["1008"],
        ExternalFieldIds: [score],
      });
      expect(messages).toEqual([expect.objectContaining({ MessageKey: "ExternalContentSaved" })]);
      await expect(
        c.content.dataGateway({ Alias: "Ext", ContentPartIds: ["424242"], ExternalFieldIds: [score] }),
      ).rejects.toThrow(ValidationError);
    });

    it("read permission: another user's record is a ForbiddenError", async () => {
      await expect(as("dpatel").content.get(1002)).rejects.toThrow(ForbiddenError);
    });
  });

  describe("attachments", () => {
    it("post (Base64) and get round-trip the bytes", async () => {
      const c = client();
      const bytes = randomBytes(2048);
      const id = await c.attachments.post({
        AttachmentName: "blob.bin",
        AttachmentBytes: bytes.toString("base64"),
      });
      const read = await c.attachments.get(id);
      expect(read.AttachmentName).toBe("blob.bin");
      expect(Buffer.from(read.AttachmentBytes, "base64").equals(bytes)).toBe(true);
    });

    it("multipart post streams the file; sensitive files come back intact", async () => {
      const c = client();
      const bytes = randomBytes(300_000);
      const id = await c.attachments.postMultipart({
        name: "scan.pdf",
        file: bytes,
        isSensitive: true,
        contentType: "application/pdf",
      });
      const read = await c.attachments.get(id);
      expect(read).toMatchObject({ AttachmentName: "scan.pdf", IsSensitive: true });
      expect(Buffer.from(read.AttachmentBytes, "base64").equals(bytes)).toBe(true);
      const demo = await c.attachments.get(2);
      expect(Buffer.from(demo.AttachmentBytes, "base64").toString()).toBe(DEMO_SENSITIVE_TEXT);
    });

    it("a post without its name is a ValidationError with the badly-formatted message", async () => {
      await expect(
        client().attachments.post({ AttachmentName: "", AttachmentBytes: "AAAA" }),
      ).rejects.toThrow(/badly formatted: AttachmentName is required/);
    });
  });

  describe("workflow", () => {
    it("actions: node, job status and the transitions the user could see", async () => {
      const admin = await client().workflow.actions(1002);
      expect(admin).toMatchObject({ WorkflowNodeName: "Review", JobStatus: "Active" });
      expect(admin.Actions.map((a) => a.WorkflowTransitionName)).toEqual([
        "Approve",
        "Reject",
        "Request Information",
      ]);
      const owner = await as("bokafor").workflow.actions(1002);
      expect(owner.Actions.map((a) => a.CompletionCode)).toEqual([3]);
    });

    it("a user without read permission gets a ForbiddenError; no job is a NotFoundError", async () => {
      await expect(as("dpatel").workflow.actions(1002)).rejects.toThrow(ForbiddenError);
      await expect(client().workflow.actions(1005)).rejects.toThrow(NotFoundError);
    });
  });
});
