import { describe, expect, it } from "vitest";
import type { PersonChange, ThreatRecord } from "../../src/sync/schema.js";
import { ASSET_REMOVED_COMMENT, plan, REOPEN_COMMENT, type PlanInput } from "../../src/sync/plan/plan.js";
import { priorityOf } from "../../src/sync/actions/index.js";
import { gone, notRead, present } from "../../src/sync/plan/known.js";
import { policyFromConfig } from "../../src/sync/plan/policy.js";
import { noteRenderer } from "../../src/sync/plan/verdict-note.js";
import { makeConfig, REPO } from "./harness.js";

const ID = "00000000-0000-4000-8000-000000000001";
const policy = policyFromConfig(makeConfig());
const rendered = { hash: "h1", issue: { title: "T", body: "B", labels: ["threatbridge"] } };
const route = { repo: REPO, labels: [], assignees: ["oncall"] };

function record(extra: Partial<ThreatRecord> = {}): ThreatRecord {
  return {
    status: "unsolved",
    severity: 3,
    assetId: null,
    updatedAt: "u",
    ...extra,
  };
}
const issue = {
  repo: REPO,
  number: 7,
  url: "https://github.test/acme/threats/issues/7",
  state: "open" as const,
  hash: "h1",
};
const linked = { externalId: `${REPO}#7`, url: issue.url };

function input(extra: Partial<PlanInput>): PlanInput {
  return {
    threatId: ID,
    threat: present({ status: "unsolved" }),
    link: null,
    record: undefined,
    person: undefined,
    eligible: true,
    route,
    rendered,
    policy,
    ...extra,
  };
}

const person = (event: "closed" | "reopened", reason: string | null = "completed"): PersonChange => ({
  event,
  reason,
  login: "alice",
  repo: REPO,
  number: 7,
  url: issue.url,
  seenAt: "now",
});

describe("plan (pure)", () => {
  it("a new eligible threat → create in the routed repository with its assignees", () => {
    expect(plan(input({}))).toEqual([
      {
        kind: "create",
        threatId: ID,
        repo: REPO,
        title: "T",
        body: "B",
        labels: ["threatbridge"],
        assignees: ["oncall"],
        hash: "h1",
      },
    ]);
  });

  it("an ineligible threat without an issue → nothing", () => {
    expect(plan(input({ eligible: false }))).toEqual([]);
  });

  it("no issue known but the platform's github reference names one → adopt it, never create", () => {
    expect(plan(input({ link: { externalId: "acme/other#12", url: "u" } }))).toEqual([
      { kind: "adopt", threatId: ID, repo: "acme/other", number: 12 },
    ]);
  });

  it("an issue whose link is missing → link with owner/name#number and the html_url", () => {
    expect(plan(input({ record: record({ issue }) }))).toEqual([
      { kind: "link", threatId: ID, repo: REPO, number: 7, externalId: `${REPO}#7`, url: issue.url },
    ]);
  });

  it("the platform still shows no link right after the connector wrote one → no second PUT (references arrive asynchronously)", () => {
    expect(plan(input({ record: record({ issue, link: `${REPO}#7` }) }))).toEqual([]);
  });

  it("a link that points elsewhere is overwritten", () => {
    const actions = plan(
      input({ record: record({ issue, link: `${REPO}#7` }), link: { externalId: `${REPO}#9`, url: "x" } }),
    );
    expect(actions.map((a) => a.kind)).toEqual(["link"]);
  });

  it("nothing changed → no action (echoes cost nothing)", () => {
    expect(plan(input({ record: record({ issue }), link: linked }))).toEqual([]);
  });

  it("solved → one PATCH closing as completed; false_positive and accepted → not planned; pending → nothing", () => {
    const close = (status: string) =>
      plan(input({ threat: present({ status }), record: record({ issue }), link: linked }));
    expect(close("solved")).toEqual([
      { kind: "update", threatId: ID, repo: REPO, number: 7, state: "closed", stateReason: "completed" },
    ]);
    expect(close("false_positive")[0]).toMatchObject({ state: "closed", stateReason: "not_planned" });
    expect(close("accepted")[0]).toMatchObject({ state: "closed", stateReason: "not_planned" });
    expect(close("pending")).toEqual([]);
  });

  it("a state change and a content change travel in one PATCH", () => {
    const actions = plan(
      input({
        threat: present({ status: "solved" }),
        record: record({ issue: { ...issue, hash: "old" } }),
        link: linked,
      }),
    );
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      kind: "update",
      state: "closed",
      hash: "h1",
      content: rendered.issue,
    });
  });

  it("unsolved while the issue is closed → reopen and a comment", () => {
    const actions = plan(input({ record: record({ issue: { ...issue, state: "closed" } }), link: linked }));
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      kind: "update",
      state: "open",
      stateReason: "reopened",
      comment: REOPEN_COMMENT,
    });
  });

  it("a gone threat (asset removed) → close as not planned with a comment; already closed → nothing", () => {
    expect(plan(input({ threat: gone, rendered: null, record: record({ issue, gone: true }) }))).toEqual([
      {
        kind: "update",
        threatId: ID,
        repo: REPO,
        number: 7,
        state: "closed",
        stateReason: "not_planned",
        comment: ASSET_REMOVED_COMMENT,
      },
    ]);
    expect(
      plan(
        input({
          threat: gone,
          rendered: null,
          record: record({ issue: { ...issue, state: "closed" }, gone: true }),
        }),
      ),
    ).toEqual([]);
  });

  it("a person's close → PATCH solved with a status_note naming the issue and the person", () => {
    const [action] = plan(input({ record: record({ issue }), person: person("closed") }));
    expect(action).toMatchObject({ kind: "verdict", status: "solved" });
    expect(action?.kind === "verdict" && action.note).toContain(`${REPO}#7`);
    expect(action?.kind === "verdict" && action.note).toContain("alice");
  });

  it("a person's close the platform already holds (solved) → accept, no PATCH", () => {
    expect(
      plan(
        input({
          threat: present({ status: "solved" }),
          record: record({ issue }),
          person: person("closed"),
        }),
      ),
    ).toEqual([{ kind: "accept", threatId: ID, state: "closed" }]);
  });

  it("an issue closed by a person → PATCH status=solved also while the platform shows the threat pending (its own status, not a verdict)", () => {
    expect(
      plan(
        input({
          threat: present({ status: "pending" }),
          record: record({ issue }),
          person: person("closed"),
        }),
      )[0],
    ).toMatchObject({ kind: "verdict", threatId: ID, status: "solved" });
  });

  it("a person's reopen → PATCH unsolved unless the platform says unsolved already", () => {
    expect(
      plan(
        input({
          threat: present({ status: "solved" }),
          record: record({ issue }),
          person: person("reopened", null),
        }),
      )[0],
    ).toMatchObject({
      kind: "verdict",
      status: "unsolved",
    });
    expect(plan(input({ record: record({ issue }), person: person("reopened", null) }))[0]).toMatchObject({
      kind: "accept",
    });
  });

  it("a person's change on a threat that left the API → accepted as is (no verdict possible)", () => {
    expect(
      plan(
        input({
          threat: gone,
          rendered: null,
          record: record({ issue, gone: true }),
          person: person("closed"),
        }),
      ),
    ).toEqual([{ kind: "accept", threatId: ID, state: "closed" }]);
  });

  it("priority: verdicts, then closes and reopens, then creates, then updates and links", () => {
    expect(
      priorityOf([{ kind: "verdict", threatId: ID, status: "solved", note: "", person: person("closed") }]),
    ).toBe(0);
    expect(priorityOf([{ kind: "update", threatId: ID, repo: REPO, number: 1, state: "closed" }])).toBe(1);
    expect(priorityOf([{ kind: "adopt", threatId: ID, repo: REPO, number: 1 }])).toBe(2);
    expect(
      priorityOf([{ kind: "link", threatId: ID, repo: REPO, number: 1, externalId: "x", url: "u" }]),
    ).toBe(3);
  });

  it("a threat not read (unknown) is never planned on: no close as if gone, no verdict, no create", () => {
    // With the threat gone, the same input closes the issue for the asset's removal.
    expect(plan(input({ threat: gone, rendered: null, record: record({ issue }) }))).toHaveLength(1);
    expect(plan(input({ threat: notRead, rendered: null, record: record({ issue }) }))).toEqual([]);
    expect(plan(input({ threat: notRead, record: record({ issue }), person: person("closed") }))).toEqual([]);
    expect(plan(input({ threat: notRead }))).toEqual([]);
  });

  it("the built-in status notes read as they always have (contract, verdicts defaults)", () => {
    const noteOf = (change: PersonChange) => {
      // A status that agrees with neither verdict, so that both are sent.
      const threat = present({ status: "pending_review" });
      const [action] = plan(input({ threat, record: record({ issue }), person: change }));
      return action?.kind === "verdict" ? action.note : null;
    };
    expect(noteOf(person("closed", "not_planned"))).toBe(
      `Closed on GitHub (${REPO}#7) by alice as not_planned.`,
    );
    expect(noteOf(person("closed", null))).toBe(`Closed on GitHub (${REPO}#7) by alice as completed.`);
    expect(noteOf(person("reopened", null))).toBe(`Reopened on GitHub (${REPO}#7) by alice.`);
  });

  it("a status note is a Liquid template of the person's change: issue, url, login, reason; filters apply, unknown names are empty", () => {
    const render = noteRenderer();
    const change = person("closed", "not_planned");
    expect(render("{{ issue }} by {{login | upcase}} as {{ reason }} ({{ url }}){{ other }}", change)).toBe(
      `${REPO}#7 by ALICE as not_planned (${change.url})`,
    );
    expect(render("no tags at all", change)).toBe("no tags at all");
    expect(render(undefined, change)).toBe("");
  });
});
