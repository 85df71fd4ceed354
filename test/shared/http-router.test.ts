import { describe, expect, it } from "vitest";
import { createRouter } from "../../src/shared/http-router.js";

interface R {
  method: string;
  template: string;
}
const r = (method: string, template: string): R => ({ method, template });

describe("the local servers' router (simulator and GitHub stand-in)", () => {
  const routes = [
    r("GET", "/repos/{owner}/{repo}/issues/comments"),
    r("GET", "/repos/{owner}/{repo}/issues/{issue_number}"),
    r("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}"),
    r("PUT", "/v1/threats/{threat_id}/external-references/{system}"),
  ];

  it("the first matching route wins: a literal segment listed first is not taken for a parameter", () => {
    const match = createRouter(routes, (x) => x.template);
    expect(match("GET", "/repos/acme/app/issues/comments")?.route).toBe(routes[0]);
    const found = match("GET", "/repos/acme/app/issues/42");
    expect(found?.route).toBe(routes[1]);
    expect(found?.params).toEqual({ owner: "acme", repo: "app", issue_number: "42" });
    expect(found?.values).toEqual(["acme", "app", "42"]);
  });

  it("the method is part of the route: another method on the same path is no match", () => {
    const match = createRouter(routes, (x) => x.template);
    expect(match("PATCH", "/repos/acme/app/issues/42")?.route).toBe(routes[2]);
    expect(match("DELETE", "/repos/acme/app/issues/42")).toBeNull();
    expect(match("GET", "/repos/acme/app/issues/42/extra")).toBeNull();
  });

  it("segments are decoded; one that does not decode is passed on as sent, for the handler to refuse", () => {
    const match = createRouter(routes, (x) => x.template);
    expect(match("GET", "/repos/acme/my%20app/issues/1")?.params["repo"]).toBe("my app");
    expect(match("GET", "/repos/acme/%E0%A4%A/issues/1")?.params["repo"]).toBe("%E0%A4%A");
  });

  it("a trailing slash matches only where asked (GitHub), and an empty segment only where named (the external reference's system, which the simulator validates itself)", () => {
    const strict = createRouter(routes, (x) => x.template);
    expect(strict("GET", "/repos/acme/app/issues/1/")).toBeNull();
    expect(strict("PUT", "/v1/threats/t1/external-references/")).toBeNull();
    const lenient = createRouter(routes, (x) => x.template, { trailingSlash: true, mayBeEmpty: ["system"] });
    expect(lenient("GET", "/repos/acme/app/issues/1/")?.params["issue_number"]).toBe("1");
    expect(lenient("PUT", "/v1/threats/t1/external-references/")?.params).toEqual({
      threat_id: "t1",
      system: "",
    });
  });
});
