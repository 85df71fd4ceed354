/** The labels the connector owns, named once: the renderer writes them, an update keeps every other. */

/** The managed label's default (contract: every issue the connector creates carries it). */
export const DEFAULT_MANAGED_LABEL = "threatbridge";

/** The label of a group's parent issue (contract, "Groups"), beside the managed label. */
export const GROUP_LABEL = "threatbridge:group";

const SEVERITY_LABEL_PREFIX = "severity:";
const MODULE_LABEL_PREFIX = "module:";

/** Labels the connector wrote once and no more (`pending`): an update still removes them as its own. */
const RETIRED_LABELS: readonly string[] = ["pending"];

export function severityLabel(severity: string): string {
  return `${SEVERITY_LABEL_PREFIX}${severity}`;
}

export function moduleLabel(module: string): string {
  return `${MODULE_LABEL_PREFIX}${module}`;
}

/**
 * Whether a label is the connector's own: the managed label, a severity or module label, or a
 * retired one. A route's labels are not: they are given to a new issue only, and a person's later
 * change of them stands (contract, "Conventions"). GitHub compares label names case-insensitively,
 * so this does.
 */
export function isOwnLabel(label: string, managedLabel: string): boolean {
  const l = label.toLowerCase();
  return (
    l === managedLabel.toLowerCase() ||
    RETIRED_LABELS.includes(l) ||
    l.startsWith(SEVERITY_LABEL_PREFIX) ||
    l.startsWith(MODULE_LABEL_PREFIX)
  );
}
