// Walks a 100,000-threat stream of the simulator (a separate process, so that its memory does not
// count) with the platform client, with and without injected faults; prints threats/s, peak RSS,
// and whether anything was lost. Usage: node bench/platform-walk.mjs [threats]
import { bareWalk, startSimulatorProcess } from "./lib.mjs";

const THREATS = Number(process.argv[2] ?? 100_000);

async function walk(url, label) {
  const result = await bareWalk(url);
  return { label, ...result, lost: THREATS - result.unique };
}

const sim = await startSimulatorProcess(["--threats", String(THREATS), "--assets", "2000", "--seed", "3"]);
try {
  const results = [];
  results.push(await walk(sim.url, "clean"));
  await fetch(`${sim.url}/_sim/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rate_500: 0.02, duplicate_rate: 0.2 }),
  });
  results.push(await walk(sim.url, "faults: 2% 500, 20% duplicates"));
  await fetch(`${sim.url}/_sim/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rate_429: 0.01, rate_500: 0.02, duplicate_rate: 0.2, withhold_recent_ms: 0 }),
  });
  results.push(await walk(sim.url, "faults: 1% 429, 2% 500, 20% duplicates"));
  // maxRSS is the process's high-water mark (kB), over both walks.
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(JSON.stringify({ bench: "platform-walk", threats: THREATS, peakRssMb, results }, null, 2));
} finally {
  sim.stop();
}
