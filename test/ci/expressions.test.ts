// biome-ignore-all lint/suspicious/noTemplateCurlyInString: GitHub expressions, as workflow files hold them.
import { describe, expect, it } from "vitest";
import { evaluate, interpolate } from "../helpers/expressions.ts";

/*
 * The expression evaluator the workflow tests read the workflow files with: GitHub's rules for the
 * operators the files use (|| and && return an operand, == ignores case, a missing property is
 * null), and a refusal of anything it does not know.
 */

const CONTEXTS = {
  inputs: { "egp-ref": "", environment: "prod", "runs-on": '["self-hosted", "linux"]' },
  job: { workflow_sha: "abc" },
  needs: { plan: { outputs: { "exit-code": "2" } } },
};

describe("expressions", () => {
  it("|| gives the first truthy operand, && the last or the first falsy one", () => {
    expect(evaluate("inputs.egp-ref || job.workflow_sha", CONTEXTS)).toBe("abc");
    expect(evaluate("inputs.egp-ref || job.missing || 'fallback'", CONTEXTS)).toBe("fallback");
    expect(evaluate("inputs.environment && 'yes' || 'no'", CONTEXTS)).toBe("yes");
    expect(evaluate("inputs.egp-ref && 'yes' || 'no'", CONTEXTS)).toBe("no");
  });

  it("compares text without case, and reads through toJSON and fromJSON", () => {
    expect(evaluate("needs.plan.outputs.exit-code == '2'", CONTEXTS)).toBe(true);
    expect(evaluate("inputs.environment != 'PROD'", CONTEXTS)).toBe(false);
    expect(evaluate("fromJSON(toJSON(job)).workflow_sha", CONTEXTS)).toBe("abc");
    expect(
      evaluate("startsWith(inputs.runs-on, '[') && fromJSON(inputs.runs-on) || inputs.runs-on", CONTEXTS),
    ).toEqual(["self-hosted", "linux"]);
    expect(evaluate("format('plan-{0}.json', inputs.environment)", CONTEXTS)).toBe("plan-prod.json");
    expect(evaluate("!cancelled() && success()", CONTEXTS, { failed: true })).toBe(false);
  });

  it("keeps a whole expression's type and pastes the text of one inside a string", () => {
    expect(interpolate("${{ needs.plan.outputs.exit-code == '2' }}", CONTEXTS)).toBe(true);
    expect(
      interpolate("apply --env ${{ inputs.environment }} plan-${{ inputs.environment }}.json", CONTEXTS),
    ).toBe("apply --env prod plan-prod.json");
    expect(interpolate("no expression", CONTEXTS)).toBe("no expression");
  });

  it("refuses a context, a function or a syntax it does not know", () => {
    expect(() => evaluate("vars.egp", CONTEXTS)).toThrow(/the context vars is not known here/);
    expect(() => evaluate("hashFiles('x')", CONTEXTS)).toThrow(/the function hashFiles is not known here/);
    expect(() => evaluate("inputs.environment > 1", CONTEXTS)).toThrow(/cannot read/);
  });
});
