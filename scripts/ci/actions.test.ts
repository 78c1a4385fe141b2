import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testdir } from "../../test/helpers/testdir.ts";
import { annotation, escapeData, outputEntry, pullRequestNumber, runUrl, setOutputs } from "./actions.ts";

describe("workflow commands", () => {
  it("escape data so that a message can't end the command or start another", () => {
    expect(escapeData("50% done\r\n::error::x")).toBe("50%25 done%0D%0A::error::x");
    expect(annotation("error", "two\nlines", "egp: plan, prod")).toBe(
      "::error title=egp%3A plan%2C prod::two%0Alines\n",
    );
  });
});

describe("outputs", () => {
  it("write one line for a single-line value and a heredoc for a multi-line one", () => {
    expect(outputEntry("exit-code", "2")).toBe("exit-code=2\n");
    const entry = outputEntry("report", "a\nb");
    const delimiter = /^report<<(egp_[0-9a-f-]+)\n/.exec(entry)?.[1];
    expect(entry).toBe(`report<<${delimiter}\na\nb\n${delimiter}\n`);
  });

  it("append to $GITHUB_OUTPUT, and do nothing outside Actions", async () => {
    const dir = await testdir({ output: "before=1\n" });
    setOutputs({ "exit-code": "1", file: "/tmp/x" }, { GITHUB_OUTPUT: join(dir, "output") });
    expect(readFileSync(join(dir, "output"), "utf8")).toBe("before=1\nexit-code=1\nfile=/tmp/x\n");
    expect(() => setOutputs({ a: "b" }, {})).not.toThrow();
  });
});

describe("run facts", () => {
  it("link the run when the runner says which it is", () => {
    expect(
      runUrl({ GITHUB_SERVER_URL: "https://github.com", GITHUB_REPOSITORY: "o/r", GITHUB_RUN_ID: "7" }),
    ).toBe("https://github.com/o/r/actions/runs/7");
    expect(runUrl({})).toBeUndefined();
  });

  it("read the pull request from a pull_request or issue_comment event, and none from a push", async () => {
    const dir = await testdir({});
    const event = (payload: unknown) => {
      const path = join(dir, "event.json");
      writeFileSync(path, JSON.stringify(payload));
      return pullRequestNumber({ GITHUB_EVENT_PATH: path });
    };
    expect(event({ pull_request: { number: 12 } })).toBe(12);
    expect(event({ issue: { number: 13, pull_request: { url: "u" } } })).toBe(13);
    expect(event({ issue: { number: 14 } })).toBeUndefined();
    expect(event({ ref: "refs/heads/main" })).toBeUndefined();
    expect(pullRequestNumber({})).toBeUndefined();
  });
});
