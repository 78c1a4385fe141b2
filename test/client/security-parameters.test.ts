import { describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "../../src/index.ts";
import { useClientEmulator } from "./helpers/client.ts";

/* The five security parameter operations, against the emulator over HTTP. */

describe("security parameters", () => {
  const { emulator, client } = useClientEmulator({ seed: "demo-dev" });

  it("list: the fixed parameters and any others", async () => {
    const parameters = await client().securityParameters.list();
    expect(parameters.map((p) => p.Name)).toEqual(
      expect.arrayContaining(["Default Administrative User", "General User Parameter", "Services Parameter"]),
    );
    expect(parameters).toHaveLength(emulator().store.allSecurityParameters().length);
  });

  it("get by id", async () => {
    await expect(client().securityParameters.get(2)).resolves.toMatchObject({
      Id: 2,
      Name: "General User Parameter",
      Default: true,
    });
    await expect(client().securityParameters.get(4242)).rejects.toThrow(NotFoundError);
  });

  it("create, update with the live Id, Alias and GUID, then delete", async () => {
    const c = client();
    const id = await c.securityParameters.create({
      Name: "Contractors",
      Description: "Short sessions for contractors.",
      MinPasswordLength: 12,
      SessionTimeout: 15,
      SessionTimeoutType: 2,
    });
    const live = await c.securityParameters.get(id);
    expect(live).toMatchObject({ Name: "Contractors", MinPasswordLength: 12 });
    expect(live.GUID).toBeTruthy();

    await expect(
      c.securityParameters.update({
        ...live,
        Id: live.Id,
        Alias: live.Alias ?? "",
        GUID: live.GUID ?? "",
        MinPasswordLength: 14,
      }),
    ).resolves.toBe(id);
    expect(emulator().store.securityParameter(id)?.MinPasswordLength).toBe(14);

    await expect(c.securityParameters.remove(id)).resolves.toBe(id);
    expect(emulator().store.securityParameter(id)).toBeUndefined();
  });

  it("a create with a taken name is a ValidationError", async () => {
    const failure = client().securityParameters.create({ Name: "Services Parameter" });
    await expect(failure).rejects.toThrow(ValidationError);
    await expect(failure).rejects.toMatchObject({ status: 400 });
  });
});
