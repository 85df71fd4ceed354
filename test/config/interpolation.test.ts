import { describe, expect, it } from "vitest";
import { parseConfigText, UNRESOLVED_SECRET } from "../../src/config/index.js";
import { ENV, errorOf, MINIMAL_LINES, minimalPlus, parse, problemAt, yamlOf } from "./helpers.js";

/** Contract, "Configuration": `${VAR}` and `${VAR:-default}` are replaced from the environment. */
describe("environment interpolation", () => {
  it("replaces ${VAR} anywhere in a value, more than once", () => {
    const { config } = parse(minimalPlus("state:", "  path: /var/lib/${APP}/${APP}-state.json"), {
      ...ENV,
      APP: "tb",
    });
    expect(config.state.path).toBe("/var/lib/tb/tb-state.json");
  });

  it("uses the default of ${VAR:-default} when VAR is unset or empty, and VAR when set", () => {
    const text = minimalPlus("state:", "  path: ${STATE_PATH:-./data/other.json}");
    expect(parse(text).config.state.path).toBe("./data/other.json");
    expect(parse(text, { ...ENV, STATE_PATH: "" }).config.state.path).toBe("./data/other.json");
    expect(parse(text, { ...ENV, STATE_PATH: "/srv/state.json" }).config.state.path).toBe("/srv/state.json");
  });

  it("a default may hold colons and slashes (a URL)", () => {
    const text = minimalPlus("  api_url: ${GITHUB_API_URL:-http://127.0.0.1:3000/api/v3}");
    expect(parse(text).config.github.api_url).toBe("http://127.0.0.1:3000/api/v3");
  });

  it("an unset variable without default is an error naming the variable, the key path and the line; a secret's hint never suggests a default written into the file", () => {
    const error = errorOf(minimalPlus(), { PLATFORM_CLIENT_ID: "id", GITHUB_TOKEN: "t" });
    expect(error.problems).toEqual([
      {
        path: "platform.client_secret",
        line: 5,
        message:
          "environment variable PLATFORM_CLIENT_SECRET is not set (set it, or give the key's _file form: a file holding the secret)",
      },
    ]);
    expect(error.message).toMatch(
      /^test\.yaml:5: platform\.client_secret: environment variable PLATFORM_CLIENT_SECRET/,
    );
  });

  it("reports every unset variable at once, in list items too", () => {
    const error = errorOf(minimalPlus("routes:", "  - match: {}", "    labels: ['team-${TEAM}']"), {});
    expect(error.problems.map((p) => `${p.line} ${p.path}`)).toEqual([
      "4 platform.client_id",
      "5 platform.client_secret",
      "7 github.token",
      "11 routes[0].labels[0]",
    ]);
  });

  it("$$ writes a literal $, so $${ writes a literal ${ (as in Docker Compose)", () => {
    const { config } = parse(
      minimalPlus("templates:", "  title: 'cost: $${AMOUNT} $$${CURRENCY:-EUR} US$ {{ threat.title }}'"),
    );
    expect(config.templates.title).toBe("cost: ${AMOUNT} $EUR US$ {{ threat.title }}");
  });

  it("a variable's value is used as it is, never interpolated again", () => {
    const { config } = parse(minimalPlus(), { ...ENV, PLATFORM_CLIENT_SECRET: "a${B}c$${d" });
    expect(config.platform.client_secret).toBe("a${B}c$${d");
  });

  it("values keep their string type: a numeric client id stays a string", () => {
    const { config } = parse(minimalPlus(), { ...ENV, PLATFORM_CLIENT_ID: "12345" });
    expect(config.platform.client_id).toBe("12345");
  });

  it("a reference on a key that takes a whole number gives a number (health.port: ${PORT})", () => {
    const text = minimalPlus("health:", "  port: ${PORT}", "  host: ${HOST:-127.0.0.1}");
    expect(parse(text, { ...ENV, PORT: "9100" }).config.health).toEqual({ port: 9100, host: "127.0.0.1" });
    const quoted = minimalPlus("health:", '  port: "${PORT:-9200}"');
    expect(parse(quoted).config.health.port).toBe(9200);
    const budget = minimalPlus("  write_budget: { per_hour: '${PER_HOUR}' }");
    expect(parse(budget, { ...ENV, PER_HOUR: "0" }).config.github.write_budget.per_hour).toBe(0);
  });

  it("a reference that gives no number on a number key fails validation with the key's line", () => {
    const error = errorOf(minimalPlus("health:", "  port: ${PORT}"), { ...ENV, PORT: "ninety" });
    expect(problemAt(error, "health.port")).toEqual({
      path: "health.port",
      line: 10,
      message: 'expected a whole number from 0 to 65535, got "ninety"',
    });
  });

  it('a number the operator quoted by hand stays a string and is an error (port: "9464")', () => {
    const error = errorOf(minimalPlus("health:", '  port: "9464"'));
    expect(problemAt(error, "health.port").message).toBe(
      'expected a whole number from 0 to 65535, got "9464"',
    );
  });

  it("GitHub App ids may come from the environment", () => {
    const text = yamlOf([
      "platform: { base_url: 'http://p', token_url: 'http://p/t', client_id: a, client_secret: b }",
      "github:",
      "  repository: acme/x",
      "  app:",
      "    app_id: ${APP_ID}",
      "    installation_id: ${INSTALLATION_ID}",
      "    private_key: ${KEY}",
    ]);
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n";
    const { config } = parse(text, { APP_ID: "42", INSTALLATION_ID: "7", KEY: pem });
    expect(config.github.app).toEqual({ app_id: "42", installation_id: 7, private_key: pem });
  });

  it("a malformed reference is an error, with the way to write a literal ${", () => {
    const error = errorOf(minimalPlus("state:", "  path: ./${not a name}.json", "log:", "  level: ${LEVEL"));
    expect(error.problems).toEqual([
      {
        path: "state.path",
        line: 10,
        message: "${not a name} is not of the form ${NAME} or ${NAME:-default} (write $${ for a literal ${)",
      },
      { path: "log.level", line: 12, message: "unclosed ${ in the value (write $${ for a literal ${)" },
    ]);
  });

  it("inside [...] or {...} an unquoted ${VAR} is a YAML syntax error whose message says to quote it", () => {
    const error = errorOf(minimalPlus("  write_budget: { per_hour: ${PER_HOUR} }"));
    expect(error.problems).toEqual([
      {
        path: "",
        line: 9,
        message:
          "YAML syntax: Unexpected flow-map-start at node end (quote a value that holds ${VAR}: '${VAR}')",
      },
    ]);
  });

  it("keys and comments are left alone", () => {
    const { config } = parse(
      minimalPlus("# ${NOT_SET} in a comment", "state: { path: ./s.json } # ${NOT_SET}"),
    );
    expect(config.state.path).toBe("./s.json");
  });

  it("contract, `status` needs no secret: secrets set but empty read like unset ones there, and are still refused elsewhere", () => {
    const empty = { PLATFORM_CLIENT_ID: "threatbridge", PLATFORM_CLIENT_SECRET: "", GITHUB_TOKEN: "" };
    for (const env of [empty, { PLATFORM_CLIENT_ID: "threatbridge" }]) {
      const { config } = parseConfigText(minimalPlus(), "test.yaml", env, {
        unresolvedSecrets: "placeholder",
      });
      expect(config.platform.client_secret).toBe(UNRESOLVED_SECRET);
      expect(config.github.token).toBe(UNRESOLVED_SECRET);
    }
    // A command that uses the secrets (sync, run, check) names the file, line and key of each.
    expect(errorOf(minimalPlus(), empty).message).toBe(
      "test.yaml:5: platform.client_secret: must not be empty\ntest.yaml:7: github.token: must not be empty",
    );
  });

  it("contract, `status` needs no secret in the environment: the ids that go with the secrets (platform.client_id, a GitHub App's ids) may be unset there too, and are still required elsewhere", () => {
    const app = yamlOf([
      ...MINIMAL_LINES.filter((line) => !line.includes("token:")),
      "  app:",
      "    app_id: ${GITHUB_APP_ID}",
      "    installation_id: ${GITHUB_INSTALLATION_ID}",
      "    private_key: ${GITHUB_APP_PRIVATE_KEY}",
    ]);
    for (const text of [minimalPlus(), app]) {
      const { config } = parseConfigText(text, "test.yaml", {}, { unresolvedSecrets: "placeholder" });
      expect(config.platform.client_secret).toBe(UNRESOLVED_SECRET);
    }
    expect(errorOf(minimalPlus(), { PLATFORM_CLIENT_SECRET: "s", GITHUB_TOKEN: "t" }).message).toBe(
      "test.yaml:4: platform.client_id: environment variable PLATFORM_CLIENT_ID is not set (or write ${PLATFORM_CLIENT_ID:-default} to give a default)",
    );
    expect(
      errorOf(app, {
        PLATFORM_CLIENT_ID: "id",
        PLATFORM_CLIENT_SECRET: "s",
        GITHUB_APP_PRIVATE_KEY: "k",
      }).problems.map((p) => p.path),
    ).toEqual(["github.app.app_id", "github.app.installation_id"]);
  });
});
