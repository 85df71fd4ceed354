// The scenarios of bench/engine-scale.mjs (BENCHMARKS.md's targets). Each drives the BUILT CLI
// (`node dist/cli.js`) in a child process against bench/scale-fixture.mjs (simulator + GitHub
// stand-in in another process), so that it measures whichever engine is built, and returns rows
// { measure, value, how }.
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import {
  closeSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { median, rssMethod, runCli, startFixture, stateFiles, writeConfig } from "./lib-cli.mjs";
import { bareWalk } from "./lib.mjs";

const k = (n) => (n >= 1000 ? `${Math.round(n / 1000).toLocaleString("en")}k` : String(n));
const ms = (v) => (v >= 100 ? `${Math.round(v).toLocaleString("en")} ms` : `${v.toFixed(1)} ms`);
const mb = (v) => `${Math.round(v)} MB`;

async function withFixture(args, fn) {
  const dir = mkdtempSync(join(os.tmpdir(), "threatbridge-bench-scale-"));
  const fx = await startFixture([...args, "--state", join(dir, "state.json")]);
  try {
    return await fn(fx, dir);
  } finally {
    await fx.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withEmptyFixture(args, fn) {
  const dir = mkdtempSync(join(os.tmpdir(), "threatbridge-bench-scale-"));
  const fx = await startFixture(args);
  try {
    return await fn(fx, dir);
  } finally {
    await fx.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function cycleSeconds(stdout) {
  const line = stdout
    .trim()
    .split("\n")
    .find((l) => l.startsWith("{") && l.includes('"startedAt"'));
  if (!line) return null;
  const r = JSON.parse(line);
  return {
    seconds: (Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000,
    threatsRead: r.counters?.threats_read ?? null,
  };
}

/** 1. Reuses bench/state-store.mjs (its own child processes): its Markdown rows, verbatim. */
export function scenarioCommit(sizes) {
  const out = execFileSync(process.execPath, ["bench/state-store.mjs", sizes.join(",")]).toString();
  return out
    .split("\n")
    .filter((l) => l.startsWith("|"))
    .join("\n");
}

/**
 * The fixture stores the state in the engine's own store (bench/store-seed.mjs); it is opened once
 * more in a child process through the CLI's own openEngineState, as the engine's first start would,
 * so that what is measured after is the engine's steady state.
 */
function openOnce(path) {
  const t = performance.now();
  const code =
    "const m = await import('./dist/cli/state-open.js');" +
    "const s = await m.openEngineState(process.argv[1]); await s.close();";
  execFileSync(process.execPath, ["--input-type=module", "-e", code, path], { stdio: "inherit" });
  return performance.now() - t;
}

/** Bytes of the engine's state files (the database and the cursors' document), without a backup or the lock. */
function engineBytes(dir) {
  return readdirSync(dir)
    .filter((n) => n.startsWith("state") && !n.endsWith(".bak") && !n.endsWith(".lock"))
    .reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
}

/** 2, 3 and 6 for one size: load at start (`status --json`), no-change `sync`, bare walk. */
export async function scenarioMapped(n) {
  return withFixture(["--threats", String(n)], async (fx, dir) => {
    const config = writeConfig(dir, fx);
    const seededBytes = stateFiles(dir).bytes;
    const openMs = openOnce(join(dir, "state.json"));
    const onDisk = engineBytes(dir);
    const files = readdirSync(dir)
      .filter((f) => f.startsWith("state"))
      .sort()
      .join(", ");
    const status = await runCli(["status", "-c", config, "--json"], { cwd: dir });
    const walk = await bareWalk(fx.platformUrl);
    const sync = await runCli(["sync", "-c", config, "--json"], { cwd: dir });
    const cycle = cycleSeconds(sync.stdout);
    return {
      n,
      mapped: fx.mapped,
      onDiskMb: onDisk / 1e6,
      seededMb: seededBytes / 1e6,
      openMs,
      files,
      statusMs: status.wallMs,
      statusRssMb: status.peakRssMb,
      statusOk: status.code === 0,
      syncMs: sync.wallMs,
      syncRssMb: sync.peakRssMb,
      syncOk: sync.code === 0,
      cycle,
      cycleRate: cycle && cycle.seconds > 0 ? fx.mapped / cycle.seconds : null,
      processRate: fx.mapped / (sync.wallMs / 1000),
      walkRate: walk.threatsPerSecond,
    };
  });
}

export function mappedRows(r) {
  const at = `${k(r.n)} mapped`;
  const rows = [
    {
      measure: `state on disk at ${at}`,
      value: `${r.onDiskMb.toFixed(1)} MB (as seeded: ${r.seededMb.toFixed(1)} MB; first open ${ms(r.openMs)})`,
      how: `the generated state stored by bench/store-seed.mjs, opened once by the engine's openEngineState (child process), then the size of the store's files (the database and the cursors' document, without the lock); files: ${r.files}`,
    },
    {
      measure: `load at start, ${at}`,
      value: `${ms(r.statusMs)} (RSS ${mb(r.statusRssMb)})${r.statusOk ? "" : " FAILED"}`,
      how: `wall time of \`status --json\` (process start included); ${rssMethod}`,
    },
    {
      measure: `peak RSS of a no-change \`sync\` at ${at}`,
      value: `${mb(r.syncRssMb)} (wall ${ms(r.syncMs)})${r.syncOk ? "" : " FAILED"}`,
      how: `\`sync --json\`, cursors null, every threat re-delivered unchanged; ${rssMethod}`,
    },
  ];
  if (r.cycleRate !== null) {
    rows.push({
      measure: `no-change re-delivery of ${k(r.n)} synced threats`,
      value: `${Math.round(r.cycleRate).toLocaleString("en")}/s vs bare walk ${r.walkRate.toLocaleString("en")}/s = ${(r.cycleRate / r.walkRate).toFixed(2)}× (whole process: ${Math.round(r.processRate).toLocaleString("en")}/s)`,
      how: "threats / (finishedAt − startedAt of the cycle in `sync --json`); bare walk: the platform client's stream walk (bench/lib.mjs bareWalk, pageLimit 500) over the same simulator just before",
    });
  }
  return rows;
}

/** 5. Idle `sync` after n threats were seen: a first sync reads them all, the second is timed. */
export async function scenarioIdle(n) {
  return withFixture(["--threats", String(n)], async (fx, dir) => {
    const config = writeConfig(dir, fx);
    const warm = await runCli(["sync", "-c", config, "--json"], { cwd: dir });
    const before = stateFiles(dir);
    await new Promise((r) => setTimeout(r, 20));
    const idle = await runCli(["sync", "-c", config, "--json"], { cwd: dir });
    const after = stateFiles(dir);
    const changed =
      before.hash !== after.hash || before.mtimeMs !== after.mtimeMs || before.bytes !== after.bytes;
    return {
      measure: `idle \`sync\` (nothing changed) after ${k(n)} threats were seen`,
      value: `${ms(idle.wallMs)}; state files ${changed ? `CHANGED (${before.bytes} → ${after.bytes} bytes, hash ${before.hash} → ${after.hash})` : "unchanged"}${warm.code === 0 && idle.code === 0 ? "" : " FAILED"}`,
      how: "all seen threats mapped (generated state); one `sync` to reach the end of both streams, then the timed `sync --json` (wall, process start included); size+mtime+sha256 of state* files before/after",
    };
  });
}

/** The `time` (ms) of every audit line `action: "create"` among log lines. */
export function createTimes(lines) {
  const times = [];
  for (const line of lines) {
    try {
      const r = JSON.parse(line);
      if (r.action === "create") times.push(Date.parse(r.time));
    } catch {
      // not a JSON log line
    }
  }
  return times;
}

export const meanGap = (times) =>
  times.length < 2 ? NaN : (times[times.length - 1] - times[0]) / (times.length - 1);
export const isCreate = (line) => line.includes('"action":"create"');

/**
 * The bare round trips one new issue needs, as one sequence per sample (a POST to the stand-in, a
 * PUT to the platform, a write+fsync of one line), with raw fetch and sync fs calls: each step's
 * median, and the mean and median of whole sequences, so that the CLI's mean is set against a mean.
 */
async function bareRoundTrips(fx, dir, tag, samples = 101) {
  const gh = { authorization: "token ghp_bench", "content-type": "application/json" };
  const basic = Buffer.from("threatbridge:threatbridge-secret").toString("base64");
  const tok = await fetch(`${fx.platformUrl}/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  }).then((r) => r.json());
  const page = await fetch(`${fx.platformUrl}/v1/threats?limit=${samples}`, {
    headers: { authorization: `Bearer ${tok.access_token}` },
  }).then((r) => r.json());
  const items = Object.values(page).find(Array.isArray) ?? [];
  const post = [];
  const put = [];
  const fsync = [];
  const whole = [];
  const fd = openSync(join(dir, `fsync-probe-${tag}`), "a");
  for (const [i, t0] of items.entries()) {
    const start = performance.now();
    const res = await fetch(`${fx.githubUrl}/repos/acme/bare-round-trips/issues`, {
      method: "POST",
      headers: gh,
      body: JSON.stringify({ title: `bare ${tag} ${i}`, body: "x".repeat(800), labels: ["threatbridge"] }),
    });
    await res.arrayBuffer();
    const posted = performance.now();
    const linked = await fetch(`${fx.platformUrl}/v1/threats/${t0.id}/external-references/github`, {
      method: "PUT",
      headers: { authorization: `Bearer ${tok.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ external_id: `acme/bare#${i + 1}`, url: `https://example.invalid/${i + 1}` }),
    });
    await linked.arrayBuffer();
    const put0 = performance.now();
    writeSync(fd, `${JSON.stringify({ i, kind: "intent", at: Date.now() })}\n`);
    fsyncSync(fd);
    const end = performance.now();
    post.push(posted - start);
    put.push(put0 - posted);
    fsync.push(end - put0);
    whole.push(end - start);
  }
  closeSync(fd);
  const mean = whole.reduce((a, b) => a + b, 0) / whole.length;
  return {
    post: median(post),
    put: median(put),
    fsync: median(fsync),
    mean,
    median: median(whole),
    samples: whole.length,
  };
}

/**
 * 7. Time per new issue, budget off, n threats from an empty state, vs the bare round trips. The
 * bare sequences run just before and just after the CLI (the machine may be shared: load moves
 * both), and the target compares the CLI's mean gap with the mean of the bare sequences.
 */
export async function scenarioNewIssue(n) {
  return withEmptyFixture(["--threats", String(n)], async (fx, dir) => {
    const before = await bareRoundTrips(fx, dir, "before");
    const config = writeConfig(dir, fx);
    const sync = await runCli(["sync", "-c", config, "--json"], { cwd: dir, keep: isCreate });
    const after = await bareRoundTrips(fx, dir, "after");
    const times = createTimes(sync.stderrKept);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    const perIssue = meanGap(times);
    const bareMean = (before.mean + after.mean) / 2;
    const parts = (b) => `POST ${ms(b.post)} + PUT ${ms(b.put)} + fsync ${ms(b.fsync)}`;
    return {
      measure: `time per new issue, budget off, ${k(n)} threats (stand-in on loopback)`,
      value: `${ms(perIssue)} mean (median gap ${ms(median(gaps) ?? NaN)}) over ${times.length} creates vs bare ${ms(bareMean)} mean (before ${ms(before.mean)}, median ${ms(before.median)}: ${parts(before)}; after ${ms(after.mean)}, median ${ms(after.median)}: ${parts(after)}) = ${(perIssue / bareMean).toFixed(1)}×${sync.code === 0 ? "" : " FAILED"}`,
      how: 'empty state, `sync --json`; gaps between the `time` of consecutive audit lines action:"create" on stderr; bare: 101 sequences of a raw fetch POST /repos/…/issues (stand-in), PUT external-references (simulator), write+fsync of one line, just before and just after the CLI in the same run; ratio = CLI mean / mean of the two bare means',
    };
  });
}

/** 4. Streaming n threats, ~10% eligible (min_severity critical), budget off, bounded by --max-duration. */
export async function scenarioStream(n, maxDurationS) {
  return withEmptyFixture(["--threats", String(n)], async (fx, dir) => {
    const config = writeConfig(dir, fx, { minSeverity: "critical" });
    const sync = await runCli(["sync", "-c", config, "--json", "--max-duration", String(maxDurationS)], {
      cwd: dir,
      keep: isCreate,
      // Reading the stream is not bounded by --max-duration: stop the run 2 minutes past it.
      timeoutMs: (maxDurationS + 120) * 1000,
    });
    const times = createTimes(sync.stderrKept);
    const w = Math.min(1000, Math.floor(times.length / 2));
    const first = meanGap(times.slice(0, w));
    const last = meanGap(times.slice(times.length - w));
    // The mean of a window is skewed by one pause in it (the walk reading pages between drains,
    // the GitHub poll reading the cycle's own issues back before the last drain): medians too.
    const gapsOf = (ts) => ts.slice(1).map((t, i) => t - ts[i]);
    const firstMedian = median(gapsOf(times.slice(0, w))) ?? NaN;
    const lastMedian = median(gapsOf(times.slice(times.length - w))) ?? NaN;
    const allGaps = gapsOf(times);
    const longest = allGaps.length > 0 ? Math.max(...allGaps) : 0;
    const longestAt = allGaps.indexOf(longest) + 1;
    let due = "";
    const line = sync.stdout
      .trim()
      .split("\n")
      .find((l) => l.includes('"startedAt"'));
    if (line) {
      const r = JSON.parse(line);
      due = `; ${r.counters?.threats_read ?? "?"} read, ${r.counters?.threats_due ?? "?"} due, ${r.queue?.total ?? "?"} left queued`;
    }
    return {
      measure: `streaming ${k(n)} threats, ~10% eligible, budget off, GitHub stand-in`,
      value: `peak RSS ${mb(sync.peakRssMb)}, wall ${ms(sync.wallMs)}; per new issue first ${w}: ${ms(first)}, last ${w}: ${ms(last)} (${(last / first).toFixed(2)}×; medians ${ms(firstMedian)} and ${ms(lastMedian)}: ${(lastMedian / firstMedian).toFixed(2)}×; longest gap ${ms(longest)} before create ${longestAt}) of ${times.length} created${due}${sync.timedOut ? `; STOPPED by SIGTERM at ${maxDurationS + 120} s` : sync.code === 0 ? "" : ` exit ${sync.code}`}`,
      how: `\`sync --json --max-duration ${maxDurationS}\` from an empty state, filters.min_severity critical (the simulator makes 1/9 critical); ${rssMethod}; per issue = mean gap between audit create lines`,
    };
  });
}
