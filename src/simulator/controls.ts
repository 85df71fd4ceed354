import { z } from "zod";
import type { SimCore } from "./core.js";
import { SimulatorError } from "./errors.js";
import { FaultSettings } from "./faults.js";
import {
  ASSET_TYPES,
  BUSINESS_VALUES,
  SEVERITIES,
  THREAT_STATUSES,
  toApiAsset,
  toApiThreat,
  type ApiAsset,
  type ApiThreat,
} from "./records.js";
import type { ScanResult } from "./store.js";
import type { ScanOutcome } from "./threat-status.js";

const ModuleData = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .refine(
    (data) => Object.values(data).some((value) => value !== null),
    "a non-null module_data carries at least one non-null value (spec, Threat)",
  );

const threatFields = {
  severity: z.enum(SEVERITIES).optional(),
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  status: z.enum(THREAT_STATUSES).optional(),
  status_note: z.string().optional(),
  module_data: ModuleData.nullable().optional(),
};

/** Body of `POST /_sim/threats`; every field optional, the rest is generated. */
export const NewThreatInput = z.strictObject({
  ...threatFields,
  asset_id: z.guid().optional(),
  module: z.string().min(1).max(64).optional(),
  note: z.string().optional(),
});
export type NewThreatInput = z.input<typeof NewThreatInput>;

/** Body of `POST /_sim/assets`; every field optional. */
export const NewAssetInput = z.strictObject({
  type: z.enum(ASSET_TYPES).optional(),
  name: z.string().min(1).optional(),
  business_value: z.enum(BUSINESS_VALUES).optional(),
  public_facing: z.boolean().optional(),
  related_to: z.array(z.guid()).max(1000).optional(),
});
export type NewAssetInput = z.input<typeof NewAssetInput>;

/**
 * Body of `PATCH /_sim/threats/{id}`: a platform-side change (re-projection), or an analyst's edit
 * of the note in the platform's UI (`note`, applied at once, as update-note rule 4 says).
 */
export const ThreatChangesInput = z.strictObject({ ...threatFields, note: z.string().optional() });
export type ThreatChangesInput = z.input<typeof ThreatChangesInput>;

export const ScanInput = z.strictObject({ outcome: z.enum(["solved", "unsolved", "random"]).optional() });

interface SimulatorStats {
  tokenRequests: number;
  requests: number;
  /** Requests per route, keyed like "GET /v1/threats" or "PATCH /v1/threats/{id}". */
  byRoute: Record<string, number>;
}

interface SimulatorState {
  assets: number;
  removedAssets: number;
  threats: number;
  visibleThreats: number;
  statuses: Record<string, number>;
  pendingAsyncWrites: number;
  faults: FaultSettings;
  stats: SimulatorStats;
}

/** In-process access to the `/_sim/*` controls, plus inspection for tests. */
export interface Simulator {
  /** The platform's next scan: every `pending` threat becomes `solved` or `unsolved`. */
  scan(outcome?: ScanOutcome): ScanResult;
  removeAsset(id: string): ApiAsset;
  restoreAsset(id: string): ApiAsset;
  addThreat(input?: NewThreatInput): ApiThreat;
  /** A new asset, delivered on the asset stream (e.g. to remove it before the client ever saw it). */
  addAsset(input?: NewAssetInput): ApiAsset;
  /** A platform-side change of a threat: bumps `updated_at` and re-delivers it. */
  updateThreat(id: string, changes: ThreatChangesInput): ApiThreat;
  /** Replaces the fault settings; `{}` clears them. */
  setFaults(faults: FaultSettings): FaultSettings;
  /** Any threat, including those of removed assets (stream_position null). */
  getThreat(id: string): ApiThreat | null;
  getAsset(id: string): ApiAsset | null;
  threatIds(): string[];
  assetIds(): string[];
  /** Applies accepted notes and external references now instead of after the delay. */
  settle(): void;
  /** Invalidates every issued access token. */
  revokeTokens(): void;
  stats(): SimulatorStats;
  state(): SimulatorState;
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new SimulatorError("invalid_input", `${what}: ${z.prettifyError(result.error)}`, {
      cause: result.error,
    });
  }
  return result.data;
}

export function createControls(core: SimCore): Simulator {
  const { store } = core;
  const stats = (): SimulatorStats => ({
    tokenRequests: core.counters.tokenRequests,
    requests: core.counters.requests,
    byRoute: Object.fromEntries(core.counters.byRoute),
  });
  const requireThreat = (id: string): ApiThreat => {
    const threat = store.threats.get(id.toLowerCase());
    if (threat === undefined) throw new SimulatorError("not_found", `no threat ${id}`);
    return toApiThreat(threat, null, store.now());
  };
  return {
    scan: (outcome = "random") => store.scan(outcome),
    removeAsset: (id) => toApiAsset(store.removeAsset(id.toLowerCase()), null),
    restoreAsset: (id) => toApiAsset(store.restoreAsset(id.toLowerCase()), null),
    addThreat: (input = {}) => {
      const body = parse(NewThreatInput, input, "new threat");
      const threat = store.addThreat({
        assetId: body.asset_id?.toLowerCase(),
        severity: body.severity,
        module: body.module,
        name: body.name,
        description: body.description,
        status: body.status,
        statusNote: body.status_note,
        note: body.note,
        moduleData: body.module_data,
      });
      return toApiThreat(threat, null, store.now());
    },
    addAsset: (input = {}) => {
      const body = parse(NewAssetInput, input, "new asset");
      const asset = store.addAsset({
        type: body.type,
        name: body.name,
        businessValue: body.business_value,
        publicFacing: body.public_facing,
        relatedTo: body.related_to?.map((id) => id.toLowerCase()),
      });
      return toApiAsset(asset, null);
    },
    updateThreat: (id, changes) => {
      const body = parse(ThreatChangesInput, changes, "threat changes");
      const threat = store.threats.get(id.toLowerCase());
      if (threat === undefined) throw new SimulatorError("not_found", `no threat ${id}`);
      const { note, ...fields } = body;
      if (note !== undefined) store.setNote(threat, note);
      if (Object.keys(fields).length === 0) return requireThreat(id);
      store.updateThreat(threat, {
        severity: body.severity,
        name: body.name,
        description: body.description,
        status: body.status,
        statusNote: body.status_note,
        moduleData: body.module_data,
      });
      return requireThreat(id);
    },
    setFaults: (faults) => core.faults.set(parse(FaultSettings, faults, "faults")),
    getThreat: (id) => {
      const threat = store.threats.get(id.toLowerCase());
      return threat === undefined ? null : toApiThreat(threat, null, store.now());
    },
    getAsset: (id) => {
      const asset = store.assets.get(id.toLowerCase());
      return asset === undefined ? null : toApiAsset(asset, null);
    },
    threatIds: () => [...store.threats.keys()],
    assetIds: () => [...store.assets.keys()],
    settle: () => core.writes.settle(),
    revokeTokens: () => core.tokens.revokeAll(),
    stats,
    state: () => {
      const statuses: Record<string, number> = {};
      let visibleThreats = 0;
      for (const threat of store.threats.values()) {
        statuses[threat.status] = (statuses[threat.status] ?? 0) + 1;
        if (store.visibleThreat(threat.id) !== undefined) visibleThreats += 1;
      }
      return {
        assets: store.assets.size,
        removedAssets: [...store.assets.values()].filter((a) => !store.isLive(a)).length,
        threats: store.threats.size,
        visibleThreats,
        statuses,
        pendingAsyncWrites: core.writes.pending(),
        faults: core.faults.current(),
        stats: stats(),
      };
    },
  };
}
