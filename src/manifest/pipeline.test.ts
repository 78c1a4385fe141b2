import { describe, expect, it } from "vitest";
import { pipelinePlaces } from "./pipeline.ts";

describe("pipelinePlaces", () => {
  it("reads packagesFrom, release and requiresVerifiedOn as written, whatever else the file holds", () => {
    const places = pipelinePlaces({
      environments: [
        {
          path: "environments/prod.yaml",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: an environment file's text.
          text: 'auth: { password: "${UNSET}" }\nrelease: r1\nrequiresVerifiedOn: [test]\n',
        },
        { path: "environments/live.yaml", text: "packagesFrom: dev\nunknown: key\n" },
        { path: "environments/broken.yaml", text: "release: [\n" },
      ],
    });
    expect(places).toEqual([
      { name: "prod", release: "r1", requiresVerifiedOn: ["test"], upstream: ["test"] },
      { name: "live", packagesFrom: "dev", requiresVerifiedOn: [], upstream: ["dev"] },
      { name: "broken", requiresVerifiedOn: [], upstream: [] },
    ]);
  });
});
