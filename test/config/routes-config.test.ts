import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { errorOf, minimalPlus, parse, problemAt } from "./helpers.js";

const SHIPPED_EXAMPLE = readFileSync(new URL("../../config/threatbridge.yaml", import.meta.url), "utf8");

/** The shipped example's commented `routes` rules, uncommented. */
function shippedRoutes(): string {
  const lines = SHIPPED_EXAMPLE.split("\n");
  const start = lines.indexOf("routes: []");
  const block: string[] = ["routes:"];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("#  ")) break;
    block.push(line.slice(1));
  }
  return block.join("\n");
}

/**
 * Contract, `routes`: `match.asset_name` takes globs (`*` and `?` only) and `match.where` dotted
 * paths into the threat's (`threat.…`) or its asset's (`asset.…`) JSON; `config validate` names
 * the file, line and key of each error, with a "did you mean" where one fits. The minimal file
 * ends on line 8, so the first extra line is line 9.
 */

describe("routes by asset name and asset fields read as written", () => {
  it("the contract's example block parses, with its defaults", () => {
    const { config } = parse(
      minimalPlus(
        "routes:",
        "  - match: { severity: [critical] }",
        "    repository: acme/urgent",
        "    labels: [urgent]",
        "    assignees: [a-github-login]",
        "  - match:",
        '      asset_name: ["*.payments.acme.test", "pay-db-??"]',
        "      where:",
        "        asset.environment: [prod, production]",
        "        threat.module_data.port: [443, '8443', true]",
        "    repository: acme/payments",
        "    assignees: [payments-oncall]",
      ),
    );
    expect(config.routes[1]).toEqual({
      match: {
        asset_name: ["*.payments.acme.test", "pay-db-??"],
        where: {
          "asset.environment": ["prod", "production"],
          "threat.module_data.port": [443, "8443", true],
        },
      },
      repository: "acme/payments",
      labels: [],
      assignees: ["payments-oncall"],
    });
  });
});

describe("config/threatbridge.yaml shows routes by asset, commented", () => {
  it("its commented rules validate as written once uncommented", () => {
    const { config } = parse(minimalPlus(shippedRoutes()));
    expect(config.routes).toHaveLength(2);
    expect(config.routes[1]?.match).toEqual({
      asset_name: ["*.payments.acme.test", "pay-db-??"],
      where: { "asset.business_value": ["critical", "high"], "threat.module_data.port": [443] },
    });
  });
});

describe("config validate: route errors name file, line and key", () => {
  it("a glob with [ ] is refused: only * and ? are wildcards", () => {
    const error = errorOf(minimalPlus("routes:", "  - match:", '      asset_name: ["pay-db-[0-9]"]'));
    const problem = problemAt(error, "routes[0].match.asset_name[0]");
    expect(problem.line).toBe(11);
    expect(problem.message).toMatch(/only \* .* and \? .* are wildcards/);
    expect(error.message).toContain("test.yaml");
  });

  it("an empty glob is refused", () => {
    const problem = problemAt(
      errorOf(minimalPlus("routes:", "  - match:", '      asset_name: ["  "]')),
      "routes[0].match.asset_name[0]",
    );
    expect(problem.message).toMatch(/must not be empty/);
  });

  it("a path that starts neither in threat nor in asset: did you mean, with the line of the key", () => {
    const error = errorOf(
      minimalPlus("routes:", "  - match:", "      where:", "        assets.environment: [prod]"),
    );
    const problem = problemAt(error, "routes[0].match.where.assets.environment");
    expect(problem.line).toBe(12);
    expect(problem.message).toMatch(/must start with threat\. or asset\./);
    expect(problem.message).toContain("did you mean `asset.environment`?");
  });

  it("a path with no suggestion says what a path starts with, and a bare root needs a field", () => {
    const error = errorOf(
      minimalPlus("routes:", "  - match:", "      where:", "        owner: [alice]", "        asset: [x]"),
    );
    expect(problemAt(error, "routes[0].match.where.owner").message).not.toContain("did you mean");
    expect(problemAt(error, "routes[0].match.where.asset").message).toMatch(/dotted path below asset/);
  });

  it("every error of the routes is reported in one run", () => {
    const error = errorOf(
      minimalPlus(
        "routes:",
        "  - match:",
        '      asset_name: ["{a,b}.acme.test"]',
        "      where:",
        "        treat.module: [dns]",
        "        asset.environment: []",
      ),
    );
    expect(error.problems.map((p) => p.path).sort()).toEqual([
      "routes[0].match.asset_name[0]",
      "routes[0].match.where.asset.environment",
      "routes[0].match.where.treat.module",
    ]);
    expect(problemAt(error, "routes[0].match.where.treat.module").message).toContain(
      "did you mean `threat.module`?",
    );
  });

  it("a value that is neither a string, a number nor a boolean is refused", () => {
    const error = errorOf(
      minimalPlus("routes:", "  - match:", "      where:", "        asset.environment: [{ a: 1 }]"),
    );
    expect(problemAt(error, "routes[0].match.where.asset.environment[0]").line).toBe(12);
  });
});
