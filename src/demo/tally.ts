import type { EngineObserver } from "../sync/index.js";

/** The numbers the demo narrates, for one cycle or in all. */
export interface DemoCounts {
  threatsRead: number;
  assetsRead: number;
  created: number;
  updated: number;
  /** Closes and reopens. */
  stateChanges: number;
  comments: number;
  verdicts: number;
  links: number;
}

export interface DemoTally {
  /** Subscribe it to the engine's events (`ctx.subscribe`). */
  observe: EngineObserver;
  /** What the last (or current) cycle did. */
  cycle(): DemoCounts;
  /** What every cycle since subscribing did. */
  total(): DemoCounts;
}

function zero(): DemoCounts {
  return {
    threatsRead: 0,
    assetsRead: 0,
    created: 0,
    updated: 0,
    stateChanges: 0,
    comments: 0,
    verdicts: 0,
    links: 0,
  };
}

/** Which count an event adds to, and by how much. */
function addTo(counts: DemoCounts, event: Parameters<EngineObserver>[0]): void {
  switch (event.type) {
    case "stream_read":
      if (event.stream === "threats") counts.threatsRead += event.items;
      else counts.assetsRead += event.items;
      return;
    case "created":
      counts.created += 1;
      return;
    case "updated":
      counts.updated += 1;
      return;
    case "closed":
    case "reopened":
      counts.stateChanges += 1;
      return;
    case "commented":
      counts.comments += 1;
      return;
    case "verdict_sent":
      counts.verdicts += 1;
      return;
    case "linked":
      counts.links += 1;
      return;
    default:
      return;
  }
}

/**
 * The demo's own tally of the engine's events: each step narrates what its cycle
 * did, and the last one what all of them did, without reading the engine's internals.
 */
export function demoTally(): DemoTally {
  let cycle = zero();
  const total = zero();
  return {
    observe(event) {
      if (event.type === "cycle_started") cycle = zero();
      addTo(cycle, event);
      addTo(total, event);
    },
    cycle: () => ({ ...cycle }),
    total: () => ({ ...total }),
  };
}
