import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OciStore, type OciStoreOptions } from "../../src/store/index.ts";
import { retryDelay } from "../../src/store/oci-store.ts";
import { tagOfKey } from "../../src/store/oci-tags.ts";
import { type Registry, startRegistry } from "../helpers/registry.ts";
import { type AuthProxy, startAuthProxy } from "../helpers/registry-auth.ts";
import { storeContract } from "./contract.ts";

let registry: Registry;
let repositories = 0;
const stores: OciStore[] = [];

beforeAll(async () => {
  registry = await startRegistry();
}, 60_000);

afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await registry?.stop();
});

function open(options: Partial<OciStoreOptions> & { host?: string } = {}): OciStore {
  repositories += 1;
  const { host = registry.host, ...rest } = options;
  const store = new OciStore({
    reference: `oci://${host}/egp/test-${repositories}`,
    settleMs: 300,
    ...rest,
  });
  stores.push(store);
  return store;
}

storeContract("OciStore", async () => ({
  store: open(),
  alter: (digest, bytes) => writeFileSync(registry.blobPath(digest), bytes),
}));

const scratch = () => mkdtempSync(join(tmpdir(), "egp-oci-"));

describe("OciStore against docker-registry", () => {
  it("stores a record as an OCI artifact: the record's JSON and the files it names are its layers", async () => {
    const store = open();
    const dir = scratch();
    writeFileSync(join(dir, "a.zip"), "package a");
    const { digest } = await store.putFile(join(dir, "a.zip"));
    await store.putRecord("releases/2026.11.1", { name: "2026.11.1" }, { createOnly: true, blobs: [digest] });
    const response = await fetch(
      `${registry.url}/v2/egp/test-${repositories}/manifests/releases_S_2026.11.1`,
      {
        headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
      },
    );
    expect(response.status).toBe(200);
    const manifest = (await response.json()) as Record<string, unknown> & {
      layers: { mediaType: string; digest: string }[];
    };
    expect(manifest.mediaType).toBe("application/vnd.oci.image.manifest.v1+json");
    expect(manifest.artifactType).toBe("application/vnd.egp.record.v1+json");
    expect(manifest.layers.map((layer) => layer.mediaType)).toEqual([
      "application/vnd.egp.record.v1+json",
      "application/vnd.egp.file.v1",
    ]);
    expect(manifest.layers[1]?.digest).toBe(`sha256:${digest}`);
    expect(manifest.annotations).toEqual({ "egp.store.key": "releases/2026.11.1" });
  });

  it("refuses a record whose files are not in the store", async () => {
    const store = open();
    await expect(store.putRecord("releases/r1", {}, { blobs: ["2".repeat(64)] })).rejects.toThrow(
      /refers to sha256:2{64}, which is not in the store/,
    );
  });

  it("refuses a record altered in the registry's storage", async () => {
    const store = open();
    // A record of its own: a registry keeps one copy of a blob for all its repositories.
    await store.putRecord("releases/r1", { name: "r1", altered: true });
    const manifest = (await (
      await fetch(`${registry.url}/v2/egp/test-${repositories}/manifests/releases_S_r1`, {
        headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
      })
    ).json()) as { layers: { digest: string }[] };
    const digest = manifest.layers[0]?.digest.replace("sha256:", "") ?? "";
    const original = readFileSync(registry.blobPath(digest), "utf8");
    writeFileSync(registry.blobPath(digest), original.replace('"r1"', '"r2"'));
    await expect(store.getRecord("releases/r1")).rejects.toMatchObject({ code: "EGP_STORE_DIGEST_MISMATCH" });
  });

  it("reads the tag list page by page (n, last and the Link header)", async () => {
    const front = await startAuthProxy({ upstream: registry.url, mode: "none", paginate: true });
    const store = open({ host: front.host, pageSize: 2 });
    const keys = [
      "history/prod/a1",
      "history/prod/a2",
      "history/prod/a3",
      "history/prod/a4",
      "history/prod/a5",
    ];
    for (const key of keys) await store.putRecord(key, { key });
    await store.putRecord("releases/r1", {});
    expect(await store.listRecords("history/prod")).toEqual(keys);
    expect(await store.listRecords("history")).toEqual(keys);
    expect(await store.listRecords("releases")).toEqual(["releases/r1"]);
    expect(front.seen.filter((request) => request.path.endsWith("/tags/list")).length).toBe(9);
    await front.stop();
  });

  it("keeps and lists a key too long for a tag under a hashed tag, read back from the manifest", async () => {
    const front = await startAuthProxy({ upstream: registry.url, mode: "none", paginate: true });
    const store = open({ host: front.host, pageSize: 3 });
    const long = `history/prod/${"x".repeat(100)}/${"y".repeat(40)}`;
    const other = `history/prod/${"x".repeat(100)}/${"z".repeat(40)}`;
    expect(tagOfKey(long).length).toBeLessThanOrEqual(128);
    await store.putRecord(long, { n: 1 });
    await store.putRecord(other, { n: 2 });
    await store.putRecord("history/test/short", { n: 3 });
    expect(await store.getRecord(long)).toEqual({ n: 1 });
    expect(await store.getRecord(other)).toEqual({ n: 2 });
    expect(await store.listRecords("history/prod")).toEqual([long, other].sort());
    expect(await store.listRecords("history/test")).toEqual(["history/test/short"]);
    await front.stop();
  });

  it("lets one of two runs creating the same record at once win; the other says so, and the winner's record stays", async () => {
    for (let round = 1; round <= 6; round++) {
      const first = open();
      const second = new OciStore({ reference: first.location, settleMs: 300 });
      stores.push(second);
      const key = `releases/race${round}`;
      const outcomes = await Promise.allSettled([
        first.putRecord(key, { by: "first" }, { createOnly: true }),
        second.putRecord(key, { by: "second" }, { createOnly: true }),
      ]);
      const won = outcomes.flatMap((o, i) =>
        o.status === "fulfilled" ? [i === 0 ? "first" : "second"] : [],
      );
      const lost = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as Error] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toMatchObject({ code: "EGP_STORE_EXISTS" });
      expect(lost[0]?.message).toMatch(/already exists|created by another run at the same time/);
      expect(await first.getRecord(key)).toEqual({ by: won[0] });
    }
  }, 30_000);

  it("lists nothing in a repository nothing was pushed to", async () => {
    expect(await open().listRecords("releases")).toEqual([]);
  });

  it("says the store can't be reached, without a stack of undici's words", async () => {
    const store = open({ host: "127.0.0.1:9" });
    await expect(store.getRecord("releases/r1")).rejects.toMatchObject({
      code: "EGP_STORE_UNAVAILABLE",
      message: expect.stringMatching(/^can't reach the store oci:\/\/127\.0\.0\.1:9\/egp\/test-\d+/),
    });
  });

  it("says a download broke off, and leaves nothing at the target", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-length": "1000", "content-type": "application/octet-stream" });
      response.write("only the start");
      setTimeout(() => response.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const dir = scratch();
    await expect(
      open({ host: `127.0.0.1:${port}` }).getFile("3".repeat(64), join(dir, "a.zip")),
    ).rejects.toMatchObject({
      code: "EGP_STORE_UNAVAILABLE",
      message: expect.stringMatching(/^reading sha256:3{64} from the store .* broke off/),
    });
    expect(readdirSync(dir)).toEqual([]);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("talks HTTPS except to localhost or with plainHttp", () => {
    expect(new OciStore({ reference: "oci://registry.example.com/grc/egp" }).endpoint).toBe(
      "https://registry.example.com",
    );
    expect(
      new OciStore({ reference: "oci://registry.example.com:5000/grc/egp", plainHttp: true }).endpoint,
    ).toBe("http://registry.example.com:5000");
    expect(new OciStore({ reference: "oci://localhost:5000/egp" }).endpoint).toBe("http://localhost:5000");
    expect(new OciStore({ reference: "oci://127.0.0.1:5000/egp" }).endpoint).toBe("http://127.0.0.1:5000");
    expect(() => new OciStore({ reference: "oci://registry.example.com/Upper" })).toThrow(
      /not an OCI address/,
    );
    expect(() => new OciStore({ reference: "https://registry.example.com/egp" })).toThrow(
      /not an OCI address/,
    );
  });
});

describe("OciStore: passing failures", () => {
  it("waits as Retry-After says, or backs off with jitter, up to a cap", () => {
    expect(retryDelay(1, "2")).toBe(2000);
    expect(retryDelay(1, "3600")).toBe(30_000);
    expect([retryDelay(1, undefined, () => 0), retryDelay(1, undefined, () => 1)]).toEqual([250, 500]);
    expect(retryDelay(3, undefined, () => 1)).toBe(2000);
    expect(retryDelay(20, "soon", () => 1)).toBe(30_000);
  });

  it("tries a read again after 503 and 429, waiting as the registry says", async () => {
    const direct = open();
    await direct.putRecord("releases/r1", { name: "r1" });
    const front = await startAuthProxy({
      upstream: registry.url,
      mode: "none",
      failures: [
        { method: "GET", path: /\/manifests\//, status: 503, times: 1 },
        { method: "GET", path: /\/blobs\//, status: 429, retryAfter: "2", times: 1 },
      ],
    });
    const waits: number[] = [];
    const store = new OciStore({
      reference: `oci://${front.host}/egp/test-${repositories}`,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    stores.push(store);
    expect(await store.getRecord("releases/r1")).toEqual({ name: "r1" });
    expect(waits).toHaveLength(2);
    expect(waits[1]).toBe(2000);
    await front.stop();
  });

  it("starts a blob's upload again when its PUT fails, and gives up after four tries", async () => {
    const front = await startAuthProxy({
      upstream: registry.url,
      mode: "none",
      failures: [{ method: "PUT", path: /\/blobs\/uploads\//, status: 502, times: 1 }],
    });
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    const store = open({ host: front.host, sleep });
    const dir = scratch();
    writeFileSync(join(dir, "a.zip"), "package a");
    const { digest } = await store.putFile(join(dir, "a.zip"));
    expect(await store.hasFile(digest)).toBe(true);
    expect(front.seen.filter((request) => request.method === "POST").length).toBe(2);
    expect(waits).toHaveLength(1);
    const failing = await startAuthProxy({
      upstream: registry.url,
      mode: "none",
      failures: [{ method: "GET", path: /./, status: 503, times: 100 }],
    });
    await expect(open({ host: failing.host, sleep }).getRecord("releases/r1")).rejects.toMatchObject({
      code: "EGP_STORE_UNAVAILABLE",
      status: 503,
    });
    expect(failing.seen.length).toBe(4);
    await Promise.all([front.stop(), failing.stop()]);
  });
});

describe("OciStore: authentication", () => {
  let proxy: AuthProxy | undefined;
  afterAll(async () => {
    await proxy?.stop();
  });

  const roundTrip = async (store: OciStore) => {
    const dir = scratch();
    writeFileSync(join(dir, "a.zip"), "package a");
    const { digest } = await store.putFile(join(dir, "a.zip"));
    await store.putRecord("releases/r1", { digest }, { createOnly: true, blobs: [digest] });
    expect(await store.getRecord("releases/r1")).toEqual({ digest });
    await store.getFile(digest, join(dir, "b.zip"));
    expect(readFileSync(join(dir, "b.zip"), "utf8")).toBe("package a");
    expect(await store.listRecords("releases")).toEqual(["releases/r1"]);
  };

  it("follows the bearer flow: 401 with a challenge, a token from the realm for the scope, the request again", async () => {
    proxy = await startAuthProxy({
      upstream: registry.url,
      mode: "bearer",
      username: "ci",
      password: "s3cret-pw",
    });
    await roundTrip(open({ host: proxy.host, credentials: { username: "ci", password: "s3cret-pw" } }));
    expect(proxy.scopes[0]).toMatch(/^repository:egp\/test-\d+:pull,push$/);
    expect(
      proxy.seen.filter((request) => request.path !== "/token").map((request) => request.scheme),
    ).toContain("Bearer");
    await proxy.stop();
    proxy = undefined;
  });

  it("sends basic credentials when the registry asks for them", async () => {
    proxy = await startAuthProxy({
      upstream: registry.url,
      mode: "basic",
      username: "ci",
      password: "s3cret-pw",
    });
    await roundTrip(open({ host: proxy.host, credentials: { username: "ci", password: "s3cret-pw" } }));
    await proxy.stop();
    proxy = undefined;
  });

  it("says which variables to set when a registry asks for credentials it was not given", async () => {
    proxy = await startAuthProxy({
      upstream: registry.url,
      mode: "bearer",
      username: "ci",
      password: "s3cret-pw",
    });
    await expect(open({ host: proxy.host }).getRecord("releases/r1")).rejects.toMatchObject({
      code: "EGP_STORE_DENIED",
      message: expect.stringMatching(/set EGP_STORE_USERNAME and EGP_STORE_PASSWORD/),
    });
    await proxy.stop();
    proxy = undefined;
  });

  it("refuses wrong credentials without printing them", async () => {
    proxy = await startAuthProxy({
      upstream: registry.url,
      mode: "bearer",
      username: "ci",
      password: "s3cret-pw",
    });
    const store = open({ host: proxy.host, credentials: { username: "ci", password: "wrong-pw-123" } });
    const failure = store.getRecord("releases/r1");
    await expect(failure).rejects.toMatchObject({
      code: "EGP_STORE_DENIED",
      status: 401,
      message: expect.stringMatching(
        /^the token server refused in the store .*HTTP 401 \(UNAUTHORIZED: bad credentials\)/,
      ),
    });
    await expect(failure).rejects.toThrow(/^(?!.*wrong-pw-123)/s);
    await proxy.stop();
    proxy = undefined;
  });

  it("sends no credentials to another host that a Link names", async () => {
    const other = await startAuthProxy({ upstream: registry.url, mode: "none", paginate: true });
    proxy = await startAuthProxy({
      upstream: registry.url,
      mode: "basic",
      username: "ci",
      password: "s3cret-pw",
      paginate: true,
      linkOrigin: `http://${other.host}`,
    });
    const store = open({
      host: proxy.host,
      credentials: { username: "ci", password: "s3cret-pw" },
      pageSize: 1,
    });
    for (const key of ["releases/r1", "releases/r2", "releases/r3"]) await store.putRecord(key, { key });
    expect(await store.listRecords("releases")).toEqual(["releases/r1", "releases/r2", "releases/r3"]);
    expect(other.seen.length).toBeGreaterThan(0);
    expect(other.seen.map((request) => request.scheme)).toEqual(other.seen.map(() => ""));
    await Promise.all([other.stop(), proxy.stop()]);
    proxy = undefined;
  });

  it("gives the registry's status and error codes when it refuses a push", async () => {
    proxy = await startAuthProxy({
      upstream: registry.url,
      mode: "basic",
      username: "ci",
      password: "s3cret-pw",
      pullOnly: true,
    });
    const store = open({ host: proxy.host, credentials: { username: "ci", password: "s3cret-pw" } });
    await expect(store.putRecord("releases/r1", {})).rejects.toMatchObject({
      code: "EGP_STORE_DENIED",
      status: 403,
      registryCodes: ["DENIED"],
      message: expect.stringMatching(/HTTP 403 \(DENIED: requested access to the resource is denied\)/),
    });
    await proxy.stop();
    proxy = undefined;
  });
});
