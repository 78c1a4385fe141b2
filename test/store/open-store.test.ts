import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openProjectStore } from "../../src/compose/index.ts";
import { parseProject } from "../../src/manifest/index.ts";
import {
  assertCanSign,
  checkStoreSpec,
  FolderStore,
  generateSigningKey,
  isMachineLocal,
  OciStore,
  openSignedStore,
  openStore,
} from "../../src/store/index.ts";
import { testdir } from "../helpers/testdir.ts";

describe("openStore: the store egp.yaml names", () => {
  it("is a folder at .egp/store in the repository when egp.yaml names none", () => {
    const store = openStore({}, "/repo");
    expect(store).toBeInstanceOf(FolderStore);
    expect(store.location).toBe(join("/repo", ".egp", "store"));
  });

  it("reads a relative folder from the repository root and keeps an absolute one", () => {
    expect(openStore({ store: "./store" }, "/repo").location).toBe("/repo/store");
    expect(openStore({ store: "../shared/egp" }, "/repo").location).toBe("/shared/egp");
    expect(openStore({ store: "/mnt/releases" }, "/repo").location).toBe("/mnt/releases");
  });

  it("opens an OCI registry over HTTPS with the credentials of EGP_STORE_USERNAME and EGP_STORE_PASSWORD", () => {
    const store = openStore({ store: "oci://ghcr.io/acme/egp-releases" }, "/repo", {
      EGP_STORE_USERNAME: "ci",
      EGP_STORE_PASSWORD: "ghp_secret",
    });
    expect(store).toBeInstanceOf(OciStore);
    expect((store as OciStore).endpoint).toBe("https://ghcr.io");
    expect(store.location).toBe("oci://ghcr.io/acme/egp-releases");
    expect(JSON.stringify(store)).not.toContain("ghp_secret");
    expect(
      (openStore({ store: "oci://registry.lan:5000/egp", plainHttp: true }, "/repo") as OciStore).endpoint,
    ).toBe("http://registry.lan:5000");
  });

  it("refuses half of the credentials, and addresses that are neither a folder nor oci://", () => {
    expect(() =>
      openStore({ store: "oci://ghcr.io/acme/egp" }, "/repo", { EGP_STORE_PASSWORD: "x" }),
    ).toThrow(/EGP_STORE_PASSWORD is set without EGP_STORE_USERNAME/);
    expect(checkStoreSpec({ store: "https://ghcr.io/acme/egp" })).toMatch(
      /expected a folder path or oci:\/\//,
    );
    expect(checkStoreSpec({ store: "oci://ghcr.io/Acme/egp" })).toMatch(/lower-case repository/);
    expect(checkStoreSpec({ store: "oci://ghcr.io" })).toMatch(/oci:\/\/host\[:port\]\/repository/);
    expect(checkStoreSpec({ store: "./store" })).toBeUndefined();
  });

  it("refuses a password written in the address, without repeating it", () => {
    expect(checkStoreSpec({ store: "oci://ci:hunter2@ghcr.io/acme/egp" })).toMatch(/EGP_STORE_USERNAME/);
    expect(() => openStore({ store: "oci://ci:hunter2@ghcr.io/acme/egp" }, "/repo")).toThrow(
      /^releases\.store "oci:\/\/\*\*\*@ghcr\.io\/acme\/egp": holds a user or password/,
    );
    expect(() => new OciStore({ reference: "oci://ci:hunter2@ghcr.io/acme/egp" })).toThrow(
      /^not an OCI address: "oci:\/\/\*\*\*@ghcr\.io\/acme\/egp"/,
    );
  });
});

describe("egp.yaml", () => {
  it("names the store; a bad value is an error at its line and column", async () => {
    const good = await testdir({ "egp.yaml": "releases:\n  store: oci://127.0.0.1:5000/grc/egp\n" });
    expect((await openProjectStore(good, {})).location).toBe("oci://127.0.0.1:5000/grc/egp");
    const folder = await testdir({ "egp.yaml": "releases:\n  store: releases-store\n" });
    expect((await openProjectStore(folder, {})).location).toBe(join(folder, "releases-store"));
    const bad = await testdir({ "egp.yaml": "# the store\nreleases:\n  store: https://ghcr.io/acme/egp\n" });
    await expect(openProjectStore(bad, {})).rejects.toThrow(
      /^egp\.yaml:3:10 releases\.store: expected a folder path or oci:\/\//,
    );
  });

  it("is optional, and so is releases.store", async () => {
    expect((await openProjectStore(await testdir({}), {})).location).toMatch(/\.egp\/store$/);
    expect((await openProjectStore(await testdir({ "egp.yaml": "releases: {}\n" }), {})).location).toMatch(
      /\.egp\/store$/,
    );
  });

  it("refuses unknown keys, plainHttp on a folder, and a store that is not a string, at their positions", () => {
    expect(() => parseProject("releases:\n  stor: ./x\n")).toThrow(
      /^egp\.yaml:2:3 releases\.stor: unknown key/,
    );
    expect(() => parseProject("releases:\n  store: ./x\n  plainHttp: true\n")).toThrow(
      /^egp\.yaml:3:3 releases\.plainHttp: applies to an oci:\/\/ store only/,
    );
    expect(() => parseProject("releases:\n  store: 5\n")).toThrow(/^egp\.yaml:2:10 releases\.store:/);
  });
});

describe("openSignedStore", () => {
  it("signs what the store egp.yaml names keeps, with the key EGP_SIGNING_KEY holds and trusting the listed ones", () => {
    const { privateKey, publicKey } = generateSigningKey();
    const store = openSignedStore({ store: "./store", trustedKeys: [publicKey] }, "/repo", {
      EGP_SIGNING_KEY: privateKey,
    });
    expect(store.inner).toBeInstanceOf(FolderStore);
    expect(store.location).toBe("/repo/store");
    expect(store.keyring.signsWith).toBe("configured");
    expect(store.keyring.trusted.has(publicKey)).toBe(true);
    expect(() => openSignedStore({}, "/repo", { EGP_SIGNING_KEY: "x" })).toThrow(
      /not an Ed25519 private key/,
    );
  });
});

describe("keys before evidence: a shared store is written with a configured key only", () => {
  it("counts only the default .egp/store as this machine's", () => {
    expect(isMachineLocal({}, "/repo")).toBe(true);
    expect(isMachineLocal({ store: ".egp/store" }, "/repo")).toBe(true);
    expect(isMachineLocal({ store: "/repo/.egp/store/" }, "/repo")).toBe(true);
    expect(isMachineLocal({ store: "./store" }, "/repo")).toBe(false);
    expect(isMachineLocal({ store: ".egp/shared-store" }, "/repo")).toBe(false);
    expect(isMachineLocal({ store: "/mnt/releases" }, "/repo")).toBe(false);
    expect(isMachineLocal({ store: "oci://registry.lan/egp" }, "/repo")).toBe(false);
  });

  it("refuses a record for a shared folder or registry without EGP_SIGNING_KEY, naming egp keys, and writes nothing", async () => {
    const root = await testdir({});
    const folder = openSignedStore({ store: "./shared" }, root, {});
    await expect(folder.putRecord("releases/r1", { name: "r1" })).rejects.toThrow(
      expect.objectContaining({
        code: "EGP_SIGNING_KEY_REQUIRED",
        message: expect.stringContaining("make one with 'egp keys', set EGP_SIGNING_KEY"),
      }),
    );
    await expect(readdir(join(root, "shared"))).rejects.toThrow(/ENOENT/);
    const registry = openSignedStore({ store: "oci://127.0.0.1:9/egp", plainHttp: true }, root, {});
    expect(() => assertCanSign(registry)).toThrow(
      expect.objectContaining({ code: "EGP_SIGNING_KEY_REQUIRED" }),
    );
  });

  it("writes the default store with the local key, and a shared one with a configured key", async () => {
    const root = await testdir({});
    const local = openSignedStore({}, root, {});
    await local.putRecord("releases/r1", { name: "r1" });
    expect(await local.getRecord("releases/r1")).toMatchObject({ name: "r1" });
    const { privateKey, publicKey } = generateSigningKey();
    const shared = openSignedStore({ store: "./shared", trustedKeys: [publicKey] }, root, {
      EGP_SIGNING_KEY: privateKey,
    });
    await shared.putRecord("releases/r1", { name: "r1" });
    expect(await shared.getRecord("releases/r1")).toMatchObject({ signature: { key: publicKey } });
  });
});
