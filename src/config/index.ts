export { ConfigSchema, SEVERITIES, SETTABLE_STATUSES, Severity } from "./schema.js";
export type { Config, RouteRule, VerdictRule } from "./schema.js";
export { ConfigError } from "./errors.js";
export type { ConfigProblem } from "./errors.js";
export { loadConfig, parseConfigText, resolveConfigPath } from "./load.js";
export type { LoadedConfig, LoadOptions } from "./load.js";
export { UNRESOLVED_SECRET } from "./interpolate.js";
export { configJsonSchema } from "./json-schema.js";
export { redactConfig } from "./redact.js";
export { compileNote, compileTemplates, TemplateError, type CompiledTemplates } from "./templates.js";
export { compileGroupTitle } from "./templates.js";
export { featureIssueKeys } from "./issue-keys.js";
export {
  DEFAULT_ACCEPTANCE_NOTE,
  DEFAULT_GROUP_TITLE,
  DEFAULT_MIN_MEMBERS,
  type GroupBy,
} from "./workflow.js";
