import type { AssetView, RenderOptions, ThreatView } from "../../../src/sync/render/index.js";

export const THREAT_ID = "3f2b8c1e-5d4a-4e8b-9c7d-1a2b3c4d5e6f";
export const ASSET_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";

export function threat(overrides: Partial<ThreatView> = {}): ThreatView {
  return {
    id: THREAT_ID,
    title: "Outdated TLS configuration",
    description: "The server accepts TLS 1.0.\nDisable it.",
    severity: "high",
    severityRank: 3,
    module: "vulnerability",
    status: "unsolved",
    ageDays: 12,
    assetId: ASSET_ID,
    moduleData: null,
    updatedAt: "2026-11-01T10:00:00Z",
    ...overrides,
  };
}

export const ASSET: AssetView = { id: ASSET_ID, name: "shop.example.com", type: "domain" };

export const OPTIONS: RenderOptions = {
  managedLabel: "threatbridge",
  platformUiUrl: "https://app.example.com/threats/{id}",
};

/** Every match of the contract's marker shape, however loosely a parser might look for it. */
export function markerCount(body: string): number {
  return body.match(/threatbridge\s*:\s*threat\s*=/gi)?.length ?? 0;
}
