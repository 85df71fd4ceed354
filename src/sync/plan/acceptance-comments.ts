import { utcDay } from "../../shared/duration.js";

/** The comments of a risk acceptance and of a recurrence (contract, "Risk acceptance", "Recurrence"). */

export function acceptedComment(until: number): string {
  return `Risk accepted until ${utcDay(until)} (end of that day, UTC). The platform holds this threat as \`accepted\` until then; threatbridge then sets it \`unsolved\` again and brings this issue back. Reopening the issue earlier ends the acceptance.`;
}

export function warnComment(until: number): string {
  return `The risk acceptance of this threat ends on ${utcDay(until)} (end of that day, UTC): threatbridge then sets it \`unsolved\` on the platform and brings this issue back.`;
}

export const EXPIRED_COMMENT =
  "Reopened by threatbridge: the risk acceptance of this threat has ended, and the platform reports it as `unsolved` again.";

export function recurredComment(next: { repo: string; number: number }, expired: boolean): string {
  const why = expired ? "its risk acceptance ended" : "the platform reports it as `unsolved` again";
  return `This threat recurred (${why}): it continues in ${next.repo}#${next.number}. This issue stays closed.`;
}
