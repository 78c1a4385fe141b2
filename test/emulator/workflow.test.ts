import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { DEMO_PASSWORD } from "../../src/emulator/seeds/demo-users.ts";
import { WorkflowActionResult } from "../../src/wire/index.ts";
import { type Json, Raw, useEmulator } from "../helpers/raw.ts";

/*
 * The workflow action read over HTTP: node, job status and the transitions the caller could see,
 * under read permission. Demo: risk 1002 waits in "Review" (Approve and Reject for Risk Managers,
 * Request Information for anyone); risk 1008 is "Approved" (a completed job); policies have no
 * workflow.
 */

const path = (id: number | string) => `/core/system/WorkflowAction/${id}`;
const names = (body: Json) => body.RequestedObject.Actions.map((a: Json) => a.WorkflowTransitionName);

describe("workflow action", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });

  it("returns the node, the job status and the transitions, under /api/core as the seed writes it", async () => {
    const token = await raw().token();
    const response = await raw().read(path(1002), token, { prefix: "/api" });
    expect(response.status).toBe(200);
    expect(WorkflowActionResult.strict().safeParse(response.body.RequestedObject).success).toBe(true);
    expect(response.body.RequestedObject).toEqual({
      WorkflowNodeId: "202",
      WorkflowNodeName: "Review",
      JobStatus: "Active",
      Actions: [
        { WorkflowTransitionId: "2021", WorkflowTransitionName: "Approve", CompletionCode: 1 },
        { WorkflowTransitionId: "2022", WorkflowTransitionName: "Reject", CompletionCode: 2 },
        { WorkflowTransitionId: "2023", WorkflowTransitionName: "Request Information", CompletionCode: 3 },
      ],
    });
    const platform = await raw().read(path(1002), token);
    expect(platform.body).toEqual(response.body);
  });

  it("answers the seed's own form: GET with the override header and a JSON content type", async () => {
    const token = await raw().token();
    const response = await raw().call(path(1002), {
      method: "GET",
      token,
      prefix: "/api",
      headers: { "x-http-method-override": "GET", "content-type": "application/json" },
    });
    expect(response.status).toBe(200);
    expect(response.body.RequestedObject.WorkflowNodeName).toBe("Review");
  });

  it("shows each user the actions they could see: role-limited ones only to holders of the role", async () => {
    const manager = await raw().token("anguyen", DEMO_PASSWORD);
    expect(names((await raw().read(path(1002), manager)).body)).toEqual([
      "Approve",
      "Reject",
      "Request Information",
    ]);
    const owner = await raw().token("bokafor", DEMO_PASSWORD);
    const limited = await raw().read(path(1002), owner);
    expect(limited.status).toBe(200);
    expect(names(limited.body)).toEqual(["Request Information"]);
  });

  it("a user without read permission on the record gets a non-200 envelope", async () => {
    const token = await raw().token("dpatel", DEMO_PASSWORD);
    const response = await raw().read(path(1002), token);
    expect(response.status).toBe(403);
    expect(response.body.IsSuccessful).toBe(false);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("ContentAccessDenied");
  });

  it("a completed job has its status and no actions", async () => {
    const token = await raw().token();
    const response = await raw().read(path(1008), token);
    expect(response.body.RequestedObject).toEqual({
      WorkflowNodeId: "203",
      WorkflowNodeName: "Approved",
      JobStatus: "Completed",
      Actions: [],
    });
  });

  it("a new record starts at its workflow's start node", async () => {
    const token = await raw().token();
    const catalogue = catalogueOf(emulator().store);
    const name = catalogue.byGuid("fields", demoGuid("risks/risk/name"))!;
    const created = await raw().call("/core/content", {
      method: "POST",
      token,
      body: {
        LevelId: name.LevelId,
        FieldContents: { [name.Id]: { Type: 1, Value: "New", FieldId: name.Id } },
      },
    });
    const response = await raw().read(path(created.body.RequestedObject.Id), token);
    expect(response.body.RequestedObject).toMatchObject({ WorkflowNodeName: "Draft", JobStatus: "Active" });
    expect(names(response.body)).toEqual(["Submit for Review"]);
  });

  it("a record without a workflow job or an unknown record is 404; a bad id is 400", async () => {
    const token = await raw().token();
    const policy = await raw().read(path(1005), token);
    expect(policy.status).toBe(404);
    expect(policy.body.ValidationMessages[0].MessageKey).toBe("WorkflowJobNotFound");
    expect((await raw().read(path(999999), token)).status).toBe(404);
    expect((await raw().read(path("abc"), token)).status).toBe(400);
  });

  it("needs a session", async () => {
    expect((await new Raw(emulator().url).read(path(1002), "")).status).toBe(401);
  });
});
