import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/index.js";

const base = {
  platform: {
    base_url: "http://127.0.0.1:1",
    token_url: "http://127.0.0.1:1/oauth/token",
    client_id: "i",
    client_secret: "s",
  },
};
const withProject = (project: unknown) =>
  ConfigSchema.safeParse({ ...base, github: { token: "t", repository: "acme/threats", project } });

// Contract, "The conversation back": `github.project` {owner, number, fields: {name: liquid value}};
// a template that reads what its scope lacks is a config error, like the issue's templates.
describe("github.project in the config", () => {
  it("accepts the contract's block; fields default to none", () => {
    const ok = withProject({
      owner: "acme",
      number: 7,
      fields: { Severity: "{{ threat.severity }}", Due: "{{ sla.due }}" },
    });
    expect(ok.success).toBe(true);
    const bare = withProject({ owner: "acme", number: 7 });
    expect(bare.success && bare.data.github.project?.fields).toEqual({});
  });

  it("rejects a field template reading an unknown variable, naming the field", () => {
    const bad = withProject({ owner: "acme", number: 7, fields: { Severity: "{{ threat.severty }}" } });
    expect(bad.success).toBe(false);
    const issue = bad.error?.issues[0];
    expect(issue?.path).toEqual(["github", "project", "fields", "Severity"]);
    expect(issue?.message).toContain("threat.severity");
  });

  it("rejects unknown keys and a number that is not a positive integer", () => {
    expect(withProject({ owner: "acme", number: 7, colour: "red" }).success).toBe(false);
    expect(withProject({ owner: "acme", number: 0 }).success).toBe(false);
  });
});
