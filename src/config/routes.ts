import { z } from "zod";
import { SEVERITIES } from "../shared/severity.js";
import { suggest } from "./suggest.js";

/**
 * `routes` (contract, "Configuration"): where a new issue goes, and what it carries. A rule's
 * `match` holds when every key given holds (and); each key's values are any-of. `asset_name`
 * takes globs; `where` takes dotted paths into the threat's (`threat.…`) or its asset's
 * (`asset.…`) JSON. The matching itself is src/sync/plan/route-match.ts.
 */

const nonEmpty = z.string().min(1);
/** `owner/name` of a GitHub repository. */
export const repository = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/name, e.g. acme/security-threats");

/** The JSON a `where` path may start in: the threat's or its asset's. */
export const WHERE_ROOTS = ["threat", "asset"] as const;

/** Characters other tools read as glob syntax; a route's glob knows only `*` and `?`. */
const UNSUPPORTED_GLOB = /[[\]{}\\]/;

export const AssetNameGlob = z
  .string()
  .refine((glob) => glob.trim() !== "", { message: "must not be empty (use * for any name)" })
  .refine((glob) => !UNSUPPORTED_GLOB.test(glob), {
    message: "only * (any run of characters) and ? (one character) are wildcards; [ ] { } and \\ are not",
  });

/** A value a `where` path is compared with, as the YAML gives it. */
const WhereValue = z.union([z.string().min(1), z.number(), z.boolean()]);
export type WhereValue = z.infer<typeof WhereValue>;

/** JSON Schema forms of the checks below (json-schema.ts), for editors: the config's own messages say more. */
export const GLOB_PATTERN = "^[^\\[\\]{}\\\\]*\\S[^\\[\\]{}\\\\]*$";
export const WHERE_PATH_PATTERN = "^(threat|asset)(\\.[^.\\s]+)+$";

/** What is wrong with a `where` key, or null: a dotted path whose first segment is threat or asset. */
export function wherePathProblem(path: string): string | null {
  const segments = path.split(".");
  const root = segments[0] ?? "";
  if (!(WHERE_ROOTS as readonly string[]).includes(root)) {
    const close = suggest(root, WHERE_ROOTS);
    const hint = close === undefined ? "" : `; did you mean \`${[close, ...segments.slice(1)].join(".")}\`?`;
    return `a path must start with threat. or asset. (the threat's or its asset's JSON)${hint}`;
  }
  if (segments.length < 2 || segments.some((s) => s === "" || /\s/.test(s)))
    return `must be a dotted path below ${root}, e.g. ${root === "asset" ? "asset.environment" : "threat.module_data.port"}`;
  return null;
}

export const Where = z
  .record(z.string(), z.array(WhereValue).min(1))
  .superRefine((where, ctx) => {
    for (const path of Object.keys(where)) {
      const problem = wherePathProblem(path);
      if (problem !== null) ctx.addIssue({ code: "custom", path: [path], message: problem });
    }
  })
  .refine((where) => Object.keys(where).length > 0, {
    message: "must name at least one path (leave `where` out to match any threat)",
  });

export const RouteMatch = z
  .strictObject({
    severity: z.array(z.enum(SEVERITIES)).min(1).optional().describe("Any of these severities"),
    module: z.array(nonEmpty).min(1).optional().describe("Any of these threat modules"),
    asset_type: z.array(nonEmpty).min(1).optional().describe("Any of these asset types"),
    asset_name: z
      .array(AssetNameGlob)
      .min(1)
      .optional()
      .describe(
        "Any of these globs on the asset's name (fields.asset.name), whole name, case-insensitive: * any run of characters, ? one character; e.g. *.payments.acme.test",
      ),
    where: Where.optional().describe(
      "Dotted paths into the threat's (threat.…) or its asset's (asset.…) JSON → any of these values; a list in the data matches if it holds any of them; an absent path never matches; a number in the data equals the string of its decimal digits",
    ),
  })
  .describe("All given conditions must hold; {} matches every threat");
export type RouteMatch = z.infer<typeof RouteMatch>;

export const RouteConfig = z
  .strictObject({
    match: RouteMatch,
    repository: repository
      .optional()
      .describe("owner/name of the repository for the issue; github.repository when left out"),
    labels: z
      .array(nonEmpty)
      .default([])
      .describe(
        "Added to the connector's own labels when the issue is created; a person's later change stands",
      ),
    assignees: z
      .array(nonEmpty)
      .default([])
      .describe("GitHub logins assigned when the issue is created; a person's later change stands"),
  })
  .describe("A routing rule; the first rule that matches decides, when an issue is created");
