import { REPO, type World } from "./world.js";

/** The end-to-end tests of `notes.to_github`: the analyst's side of the note, and the comments it makes. */

/** The first line of the connector's section of the note. */
export const BEGIN = "--- threatbridge: GitHub ---";
/** The heading line of a note comment (contract, "The analyst's words on GitHub"). */
export const HEAD = /^Platform note, changed \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC:\n\n/;

/** The analyst edits the note on the platform: their text, the connector's section kept as it is. */
export function analystWrites(w: World, id: string, text: string): void {
  const note = String(w.sim.sim.getThreat(id)?.["note"] ?? "");
  const at = note.indexOf(BEGIN);
  const section = at >= 0 ? note.slice(at) : "";
  w.sim.sim.updateThreat(id, {
    note: text === "" ? section : section === "" ? text : `${text}\n\n${section}`,
  });
}

/** The comments: the connector's note comments by what they quote, people's by author. */
export function conversation(w: World, number: number): string[] {
  return w.gh.comments(REPO, number).map((c) => {
    if (!HEAD.test(c.body)) return `${c.user}: ${c.body}`;
    const shown = c.body.replace(HEAD, "").split("\n\n<!-- threatbridge:note=")[0] ?? "";
    return `note: ${shown}`;
  });
}
