import { z } from "zod";
import type { SimCore } from "./core.js";
import { parseJson } from "./http-io.js";
import { ProblemError } from "./problems.js";
import { toApiAsset, toApiThreat, type ThreatRecord } from "./records.js";
import { requireUuid, validate, type Handler } from "./request-params.js";
import { isVerdict, SETTABLE_STATUSES } from "./threat-status.js";

/** PATCH body (spec, PATCH /v1/threats/{threat_id}): these two keys, nothing else. */
const PatchBody = z.strictObject({ status: z.string(), status_note: z.string().optional() });
/** update-note body: `note`, a string (empty allowed), nothing else. */
const NoteBody = z.strictObject({ note: z.string() });
/** External reference body: both fields required, non-empty; `linked_at` is the platform's, so refused. */
const ReferenceBody = z.strictObject({ external_id: z.string().min(1), url: z.string().min(1) });

export function createThreatHandlers(
  core: SimCore,
): Record<"getAsset" | "getThreat" | "patchThreat" | "updateNote" | "putReference", Handler> {
  const { store } = core;
  const visible = (raw: string | undefined): ThreatRecord => {
    const id = requireUuid(raw, "threat_id");
    const threat = store.visibleThreat(id);
    // A threat of a removed asset is gone from the API, as is an unknown id (spec, rule 1).
    if (threat === undefined) throw new ProblemError("resource/not-found", `no threat ${id}`);
    return threat;
  };

  return {
    getAsset: (ctx) => {
      const id = requireUuid(ctx.params[0], "id");
      const asset = store.assets.get(id);
      if (asset === undefined) throw new ProblemError("resource/not-found", `no asset ${id}`);
      // Removed assets are returned too, flagged (spec, GET /v1/assets/{id}).
      return { status: 200, json: toApiAsset(asset, null) };
    },
    getThreat: (ctx) => ({ status: 200, json: toApiThreat(visible(ctx.params[0]), null, store.now()) }),

    patchThreat: async (ctx) => {
      const threat = visible(ctx.params[0]);
      const body = validate(PatchBody, parseJson(await ctx.body()), "PATCH body");
      if (body.status === "pending") {
        // PATCH rule 1: nothing changes; the detail lists what may be set.
        throw new ProblemError(
          "request/invalid-status-transition",
          `status pending is computed by the platform and cannot be set; settable statuses: ${SETTABLE_STATUSES.join(", ")}`,
        );
      }
      if (!isVerdict(body.status)) {
        throw new ProblemError(
          "request/validation",
          `unknown status ${JSON.stringify(body.status)}; settable statuses: ${SETTABLE_STATUSES.join(", ")}`,
        );
      }
      if (body.status === "accepted" && (body.status_note ?? "").trim() === "") {
        throw new ProblemError("request/validation", "status accepted needs a non-empty status_note");
      }
      store.setVerdict(threat, body.status, body.status_note);
      // PATCH rule 3: the response carries the recalculated effective status.
      return { status: 200, json: toApiThreat(threat, null, store.now()) };
    },

    updateNote: async (ctx) => {
      const threat = visible(ctx.params[0]);
      const body = validate(NoteBody, parseJson(await ctx.body()), "update-note body");
      // update-note rules 1–4: accepted now, applied later; an identical note changes nothing.
      core.writes.schedule(() => store.setNote(threat, body.note));
      return { status: 202 };
    },

    putReference: async (ctx) => {
      const threat = visible(ctx.params[0]);
      const system = ctx.params[1] ?? "";
      const length = [...system].length;
      if (length < 1 || length > 64) {
        // The spec lists no 400 for this endpoint besides the UUID; a bad system is a validation error.
        throw new ProblemError("request/validation", `system must be 1 to 64 characters, got ${length}`);
      }
      const raw = parseJson(await ctx.body());
      if (typeof raw === "object" && raw !== null && "linked_at" in raw) {
        throw new ProblemError("request/validation", "linked_at is set by the platform and must not be sent");
      }
      const body = validate(ReferenceBody, raw, "external reference body");
      // External references rules 2 and 5: upsert on system, visible on the stream a little later.
      core.writes.schedule(() => store.putReference(threat, system, body.external_id, body.url));
      return { status: 204 };
    },
  };
}
