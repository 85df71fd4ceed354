/**
 * Retiring an old setting's group issue (contract, "Changing grouping"), pure: closed `not_planned`
 * with its marker retired, then one comment naming the issues that carry its members now, once
 * they all exist.
 */

interface RetireRef {
  groupId: string;
  repo: string;
  number: number;
  /** Which of the old setting's issues: a parent, or single mode's one issue. */
  issueKind: "parent" | "single";
}

export type RetireAction =
  (RetireRef & { kind: "group_retire" }) | (RetireRef & { kind: "group_retire_note"; body: string });

/** The carrying issues listed in a comment at most; the rest are counted. */
export const CARRIERS_LISTED = 100;

export interface RetireInput extends RetireRef {
  retired: "closed" | "noted" | undefined;
  /** GitHub refused the issue for good (deleted, locked): nothing is written to it. */
  refused: boolean;
  /** A person's change of it whose verdicts are still to send: it is absorbed first. */
  personPending: boolean;
  /** The issues that carry its members now, or null while one still waits for its issue. */
  carriers: readonly string[] | null;
  /** The old setting and the new, as the comment names them. */
  was: string;
  now: string;
}

export function retireComment(input: Pick<RetireInput, "issueKind" | "carriers" | "was" | "now">): string {
  const what = input.issueKind === "parent" ? "parent issue" : "group issue";
  const carriers = [...new Set(input.carriers ?? [])].sort(byIssue);
  const listed = carriers.slice(0, CARRIERS_LISTED).join(", ");
  const more = carriers.length > CARRIERS_LISTED ? ` and ${carriers.length - CARRIERS_LISTED} more` : "";
  const members =
    carriers.length === 0
      ? "None of its threats needs an issue of its own now (none is open)."
      : `Its threats are now carried by ${listed}${more}.`;
  return [
    `Closed by threatbridge: the grouping setting changed (this ${what} was made under ${input.was}; it is now ${input.now}), so this ${what} is no longer kept.`,
    members,
  ].join(" ");
}

/** `owner/name#N` in repository order, then by number. */
function byIssue(a: string, b: string): number {
  const [ra = "", na = "0"] = a.split("#");
  const [rb = "", nb = "0"] = b.split("#");
  return ra.localeCompare(rb) || Number(na) - Number(nb);
}

export function planRetire(input: RetireInput): RetireAction[] {
  const { groupId, repo, number, issueKind } = input;
  const ref = { groupId, repo, number, issueKind };
  if (input.refused || input.retired === "noted" || input.personPending) return [];
  if (input.retired === "closed") {
    return [{ kind: "group_retire_note", ...ref, body: retireComment(input) }];
  }
  // Closed only once its members' issues exist (the comment names them).
  return input.carriers === null ? [] : [{ kind: "group_retire", ...ref }];
}
