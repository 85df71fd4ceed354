import type { Logger } from "../observability/index.js";
import { runCycle, type CycleReport } from "../sync/index.js";
import { clip, DemoError, firstLine, plural, shortId, type Say } from "./narrate.js";
import { demoTally, type DemoCounts, type DemoTally } from "./tally.js";
import { DEMO_REPO, startDemoWorld, type OpenDemoEngine, type DemoWorld } from "./setup.js";
import { rankOfSeverity } from "../shared/severity.js";
import { closingHint, type Place } from "./closing-hint.js";

/**
 * `threatbridge demo` (contract: "the embedded default: simulator + local GitHub stand-in +
 * connector in one process, narrated"). Each step changes one side, runs one cycle, and tells what
 * the connector did and why, with numbers from its events (tally.ts) and from both sides.
 */

interface DemoOptions {
  say: Say;
  openEngine: OpenDemoEngine;
  logger: Logger;
  seed?: number;
  threats?: number;
  assets?: number;
  /** Where the demo runs, for the commands its last words name (default: a checkout's root). */
  place?: Place;
  /** Where the temp state directory goes (default: the OS temp directory); removed at the end. */
  tmpRoot?: string;
}

/** Findings the simulator re-tests itself, so a `solved` verdict answers `pending` (spec, status table row 3). */
const RETESTED_MODULES = new Set(["vulnerability", "web", "dns"]);

interface Mapped {
  threatId: string;
  number: number;
  assetId: string | null;
}

interface Run {
  world: DemoWorld;
  say: Say;
  tally: DemoTally;
  cycles: number;
}

async function cycle(
  run: Run,
  what: string,
): Promise<{ report: CycleReport; did: DemoCounts; writes: number }> {
  const before = run.world.ctx.github.stats().writes;
  const report = await runCycle(run.world.ctx);
  run.cycles += 1;
  if (!report.ok) throw new DemoError(`the ${what} cycle failed: ${report.error ?? "some work failed"}`);
  // The platform applies external references after a short delay (spec); the demo does not wait.
  run.world.sim.sim.settle();
  return { report, did: run.tally.cycle(), writes: run.world.ctx.github.stats().writes - before };
}

function mappedIssues(world: DemoWorld): Mapped[] {
  return [...world.ctx.state.threats.entries()]
    .flatMap(([threatId, r]) => (r.issue ? [{ threatId, number: r.issue.number, assetId: r.assetId }] : []))
    .sort((a, b) => a.number - b.number);
}

function issue(world: DemoWorld, number: number): ReturnType<DemoWorld["gh"]["issues"]>[number] {
  const found = world.gh.issues(DEMO_REPO).find((i) => i.number === number);
  if (!found) throw new DemoError(`issue #${number} is missing on the GitHub stand-in`);
  return found;
}

function severityOf(world: DemoWorld, threatId: string): string {
  return world.sim.sim.getThreat(threatId)?.severity ?? "unknown";
}

async function firstCycle(run: Run): Promise<void> {
  const { world, say } = run;
  const statuses = world.sim.sim.threatIds().map((id) => world.sim.sim.getThreat(id)?.status ?? "");
  const closedAtFirstSight = statuses.filter(
    (s) => s === "solved" || s === "false_positive" || s === "accepted",
  ).length;
  const { did } = await cycle(run, "first");
  const mapped = mappedIssues(world);
  say(
    `1. First cycle: read ${plural(did.threatsRead, "threat")} and ${plural(did.assetsRead, "asset")} from the platform's streams.`,
  );
  say(
    `   Created ${plural(did.created, "issue")}, one per threat that is unsolved or pending, most severe first:`,
  );
  const top = [...mapped].sort(
    (a, b) =>
      (rankOfSeverity(severityOf(world, b.threatId)) ?? 0) -
      (rankOfSeverity(severityOf(world, a.threatId)) ?? 0),
  );
  for (const m of top.slice(0, 3)) {
    say(
      `     #${String(m.number).padEnd(3)} ${severityOf(world, m.threatId).padEnd(9)} ${clip(issue(world, m.number).title, 70)}`,
    );
  }
  say(
    `   ${plural(closedAtFirstSight, "threat was", "threats were")} first seen solved, false positive or accepted: no issue for ${closedAtFirstSight === 1 ? "it" : "them"}.`,
  );
  const sample = mapped[0];
  const link = sample
    ? world.sim.sim.getThreat(sample.threatId)?.external_references.find((r) => r.system === "github")
    : undefined;
  say(
    `   Each issue is linked back on the platform (PUT …/external-references/github): ${plural(did.links, "link")},`,
  );
  if (sample && link) say(`     e.g. threat ${shortId(sample.threatId)} → external_id "${link.external_id}"`);
}

async function echoCycle(run: Run): Promise<void> {
  const { did, writes } = await cycle(run, "second");
  run.say(
    `2. Second cycle: the connector's own links come back on the threat stream (the spec says they do):`,
  );
  run.say(`   read ${plural(did.threatsRead, "threat")} again; GitHub writes this cycle: ${writes}.`);
  run.say(
    writes === 0
      ? "   Nothing an issue shows has changed, so nothing is sent: the echo is free."
      : "   (Some writes were due after all: a threat changed on the platform in between.)",
  );
}

/** A person closes an issue; answers the threat it belongs to and whether it is now pending. */
async function personCloses(run: Run): Promise<Mapped> {
  const { world, say } = run;
  const open = mappedIssues(world).filter((m) => issue(world, m.number).state === "open");
  const unsolved = open.filter((m) => world.sim.sim.getThreat(m.threatId)?.status === "unsolved");
  // Best shows the round trip: an unsolved finding the platform re-tests, so `solved` answers `pending`.
  const target =
    unsolved.find((m) => RETESTED_MODULES.has(world.sim.sim.getThreat(m.threatId)?.module ?? "")) ??
    unsolved[0] ??
    open[0];
  if (!target) throw new DemoError("no open issue is left to close");
  world.gh.person.close(DEMO_REPO, target.number, { reason: "completed", login: "alice" });
  const { did } = await cycle(run, "third");
  const answer = world.ctx.state.threats.get(target.threatId)?.status ?? "unknown";
  say(`3. A person (alice) closes #${target.number} on GitHub as "completed".`);
  const verdicts = did.verdicts;
  say(
    verdicts > 0
      ? `   Next cycle: the connector sees the close and sends PATCH /v1/threats/${shortId(target.threatId)} status=solved (${plural(verdicts, "verdict")} sent).`
      : "   Next cycle: the connector sees the close; the platform already agrees, so no PATCH is needed.",
  );
  say(
    answer === "pending"
      ? `   The platform answers "pending": it re-tests findings like this one itself before calling them solved.`
      : `   The platform answers "${answer}".`,
  );
  const state = issue(world, target.number).state;
  say(
    state === "closed"
      ? `   #${target.number} stays closed: a "${answer}" answer leaves the issue as the person left it.`
      : `   #${target.number} is ${state} again.`,
  );
  return target;
}

async function nextScan(run: Run, target: Mapped): Promise<void> {
  const { world, say } = run;
  const scan = world.sim.sim.scan("unsolved");
  const { did } = await cycle(run, "fourth");
  const after = issue(world, target.number);
  say(
    `4. The platform's next scan re-tests ${plural(scan.pending, "pending threat")}; it still finds ${scan.unsolved}: they are "unsolved" again.`,
  );
  if (after.state === "open") {
    const comment = world.gh.comments(DEMO_REPO, target.number).at(-1);
    say(
      `   Next cycle: #${target.number} is reopened (${plural(did.stateChanges, "state change")}, ${plural(did.comments, "comment")}), saying why:`,
    );
    if (comment) say(`     "${firstLine(comment.body)}"`);
  } else {
    say(
      `   The threat behind #${target.number} is ${world.ctx.state.threats.get(target.threatId)?.status ?? "unknown"}, so #${target.number} stays closed.`,
    );
  }
}

async function assetRemoved(run: Run, avoidAsset: string | null): Promise<void> {
  const { world, say } = run;
  const openByAsset = new Map<string, Mapped[]>();
  for (const m of mappedIssues(world)) {
    if (m.assetId === null || issue(world, m.number).state !== "open") continue;
    openByAsset.set(m.assetId, [...(openByAsset.get(m.assetId) ?? []), m]);
  }
  // The asset with the most open issues, other than the one of the issue a person just closed.
  const candidates = [...openByAsset.entries()].sort((a, b) => b[1].length - a[1].length);
  const [assetId, affected] = candidates.find(([id]) => id !== avoidAsset) ?? candidates[0] ?? [];
  if (!assetId || !affected) throw new DemoError("no asset with an open issue is left to remove");
  const asset = world.sim.sim.removeAsset(assetId);
  const { did } = await cycle(run, "fifth");
  const closed = affected.filter((m) => {
    const i = issue(world, m.number);
    return i.state === "closed" && i.stateReason === "not_planned";
  });
  say(`5. Asset "${asset.name}" (${asset.type}) is removed on the platform; its threats leave the API.`);
  say(
    `   Next cycle: ${plural(closed.length, "issue")} closed as "not planned" (${closed.map((m) => `#${m.number}`).join(", ")}), ${plural(did.comments, "comment")} saying why:`,
  );
  const first = closed[0];
  const comment = first ? world.gh.comments(DEMO_REPO, first.number).at(-1) : undefined;
  if (comment) say(`     "${firstLine(comment.body)}"`);
}

function summary(run: Run): void {
  const { world, say } = run;
  const totals = run.tally.total();
  const gh = world.ctx.github.stats();
  const platform = world.ctx.platform.stats();
  say(`6. In all, ${plural(run.cycles, "cycle")}:`);
  say(
    `   GitHub: ${plural(gh.writes, "write")} (${totals.created} created, ${totals.updated + totals.stateChanges} updated, ${totals.comments} comments), ${plural(gh.requests, "request")}, ${plural(gh.rateLimitPoints, "rate-limit point")} (${gh.notModified} answered 304, which cost none).`,
  );
  say(
    `   Platform: ${plural(platform.requests, "request")} on ${plural(platform.tokenRequests, "access token")} (tokens are kept until shortly before they expire), ${plural(totals.verdicts, "verdict")}, ${plural(totals.links, "link")}.`,
  );
}

export async function runDemo(opts: DemoOptions): Promise<void> {
  const seed = opts.seed ?? 7;
  const threats = opts.threats ?? 12;
  const assets = opts.assets ?? 4;
  const world = await startDemoWorld({
    openEngine: opts.openEngine,
    logger: opts.logger,
    seed,
    threats,
    assets,
    ...(opts.tmpRoot !== undefined ? { tmpRoot: opts.tmpRoot } : {}),
  });
  const run: Run = { world, say: opts.say, tally: demoTally(), cycles: 0 };
  world.ctx.subscribe(run.tally.observe);
  try {
    opts.say("threatbridge demo: everything runs in this process, on 127.0.0.1 only.");
    opts.say(`   platform: a simulator with ${threats} threats on ${assets} assets (seed ${seed})`);
    opts.say(`   GitHub:   a local stand-in; issues go to ${DEMO_REPO}`);
    opts.say("   state:    a temp file, removed at the end");
    opts.say("");
    await firstCycle(run);
    await echoCycle(run);
    const closed = await personCloses(run);
    await nextScan(run, closed);
    await assetRemoved(run, closed.assetId);
    summary(run);
    opts.say("");
    opts.say(closingHint(opts.place ?? { kind: "checkout", root: ".", here: true }));
  } finally {
    await world.close();
  }
}
