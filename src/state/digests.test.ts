import { describe, expect, it } from "vitest";
import { wireUser } from "../../test/builders/wire.ts";
import type { PlatformClient } from "../client/client.ts";
import { NotFoundError } from "../client/errors.ts";
import type { DesiredState } from "../manifest/index.ts";
import { packageLive } from "./kinds/package.ts";
import { userLive } from "./kinds/user.ts";
import type { LiveState } from "./live-state.ts";
import { readPackageObjects } from "./package-objects.ts";

/*
 * Saved plans are refused by their digests, compared across runs of different egp versions: a
 * faster way of computing them must give the same values. The users' digests were computed by the
 * code before it was made faster (users hashed with a copy per user); the packages' since an
 * object's fingerprint is canonical over its parts (docs/plans.md), which changed them once.
 */

const up = {
  CreateDate: "2026-01-01T00:00:00.000Z",
  UpdateDate: "2026-01-02T00:00:00.000Z",
  CreateLogin: 1,
  UpdateLogin: 2,
};

function user(Id: number, LastLoginDate: string | null) {
  return wireUser({
    Id,
    DisplayName: `Doe ${Id}, J`,
    FirstName: "J",
    LastName: `Doe ${Id}`,
    LastLoginDate,
    UserName: `jdoe${Id}`,
    Company: "Ünïcode ✓",
    AdditionalNote: 'a "quoted" note\n',
    UpdateInformation: up,
  }) as LiveState["users"][number]["user"];
}

const users = [
  { user: user(1, null), contacts: [], groups: [] },
  {
    user: user(2, "2026-03-04T05:06:07.000Z"),
    contacts: [{ Id: 9, ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "j2@example.com" }],
    groups: [1, 2],
  },
  { user: user(3, null), contacts: [], groups: [2] },
];

const G = (n: number) => `0000000${n}-AAAA-BBBB-CCCC-00000000000${n}`;
const RULE = "ABCDEF00-0000-0000-0000-000000000050";
const modules = [
  { Id: 10, Guid: G(1), Name: "Risks", Alias: "RSK", Description: null, Type: "Application" },
  { Id: 11, Guid: G(2), Name: "Comments", Alias: "CMT", Description: "sub", Type: "SubForm" },
].map((m) => ({ ...m, KeepLicensed: m.Id === 10, IsDeprecated: false, UpdateInformation: up }));
const levels = [
  { Id: 20, Guid: G(3), ModuleId: 10, Name: "Risk", Alias: "Risk", AllowFilter: true },
  { Id: 21, Guid: G(4), ModuleId: 11, Name: "Comment", Alias: "Comment", AllowFilter: false },
].map((l) => ({ ...l, Description: null, IsDeleted: false, UpdateInformation: up }));
const fields: Record<number, unknown[]> = {
  20: [
    {
      Id: 30,
      Guid: G(5),
      LevelId: 20,
      Name: "Score",
      Alias: "Score",
      Type: 2,
      IsActive: true,
      IsRequired: true,
      Description: "0-25",
      ValuesListValues: [],
      ReferencedLevelIds: [],
      RelatedSubformId: null,
      UpdateInformation: up,
    },
    {
      Id: 31,
      Guid: G(6),
      LevelId: 20,
      Name: "Rating",
      Alias: "Rating",
      Type: 4,
      IsActive: true,
      IsRequired: false,
      Description: null,
      ValuesListValues: [
        { Id: 1, Guid: G(9), Name: "High" },
        { Id: 2, Guid: G(8), Name: "Low" },
      ],
      ReferencedLevelIds: [21, 99],
      RelatedSubformId: 11,
      UpdateInformation: up,
    },
  ],
};
const layouts: Record<number, unknown> = {
  20: {
    Id: 40,
    Guid: G(7),
    LevelId: 20,
    Name: "Risk Layout",
    Sections: [{ Name: "Main", FieldIds: [31, 30, 77] }],
  },
};
const rules: Record<number, unknown[]> = {
  20: [
    {
      Id: 50,
      Guid: RULE,
      LevelId: 20,
      Name: "High",
      Alias: "High",
      Condition: "Score > 20",
      ConditionFieldIds: [30, 31],
      IsActive: true,
    },
  ],
};
const actions: Record<number, unknown[]> = {
  50: [
    {
      Id: 60,
      Guid: "ABCDEF00-0000-0000-0000-000000000060",
      RuleId: 50,
      Name: "Escalate",
      Alias: "Escalate",
      ActionType: "notify",
      TargetFieldIds: [31],
    },
  ],
};

/** The metadata reads of one instance holding the two modules above. */
const client = {
  metadata: {
    applications: async () => modules,
    questionnaires: async () => [],
    levels: async () => levels,
    fieldDefinitions: async (id: number) => fields[id] ?? [],
    levelLayout: async (id: number) => {
      if (!layouts[id]) throw Object.create(NotFoundError.prototype);
      return layouts[id];
    },
    eventRulesByLevel: async (id: number) => rules[id] ?? [],
    eventActionsByRule: async (id: number) => actions[id] ?? [],
    version: async () => ({ Version: "6.14.0" }),
  },
} as unknown as PlatformClient;

async function liveState(): Promise<LiveState> {
  const requests = modules.map((m) => ({ guid: m.Guid.toLowerCase(), type: m.Type as "Application" }));
  const side = await readPackageObjects(client, requests);
  const packages = { objects: side.objects, applicationsByName: side.applicationsByName };
  return {
    environment: "prod",
    users,
    groupsRead: [1, 2],
    securityParameters: [],
    packages,
    packageSource: { environment: "dev", ...packages },
  } as unknown as LiveState;
}

describe("digests of a fixed live state", () => {
  it("are the values the earlier code computed", async () => {
    const live = await liveState();
    expect(
      Object.fromEntries(Object.values(live.packages.objects).map((o) => [o.guid, o.fingerprint])),
    ).toEqual({
      "00000001-aaaa-bbbb-cccc-000000000001":
        "a08d6e89e632dbf3ae3505c4528bb437bdc5e0cd24fc807efad6816cfb384d15",
      "00000002-aaaa-bbbb-cccc-000000000002":
        "e3c92ec3c162f5e0f9c910d594a5905ac7dcd07c5bcc470718d0d3a9ccfc5860",
    });
    expect(userLive.digest(live)).toBe("7d400d20bf6020102f03742de9d6aa259608aea995f476e5f50dc39367e85868");
    expect(userLive.digest({ ...live, groupsListed: [{ Id: 1, Name: "Everyone" }] })).toBe(
      "820b9ab70f4d27d630a2ad8a3facd73306c453051b2e9548f0d3a174f1f7ea10",
    );
    expect(packageLive.digest(live)).toBe("dba08729fcd66889fc807b5e4862e4f21918041e31672b0f79a3a4c0d914a951");
  });

  it("are the earlier code's for thousands of users, whose lines are hashed in slices", async () => {
    const live = await liveState();
    const many = Array.from({ length: 2_000 }, (_, i) => ({
      user: user(i + 1, i % 3 === 0 ? null : "2026-03-04T05:06:07.000Z"),
      contacts:
        i % 2 === 0
          ? []
          : [{ Id: i, ContactType: 7, ContactSubType: 2, IsDefault: true, Value: `u${i}@x.org` }],
      groups: i % 5 === 0 ? [1, 2] : [1],
    }));
    expect(userLive.digest({ ...live, users: many })).toBe(
      "98befb07de73c4df5b8b59517bb351ae11cd2cffa4a2f58855aef27fac47b6af",
    );
  });

  it("leave the last login out, whether or not the user has logged in", async () => {
    const live = await liveState();
    const loggedIn = users.map((u) => ({
      ...u,
      user: { ...u.user, LastLoginDate: "2026-05-05T00:00:00.000Z" },
    }));
    expect(userLive.digest({ ...live, users: loggedIn })).toBe(userLive.digest(live));
  });
});

describe("the packages part of a plan's live state", () => {
  it("reads the target's trees while the source's are still being read", async () => {
    let openSource: () => void = () => undefined;
    const sourceGate = new Promise<void>((resolve) => {
      openSource = resolve;
    });
    const source = {
      metadata: {
        ...client.metadata,
        fieldDefinitions: async (id: number) => {
          await sourceGate;
          return fields[id] ?? [];
        },
      },
    } as unknown as PlatformClient;
    let targetTreeReads = 0;
    const target = {
      metadata: {
        ...client.metadata,
        fieldDefinitions: async (id: number) => {
          targetTreeReads += 1;
          return fields[id] ?? [];
        },
      },
    } as unknown as PlatformClient;
    const desired = {
      environment: { name: "prod" },
      packagesFrom: { name: "dev" },
      packages: [{ objects: modules.map((m) => ({ by: "guid", guid: m.Guid, type: "Application" })) }],
    } as unknown as DesiredState;

    const reading = packageLive.read({
      client: target,
      desired,
      options: { source },
      early: new Map(),
      all: false,
    });
    // The source's field reads wait at the gate; every other read answers at once: by the next
    // turn of the event loop, the target's tree reads must have started all the same.
    await new Promise((resolve) => setImmediate(resolve));
    expect(targetTreeReads).toBeGreaterThan(0);
    openSource();
    const part = await reading;
    expect(Object.keys(part.packages.objects).sort()).toEqual(
      Object.keys(part.packageSource?.objects ?? {}).sort(),
    );
    expect(Object.keys(part.packages.objects)).toHaveLength(modules.length);
  });
});
