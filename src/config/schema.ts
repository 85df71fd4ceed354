import cron from "node-cron";
import { z } from "zod";
import { checkTemplate, TemplateError } from "./templates.js";
import { cronRangeProblem } from "./cron-fields.js";
import { AcceptanceConfig, GroupingConfig, Recurrence, SlaConfig } from "./workflow.js";
import { ProjectConfig } from "./project.js";
import { NotesConfig } from "./notes.js";
import { repository, RouteConfig } from "./routes.js";
import { SEVERITIES } from "../shared/severity.js";
import { DEFAULT_MANAGED_LABEL } from "../shared/labels.js";
import { SETTABLE_STATUSES, THREAT_STATUSES } from "../shared/threat-status.js";

/**
 * The configuration file's schema. Every object is strict: an unknown key is an error (the contract:
 * "Unknown keys are errors"). Defaults are the contract's. `Config` is the parsed, defaulted type the
 * rest of the program sees.
 */

export { SEVERITIES };
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

export { SETTABLE_STATUSES };

const nonEmpty = z.string().min(1);
const httpUrl = z.url({ protocol: /^https?$/ });
/**
 * `<secret key>_file` (contract): read and moved to the plain key before validation (see
 * secret-files.ts), so it is never present here; declared for the JSON Schema and for "did you mean".
 */
const secretFile = nonEmpty.optional();
const dottedPath = z
  .string()
  .regex(/^[^.\s]+(\.[^.\s]+)*$/, "must be a dotted path such as name or meta.title");

const PlatformConfig = z.strictObject({
  base_url: httpUrl.describe("The spec's {base_url}; /v1/... is appended."),
  token_url: httpUrl.describe("The spec's {auth_url}: the OAuth 2.0 token endpoint."),
  client_id: nonEmpty.describe("OAuth 2.0 client id, e.g. ${PLATFORM_CLIENT_ID}"),
  client_secret: nonEmpty.describe(
    "OAuth 2.0 client secret, e.g. ${PLATFORM_CLIENT_SECRET}; never logged. Or client_secret_file",
  ),
  client_secret_file: secretFile.describe(
    "A file holding the client secret (e.g. /run/secrets/platform-client-secret), instead of client_secret",
  ),
  token_auth: z
    .enum(["client_secret_basic", "client_secret_post"])
    .default("client_secret_basic")
    .describe(
      "How the client authenticates at token_url: HTTP Basic, or client_id/client_secret form fields",
    ),
  scope: nonEmpty
    .optional()
    .describe("scope parameter of the token request, if the identity provider needs one"),
  audience: nonEmpty
    .optional()
    .describe("audience parameter of the token request, if the identity provider needs one"),
  page_limit: z.int().min(1).max(500).default(500).describe("limit sent on list requests (1..500)"),
  timeout_ms: z
    .int()
    .min(1000)
    .max(600_000)
    .default(30_000)
    .describe("Timeout of one platform request, in ms"),
  ui_url: z
    .string()
    .regex(/^https?:\/\/\S*\{id\}\S*$/, "must be an http(s) URL containing {id}")
    .optional()
    .describe("Link to a threat in the platform's UI; {id} is replaced by the threat id."),
});

const WriteBudgetConfig = z.strictObject({
  per_minute: z.int().min(0).default(80).describe("Most GitHub writes in any minute; 0 = no limit"),
  per_hour: z.int().min(0).default(500).describe("Most GitHub writes in any hour; 0 = no limit"),
  min_interval_ms: z
    .int()
    .min(0)
    .default(1000)
    .describe("Least time between two GitHub writes, in ms; 0 = none"),
});

const GitHubAppConfig = z.strictObject({
  app_id: z.union([z.int().positive(), z.string().regex(/^\d+$/)]).describe("The GitHub App's id"),
  private_key: nonEmpty.describe(
    "PEM text of the App's private key (use ${VAR} to read it from the environment). Or private_key_file",
  ),
  private_key_file: secretFile.describe("A file holding the App's PEM private key, instead of private_key"),
  installation_id: z
    .int()
    .positive()
    .optional()
    .describe("Id of the App's installation; when left out, it is looked up for each repository"),
});

/** Paths `run` already serves on the health port: a webhook path may not take one of them. */
const HEALTH_PATHS = ["/healthz", "/readyz", "/metrics"];

const GitHubWebhookConfig = z
  .strictObject({
    path: z
      .string()
      .regex(/^\/[A-Za-z0-9\-._~/]*$/, "must be a URL path starting with /, e.g. /github/webhook")
      .refine((p) => !HEALTH_PATHS.includes(p), { message: "must not be /healthz, /readyz or /metrics" })
      .optional()
      .describe(
        "Where `run` accepts GitHub's webhook deliveries on health.port, e.g. /github/webhook; off when left out",
      ),
    secret: nonEmpty
      .optional()
      .describe("The webhook's secret, e.g. ${GITHUB_WEBHOOK_SECRET}; never logged. Or secret_file"),
    secret_file: secretFile.describe(
      "A file holding the webhook secret (e.g. /run/secrets/github-webhook-secret), instead of secret",
    ),
    previous_secrets: z
      .array(nonEmpty)
      .default([])
      .describe("Secrets still accepted while GitHub's webhook moves to a new one (rotation)"),
    previous_secrets_file: secretFile.describe(
      "A file holding previous secrets, one a line, instead of previous_secrets",
    ),
  })
  .refine((w) => w.path === undefined || w.secret !== undefined, {
    message: "a webhook needs its secret: set github.webhook.secret (or secret_file)",
    path: ["secret"],
  });

const GitHubConfig = z
  .strictObject({
    api_url: httpUrl
      .default("https://api.github.com")
      .describe(
        "GitHub's REST API: api.github.com, a GitHub Enterprise Server's /api/v3, or a local stand-in",
      ),
    token: nonEmpty
      .optional()
      .describe("A GitHub token, e.g. ${GITHUB_TOKEN}; set this (or token_file) or app, not both"),
    token_file: secretFile.describe(
      "A file holding the GitHub token (e.g. /run/secrets/github-token), instead of token",
    ),
    app: GitHubAppConfig.optional().describe("GitHub App credentials, as an alternative to token"),
    repository: repository.describe("owner/name of the default repository for new issues"),
    managed_label: nonEmpty
      .max(50)
      .default(DEFAULT_MANAGED_LABEL)
      .describe("Label on every issue the connector creates; only issues with it are managed"),
    issue_type: nonEmpty
      .max(100)
      .optional()
      .describe(
        "GitHub issue type (e.g. Vulnerability) set on every issue the connector creates, where the repository offers it (GET /repos/{owner}/{repo}/issue-types); elsewhere left out, said once in the log and by `check`",
      ),
    write_budget: WriteBudgetConfig.prefault({}).describe(
      "Client-side pacing of GitHub writes; the defaults are GitHub.com's published limits for content-creating requests",
    ),
    webhook: GitHubWebhookConfig.optional().describe(
      "GitHub webhooks for instant verdicts (optional; polling stays the source of truth)",
    ),
    project: ProjectConfig.optional().describe(
      "A GitHub project the created issues join (off when left out)",
    ),
  })
  .refine((g) => (g.token === undefined) !== (g.app === undefined), {
    message: "set exactly one of github.token or github.app",
    path: ["token"],
  });

const StateConfig = z.strictObject({
  path: nonEmpty
    .default("./data/state.json")
    .describe("The state file (cursors, issue mapping, queue); its folder must be writable"),
});

const HealthConfig = z.strictObject({
  port: z
    .int()
    .min(0)
    .max(65535)
    .default(9464)
    .describe("Port of /healthz, /readyz and /metrics while `run`s"),
  host: nonEmpty.default("0.0.0.0").describe("Address the health server listens on"),
});

const LogConfig = z.strictObject({
  level: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("Least severe log level written"),
  format: z
    .enum(["json", "pretty"])
    .optional()
    .describe("json lines or readable text; when left out, text on a terminal and JSON otherwise"),
});

const IncludeExclude = z.strictObject({
  include: z.array(nonEmpty).optional().describe("Only these get issues (all when left out)"),
  exclude: z.array(nonEmpty).optional().describe("These never get issues"),
});

const FiltersConfig = z.strictObject({
  min_severity: Severity.default("informational").describe(
    "informational < low < medium < high < critical; threats below it get no issue",
  ),
  modules: IncludeExclude.optional().describe(
    "Threat modules that get issues, e.g. include: [vulnerability, dns]",
  ),
  asset_types: IncludeExclude.optional().describe(
    "Asset types whose threats get issues, e.g. exclude: [person]",
  ),
  /** A threat first seen in one of these statuses gets an issue (contract: not solved/false_positive/accepted). */
  create_for_statuses: z
    .array(z.enum(THREAT_STATUSES))
    .default(["unsolved", "pending"])
    .describe("A threat first seen in one of these statuses gets an issue"),
});

const FieldsConfig = z.strictObject({
  threat: z
    .strictObject({
      title: dottedPath.default("name"),
      severity: dottedPath.default("severity"),
      module: dottedPath.default("module"),
      asset_id: dottedPath.default("asset_id"),
      age: dottedPath.default("age_days"),
      description: dottedPath.default("description"),
      detected_at: dottedPath
        .optional()
        .describe(
          "When the threat was first detected (ISO time or day, or Unix seconds or ms): the start of its SLA, when parseable",
        ),
      note: dottedPath.default("note").describe("Where threat reads carry the free-form note (notes)"),
    })
    .prefault({})
    .describe(
      "Dotted paths into the threat JSON: title, severity, module, asset_id, age (days), description",
    ),
  asset: z
    .strictObject({
      name: dottedPath.default("name"),
      type: dottedPath.default("type"),
    })
    .prefault({})
    .describe("Dotted paths into the asset JSON: name, type"),
});

const DEFAULT_CLOSE_NOTE = "Closed on GitHub ({{ issue }}) by {{ login }} as {{ reason }}.";
const DEFAULT_REOPEN_NOTE = "Reopened on GitHub ({{ issue }}) by {{ login }}.";

/** Whether a note is a Liquid template to check: the built-in notes are known good, plain text has no tag. */
function isCustomTemplate(note: string): boolean {
  return note !== DEFAULT_CLOSE_NOTE && note !== DEFAULT_REOPEN_NOTE && /\{[{%]/.test(note);
}

const Verdict = z
  .strictObject({
    status: z.enum(SETTABLE_STATUSES).describe("Status sent to the platform"),
    status_note: z
      .string()
      .optional()
      .describe(
        "Status note, a Liquid template: {{ issue }}, {{ url }}, {{ login }} and {{ reason }} are filled in. Required for accepted",
      ),
  })
  .refine((v) => v.status !== "accepted" || (v.status_note ?? "").trim() !== "", {
    message: "status accepted needs a non-empty status_note (the platform refuses it otherwise)",
    path: ["status_note"],
  })
  .superRefine((v, ctx) => {
    // A note that does not parse is a config error (exit 2 with its line), not a failed verdict.
    // Only a custom template is parsed here, so that the usual config never loads liquidjs.
    if (v.status_note === undefined || !isCustomTemplate(v.status_note)) return;
    try {
      checkTemplate("verdict_note", v.status_note);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      ctx.addIssue({ code: "custom", path: ["status_note"], message: `invalid template: ${error.message}` });
    }
  });

const VerdictsConfig = z.strictObject({
  closed: z
    .strictObject({
      completed: Verdict.default({ status: "solved", status_note: DEFAULT_CLOSE_NOTE }),
      not_planned: Verdict.default({ status: "solved", status_note: DEFAULT_CLOSE_NOTE }),
      duplicate: Verdict.default({ status: "solved", status_note: DEFAULT_CLOSE_NOTE }),
    })
    .prefault({})
    .describe("PATCH sent when a person closes an issue, per GitHub close reason"),
  reopened: Verdict.default({ status: "unsolved", status_note: DEFAULT_REOPEN_NOTE }).describe(
    "PATCH sent when a person reopens an issue",
  ),
});

const TemplatesConfig = z
  .strictObject({
    title: z.string().min(1).optional().describe("Liquid template of the issue title"),
    body: z
      .string()
      .min(1)
      .optional()
      .describe("Liquid template of the issue body (the marker is always added)"),
  })
  .superRefine((templates, ctx) => {
    // A template that does not compile, or reads what its scope does not offer, is a config error
    // (exit 2 with its line), not a failed sync.
    for (const [part, kind] of [
      ["title", "issue_title"],
      ["body", "issue_body"],
    ] as const) {
      const source = templates[part];
      if (source === undefined) continue;
      try {
        checkTemplate(kind, source);
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        ctx.addIssue({ code: "custom", path: [part], message: `invalid template: ${error.message}` });
      }
    }
  });

/** The most related assets an issue lists: beyond this the body says "and N more". */
const MAX_RELATED_ASSETS = 100;

const RenderConfig = z.strictObject({
  related_assets: z
    .number()
    .int()
    .min(0)
    .max(MAX_RELATED_ASSETS)
    .optional()
    .describe("List up to N assets related to the threat's asset in the issue body (0: none; absent: off)"),
});

export const ConfigSchema = z.strictObject({
  platform: PlatformConfig.describe("The security platform: API, OAuth 2.0 client credentials"),
  github: GitHubConfig.describe("GitHub: API, credentials (token or app), default repository, write pacing"),
  state: StateConfig.prefault({}).describe("Where the connector keeps its state"),
  schedule: z
    .string()
    .superRefine((s, ctx) => {
      // The range check first: it names the field, where node-cron only says "invalid".
      const outOfRange = cronRangeProblem(s);
      if (outOfRange !== undefined) ctx.addIssue({ code: "custom", message: outOfRange });
      else if (!cron.validate(s))
        ctx.addIssue({
          code: "custom",
          message: "not a valid cron expression (5 fields, or 6 with seconds)",
        });
    })
    // What a schedule is, for editors and for the message of one that is no string (`schedule: 15`).
    .meta({ title: "a cron expression, quoted", examples: ["*/15 * * * * *", "* * * * *"] })
    // Every 15 s: a new threat's issue within seconds, while an idle poll costs two platform reads
    // and conditional GitHub reads (304s, no rate-limit point), and writes no state.
    .default("*/15 * * * * *")
    .describe(
      'When `run` starts a cycle: cron, e.g. "*/5 * * * *"; a sixth leading field means seconds. Default every 15 s',
    ),
  health: HealthConfig.prefault({}).describe("Health and metrics server of `run`"),
  log: LogConfig.prefault({}).describe("Logging"),
  filters: FiltersConfig.prefault({}).describe("Which threats get an issue"),
  routes: z
    .array(RouteConfig)
    .default([])
    .describe("Where new issues go: the first matching rule wins; none matching → github.repository"),
  fields: FieldsConfig.prefault({}).describe(
    "Where to find the fields the spec does not name (defaults match the simulator)",
  ),
  // prefault: an absent block is parsed as {}, so each key's own default applies (one place each).
  verdicts: VerdictsConfig.prefault({}).describe(
    "What a person's close or reopen on GitHub sends to the platform",
  ),
  templates: TemplatesConfig.prefault({}).describe(
    "Liquid templates of the issue title and body (built-in ones when left out)",
  ),
  grouping: GroupingConfig.optional().describe(
    "Groups of threats: a parent issue with sub-issues, or one issue per group (off when left out)",
  ),
  sla: SlaConfig.optional().describe(
    "SLA due dates by severity, a breach label and weekly milestones (off when left out)",
  ),
  acceptance: AcceptanceConfig.optional().describe("Risk acceptance that expires (off when left out)"),
  recurrence: Recurrence,
  render: RenderConfig.optional().describe("What issue bodies show beyond the threat (off when left out)"),
  notes: NotesConfig.optional().describe("The threat's note tells its issue's story (off when left out)"),
});

export type Config = z.infer<typeof ConfigSchema>;
export type RouteRule = Config["routes"][number];
export type VerdictRule = z.infer<typeof Verdict>;
