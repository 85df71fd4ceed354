import type { Config } from "../../../config/index.js";
import type { FeatureCheckDeps, FeatureCheckResult } from "../types.js";
import { fieldValue, findField } from "./values.js";
import { compileTemplates } from "../../../config/index.js";
import { TEMPLATE_SAMPLES, type IssueTemplateScope } from "../../../config/template-scopes.js";
import { SEVERITIES } from "../../../shared/severity.js";
import { fitsThreatIssue, GROUP_FIELD_SAMPLE } from "../../../config/project.js";

const CHECK = "github project";

/** A single-select field's possible values without a threat: its text, or its render for each severity. */
function sampleValues(source: string): string[] {
  if (!source.includes("{{") && !source.includes("{%")) return [source];
  const render = compileTemplates({ title: source }).renderTitle;
  if (render === null) return [];
  // A field that reads the group (`group.key`): its render over the group issue's sample.
  if (!fitsThreatIssue(source)) {
    try {
      return [render(GROUP_FIELD_SAMPLE)];
    } catch {
      return [];
    }
  }
  const sample = TEMPLATE_SAMPLES.issue_title as IssueTemplateScope;
  return SEVERITIES.flatMap((severity) => {
    try {
      return [render({ ...sample, threat: { ...sample.threat, severity } })];
    } catch {
      return [];
    }
  });
}

/** `threatbridge check`: the project, its fields, and the options a single-select field lacks. Reads only. */
export async function checkProject(config: Config, deps: FeatureCheckDeps): Promise<FeatureCheckResult[]> {
  const project = config.github.project;
  if (project === undefined) return [];
  const name = `${project.owner}/${project.number}`;
  const conversation = deps.conversation;
  if (conversation === undefined)
    return [{ check: CHECK, status: "skip", detail: `project ${name}: no GitHub client to read it with` }];
  const found = await conversation.getProject({ ...project, via: config.github.repository });
  if (!found.available)
    return [
      {
        check: CHECK,
        status: "fail",
        detail: `project ${name} not found (GitHub answered ${found.status}: ${found.message}); project items are off`,
        hint: "check github.project.owner and number, the token's project scope, or that this GitHub has the projects API",
      },
    ];
  const listed = await conversation.listProjectFields(found.project);
  if (!listed.available)
    return [
      {
        check: CHECK,
        status: "fail",
        detail: `project ${name}: its fields could not be read (${listed.status})`,
        hint: "check the token's project scope",
      },
    ];
  const missing: string[] = [];
  const options: string[] = [];
  for (const [fieldName, source] of Object.entries(project.fields)) {
    const field = findField(listed.fields, fieldName);
    if (!field) {
      missing.push(fieldName);
      continue;
    }
    if (field.type !== "single_select") continue;
    const lacking = [...new Set(sampleValues(source))].filter(
      (value) => value.trim() !== "" && !fieldValue(field, value).set,
    );
    if (lacking.length > 0)
      options.push(`${fieldName}: no option ${lacking.map((v) => `"${v.trim()}"`).join(", ")}`);
  }
  const results: FeatureCheckResult[] = [
    {
      check: CHECK,
      status: "pass",
      detail: `project ${name} (${found.project.title}) found, as ${found.project.ownerType === "org" ? "an organization's" : "a user's"}`,
    },
  ];
  if (missing.length > 0)
    results.push({
      check: CHECK,
      status: "warn",
      detail: `project ${name} has no field ${missing.map((m) => `"${m}"`).join(", ")}: left unset`,
      hint: "add the field on the board, or fix its name under github.project.fields",
    });
  if (options.length > 0)
    results.push({
      check: CHECK,
      status: "warn",
      detail: `project ${name}: ${options.join("; ")} (such a value leaves the field unset, said once in the log)`,
      hint: "add the option on the board",
    });
  return results;
}
