import type { Logger } from "../observability/index.js";
import { DAY_MS, utcDay } from "../shared/duration.js";
import { GROUP_LABEL } from "../shared/labels.js";
import { runCycle } from "../sync/index.js";
import { clip, DemoError, firstLine, plural, shortId, type Say } from "./narrate.js";
import { DEMO_REPO, startDemoWorld, type DemoWorld, type OpenDemoEngine } from "./setup.js";
import { DEMO_ROUTES, ROUTED_REPO, routeByAsset } from "./route-step.js";

/**
 * `threatbridge demo --workflow` (contract, "Workflow"): the same in-process world as the demo, with
 * grouping, SLAs and risk acceptance switched on, and a clock the demo moves forward so that a due
 * date passes and an acceptance expires in seconds. Every figure it prints is read back from the
 * GitHub stand-in and the simulator, not from the connector's own account.
 */

interface WorkflowDemoOptions {
  say: Say;
  openEngine: OpenDemoEngine;
  logger: Logger;
  seed?: number;
  threats?: number;
  assets?: number;
  tmpRoot?: string;
}

const BREACH_LABEL = "sla:breached";
const NOTE_BEGIN = "--- threatbridge: GitHub ---";
const ACCEPT_LABEL = "risk-accepted";
const DEMO_OWNER = DEMO_REPO.split("/")[0] ?? "acme";

/** The workflow settings the demo runs with (the contract's keys; short SLAs so one shows a breach). */
const WORKFLOW_DEMO_CONFIG = {
  grouping: {
    by: "asset",
    mode: "parent",
    min_members: 2,
    title: "{{ group.name }}: {{ group.open }} open of {{ group.total }}",
  },
  sla: {
    critical: "2d",
    high: "7d",
    medium: "30d",
    low: "90d",
    breach_label: BREACH_LABEL,
    milestones: "weekly",
  },
  acceptance: { label: ACCEPT_LABEL, default: "30d", max: "90d", warn_before: "7d" },
  github: {
    project: {
      owner: DEMO_OWNER,
      number: 1,
      fields: { Severity: "{{ threat.severity }}", Due: "{{ sla.due }}", Asset: "{{ asset.name }}" },
    },
  },
  notes: { comments: 3, to_github: true },
  routes: DEMO_ROUTES,
} as const;

type StandInIssue = ReturnType<DemoWorld["gh"]["issues"]>[number];

/**
 * The day the story starts on, whatever today is: the connector, the simulator and the GitHub
 * stand-in all read the story's clock (this instant, plus the real time the demo has run, plus the
 * days the story skips), so that every date the demo shows (due dates, a person's comment, the
 * note's times) belongs to the story and the narration reads the same on any day.
 */
const STORY_START_MS = Date.parse("2026-12-01T09:00:00.000Z");

interface Run {
  world: DemoWorld;
  say: Say;
  /** The story's time without the days it skipped: its start plus the real time run so far. */
  base(): number;
  offsetMs: number;
  cycles: number;
}

async function cycle(run: Run, what: string): Promise<number> {
  const before = run.world.ctx.github.stats().writes;
  const report = await runCycle(run.world.ctx);
  run.cycles += 1;
  if (!report.ok) throw new DemoError(`the ${what} cycle failed: ${report.error ?? "some work failed"}`);
  run.world.sim.sim.settle();
  return run.world.ctx.github.stats().writes - before;
}

function issues(world: DemoWorld): StandInIssue[] {
  return world.gh.issues(DEMO_REPO);
}

function dueOf(issue: StandInIssue): string | null {
  return /Due: (\d{4}-\d{2}-\d{2})/.exec(issue.body ?? "")?.[1] ?? null;
}

function threatOf(world: DemoWorld, number: number): string | null {
  for (const [threatId, record] of world.ctx.state.threats.entries()) {
    if (record.issue?.number === number) return threatId;
  }
  return null;
}

function now(run: Run): number {
  return run.base() + run.offsetMs;
}

async function firstCycle(run: Run): Promise<void> {
  const { world, say } = run;
  const writes = await cycle(run, "first");
  const all = issues(world);
  const parents = all.filter((i) => i.labels.includes(GROUP_LABEL));
  const members = all.filter((i) => !i.labels.includes(GROUP_LABEL));
  say(
    `1. First cycle (${plural(writes, "GitHub write")}): ${plural(members.length, "issue")} for threats, ${plural(parents.length, "parent issue")} for their groups (by asset).`,
  );
  const parent = [...parents].sort(
    (a, b) => all.filter((i) => i.parentId === b.id).length - all.filter((i) => i.parentId === a.id).length,
  )[0];
  if (!parent) throw new DemoError("no group reached two open members: no parent issue was made");
  const subs = all.filter((i) => i.parentId === parent.id);
  say(`   #${parent.number} "${clip(parent.title, 70)}" has ${plural(subs.length, "sub-issue")}:`);
  for (const sub of subs.slice(0, 4)) say(`     #${String(sub.number).padEnd(3)} ${clip(sub.title, 70)}`);
  const checklist = (parent.body ?? "").split("\n").filter((l) => /^- \[[ x]\] /.test(l));
  say(
    `   Its body keeps a checklist of them too (${plural(checklist.length, "line")}), e.g. "${clip(checklist[0] ?? "", 70)}"`,
  );
  const dated = members
    .filter((i) => dueOf(i) !== null)
    .sort((a, b) => (dueOf(a) ?? "").localeCompare(dueOf(b) ?? ""));
  const milestones = new Set(dated.map((i) => i.milestone).filter((m) => m !== null));
  say(
    `   ${plural(dated.length, "issue")} show an SLA due date (critical 2 days, high 7, medium 30, low 90), in ${plural(milestones.size, "weekly milestone")}:`,
  );
  for (const i of dated.slice(0, 3))
    say(`     #${String(i.number).padEnd(3)} Due: ${dueOf(i)}  ${clip(i.title, 60)}`);
}

/** The project board the issues joined (github.project), as the stand-in shows it. */
function board(run: Run): void {
  const { world, say } = run;
  const items = world.gh.projects.items(DEMO_OWNER, 1);
  const byIssueId = new Map(issues(world).map((i) => [i.id, i]));
  say(
    `   They joined the project board ${DEMO_OWNER}/1 (${plural(items.length, "item")}, Severity, Due and Asset set in one PATCH each), e.g.:`,
  );
  for (const item of items.slice(0, 3)) {
    const issue = byIssueId.get(item.issueId);
    const values = Object.entries(item.values)
      .map(([name, value]) => `${name}: ${String(value)}`)
      .join(", ");
    say(`     #${String(issue?.number ?? "?").padEnd(3)} ${values}`);
  }
}

async function breach(run: Run): Promise<void> {
  const { world, say } = run;
  run.offsetMs += 3 * DAY_MS;
  const writes = await cycle(run, "breach");
  const breached = issues(world).filter((i) => i.labels.includes(BREACH_LABEL));
  say(`2. Three days later (on the connector's clock: ${utcDay(now(run))}), one cycle:`);
  say(
    breached.length > 0
      ? `   ${plural(breached.length, "open issue")} passed ${breached.length === 1 ? "its" : "their"} due date: "${BREACH_LABEL}" added (${plural(writes, "GitHub write")}, no issue read to decide it), e.g. #${breached[0]?.number}.`
      : `   No open issue passed its due date (${plural(writes, "GitHub write")}).`,
  );
}

/** A person accepts the risk of one open issue; answers its number and the threat behind it. */
async function accept(run: Run): Promise<{ number: number; threatId: string; until: string }> {
  const { world, say } = run;
  const candidates = issues(world).filter(
    (i) => i.state === "open" && !i.labels.includes(GROUP_LABEL) && threatOf(world, i.number) !== null,
  );
  const target = candidates.find(
    (i) => world.sim.sim.getThreat(threatOf(world, i.number) ?? "")?.status === "unsolved",
  );
  if (!target) throw new DemoError("no open issue of an unsolved threat is left to accept");
  const threatId = threatOf(world, target.number) ?? "";
  const until = utcDay(now(run) + 20 * DAY_MS);
  world.gh.person.relabel(DEMO_REPO, target.number, [...target.labels, ACCEPT_LABEL], "carol");
  world.gh.person.comment(
    DEMO_REPO,
    target.number,
    `We accept this until the vendor ships a fix.\nAccepted until: ${until}`,
    "carol",
  );
  world.gh.person.close(DEMO_REPO, target.number, { reason: "not_planned", login: "carol" });
  await cycle(run, "acceptance");
  const status = world.sim.sim.getThreat(threatId)?.status ?? "unknown";
  say(
    `3. A person (carol) labels #${target.number} "${ACCEPT_LABEL}", comments "Accepted until: ${until}" and closes it as not planned.`,
  );
  say(
    `   Next cycle: PATCH /v1/threats/${shortId(threatId)} status=accepted; the platform now says "${status}".`,
  );
  const comment = world.gh.comments(DEMO_REPO, target.number).at(-1);
  if (comment) say(`   The connector comments: "${firstLine(comment.body)}"`);
  // The threat's note on the platform (notes): the analyst's text kept, the connector's section after it.
  const note = world.sim.sim.getThreat(threatId)?.note ?? "";
  const at = note.indexOf(NOTE_BEGIN);
  if (at >= 0) {
    say(`   The threat's note on the platform now tells the issue's story (its section of the note):`);
    for (const line of note.slice(at).split("\n").slice(0, 9)) say(`     ${clip(line, 90)}`);
  }
  if (status !== "accepted")
    throw new DemoError(`the acceptance of #${target.number} did not reach the platform`);
  return { number: target.number, threatId, until };
}

async function warnAndExpire(
  run: Run,
  accepted: { number: number; threatId: string; until: string },
): Promise<void> {
  const { world, say } = run;
  const untilMs = Date.parse(`${accepted.until}T23:59:59.999Z`);
  run.offsetMs = untilMs - 5 * DAY_MS - run.base();
  const commentsBefore = world.gh.comments(DEMO_REPO, accepted.number).length;
  await cycle(run, "warning");
  const warning = world.gh.comments(DEMO_REPO, accepted.number).slice(commentsBefore).at(-1);
  say(
    `4. Five days before ${accepted.until}: ${warning ? `a warning on #${accepted.number}: "${firstLine(warning.body)}"` : "no warning was posted"}.`,
  );
  run.offsetMs = untilMs + DAY_MS - run.base();
  await cycle(run, "expiry");
  const status = world.sim.sim.getThreat(accepted.threatId)?.status ?? "unknown";
  const issue = issues(world).find((i) => i.number === accepted.number);
  say(
    `5. The day after ${accepted.until} the acceptance has expired: the platform says "${status}", #${accepted.number} is ${issue?.state ?? "gone"}.`,
  );
  const last = world.gh.comments(DEMO_REPO, accepted.number).at(-1);
  if (last && issue?.state === "open") say(`   "${firstLine(last.body)}"`);
}

/**
 * An analyst's words on the platform reach the issue (notes.to_github): the analyst writes in the
 * threat's note, around the connector's section, and the next cycle posts one comment quoting it.
 */
async function analystNote(run: Run, on: { number: number; threatId: string }): Promise<void> {
  const { world, say } = run;
  const note = world.sim.sim.getThreat(on.threatId)?.note ?? "";
  const at = note.indexOf(NOTE_BEGIN);
  const section = at >= 0 ? note.slice(at) : "";
  const text = "Confirmed exploitable from the internet; @dave says the vendor patch ships Tuesday.";
  world.sim.sim.updateThreat(on.threatId, { note: section === "" ? text : `${text}\n\n${section}` });
  const before = world.gh.comments(DEMO_REPO, on.number).length;
  const writes = await cycle(run, "analyst's note");
  const posted = world.gh
    .comments(DEMO_REPO, on.number)
    .slice(before)
    .filter((c) => c.body.startsWith("Platform note"));
  say(
    `6. An analyst writes in the threat's note on the platform (${shortId(on.threatId)}), above the connector's section:`,
  );
  say(`     "${text}"`);
  say(
    `   Next cycle (${plural(writes, "GitHub write")}): one comment on #${on.number}, quoted inertly (no @mention):`,
  );
  for (const line of (posted[0]?.body ?? "").split("\n").filter((l) => l !== "" && !l.startsWith("<!--")))
    say(`     ${clip(line, 90)}`);
  const echo = await cycle(run, "echo");
  say(
    `   The echo of that change and an unchanged note post nothing: the next cycle made ${plural(echo, "GitHub write")}.`,
  );
  if (posted.length !== 1)
    throw new DemoError(`the analyst's note did not reach #${on.number} as one comment`);
}

function summary(run: Run): void {
  const gh = run.world.ctx.github.stats();
  run.say(
    `8. In all, ${plural(run.cycles, "cycle")} over ${Math.round(run.offsetMs / DAY_MS)} days of the connector's clock: ${plural(gh.writes, "GitHub write")}, ${plural(gh.requests, "GitHub request")}.`,
  );
}

export async function runWorkflowDemo(opts: WorkflowDemoOptions): Promise<void> {
  const seed = opts.seed ?? 7;
  const threats = opts.threats ?? 16;
  const assets = opts.assets ?? 4;
  const startedAt = Date.now();
  const run: Run = {
    world: null as unknown as DemoWorld,
    say: opts.say,
    base: () => STORY_START_MS + (Date.now() - startedAt),
    offsetMs: 0,
    cycles: 0,
  };
  const clock = { now: () => now(run) };
  run.world = await startDemoWorld({
    openEngine: opts.openEngine,
    logger: opts.logger,
    seed,
    threats,
    assets,
    extraConfig: WORKFLOW_DEMO_CONFIG,
    clock,
    ...(opts.tmpRoot !== undefined ? { tmpRoot: opts.tmpRoot } : {}),
  });
  try {
    // The board the created issues join (github.project): a single-select Severity, a date, a text.
    run.world.gh.projects.create({
      owner: DEMO_OWNER,
      number: 1,
      title: "Security threats",
      fields: [
        {
          name: "Severity",
          type: "single_select",
          options: ["Critical", "High", "Medium", "Low", "Informational"],
        },
        { name: "Due", type: "date" },
        { name: "Asset", type: "text" },
      ],
    });
    opts.say(
      "threatbridge demo --workflow: groups, SLA due dates, risk acceptance; all in this process, on 127.0.0.1.",
    );
    opts.say(
      `   platform: a simulator with ${threats} threats on ${assets} assets (seed ${seed}); GitHub: a local stand-in`,
    );
    opts.say("   config:   grouping by asset (parent issues with sub-issues), SLA by severity with weekly");
    opts.say(`             milestones and "${BREACH_LABEL}", acceptance by the "${ACCEPT_LABEL}" label,`);
    opts.say(`             the issues on the project board ${DEMO_OWNER}/1 (github.project)`);
    opts.say("             notes: the threat's note on the platform tells its issue's story, and");
    opts.say("             the analyst's own words in it come to the issue (notes.to_github)");
    opts.say(`             a route by asset name and business value to ${ROUTED_REPO}`);
    opts.say("");
    await firstCycle(run);
    board(run);
    await breach(run);
    const accepted = await accept(run);
    await warnAndExpire(run, accepted);
    await analystNote(run, accepted);
    await routeByAsset({ world: run.world, say: run.say, cycle: (what) => cycle(run, what) }, 7);
    summary(run);
  } finally {
    await run.world.close();
  }
}
