/**
 * What the one queue holds work for (controller-runtime's reconcile request): a threat, or a
 * group of threats (grouping), each under its state key. A group's key is `group:<by>:<key>`
 * (groups/group-key.ts), or a superseded record's `superseded:<n>:group:…` (groups/supersede.ts);
 * no platform threat id has either form, so the key alone says the subject's kind.
 */
export type SubjectKind = "threat" | "group";

export interface Subject {
  kind: SubjectKind;
  id: string;
}

/** The kind of the subject whose state key `id` is. */
export function subjectKind(id: string): SubjectKind {
  return id.startsWith("group:") || id.startsWith("superseded:") ? "group" : "threat";
}

export function subjectOf(id: string): Subject {
  return { kind: subjectKind(id), id };
}

/** The kind of an intent's subject: as recorded, or, in a state written before it was, by its key. */
export function intentSubject(intent: { subject?: SubjectKind | undefined; threatId: string }): SubjectKind {
  return intent.subject ?? subjectKind(intent.threatId);
}
