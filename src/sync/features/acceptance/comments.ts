import { utcDay } from "../../../shared/duration.js";

/** The comments of a risk acceptance (contract, "Risk acceptance"). */

export function acceptedComment(until: number): string {
  return `Risk accepted until ${utcDay(until)} (end of that day, UTC). The platform holds this threat as \`accepted\` until then; threatbridge then sets it \`unsolved\` again and brings this issue back. Reopening the issue earlier ends the acceptance.`;
}

export function warnComment(until: number): string {
  return `The risk acceptance of this threat ends on ${utcDay(until)} (end of that day, UTC): threatbridge then sets it \`unsolved\` on the platform and brings this issue back.`;
}

export const EXPIRED_COMMENT =
  "Reopened by threatbridge: the risk acceptance of this threat has ended, and the platform reports it as `unsolved` again.";

const ACCEPTED_LINE = /^Risk accepted until (\d{4}-\d{2}-\d{2}) \(end of that day, UTC\)/;
const WARNED_LINE =
  /^The risk acceptance of this threat ends on (\d{4}-\d{2}-\d{2}) \(end of that day, UTC\)/;

/** An acceptance as the connector's own comments on its issue tell it: its end, and whether it was warned. */
export interface AcceptanceTold {
  until: string;
  warned: boolean;
}

/** The newest acceptance the connector's own comments announce, and whether its warning followed; or null. */
export function acceptanceFromComments(
  comments: readonly string[],
  ownComment: (body: string) => boolean,
): AcceptanceTold | null {
  for (let i = comments.length - 1; i >= 0; i -= 1) {
    const body = comments[i] ?? "";
    if (!ownComment(body)) continue;
    const day = ACCEPTED_LINE.exec(body)?.[1];
    if (day === undefined) continue;
    const warned = comments
      .slice(i + 1)
      .some((later) => ownComment(later) && WARNED_LINE.exec(later)?.[1] === day);
    return { until: day, warned };
  }
  return null;
}
