import { afterEach, describe, expect, it } from "vitest";
import { createGitHub } from "../../src/github/index.js";
import {
  startGitHubStandIn,
  type RunningStandIn,
  type StandInOptions,
} from "../../src/github-stand-in/index.js";
import { createLogger } from "../../src/observability/index.js";
import { fakeTime } from "./fake-time.js";

const ORG_REPO = "acme/threats";
const USER_REPO = "alice/tools";
let standIn: RunningStandIn | undefined;

afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

/** A logger whose lines the test reads (JSON lines into an array). */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: "debug",
    destination: {
      write(line: string) {
        const parsed: unknown = JSON.parse(line);
        if (typeof parsed === "object" && parsed !== null)
          lines.push(Object.fromEntries(Object.entries(parsed)));
      },
    },
  });
  return { logger, lines };
}

async function setUp(opts: StandInOptions, issueType: string | undefined) {
  const time = fakeTime(Date.now());
  standIn = await startGitHubStandIn(opts);
  const log = capture();
  const gh = createGitHub({
    apiUrl: standIn.url,
    auth: { token: "ghp_standin" },
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    retryAfterBaseValue: 1,
    clock: time.clock,
    sleep: time.sleep,
    logger: log.logger,
    issueType,
  });
  const create = (repo: string, title = "t") =>
    gh.createIssue(repo, { title, body: "b", labels: [], assignees: [] });
  return { gh, standIn, create, lines: log.lines };
}

const typeReads = (s: RunningStandIn): number =>
  s.counters().byRoute["GET /repos/{owner}/{repo}/issue-types"] ?? 0;

describe("GitHub gateway: github.issue_type on created issues", () => {
  it("sets the type where the repository offers it, reading the repository's types once per process", async () => {
    const { create, standIn: s } = await setUp(
      { issueTypes: { acme: ["Bug", "Vulnerability"] } },
      "vulnerability",
    );
    await create(ORG_REPO, "a");
    await create(ORG_REPO, "b");
    expect(s.issues(ORG_REPO).map((i) => i.type)).toEqual(["Vulnerability", "Vulnerability"]);
    expect(typeReads(s)).toBe(1);
  });

  it("leaves the type out where the repository does not offer it, and says so once in the log", async () => {
    const {
      create,
      standIn: s,
      lines,
    } = await setUp({ issueTypes: { acme: ["Vulnerability"] } }, "Vulnerability");
    await create(USER_REPO, "a");
    await create(USER_REPO, "b");
    await create(ORG_REPO, "c");
    expect(s.issues(USER_REPO).map((i) => i.type)).toEqual([null, null]);
    expect(s.issues(ORG_REPO).map((i) => i.type)).toEqual(["Vulnerability"]);
    const said = lines.filter((l) => String(l["msg"]).includes("issue type"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ repo: USER_REPO, issue_type: "Vulnerability" });
  });

  it("a server without issue types (404 on …/issue-types): created without a type, said once", async () => {
    const { create, standIn: s, lines } = await setUp({ issueTypes: "unavailable" }, "Vulnerability");
    await create(ORG_REPO, "a");
    await create(ORG_REPO, "b");
    expect(s.issues(ORG_REPO)).toHaveLength(2);
    expect(lines.filter((l) => String(l["msg"]).includes("issue types"))).toHaveLength(1);
  });

  it("a 422 over the type is retried once without it and the repository marked: no failed create, no loop", async () => {
    const {
      gh,
      create,
      standIn: s,
      lines,
    } = await setUp({ issueTypes: { acme: ["Vulnerability"] } }, "Vulnerability");
    // The types are read while the type exists...
    expect(await gh.issueTypeOffer(ORG_REPO)).toEqual({ offer: "offered", name: "Vulnerability" });
    await create(ORG_REPO, "first");
    // ...then an admin removes it: GitHub refuses the next create over its type.
    s.person.setIssueTypes("acme", ["Bug"]);
    const created = await create(ORG_REPO, "second");
    expect(created.number).toBe(2);
    expect(s.issues(ORG_REPO).map((i) => i.type)).toEqual(["Vulnerability", null]);
    // From then on the repository is taken as not offering a type: one POST per create.
    const writes = s.counters().writes;
    await create(ORG_REPO, "third");
    expect(s.counters().writes).toBe(writes + 1);
    expect(s.issues(ORG_REPO)[2]?.type).toBeNull();
    expect(lines.filter((l) => String(l["msg"]).includes("refused the configured issue type"))).toHaveLength(
      1,
    );
  });

  it("no issue_type configured: no type read, no type sent", async () => {
    const { create, standIn: s } = await setUp({ issueTypes: { acme: ["Vulnerability"] } }, undefined);
    await create(ORG_REPO);
    expect(typeReads(s)).toBe(0);
    expect(s.issues(ORG_REPO)[0]?.type).toBeNull();
  });

  it("issueTypeOffer tells offered, not offered and unavailable apart (for `check`)", async () => {
    const { gh } = await setUp({ issueTypes: { acme: ["Vulnerability"] } }, "Vulnerability");
    expect(await gh.issueTypeOffer(ORG_REPO)).toEqual({ offer: "offered", name: "Vulnerability" });
    expect(await gh.issueTypeOffer(USER_REPO)).toEqual({ offer: "not_offered", offered: [] });
    await standIn?.close();
    const other = await setUp({ issueTypes: "unavailable" }, "Vulnerability");
    expect(await other.gh.issueTypeOffer(ORG_REPO)).toMatchObject({ offer: "unavailable", status: 404 });
  });
});
