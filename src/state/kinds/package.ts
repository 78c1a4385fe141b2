import { isDeepStrictEqual } from "node:util";
import type { PlatformClient } from "../../client/client.ts";
import { NotFoundError } from "../../client/errors.ts";
import type { DesiredState, EnvironmentConfig } from "../../manifest/index.ts";
import { hash } from "../digest.ts";
import type { LivePackageObject, LivePackageSide } from "../live-objects.ts";
import type { Catalogue } from "../package-details.ts";
import { type ObjectRequest, readCatalogue, readPackageObjects } from "../package-objects.ts";
import { type InstanceReads, readOnce } from "../shared-reads.ts";
import { type EarlyRead, type EarlyReads, earlyRead, liveKind, type ReadContext } from "./kind.ts";

const PART = "packages";

/** The packages part of the live state. */
export interface LivePackages {
  /** The package objects the manifests name, on the target (this environment). */
  packages: LivePackageSide;
  /** The same objects on the environment packages come from, when the manifests name any. */
  packageSource?: { environment: string } & LivePackageSide;
}

/** The package objects the manifests name by GUID (applications named by name are resolved on the source). */
function objectRequests(
  packages: DesiredState["packages"],
  names: LivePackageSide["applicationsByName"],
): ObjectRequest[] {
  const requests = new Map<string, ObjectRequest>();
  for (const pkg of packages) {
    for (const object of pkg.objects) {
      const name = object.by === "name" ? object.name.toLowerCase() : "";
      const guid = object.by === "guid" ? object.guid : Object.hasOwn(names, name) ? names[name] : undefined;
      if (!guid) continue;
      const follow = pkg.includeDependencies !== undefined || requests.get(guid)?.follow === true;
      requests.set(guid, { guid, type: object.type, ...(follow ? { follow } : {}) });
    }
  }
  return [...requests.values()];
}

/** Whether an object differs from the other side's (or the other side lacks it): only then is it described. */
export function differs(object: LivePackageObject, other: LivePackageSide["objects"]): boolean {
  return other[object.guid]?.fingerprint !== object.fingerprint;
}

/**
 * Digests cover fingerprints, which already cover every detail, reference and member (all read from
 * the same trees). The catalogue index is left out too, so that digests stay those of earlier
 * versions: a name clash that appears after a plan was saved is refused by the install itself.
 */
function withoutDetails<S extends LivePackageSide>(side: S): S {
  const objects = Object.fromEntries(
    Object.entries(side.objects).map(
      ([guid, { details: _details, references: _references, members: _members, ...object }]) => [
        guid,
        object,
      ],
    ),
  );
  const { catalogue: _catalogue, ...rest } = side;
  return { ...rest, objects } as S;
}

/** The target's trees of the objects a release holds (global reports have no read). */
async function releaseTargets(
  client: Parameters<typeof readPackageObjects>[0],
  release: NonNullable<DesiredState["release"]>,
  shared: InstanceReads | undefined,
): Promise<LivePackageSide> {
  const requests = new Map<string, ObjectRequest>();
  for (const pkg of release.packages)
    for (const object of pkg.objects)
      if (object.type !== "GlobalReport") requests.set(object.guid, { guid: object.guid, type: object.type });
  const [read, version] = await Promise.all([
    readPackageObjects(client, [...requests.values()], { deferDetails: true, ...(shared ? { shared } : {}) }),
    readOnce(shared, "version", () => versionOf(client)),
  ]);
  const recorded = new Map(
    release.packages.flatMap((pkg) => pkg.objects.map((o) => [o.guid.toLowerCase(), o.fingerprint] as const)),
  );
  read.describe((object) => recorded.get(object.guid.toLowerCase()) !== object.fingerprint);
  return { objects: read.objects, applicationsByName: read.applicationsByName, ...version };
}

/**
 * The platform version, so that a package is never planned onto an older platform than it was
 * built on; an instance that does not answer the call leaves the check out.
 */
async function versionOf(client: PlatformClient): Promise<{ version?: string }> {
  try {
    return { version: (await client.metadata.version()).Version };
  } catch (error) {
    if (error instanceof NotFoundError) return {};
    throw error;
  }
}

/** Packages to read on a source: the environment names some, and where they come from. */
function needsSource(desired: DesiredState): desired is DesiredState & { packagesFrom: EnvironmentConfig } {
  return desired.packages.length > 0 && desired.packagesFrom !== undefined;
}

/** The run's reads (shared-reads.ts) of the source and of the target, used and added to. */
export interface PackageReads {
  source?: InstanceReads;
  target?: InstanceReads;
}

/**
 * The trees of the objects `packages` name, on the source and on the target. The target's are read
 * while the source's are (each instance answers its own reads): they need only the objects the
 * source resolved, known once its catalogue is read. Details wait for both sides' fingerprints:
 * only objects that differ are described.
 */
async function readPackages(
  client: PlatformClient,
  sourceClient: PlatformClient,
  packages: DesiredState["packages"],
  from: string,
  reads: PackageReads,
  targetCatalogue?: Promise<Catalogue>,
): Promise<LivePackages> {
  const requests = Promise.withResolvers<readonly ObjectRequest[]>();
  // The target's catalogue needs no name from the source: it is read while the source's is.
  const catalogue = readOnce(reads.target, "catalogue", () => targetCatalogue ?? readCatalogue(client));
  catalogue.catch(() => undefined);
  const [source, target, sourceVersion, targetVersion] = await Promise.all([
    readPackageObjects(sourceClient, (names) => objectRequests(packages, names), {
      deferDetails: true,
      onRequests: requests.resolve,
      ...(reads.source ? { shared: reads.source } : {}),
    }),
    requests.promise.then((wanted) =>
      readPackageObjects(
        client,
        wanted.map(({ guid, type }) => ({ guid, type })),
        { deferDetails: true, catalogue, ...(reads.target ? { shared: reads.target } : {}) },
      ),
    ),
    readOnce(reads.source, "version", () => versionOf(sourceClient)),
    readOnce(reads.target, "version", () => versionOf(client)),
  ]);
  source.describe((object) => differs(object, target.objects));
  target.describe((object) => differs(object, source.objects));
  return {
    packages: {
      objects: target.objects,
      applicationsByName: target.applicationsByName,
      ...(target.catalogue ? { catalogue: target.catalogue } : {}),
      ...targetVersion,
    },
    packageSource: {
      environment: from,
      objects: source.objects,
      applicationsByName: source.applicationsByName,
      ...(source.catalogue ? { catalogue: source.catalogue } : {}),
      ...sourceVersion,
    },
  };
}

/** Package reads started before the manifests were loaded, from the packages a hint names. */
export interface PackagesAhead {
  packages: readonly unknown[];
  from: string;
  reading: Promise<LivePackages>;
}

/**
 * Starts the package reads for `packages` (the Package documents of the state the last run kept),
 * so that both instances answer them while this process loads the manifests. `packageLive` uses
 * them only when the manifests ask for exactly those packages from that environment.
 */
export function startPackagesAhead(
  client: Promise<PlatformClient>,
  source: Promise<PlatformClient>,
  packages: readonly unknown[],
  from: string,
  reads: PackageReads = {},
  early?: EarlyReads,
): PackagesAhead {
  const catalogue = early?.get(PART) as Promise<Catalogue> | undefined;
  const reading = Promise.all([client, source]).then(([target, sourceClient]) =>
    readPackages(target, sourceClient, packages as DesiredState["packages"], from, reads, catalogue),
  );
  // Unused when the manifests turn out to ask for others: its failure is then nobody's.
  reading.catch(() => undefined);
  return { packages, from, reading };
}

function aheadFor(desired: DesiredState, ahead: unknown): Promise<LivePackages> | undefined {
  const started = ahead as PackagesAhead | undefined;
  if (!started || started.from !== desired.packagesFrom?.name) return undefined;
  return isDeepStrictEqual(started.packages, desired.packages) ? started.reading : undefined;
}

/** The target's catalogue, started with the other early reads when a manifest may hold a Package. */
const catalogueEarly: EarlyRead<Catalogue> = {
  kinds: ["Package"],
  narrowedBy: "Package",
  start: (client, _keys, reads) => readOnce(reads, "catalogue", () => readCatalogue(client)),
};

function catalogueOf(context: ReadContext): Promise<Catalogue> | undefined {
  return context.early.has(PART) ? earlyRead(context, PART, catalogueEarly) : undefined;
}

/** Packages: the metadata trees of the objects the manifests name, on the source and the target. */
export const packageLive = liveKind({
  part: PART,
  label: "package objects",
  early: catalogueEarly,
  unread: { packages: { objects: {}, applicationsByName: {} } },
  async read(context): Promise<LivePackages> {
    const { client, desired, options } = context;
    const target = options.shared?.of(desired.environment.name);
    if (desired.release) return { packages: await releaseTargets(client, desired.release, target) };
    if (!needsSource(desired)) {
      // Started for a Package of another environment: answered before the run ends, not cut off.
      await context.early.get(PART)?.catch(() => undefined);
      return { packages: { objects: {}, applicationsByName: {} } };
    }
    const ahead = aheadFor(desired, options.ahead?.get("packages"));
    if (ahead) return ahead;
    if (!options.source)
      throw new Error(`reading ${desired.environment.name} needs a client for ${desired.packagesFrom.name}`);
    const from = desired.packagesFrom.name;
    const reads = { source: options.shared?.of(from), target };
    return readPackages(client, options.source, desired.packages, from, reads, catalogueOf(context));
  },
  digest: (state) =>
    hash([withoutDetails(state.packages), state.packageSource ? withoutDetails(state.packageSource) : null]),
});
