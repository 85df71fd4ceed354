import { describe, expect, it } from "vitest";
import { ENV, errorOf, minimalPlus, parse, problemAt, yamlOf } from "./helpers.js";

/** Contract, "Configuration": unknown keys are errors (with a "did you mean" where one fits);
 * errors name the file, line and key path. */

describe("unknown keys", () => {
  it("a misspelt section gets a did-you-mean, on the key's own line", () => {
    const text = minimalPlus("schedule: '* * * * *'").replace("github:", "githb:");
    const error = errorOf(text);
    expect(problemAt(error, "githb")).toEqual({
      path: "githb",
      line: 6,
      message: "unknown key; did you mean `github`?",
    });
    // The section it meant to be is then missing; a top-level key has no line of its own.
    expect(problemAt(error, "github")).toEqual({
      path: "github",
      line: null,
      message: "required key is missing",
    });
    expect(error.message).toContain("test.yaml:6: githb: unknown key; did you mean `github`?");
  });

  it("a misspelt nested key names its full path (per_houre → per_hour)", () => {
    const error = errorOf(minimalPlus("  write_budget:", "    per_minute: 60", "    per_houre: 400"));
    expect(error.message).toBe(
      "test.yaml:11: github.write_budget.per_houre: unknown key; did you mean `per_hour`?",
    );
  });

  it("case and underscore variants are suggested (Token-Auth → token_auth)", () => {
    const text = yamlOf([
      "platform:",
      "  Token-Auth: client_secret_post",
      ...minimalPlus().split("\n").slice(1),
    ]);
    expect(problemAt(errorOf(text), "platform.Token-Auth").message).toBe(
      "unknown key; did you mean `token_auth`?",
    );
  });

  it("with nothing close, the message lists the keys allowed at that level", () => {
    const error = errorOf(minimalPlus("health:", "  interface: eth0"));
    expect(problemAt(error, "health.interface")).toEqual({
      path: "health.interface",
      line: 10,
      message: "unknown key (allowed here: port, host)",
    });
  });

  it("a key written at the wrong level says where it belongs", () => {
    const error = errorOf(
      minimalPlus("  per_hour: 100", "port: 9100", "routes:", "  - match: {}", "    min_severity: high"),
    );
    expect(error.message).toBe(
      [
        "test.yaml:9: github.per_hour: unknown key here; `per_hour` belongs under `github.write_budget`",
        "test.yaml:10: port: unknown key here; `port` belongs under `health`",
        "test.yaml:13: routes[0].min_severity: unknown key here; `min_severity` belongs under `filters`",
      ].join("\n"),
    );
  });

  it("unknown keys inside list items name the item", () => {
    const error = errorOf(minimalPlus("routes:", "  - match: { severty: [high] }", "    labels: [x]"));
    expect(problemAt(error, "routes[0].match.severty")).toEqual({
      path: "routes[0].match.severty",
      line: 10,
      message: "unknown key; did you mean `severity`?",
    });
  });
});

describe("wrong values, with the exact line", () => {
  const text = minimalPlus(
    "  write_budget:", // 9
    "    per_minute: lots", // 10
    "    per_hour: -1", // 11
    "health:", // 12
    "  port: [9464]", // 13
    "filters:", // 14
    "  min_severity: hgh", // 15
    "log: { level: loud }", // 16
  );

  it("one line per problem, in file order: file:line: key: message", () => {
    expect(errorOf(text).message).toBe(
      [
        'test.yaml:10: github.write_budget.per_minute: expected a whole number >= 0, got "lots"',
        "test.yaml:11: github.write_budget.per_hour: expected a whole number >= 0, got -1",
        "test.yaml:13: health.port: expected a whole number from 0 to 65535, got a list",
        'test.yaml:15: filters.min_severity: expected one of informational, low, medium, high, critical, got "hgh"; did you mean `high`?',
        'test.yaml:16: log.level: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      ].join("\n"),
    );
  });

  it("the problems carry path, line and message for programs", () => {
    expect(problemAt(errorOf(text), "github.write_budget.per_hour")).toEqual({
      path: "github.write_budget.per_hour",
      line: 11,
      message: "expected a whole number >= 0, got -1",
    });
  });

  it("ranges, fractions, URLs, and owner/name are explained", () => {
    const error = errorOf(
      minimalPlus("  api_url: ftp://github.example.com", "  managed_label: ''", "platform_extra: 1").replace(
        "  base_url: https://api.example.com",
        "  page_limit: 1.5\n  base_url: api.example.com",
      ),
    );
    expect(error.problems).toContainEqual({
      path: "platform.page_limit",
      line: 2,
      message: "expected a whole number from 1 to 500, got 1.5",
    });
    expect(error.problems).toContainEqual({
      path: "platform.base_url",
      line: 3,
      message: "expected an http(s) URL such as https://api.example.com",
    });
    expect(error.problems).toContainEqual({
      path: "github.api_url",
      line: 10,
      message: "expected an http(s) URL such as https://api.example.com",
    });
    expect(error.problems).toContainEqual({
      path: "github.managed_label",
      line: 11,
      message: "must not be empty",
    });
  });

  it("a repository that is not owner/name says what it should look like", () => {
    const error = errorOf(minimalPlus().replace("acme/security-threats", "security-threats"));
    expect(error.message).toBe(
      'test.yaml:8: github.repository: must be owner/name, e.g. acme/security-threats, got "security-threats"',
    );
  });

  it("a missing key is reported on its parent's line", () => {
    const text = minimalPlus().replace("  client_id: ${PLATFORM_CLIENT_ID}\n", "");
    expect(errorOf(text).message).toBe("test.yaml:1: platform.client_id: required key is missing");
  });

  it("a section given as a scalar or left empty says a mapping is expected", () => {
    const error = errorOf(minimalPlus("health: 9464", "state:"));
    expect(error.problems).toEqual([
      { path: "health", line: 9, message: "expected a mapping (indented key: value lines), got 9464" },
      {
        path: "state",
        line: 10,
        message: "expected a mapping (indented key: value lines), got an empty value",
      },
    ]);
  });
});

describe("YAML syntax errors", () => {
  it("name the line of the mistake", () => {
    const error = errorOf(minimalPlus("health:", "  port: 9464", " host: 127.0.0.1"));
    expect(error.problems).toEqual([
      { path: "", line: 11, message: "YAML syntax: All mapping items must start at the same column" },
    ]);
    expect(error.message).toBe("test.yaml:11: YAML syntax: All mapping items must start at the same column");
  });

  it("a key given twice is an error on the second one", () => {
    expect(errorOf(minimalPlus("health:", "  port: 1", "  port: 2")).message).toBe(
      "test.yaml:11: YAML syntax: Map keys must be unique",
    );
  });
});

describe("routes", () => {
  it("accepts rules matching on severity, module and asset type", () => {
    const { config } = parse(
      minimalPlus(
        "routes:",
        "  - match: { severity: [critical, high], module: [leaked_credentials] }",
        "    repository: acme/urgent",
        "    labels: [urgent, creds]",
        "  - match: { asset_type: [domain] }",
        "    assignees: [dns-team-lead]",
        "  - match: {}",
      ),
    );
    expect(config.routes).toEqual([
      {
        match: { severity: ["critical", "high"], module: ["leaked_credentials"] },
        repository: "acme/urgent",
        labels: ["urgent", "creds"],
        assignees: [],
      },
      { match: { asset_type: ["domain"] }, labels: [], assignees: ["dns-team-lead"] },
      { match: {}, labels: [], assignees: [] },
    ]);
  });

  it("names the list item and the element that is wrong", () => {
    const error = errorOf(
      minimalPlus(
        "routes:", // 9
        "  - match: { severity: [critical] }", // 10
        "  - match: { severity: [critical, hihg] }", // 11
        "    repository: urgent", // 12
        "  - labels: [x]", // 13
        "  - match: { module: [] }", // 14
      ),
    );
    expect(error.message).toBe(
      [
        'test.yaml:11: routes[1].match.severity[1]: expected one of informational, low, medium, high, critical, got "hihg"; did you mean `high`?',
        'test.yaml:12: routes[1].repository: must be owner/name, e.g. acme/security-threats, got "urgent"',
        "test.yaml:13: routes[2].match: required key is missing",
        "test.yaml:14: routes[3].match.module: must list at least 1 item",
      ].join("\n"),
    );
  });
});

describe("verdicts", () => {
  it("accepted without a status_note is an error (the platform refuses it)", () => {
    const error = errorOf(
      minimalPlus(
        "verdicts:",
        "  closed:",
        "    not_planned: { status: accepted }",
        "  reopened: { status: unsolved }",
      ),
    );
    expect(error.problems).toEqual([
      {
        path: "verdicts.closed.not_planned.status_note",
        line: 11,
        message: "status accepted needs a non-empty status_note (the platform refuses it otherwise)",
      },
    ]);
  });

  it("accepted with a blank status_note is an error too", () => {
    const error = errorOf(
      minimalPlus(
        "verdicts:",
        "  closed:",
        "    duplicate:",
        "      status: accepted",
        "      status_note: '  '",
      ),
    );
    expect(problemAt(error, "verdicts.closed.duplicate.status_note").line).toBe(13);
  });

  it("accepted with a note is fine, and reasons left out keep their defaults", () => {
    const { config } = parse(
      minimalPlus(
        "verdicts:",
        "  closed:",
        "    not_planned: { status: accepted, status_note: 'Risk accepted by {{ login }}' }",
      ),
    );
    expect(config.verdicts.closed.not_planned).toEqual({
      status: "accepted",
      status_note: "Risk accepted by {{ login }}",
    });
    expect(config.verdicts.closed.completed.status).toBe("solved");
  });

  it("a status the platform does not let clients set is an error", () => {
    const error = errorOf(minimalPlus("verdicts:", "  reopened: { status: pending }"));
    expect(problemAt(error, "verdicts.reopened.status").message).toBe(
      'expected one of unsolved, solved, false_positive, accepted, got "pending"',
    );
  });
});

describe("GitHub credentials: exactly one of token or app", () => {
  const APP = ["  app:", "    app_id: 12345", "    private_key: ${KEY}"];
  const KEY_ENV = {
    ...ENV,
    KEY: "-----BEGIN PRIVATE KEY-----\nMIIE-secret-key-body\n-----END PRIVATE KEY-----",
  };

  it("an app alone is fine", () => {
    const text = minimalPlus(...APP).replace("  token: ${GITHUB_TOKEN}\n", "");
    const { config } = parse(text, KEY_ENV);
    expect(config.github.token).toBeUndefined();
    expect(config.github.app).toEqual({ app_id: 12345, private_key: KEY_ENV.KEY });
  });

  it("both is an error", () => {
    const error = errorOf(minimalPlus(...APP), KEY_ENV);
    expect(error.message).toBe("test.yaml:7: github.token: set exactly one of github.token or github.app");
    expect(error.message).not.toContain("MIIE");
  });

  it("neither is an error, on the github line", () => {
    const error = errorOf(minimalPlus().replace("  token: ${GITHUB_TOKEN}\n", ""));
    expect(error.message).toBe("test.yaml:6: github.token: set exactly one of github.token or github.app");
  });

  it("an app id must be a whole number (or its digits as a string)", () => {
    const text = minimalPlus("  app: { app_id: my-app, private_key: k }").replace(
      "  token: ${GITHUB_TOKEN}\n",
      "",
    );
    expect(problemAt(errorOf(text), "github.app.app_id")).toEqual({
      path: "github.app.app_id",
      line: 8,
      message: 'expected a whole number > 0 or a string of digits, got "my-app"',
    });
  });
});

describe("schedule (contract: cron; a sixth leading field means seconds)", () => {
  it.each(["*/5 * * * *", "0 9 * * 1-5", "*/30 * * * * *"])("accepts %s", (cron) => {
    expect(parse(minimalPlus(`schedule: "${cron}"`)).config.schedule).toBe(cron);
  });

  it.each(["every five minutes", "* * *", "* * * * * * *"])("rejects %s on its line", (cron) => {
    expect(errorOf(minimalPlus("log: { level: warn }", `schedule: "${cron}"`)).message).toBe(
      `test.yaml:10: schedule: not a valid cron expression (5 fields, or 6 with seconds), got ${JSON.stringify(cron)}`,
    );
  });
});

describe("secrets never appear in messages", () => {
  const SECRET = "platform-s3cr3t-value";

  function expectNoSecret(text: string, env: Record<string, string | undefined> = ENV): void {
    const error = errorOf(text, env);
    expect(error.message).not.toContain("s3cr3t");
    expect(JSON.stringify(error.problems)).not.toContain("s3cr3t");
    expect(String(error.cause ?? "")).not.toContain("s3cr3t");
  }

  it("not when a secret has the wrong type", () => {
    const text = minimalPlus().replace("${PLATFORM_CLIENT_SECRET}", "[s3cr3t]");
    expectNoSecret(text);
    expect(problemAt(errorOf(text), "platform.client_secret").message).toBe(
      "expected a non-empty string, got a list",
    );
  });

  it("not when a token from the environment lands next to a wrong key", () => {
    expectNoSecret(minimalPlus("  tokn: ${GITHUB_TOKEN}"), { ...ENV, GITHUB_TOKEN: "s3cr3t" });
  });

  it("not when a secret holds a malformed reference", () => {
    expectNoSecret(minimalPlus().replace("${PLATFORM_CLIENT_SECRET}", "'s3cr3t${x y}'"));
  });

  it("not when the YAML around a secret is broken", () => {
    expectNoSecret(minimalPlus().replace("${PLATFORM_CLIENT_SECRET}", '"s3cr3t'));
    expectNoSecret(minimalPlus().replace("${PLATFORM_CLIENT_SECRET}", "s3cr3t: nested: map"));
    expectNoSecret(`${minimalPlus()}...\ns3cr3t trailing text\n`);
  });

  it("not when a private key is not a string", () => {
    const text = minimalPlus("  app: { app_id: 1, private_key: [s3cr3t] }");
    expectNoSecret(text.replace("  token: ${GITHUB_TOKEN}\n", ""));
  });

  it("a valid file's secrets are in the config, for the code that needs them", () => {
    expect(parse(minimalPlus()).config.platform.client_secret).toBe(SECRET);
  });
});
