import { afterEach, describe, expect, it, vi } from "vitest";
import type { PlatformClient } from "../../src/client/client.ts";
import { exportRecords } from "../../src/compose/export-records.ts";
import { environmentFile } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `exportRecords` against an instance that flags its levels' key fields (`IsKey` on a field
 * definition, as real instances send it and the emulator does not): the key and a referenced
 * application's key come from the flags, the latter into the `keys:` map.
 */

function field(Id: number, Name: string, Type: number, extra: Record<string, unknown> = {}) {
  return {
    Id,
    Name,
    Alias: Name.replaceAll(" ", "_"),
    Type,
    IsActive: true,
    ValuesListValues: [],
    ReferencedLevelIds: [],
    ...extra,
  };
}

const LEVELS: Record<
  number,
  { Id: number; Name: string; Alias: string; ModuleId: number; ModuleName: string }
> = {
  10: { Id: 10, Name: "Control", Alias: "Control", ModuleId: 1, ModuleName: "Controls" },
  20: { Id: 20, Name: "Risk", Alias: "Risk", ModuleId: 2, ModuleName: "Risk Register" },
};

const FIELDS: Record<number, ReturnType<typeof field>[]> = {
  10: [
    field(101, "Control Name", 1, { IsKey: true }),
    field(102, "Mitigated Risks", 23, { ReferencedLevelIds: [20] }),
  ],
  20: [field(201, "Risk Name", 1, { IsKey: true }), field(202, "Risk Text", 1)],
};

const RECORDS: Record<string, Record<string, unknown>[]> = {
  Control: [{ Control_Id: 5, Control_Name: "AC-3", Mitigated_Risks: [7] }],
  Risk: [{ Risk_Id: 7, Risk_Name: "Cloud outage" }],
};

const client = {
  metadata: {
    applications: async () => [
      { Id: 1, Name: "Controls" },
      { Id: 2, Name: "Risk Register" },
    ],
    levelsByModule: async (id: number) => Object.values(LEVELS).filter((level) => level.ModuleId === id),
    level: async (id: number) => LEVELS[id],
    fieldDefinitions: async (id: number) => FIELDS[id] ?? [],
  },
  contentApi: { allRecords: async (set: string) => RECORDS[set] ?? [] },
  users: { listFields: async () => [] },
  groups: { list: async () => [] },
} as unknown as PlatformClient;

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("exportRecords on an instance that flags key fields", () => {
  it("keys the document and its references by the flagged fields", async () => {
    vi.stubEnv("EGP_TEST_PASSWORD", "unused");
    const dir = await testdir({ "environments/prod.yaml": environmentFile("http://127.0.0.1:1") });
    const result = await exportRecords({
      dir,
      env: "prod",
      open: async () => client,
      out: `${dir}/manifests`,
      application: "Controls",
    });
    expect(result.file.documents).toEqual([
      {
        kind: "Record",
        application: "Controls",
        environments: ["prod"],
        key: ["Control Name"],
        keys: { "Risk Register": ["Risk Name"] },
        records: [{ "Control Name": "AC-3", "Mitigated Risks": ["Cloud outage"] }],
      },
    ]);
  });
});
