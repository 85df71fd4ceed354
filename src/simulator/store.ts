import type { Clock } from "../shared/clock.js";
import { ChangeLog } from "./change-log.js";
import { SimulatorError } from "./errors.js";
import { buildAsset, generateAssets, inProcessingOrder, modulesFor } from "./generate-assets.js";
import { buildThreat, generateThreats } from "./generate-threats.js";
import type { Random } from "./random.js";
import { SEVERITIES } from "./records.js";
import type {
  AssetRecord,
  AssetType,
  BusinessValue,
  ModuleData,
  Severity,
  ThreatRecord,
  ThreatStatus,
} from "./records.js";
import { statusAfterScan, statusAfterVerdict, type ScanOutcome, type Verdict } from "./threat-status.js";

/** Fields of a threat added through the controls; anything left out is generated. */
interface NewThreat {
  assetId?: string | undefined;
  severity?: Severity | undefined;
  module?: string | undefined;
  name?: string | undefined;
  description?: string | undefined;
  status?: ThreatStatus | undefined;
  statusNote?: string | undefined;
  note?: string | undefined;
  moduleData?: ModuleData | null | undefined;
}

/** Fields of an asset added through the controls; anything left out is generated. */
interface NewAsset {
  type?: AssetType | undefined;
  name?: string | undefined;
  businessValue?: BusinessValue | undefined;
  publicFacing?: boolean | undefined;
  /** Ids of existing assets to link to (symmetric relations). */
  relatedTo?: readonly string[] | undefined;
}

/** A change made by the platform itself (a re-projection), not by the caller. */
type ThreatChanges = Omit<NewThreat, "assetId" | "module" | "note">;

export interface ScanResult {
  pending: number;
  solved: number;
  unsolved: number;
}

/** All simulator state: records, relations and the two change logs (spec, Common list behaviour). */
export class SimStore {
  readonly assets = new Map<string, AssetRecord>();
  readonly threats = new Map<string, ThreatRecord>();
  readonly assetLog = new ChangeLog<AssetRecord>();
  readonly threatLog = new ChangeLog<ThreatRecord>();
  private readonly relations = new Map<string, Set<string>>();
  private readonly threatsByAsset = new Map<string, string[]>();
  private added = 0;

  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  /** Seeded initial data; the logs are ordered by processing time, not by `updated_at`. */
  populate(assetCount: number, threatCount: number): void {
    const nowMs = this.clock.now();
    const generated = generateAssets(this.random, assetCount, nowMs);
    for (const { record } of generated.assets) this.assets.set(record.id, record);
    for (const [a, b] of generated.relations) this.link(a, b);
    for (const { record, processedMs } of inProcessingOrder(generated.assets)) {
      this.assetLog.append(record, processedMs);
    }
    const threats = generateThreats(
      this.random,
      threatCount,
      generated.assets.map((g) => g.record),
      nowMs,
    );
    for (const { record, processedMs } of inProcessingOrder(threats)) {
      this.indexThreat(record);
      this.threatLog.append(record, processedMs);
    }
    this.added = threatCount;
  }

  now(): number {
    return this.clock.now();
  }

  isLive(asset: AssetRecord): boolean {
    return asset.deletedAtMs === null;
  }

  /** A threat the API shows: it exists and its asset is not removed (spec, Asset lifecycle). */
  visibleThreat(id: string): ThreatRecord | undefined {
    const threat = this.threats.get(id);
    return threat !== undefined && this.isVisible(threat) ? threat : undefined;
  }

  isVisible(threat: ThreatRecord): boolean {
    const asset = this.assets.get(threat.assetId);
    return asset !== undefined && this.isLive(asset);
  }

  /** Live neighbours of an asset, in stream order (spec, Related assets 1–3). */
  neighbours(assetId: string): AssetRecord[] {
    const live: AssetRecord[] = [];
    for (const id of this.relations.get(assetId) ?? []) {
      const asset = this.assets.get(id);
      if (id !== assetId && asset !== undefined && this.isLive(asset)) live.push(asset);
    }
    return live.sort((x, y) => x.logIndex - y.logIndex);
  }

  threatsOf(assetId: string): ThreatRecord[] {
    return (this.threatsByAsset.get(assetId) ?? []).flatMap((id) => this.threats.get(id) ?? []);
  }

  /** PATCH verdict (spec, status table rows 1–4): always re-stamps and re-delivers. */
  setVerdict(threat: ThreatRecord, verdict: Verdict, statusNote: string | undefined): void {
    threat.status = statusAfterVerdict(threat.module, verdict);
    threat.statusNote = statusNote ?? "";
    threat.statusChangedAtMs = this.clock.now();
    this.touchThreat(threat);
  }

  /** Answers false when the note is identical (spec, update-note rule 4: nothing changes). */
  setNote(threat: ThreatRecord, note: string): boolean {
    if (threat.note === note) return false;
    threat.note = note;
    this.touchThreat(threat);
    return true;
  }

  /** Upsert keyed on `system` (spec, External references 2–5); an identical link still bumps `updated_at`. */
  putReference(threat: ThreatRecord, system: string, externalId: string, url: string): void {
    const existing = threat.externalReferences.find((ref) => ref.system === system);
    const unchanged = existing !== undefined && existing.externalId === externalId && existing.url === url;
    if (!unchanged) {
      const linked = { system, externalId, url, linkedAtMs: this.clock.now() };
      threat.externalReferences = [
        ...threat.externalReferences.filter((ref) => ref.system !== system),
        linked,
      ];
    }
    this.touchThreat(threat);
  }

  /** Removal: one tombstone on the asset stream; its threats leave the API. */
  removeAsset(id: string): AssetRecord {
    const asset = this.requireAsset(id);
    if (!this.isLive(asset)) return asset;
    const nowMs = this.clock.now();
    asset.deletedAtMs = nowMs;
    this.touchAsset(asset);
    return asset;
  }

  /** Restore: delivered again with `deleted: false`; its threats come back on the threat stream. */
  restoreAsset(id: string): AssetRecord {
    const asset = this.requireAsset(id);
    if (this.isLive(asset)) return asset;
    asset.deletedAtMs = null;
    this.touchAsset(asset);
    for (const threat of this.threatsOf(id)) this.threatLog.append(threat, this.clock.now());
    return asset;
  }

  /** The platform's next scan over every pending threat (spec, status table rows 5–7). */
  scan(outcome: ScanOutcome): ScanResult {
    const result: ScanResult = { pending: 0, solved: 0, unsolved: 0 };
    for (const threat of this.threats.values()) {
      if (threat.status !== "pending") continue;
      result.pending += 1;
      const next = statusAfterScan(threat.status, outcome, () => this.random.next());
      if (next === "solved") result.solved += 1;
      else result.unsolved += 1;
      threat.status = next;
      threat.statusChangedAtMs = this.clock.now();
      this.touchThreat(threat);
    }
    return result;
  }

  /** A newly discovered asset, delivered on the asset stream. */
  addAsset(input: NewAsset): AssetRecord {
    const related = (input.relatedTo ?? []).map((id) => this.requireAsset(id));
    const type = input.type ?? "domain";
    const ordinal = [...this.assets.values()].filter((a) => a.type === type).length;
    const asset = buildAsset(this.random, type, ordinal, this.clock.now());
    asset.firstSeenAtMs = asset.updatedAtMs = this.clock.now();
    if (input.name !== undefined) asset.name = input.name;
    if (input.businessValue !== undefined) asset.businessValue = input.businessValue;
    if (input.publicFacing !== undefined) asset.publicFacing = input.publicFacing;
    this.assets.set(asset.id, asset);
    for (const other of related) this.link(asset.id, other.id);
    this.assetLog.append(asset, asset.updatedAtMs);
    return asset;
  }

  addThreat(input: NewThreat): ThreatRecord {
    const nowMs = this.clock.now();
    const live = [...this.assets.values()].filter((a) => this.isLive(a));
    if (input.assetId === undefined && live.length === 0) {
      throw new SimulatorError("invalid_input", "there is no live asset to add a threat to");
    }
    const asset = input.assetId === undefined ? this.random.pick(live) : this.requireAsset(input.assetId);
    const module = input.module ?? this.random.pick(modulesFor(asset.type));
    const status = input.status ?? "unsolved";
    const threat = buildThreat(
      this.random,
      { module, severity: input.severity ?? this.random.pick(SEVERITIES), status, asset, withLcmData: true },
      this.added,
      nowMs,
    );
    this.added += 1;
    threat.firstSeenAtMs = nowMs;
    threat.statusChangedAtMs = nowMs;
    threat.updatedAtMs = nowMs;
    this.applyChanges(threat, input);
    if (input.note !== undefined) threat.note = input.note;
    this.indexThreat(threat);
    this.threatLog.append(threat, nowMs);
    return threat;
  }

  /** A platform-side re-projection: changes fields, bumps `updated_at`, re-delivers. */
  updateThreat(threat: ThreatRecord, changes: ThreatChanges): void {
    if (changes.status !== undefined && changes.status !== threat.status) {
      threat.statusChangedAtMs = this.clock.now();
    }
    this.applyChanges(threat, changes);
    this.touchThreat(threat);
  }

  /** At-least-once delivery: the same version again, at a later position (spec, Events). */
  replayThreat(threat: ThreatRecord): void {
    this.threatLog.append(threat, this.clock.now(), true);
  }

  replayAsset(asset: AssetRecord): void {
    this.assetLog.append(asset, this.clock.now(), true);
  }

  private applyChanges(threat: ThreatRecord, changes: ThreatChanges): void {
    if (changes.severity !== undefined) threat.severity = changes.severity;
    if (changes.name !== undefined) threat.name = changes.name;
    if (changes.description !== undefined) threat.description = changes.description;
    if (changes.status !== undefined) threat.status = changes.status;
    if (changes.statusNote !== undefined) threat.statusNote = changes.statusNote;
    if (changes.moduleData !== undefined) threat.moduleData = changes.moduleData;
  }

  private requireAsset(id: string): AssetRecord {
    const asset = this.assets.get(id);
    if (asset === undefined) throw new SimulatorError("not_found", `no asset ${id}`);
    return asset;
  }

  private touchThreat(threat: ThreatRecord): void {
    const nowMs = this.clock.now();
    threat.updatedAtMs = Math.max(nowMs, threat.updatedAtMs + 1);
    this.threatLog.append(threat, nowMs);
  }

  private touchAsset(asset: AssetRecord): void {
    const nowMs = this.clock.now();
    asset.updatedAtMs = Math.max(nowMs, asset.updatedAtMs + 1);
    this.assetLog.append(asset, nowMs);
  }

  private link(a: string, b: string): void {
    if (a === b) return;
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      const set = this.relations.get(from);
      if (set === undefined) this.relations.set(from, new Set([to]));
      else set.add(to);
    }
  }

  private indexThreat(threat: ThreatRecord): void {
    this.threats.set(threat.id, threat);
    const list = this.threatsByAsset.get(threat.assetId);
    if (list === undefined) this.threatsByAsset.set(threat.assetId, [threat.id]);
    else list.push(threat.id);
  }
}
