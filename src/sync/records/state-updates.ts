import type {
  GroupRecord,
  Intent,
  LastCycle,
  QueueEntry,
  RetryRecord,
  State,
  ThreatRecord,
} from "../schema.js";
import type { DirtySet } from "./state-changes.js";
import type { StateGuard } from "./state-guard.js";
import type { ThreatIndex } from "./threat-index.js";
import { collectionOf, emptyDirty, markKey, type Collection, type MetaKey } from "./state-changes.js";
import { noteGroupWrite } from "./group-tally.js";
import { createStateGuard } from "./state-guard.js";
import { withoutPending, withoutPerson } from "../transitions/due-work.js";
import type { EngineAsset } from "../transitions/threat-version.js";
import { engineState, ThreatRecordsView, type EngineState, type ThreatRecords } from "./threat-records.js";

/**
 * The only way the engine changes its state. Each function REPLACES a value
 * (never mutates a record in place: a value read may be shared, e.g. a plain state's checked
 * records) and marks it dirty, so that `persist` commits exactly what changed. With
 * `freezeState` on (tests, THREATBRIDGE_FREEZE_STATE=1) values are deep-frozen and the
 * collections refuse writes that do not come through here, so an in-place mutation throws.
 */

/** The part of the context the state's updates need. */
export interface StateCtx {
  state: EngineState;
  threatRows: ThreatRecordsView;
  stateGuard: StateGuard;
  changes: DirtySet;
  scrub: (text: string) => string;
}
type ThreatCtx = StateCtx & { index: ThreatIndex };

/** A state with its guard and change tracking (the engine's context holds one; tests use it bare). */
export function createStateContext(
  loaded: State | EngineState,
  opts: { freeze?: boolean; scrub?: (text: string) => string } = {},
): StateCtx {
  const stateGuard = createStateGuard(opts.freeze === true);
  const held = engineState(loaded);
  const threatRows = viewOf(held.threats).withFreeze(stateGuard.enabled);
  return {
    state: stateGuard.wrap(withGroups(held, threatRows)),
    threatRows,
    stateGuard,
    changes: emptyDirty(),
    scrub: opts.scrub ?? ((text) => text),
  };
}

/**
 * The state the engine's context holds: `held`'s values with these threats, and its groups as it
 * holds them: a loaded state reads its groups when first used (stored-state.ts), and an idle
 * cycle uses none (run/cycle.ts), so they are not read here. Always an object (none: empty).
 */
function withGroups(held: EngineState, threats: ThreatRecordsView): EngineState {
  const { groups: descriptor, ...others } = Object.getOwnPropertyDescriptors(held);
  const state = Object.defineProperties({}, others) as EngineState;
  state.threats = threats;
  let groups: EngineState["groups"];
  if (descriptor?.get === undefined) groups = held.groups ?? {};
  Object.defineProperty(state, "groups", {
    enumerable: true,
    configurable: true,
    get: () => (groups ??= held.groups ?? {}),
    set: (value: EngineState["groups"]) => {
      groups = value;
    },
  });
  return state;
}

type Values = {
  threats: ThreatRecord;
  assets: EngineAsset;
  queue: QueueEntry;
  intents: Intent;
  retryThreats: RetryRecord;
  retryAssets: RetryRecord;
  groups: GroupRecord;
};

type MetaValues = {
  cursors: State["cursors"];
  cursorRefused: State["cursorRefused"];
  githubSince: State["github"]["since"];
  etags: State["github"]["etags"];
  seq: number;
  lastCycle: LastCycle | null;
  renderKey: string | undefined;
  platformNotBefore: number | undefined;
  features: State["features"];
  groupsListed: true | undefined;
  groupingSeen: State["groupingSeen"];
};

/** The writable view behind the engine's threats (createStateContext made it). */
function viewOf(threats: ThreatRecords): ThreatRecordsView {
  if (threats instanceof ThreatRecordsView) return threats;
  throw new TypeError("the engine's threats must be a ThreatRecordsView (threat-records.ts)");
}

function put<C extends Exclude<Collection, "threats">>(
  ctx: StateCtx,
  collection: C,
  key: string,
  value: Values[C] | undefined,
): void {
  const record = collectionOf(ctx.state, collection);
  ctx.stateGuard.open(() => {
    if (value === undefined) delete record[key];
    else record[key] = ctx.stateGuard.freeze(value);
  });
  markKey(ctx.changes, collection, key);
}

/**
 * `before`: the stored record where the caller has just read it, undefined too when none is stored
 * (the index follows the change); read here only when not given at all, so a caller that read it
 * never has it read again.
 */
export function putThreat(
  ctx: ThreatCtx,
  id: string,
  record: ThreatRecord,
  ...given: [before: ThreatRecord | undefined] | []
): void {
  const before = given.length === 0 ? ctx.state.threats.get(id) : given[0];
  ctx.threatRows.set(id, record);
  markKey(ctx.changes, "threats", id);
  ctx.index.update(id, before, record);
}

function dropThreat(ctx: ThreatCtx, id: string): void {
  const before = ctx.state.threats.get(id);
  if (before === undefined) return;
  ctx.threatRows.delete(id);
  markKey(ctx.changes, "threats", id);
  ctx.index.update(id, before, undefined);
}

/** Replaces a threat's record with `change(record)`; nothing when the threat is not stored. */
export function updateThreat(
  ctx: ThreatCtx,
  id: string,
  change: (record: ThreatRecord) => ThreatRecord,
): void {
  const record = ctx.state.threats.get(id);
  if (record) putThreat(ctx, id, change(record), record);
}

/**
 * Keeps only what must be remembered: a threat with no issue, no deleted or
 * refused issue, no queue entry and no intent is not stored; it is judged afresh when it comes
 * back on the stream (a config change re-reads the stream from its start).
 */
export function forgetIfIdle(ctx: ThreatCtx, id: string): void {
  const record = ctx.state.threats.get(id);
  if (!record || record.issue || record.deletedIssue || record.refused || record.closedForRemoval) return;
  if (Object.hasOwn(ctx.state.queue, id)) return;
  if (Object.values(ctx.state.intents).some((i) => i.threatId === id)) return;
  dropThreat(ctx, id);
}

export function putQueue(ctx: StateCtx, id: string, entry: QueueEntry): void {
  const lastError = entry.lastError === undefined ? undefined : ctx.scrub(entry.lastError);
  put(ctx, "queue", id, lastError === entry.lastError ? entry : { ...entry, lastError });
}

export function dropQueue(ctx: ThreatCtx, id: string): void {
  if (Object.hasOwn(ctx.state.queue, id)) put(ctx, "queue", id, undefined);
}

/** Drops the person's change from a threat's queue entry (it became a verdict or was undone). */
export function dropPerson(ctx: ThreatCtx, id: string): void {
  const entry = ctx.state.queue[id];
  const after = withoutPerson(entry);
  if (after && after !== entry) putQueue(ctx, id, after);
}

/** Drops a create's kept view: the issue exists, or the threat's version changed. */
export function dropPending(ctx: StateCtx, id: string): void {
  const entry = ctx.state.queue[id];
  const after = withoutPending(entry);
  if (after && after !== entry) putQueue(ctx, id, after);
}

export function putIntent(ctx: StateCtx, intent: Intent): void {
  put(ctx, "intents", intent.id, intent);
}

export function dropIntent(ctx: ThreatCtx, id: string): void {
  if (Object.hasOwn(ctx.state.intents, id)) put(ctx, "intents", id, undefined);
}

/** Replaces (or, undefined, drops) a group's record (groups/: grouping). */
export function putGroup(ctx: StateCtx, key: string, group: GroupRecord | undefined): void {
  const groups = collectionOf(ctx.state, "groups") as Record<string, GroupRecord>;
  const had = Object.hasOwn(groups, key);
  if (group === undefined && !had) return;
  const before = had ? groups[key] : undefined;
  put(ctx, "groups", key, group);
  noteGroupWrite(groups, before, group);
}

export function putAsset(ctx: StateCtx, id: string, asset: EngineAsset): void {
  put(ctx, "assets", id, asset);
}

export function putRetry(
  ctx: StateCtx,
  kind: "threats" | "assets",
  id: string,
  record: RetryRecord | undefined,
): void {
  const collection = kind === "threats" ? "retryThreats" : "retryAssets";
  if (record === undefined && !Object.hasOwn(collectionOf(ctx.state, collection), id)) return;
  put(
    ctx,
    collection,
    id,
    record === undefined ? undefined : { ...record, lastError: ctx.scrub(record.lastError) },
  );
}

export function setMeta<K extends MetaKey>(ctx: StateCtx, key: K, value: MetaValues[K]): void {
  const state = ctx.state;
  const frozen = value === undefined || value === null ? value : ctx.stateGuard.freeze(value);
  ctx.stateGuard.open(() => {
    if (key === "githubSince" || key === "etags") {
      const github = { ...state.github, [key === "githubSince" ? "since" : "etags"]: frozen };
      state.github = ctx.stateGuard.freeze(github);
    } else if (frozen === undefined) {
      Reflect.deleteProperty(state, key);
    } else {
      Object.assign(state, { [key]: frozen });
    }
  });
  ctx.changes.meta.add(key);
}

/** The next number of the state's sequence (queue order, intent ids). */
export function nextSeq(ctx: StateCtx): number {
  const seq = ctx.state.seq + 1;
  setMeta(ctx, "seq", seq);
  return seq;
}
