// The compiler alone, not config/index.js: the planner must not build the config's schemas.
import { compileNote } from "../../../config/templates.js";
import { acceptanceNoteScope } from "../../../config/template-scopes.js";
import type { Config } from "../../../config/index.js";
import { parseDuration } from "../../../shared/duration.js";
import type { PersonChange } from "../../schema.js";

/** The `acceptance` settings as the planner and the action modules use them (durations in ms). */
export interface AcceptancePolicy {
  label: string;
  defaultMs: number;
  maxMs: number;
  warnMs: number;
  /** The `accepted` PATCH's status note for a person's close and the end it got (Liquid). */
  note: (person: PersonChange, until: string) => string;
}

function acceptancePolicy(config: Config["acceptance"]): AcceptancePolicy | undefined {
  if (!config) return undefined;
  const template = config.status_note;
  // Compiled at the first acceptance, not at start: an idle sync never loads liquidjs.
  let render: ((values: Readonly<Record<string, string>>) => string) | null = null;
  return {
    label: config.label,
    // The config refused durations that do not parse (config/workflow.ts).
    defaultMs: parseDuration(config.default) ?? 0,
    maxMs: parseDuration(config.max) ?? 0,
    warnMs: parseDuration(config.warn_before) ?? 0,
    note(person, until) {
      try {
        render ??= compileNote(template);
        return render(acceptanceNoteScope(person, until));
      } catch {
        // Checked at config load: a render that still fails (a limit) must not hold back the verdict.
        return template;
      }
    },
  };
}

const POLICIES = new WeakMap<NonNullable<Config["acceptance"]>, AcceptancePolicy>();

/** The `acceptance` settings of a config, built once per config (its note compiled at most once). */
export function acceptancePolicyOf(config: Config): AcceptancePolicy | undefined {
  const section = config.acceptance;
  if (!section) return undefined;
  let policy = POLICIES.get(section);
  if (!policy) {
    policy = acceptancePolicy(section);
    if (policy) POLICIES.set(section, policy);
  }
  return policy;
}

/** Whether a person's close is a risk acceptance: "not planned" with the acceptance label on the issue. */
export function isRiskAcceptance(person: PersonChange, policy: AcceptancePolicy | undefined): boolean {
  if (!policy || person.event !== "closed" || person.reason !== "not_planned") return false;
  const label = policy.label.toLowerCase();
  return (person.labels ?? []).some((l) => l.toLowerCase() === label);
}
