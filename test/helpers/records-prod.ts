import { afterEach } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { environmentFile } from "./cli.ts";
import { testdir } from "./testdir.ts";

/*
 * A repository whose `prod` is an emulator on the demo-prod seed that a test starts, with a client
 * logged into it for the test's direct reads and changes; both are closed after each test. The CLI
 * logs in with `${EGP_TEST_PASSWORD}` (RECORDS_ENV). An `environments/prod.yaml` among the files is
 * added to the environment file's connection lines.
 */

const PASSWORD = "Password1!";
export const RECORDS_ENV = { EGP_TEST_PASSWORD: PASSWORD };

export interface RecordsProd {
  emulator: Emulator;
  client: PlatformClient;
  dir: string;
}

/** Registers the clean-up of the test's emulators; returns how a test starts one with `files` beside it. */
export function useRecordsProd(): (
  files: Record<string, string>,
  options?: { integrations?: boolean },
) => Promise<RecordsProd> {
  const started: Emulator[] = [];
  const clients: PlatformClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(started.splice(0).map((emulator) => emulator.close()));
  });
  return async (files, options = {}) => {
    const emulator = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD, ...options });
    started.push(emulator);
    const client = createClient({
      url: emulator.url,
      instance: "Default",
      username: "sysadmin",
      password: PASSWORD,
    });
    clients.push(client);
    const environment = files["environments/prod.yaml"] ?? "";
    const dir = await testdir({
      ...files,
      "environments/prod.yaml": `${environmentFile(emulator.url)}${environment}`,
    });
    return { emulator, client, dir };
  };
}

/** A Record document of `application` keyed by `key`: `records` are its entries' YAML lines, `head` lines go before them. */
export function recordDocument(
  application: string,
  key: readonly string[],
  records: readonly string[],
  head: readonly string[] = [],
): string {
  return [
    "kind: Record",
    `application: ${application}`,
    `key: [${key.join(", ")}]`,
    ...head,
    "records:",
    ...records,
    "",
  ].join("\n");
}

/** A Third Parties document keyed by Vendor Name (the demo seeds' vendors), of these entries' YAML lines. */
export const thirdParties = (records: readonly string[], head: readonly string[] = []) =>
  recordDocument("Third Parties", ["Vendor Name"], records, head);

/** A Third Parties record named `vendor` made by a direct POST (behind egp's back): its content id. */
export async function createVendor(client: PlatformClient, vendor: string): Promise<number> {
  const app = (await client.metadata.applications()).find((a) => a.Name === "Third Parties");
  const [level] = await client.metadata.levelsByModule(app?.Id ?? 0);
  const fields = await client.metadata.fieldDefinitions(level?.Id ?? 0);
  const name = fields.find((field) => field.Name === "Vendor Name");
  return client.content.create({
    LevelId: level?.Id ?? 0,
    FieldContents: { [String(name?.Id)]: { Type: 1, Value: vendor, FieldId: name?.Id ?? 0 } },
  });
}
