import { describe, expect, it } from "vitest";
import { type Json, useEmulator } from "../helpers/raw.ts";

/*
 * The Content API's `$count`, as OData clients ask for it: the total of matching records beside
 * the page (docs/emulator.md, "The Content API").
 */

const root = { prefix: "" };
const ids = (body: Json) => (body.value as Json[]).map((entity) => entity.Risk_Id as number);

describe("Content API $count", () => {
  const { raw } = useEmulator({ seed: "demo-dev" });
  const get = async (path: string) =>
    raw().call(`/contentapi${path}`, { ...root, token: await raw().token() });

  it("answers @odata.count with every matching record, whatever the page", async () => {
    const all = ids((await get("/Risk")).body);
    expect(all.length).toBeGreaterThan(1);
    const page = await get("/Risk?$count=true&$top=1&$skip=1");
    expect(page.status, page.text).toBe(200);
    expect(page.body["@odata.count"]).toBe(all.length);
    expect(ids(page.body)).toEqual(all.slice(1, 2));
  });

  it("counts what the filter matches, and takes the option without `$` like the others", async () => {
    const all = ids((await get("/Risk")).body);
    const first = Math.min(...all);
    const filtered = await get(`/Risk?count=true&$filter=${encodeURIComponent(`Risk_Id gt ${first}`)}`);
    expect(filtered.status, filtered.text).toBe(200);
    expect(filtered.body["@odata.count"]).toBe(all.length - 1);
    expect(ids(filtered.body)).toEqual(all.filter((id) => id > first));
  });

  it("leaves the count out for $count=false or no $count", async () => {
    expect((await get("/Risk?$count=false")).body).not.toHaveProperty("@odata.count");
    expect((await get("/Risk")).body).not.toHaveProperty("@odata.count");
  });

  it.each([
    ["/Risk?$count=yes", /^\$count: must be true or false/],
    ["/Risk?$count=true&count=true", /^\$count: is given more than once/],
    ["/Risk(1002)?$count=true", /^\$count: is not allowed here/],
    ["/Risk?$expand=Category", /^\$expand: is not supported/],
    ["/Risk?$search=outage", /^\$search: is not supported/],
  ])("refuses %s with 400 naming the option", async (path, problem) => {
    const response = await get(path);
    expect(response.status, response.text).toBe(400);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("InvalidQuery");
    expect(response.body.ValidationMessages[0].Description).toMatch(problem);
  });
});
