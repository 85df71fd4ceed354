import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText } from "../../src/config/index.js";

const BASE = `platform:
  base_url: http://127.0.0.1:8080
  token_url: http://127.0.0.1:8080/oauth/token
  client_id: id
  client_secret: secret
github:
  token: t
  repository: acme/threats
`;

describe("config: templates", () => {
  it("a template that does not compile is a config error naming templates.body and its line", () => {
    let caught: unknown;
    try {
      parseConfigText(`${BASE}templates:\n  body: "{% include 'x' %}"\n`, "t.yaml", {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught instanceof Error ? caught.message : "").toMatch(
      /t\.yaml:10: templates\.body: invalid template/,
    );
  });

  it("a good template validates", () => {
    const { config } = parseConfigText(
      `${BASE}templates:\n  title: "{{ threat.title }} on {{ asset.name }}"\n`,
      "t.yaml",
      {},
    );
    expect(config.templates.title).toContain("threat.title");
  });

  it("a verdict's status note that is not valid Liquid is a config error naming the note and its line", () => {
    let caught: unknown;
    try {
      parseConfigText(
        `${BASE}verdicts:\n  reopened:\n    status: unsolved\n    status_note: "Reopened {% if %}"\n`,
        "t.yaml",
        {},
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught instanceof Error ? caught.message : "").toMatch(
      /t\.yaml:12: verdicts\.reopened\.status_note: invalid template/,
    );
  });
});
