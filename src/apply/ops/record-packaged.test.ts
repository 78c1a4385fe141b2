import { describe, expect, it } from "vitest";
import type { Step } from "../../plan/index.ts";
import { recordOps } from "./record.ts";
import type { OpContext } from "./types.ts";

/*
 * A record step writing fields a package of the same plan adds: the plan gives them by GUID; after
 * the install, one read of the level's field definitions (shared by the run's record steps) gives
 * their ids and their values' ids, which the content call carries.
 */

const LEVEL = 70;

/** The level as the install left it: Name (701), and the package's Result (745: Effective 91, Ineffective 92). */
const DEFINITIONS = [
  { Id: 701, Guid: "F-NAME", Name: "Name", Alias: "Name", Type: 1, IsActive: true, ValuesListValues: [] },
  {
    Id: 745,
    Guid: "F-RESULT",
    Name: "Result",
    Alias: "Result",
    Type: 4,
    IsActive: true,
    ValuesListValues: [
      { Id: 91, Guid: "F-RESULT-V0", Name: "Effective" },
      { Id: 92, Guid: "F-RESULT-V1", Name: "Ineffective" },
    ],
  },
];

function stepOf(id: string, op: "record.create" | "record.update", packaged: unknown[]): Step {
  return {
    id,
    change: id,
    op,
    environment: "prod",
    dependsOn: [],
    input: {
      application: "Controls",
      key: [id],
      levelId: LEVEL,
      fields: [{ fieldId: 701, type: 1, value: id }],
      entitySet: "Control",
      keyAliases: ["Name"],
      packaged,
      ...(op === "record.update" ? { contentId: 1003, prior: [] } : {}),
    },
  };
}

const RESULT = (guid: string, name: string) => ({
  guid: "f-result",
  name: "Result",
  type: 4,
  value: { ValuesListGuids: [{ guid, name }], OtherText: null },
});

function run() {
  const reads: number[] = [];
  const writes: unknown[] = [];
  const cache = new Map<string, Promise<unknown>>();
  const client = {
    metadata: {
      applications: async () => {
        reads.push(-1);
        return [{ Id: 5, Guid: "A-CONTROLS", Name: "Controls" }];
      },
      levelsByModule: async (moduleId: number) => {
        reads.push(-moduleId);
        return moduleId === 5 ? [{ Id: LEVEL, Guid: "L-CONTROL", Name: "Control" }] : [];
      },
      fieldDefinitions: async (levelId: number) => {
        reads.push(levelId);
        return DEFINITIONS;
      },
    },
    content: {
      create: async (body: unknown) => {
        writes.push(body);
        return 2001;
      },
      update: async (body: unknown) => {
        writes.push(body);
        return 1003;
      },
    },
  };
  const contextOf = (step: Step) =>
    ({
      step,
      client,
      resumed: false,
      outputOf: () => undefined,
      shared: <T>(name: string, read: () => Promise<T>) => {
        if (!cache.has(name)) cache.set(name, read());
        return cache.get(name) as Promise<T>;
      },
    }) as unknown as OpContext;
  const apply = (step: Step) =>
    (recordOps[step.op as "record.create"] as (c: OpContext) => Promise<unknown>)(contextOf(step));
  return { reads, writes, apply };
}

describe("a record step's fields that the plan's package adds", () => {
  it("writes their ids and their values' ids, reading the level's fields once for all the steps", async () => {
    const { reads, writes, apply } = run();
    await apply(stepOf("AC-9", "record.create", [RESULT("f-result-v1", "Ineffective")]));
    await apply(stepOf("AC-2", "record.update", [RESULT("F-RESULT-V0", "Effective")]));
    expect(reads).toEqual([LEVEL]);
    expect(writes).toEqual([
      {
        LevelId: LEVEL,
        FieldContents: {
          "701": { Type: 1, Value: "AC-9", FieldId: 701 },
          "745": { Type: 4, Value: { ValuesListIds: [92], OtherText: null }, FieldId: 745 },
        },
      },
      {
        Content: {
          Id: 1003,
          LevelId: LEVEL,
          FieldContents: {
            "701": { Type: 1, Value: "AC-2", FieldId: 701 },
            "745": { Type: 4, Value: { ValuesListIds: [91], OtherText: null }, FieldId: 745 },
          },
        },
      },
    ]);
  });

  it("fails the step with EGP_PLAN_STALE, writing nothing, when the install did not make the field or its value", async () => {
    const { writes, apply } = run();
    const missing = { guid: "f-tested", name: "Tested", type: 3, value: "2026-11-30" };
    await expect(apply(stepOf("AC-9", "record.create", [missing]))).rejects.toThrow(
      expect.objectContaining({
        code: "EGP_PLAN_STALE",
        message: expect.stringMatching(
          /the field "Tested" \(GUID f-tested\), which the plan's package adds, is not on the level after the install; nothing was written/,
        ),
      }),
    );
    await expect(apply(stepOf("AC-9", "record.create", [RESULT("f-result-v7", "Retired")]))).rejects.toThrow(
      /the field "Result" \(GUID f-result\), which the plan's package adds, has no value "Retired" \(GUID f-result-v7\) after the install/,
    );
    await expect(
      apply(stepOf("AC-9", "record.create", [{ guid: "f-result", name: "Result", type: 1, value: "x" }])),
    ).rejects.toThrow(/is of another type \(4\)/);
    expect(writes).toEqual([]);
  });

  it("finds the id of a level the package adds by its GUID, once per run", async () => {
    const { reads, writes, apply } = run();
    const inNewLevel = (id: string, guid: string) => {
      const step = stepOf(id, "record.create", [RESULT("f-result-v0", "Effective")]);
      const { levelId: _levelId, ...input } = step.input as Record<string, unknown>;
      return { ...step, input: { ...input, level: { guid, name: "Control", application: "a-controls" } } };
    };
    await apply(inNewLevel("AC-9", "l-control"));
    await apply(inNewLevel("AC-10", "l-control"));
    expect(reads).toEqual([-1, -5, LEVEL]);
    expect(writes.map((write) => (write as { LevelId: number }).LevelId)).toEqual([LEVEL, LEVEL]);
    await expect(apply(inNewLevel("AC-11", "l-other"))).rejects.toThrow(
      /the level "Control" \(GUID l-other\), which the plan's package adds, is not on the instance after the install; nothing was written/,
    );
    expect(writes).toHaveLength(2);
  });
});
