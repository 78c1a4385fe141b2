import { describe, expect, it } from "vitest";
import { type CatalogueData, emptyCatalogue } from "../catalogue/model.ts";
import { NO_FAULTS, parseFaultSpec } from "../faults.ts";
import { changedPart, InstallFaults } from "./install-faults.ts";

function catalogue(fields: Record<string, string>, layouts: Record<string, string> = {}): CatalogueData {
  const data = emptyCatalogue();
  for (const [key, Name] of Object.entries(fields))
    (data.fields as Record<string, unknown>)[key] = { Id: Number(key), Name };
  for (const [key, Name] of Object.entries(layouts))
    (data.layouts as Record<string, unknown>)[key] = { Id: Number(key), Name };
  return data;
}

const nameOf = (data: CatalogueData, key: string) =>
  (data.fields as Record<string, { Name: string } | undefined>)[key]?.Name;

const before = catalogue({ "1": "Tier", "2": "Owner" }, { "9": "Main" });
const after = catalogue({ "1": "Tier", "2": "Owner (new)", "3": "Added" }, { "9": "Main (new)" });

describe("install faults", () => {
  it("acts on one part: a changed field before a created one, fields before other kinds", () => {
    expect(changedPart(before, after)).toEqual({ kind: "fields", key: "2" });
    expect(changedPart(before, catalogue({ "1": "Tier", "2": "Owner", "3": "Added" }))).toEqual({
      kind: "fields",
      key: "3",
    });
    expect(changedPart(before, before)).toBeUndefined();
  });

  it("without faults, swaps the install in as it is", () => {
    const shaped = new InstallFaults(NO_FAULTS).shape(before, after);
    expect(shaped.data).toBe(after);
    expect(shaped.later).toBeUndefined();
  });

  it("installDrop=first leaves the part out of the first install only", () => {
    const faults = new InstallFaults(parseFaultSpec("installDrop=first"));
    const first = faults.shape(before, after);
    expect(nameOf(first.data, "2")).toBe("Owner");
    expect(nameOf(first.data, "3")).toBe("Added");
    expect(nameOf(faults.shape(before, after).data, "2")).toBe("Owner (new)");
  });

  it("installDrop=every leaves the part out of every install", () => {
    const faults = new InstallFaults(parseFaultSpec("installDrop=every"));
    for (let i = 0; i < 3; i++) expect(nameOf(faults.shape(before, after).data, "2")).toBe("Owner");
  });

  it("installLateMs=N lands the part N ms later, on the catalogue as it is then", () => {
    const shaped = new InstallFaults(parseFaultSpec("installLateMs=4000")).shape(before, after);
    expect(nameOf(shaped.data, "2")).toBe("Owner");
    expect(shaped.later?.ms).toBe(4000);
    const meanwhile = catalogue({ "1": "Tier (edited)", "2": "Owner", "3": "Added" });
    const landed = shaped.later?.apply(meanwhile) as CatalogueData;
    expect([nameOf(landed, "1"), nameOf(landed, "2")]).toEqual(["Tier (edited)", "Owner (new)"]);
  });

  it("installChangeMs=N changes the part N ms after it landed", () => {
    const shaped = new InstallFaults(parseFaultSpec("installChangeMs=4000")).shape(before, after);
    expect(nameOf(shaped.data, "2")).toBe("Owner (new)");
    const changed = shaped.later?.apply(shaped.data) as CatalogueData;
    expect(nameOf(changed, "2")).toBe("Owner (new) (recalculated)");
    expect(nameOf(shaped.data, "2")).toBe("Owner (new)");
  });

  it("refuses a drop that is neither first nor every", () => {
    expect(() => parseFaultSpec("installDrop=twice")).toThrow(
      '--faults: installDrop is first or every, got "twice"',
    );
  });
});

describe("the part install faults act on", () => {
  it("is not a record whose only change is the install's bookkeeping", () => {
    const stamped = (name: string, date: string | null) => ({
      Name: name,
      UpdateInformation: { UpdateDate: date },
    });
    const was = emptyCatalogue();
    const now = emptyCatalogue();
    Object.assign(was.fields, { "1": stamped("Tier", null), "2": stamped("Owner", null) });
    Object.assign(now.fields, {
      "1": stamped("Tier", "2026-12-06"),
      "2": stamped("Owner (new)", "2026-12-06"),
    });
    expect(changedPart(was, now)).toEqual({ kind: "fields", key: "2" });
  });
});
