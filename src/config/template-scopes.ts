/**
 * What each kind of template in the config sees, and a sample of it (contract: "a variable or
 * filter that does not exist for that template is a config error"). The config checks every
 * template against its kind's sample, so the sample must offer exactly what a render offers:
 *
 * - the notes' and the group title's scopes are built here, by the functions the renderers call,
 *   and the samples are those same functions applied to sample facts;
 * - the issue's scope is built by the renderer (sync/render/template-scope.ts, which escapes
 *   platform text), typed `IssueTemplateScope`: a variable added there without its type here does
 *   not compile, and the sample below has that type, so it cannot miss it either.
 */

/** Stands for platform JSON whose properties are not known in advance: any path below it exists. */
export const ANY_JSON: unique symbol = Symbol("any JSON");

/**
 * The title and body templates' scope (`templates.title`, `templates.body`): the core's variables
 * (`CoreIssueScope`, built by sync/render/template-scope.ts) and each configured feature's (its
 * `viewOf`'s `scope`, sync/features/), typed here so that the sample offers them.
 */
export type IssueTemplateScope = CoreIssueScope & FeatureIssueScopes;

/** The features' variables in the issue templates' scope: a feature's `viewOf` gives exactly these. */
export interface FeatureIssueScopes {
  sla: { due: string; days_left: number; breached: boolean } | null;
}

/** The issue templates' variables the core renders. */
export interface CoreIssueScope {
  threat: {
    id: string | null;
    title: string | null;
    description: string | null;
    severity: string | null;
    severity_rank: number | null;
    module: string | null;
    status: string | null;
    age_days: number | null;
    asset_id: string | null;
    updated_at: string | null;
    /** The threat's `module_data` as the platform sends it (open-ended JSON). */
    module_data: unknown;
    module_data_table: string;
  };
  asset: { id: string | null; name: string | null; type: string | null };
  platform_url: string | null;
  /** The route that placed the issue: its rule, counted from 0, and its line; null when none did. */
  route: { rule: number; line: string } | null;
  /** The related walk's assets (`render.related_assets`; empty when off) and how many more there are. */
  related: { id: string | null; name: string | null; type: string | null }[];
  related_more: number;
}

const ISSUE_SAMPLE: IssueTemplateScope = {
  threat: {
    id: "0b6c2f1e-0000-4000-8000-000000000000",
    title: "Outdated TLS configuration",
    description: "text",
    severity: "high",
    severity_rank: 3,
    module: "vulnerability",
    status: "unsolved",
    age_days: 3,
    asset_id: "a-1",
    updated_at: "2026-01-01T00:00:00Z",
    module_data: ANY_JSON,
    module_data_table: "| key | value |",
  },
  asset: { id: "a-1", name: "www.example.com", type: "domain" },
  platform_url: "https://app.example.com/threats/0b6c2f1e",
  sla: { due: "2026-02-01", days_left: 30, breached: false },
  route: { rule: 1, line: "Routed here by routes[1]: asset_name *.payments.acme.test" },
  related: [{ id: "a-2", name: "db.example.com", type: "domain" }],
  related_more: 0,
};

/** The facts of a person's close or reopen that a status note shows. */
interface NoteFacts {
  repo: string;
  number: number;
  url: string;
  login: string;
  reason?: string | null | undefined;
}

/** `verdicts.*.status_note`: the person's change. */
export function verdictNoteScope(person: NoteFacts): Readonly<Record<string, string>> {
  return {
    issue: `${person.repo}#${person.number}`,
    url: person.url,
    login: person.login,
    reason: person.reason ?? "completed",
  };
}

/** `acceptance.status_note`: the person's change and the day the acceptance lasts until. */
export function acceptanceNoteScope(person: NoteFacts, until: string): Readonly<Record<string, string>> {
  return { ...verdictNoteScope(person), until, reason: person.reason ?? "not_planned" };
}

/** What a group issue's title shows of its group (values escaped by the caller). */
interface GroupTitleFacts {
  key: string;
  name: string;
  by: string;
  open: number;
  total: number;
}

/** `grouping.title`. */
export function groupTitleScope(group: GroupTitleFacts): { group: GroupTitleFacts } {
  const { key, name, by, open, total } = group;
  return { group: { key, name, by, open, total } };
}

const SAMPLE_PERSON: NoteFacts = {
  repo: "acme/security-threats",
  number: 12,
  url: "https://github.com/acme/security-threats/issues/12",
  login: "alice",
  reason: "completed",
};

/** The kinds of template the config holds. */
export type TemplateKind = "issue_title" | "issue_body" | "verdict_note" | "acceptance_note" | "group_title";

export const TEMPLATE_SAMPLES: Readonly<Record<TemplateKind, object>> = {
  issue_title: ISSUE_SAMPLE,
  issue_body: ISSUE_SAMPLE,
  verdict_note: verdictNoteScope(SAMPLE_PERSON),
  acceptance_note: acceptanceNoteScope(SAMPLE_PERSON, "2026-12-31"),
  group_title: groupTitleScope({ key: "CVE-2026-0001", name: "www", by: "cve", open: 1, total: 2 }),
};

/**
 * Names people reach for that the scope calls otherwise: the simulator's JSON names (and the
 * `fields` block's keys) of what the issue's scope shows under another name.
 */
export const TEMPLATE_ALIASES: Readonly<Record<string, string>> = {
  "threat.name": "threat.title",
  "threat.age": "threat.age_days",
  "asset.asset_type": "asset.type",
};
