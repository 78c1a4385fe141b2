import { describe, expect, it } from "vitest";
import { egp } from "../helpers/cli.ts";
import { createVendor, RECORDS_ENV, thirdParties, useRecordsProd } from "../helpers/records-prod.ts";

/*
 * A live duplicate of a managed record's key on demo-prod's Third Parties (a second "Acme Hosting"
 * made by a direct POST, beside content id 1001): plan and apply refuse it, as guessing would write
 * to the wrong record; drift reports it as a finding naming both records, and still compares the
 * document's other records and every other kind.
 */

const ENV = RECORDS_ENV;

const THIRD_PARTIES = thirdParties([
  "  - Vendor Name: Acme Hosting",
  "    Tier: Tier 2",
  "  - Vendor Name: Northwind Analytics",
  "    Tier: Tier 3",
]);

const USERS = [
  "kind: User",
  "userName: anguyen",
  "firstName: Alice",
  "lastName: Nguyen",
  "title: Head of Everything",
  "",
].join("\n");

const startProd = useRecordsProd();

interface FindingJson {
  kind: string;
  object: string;
  label: string;
  part: string;
  partLabel: string;
  severity: string;
  remedy: string;
  fingerprint: string;
}

async function prodWithDuplicate() {
  const { client, dir } = await startProd({
    "manifests/third-parties.yaml": THIRD_PARTIES,
    "manifests/users.yaml": USERS,
  });
  const second = await createVendor(client, "Acme Hosting");
  return { dir, second };
}

describe("a live duplicate of a managed record's key", { timeout: 60_000 }, () => {
  it("is refused by plan, and is a drift finding naming both records beside the other drift", async () => {
    const { dir, second } = await prodWithDuplicate();
    const plan = await egp(["plan", "--env", "prod", "--dir", dir], { env: ENV });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/^egp: EGP_RECORD_KEY_AMBIGUOUS /);

    const drift = await egp(["drift", "--env", "prod", "--format", "json", "--dir", dir], { env: ENV });
    expect(drift.stderr).toBe("");
    expect(drift.code).toBe(2);
    const open = JSON.parse(drift.stdout).findings as FindingJson[];
    const duplicate = open.find((f) => f.kind === "Record" && f.part === "(duplicate)");
    expect(duplicate).toMatchObject({
      object: 'Third Parties "Acme Hosting"',
      label: 'Record Third Parties "Acme Hosting"',
      severity: "low",
      remedy: "only by hand: a package cannot remove it",
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(duplicate?.partLabel).toContain(`1001, ${second}`);
    // The document's other record is still compared, and so is every other kind.
    expect(
      open.find((f) => f.kind === "Record" && f.object === 'Third Parties "Northwind Analytics"'),
    ).toMatchObject({
      part: "Tier",
      remedy: "plan fixes it",
    });
    expect(open.find((f) => f.kind === "User" && f.object === "anguyen")).toMatchObject({ part: "Title" });

    const text = await egp(["drift", "--env", "prod", "--dir", dir], { env: ENV });
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(duplicate?.fingerprint);

    // status counts the same open findings.
    const status = await egp(["status", "--format", "json", "--env", "prod", "--dir", dir], { env: ENV });
    const [row] = JSON.parse(status.stdout).environments;
    expect(row).toMatchObject({ reachable: true, driftTotal: open.length });
  });
});
