import { describe, expect, it } from "vitest";
import { FULL, REPO, client, statusOf, useStandIn } from "./helpers.js";

/**
 * The label endpoints the connector moves its own labels with, so a verdict's echo costs no write:
 * GitHub's "Add labels to an issue" and "Remove a label from an issue" change only the labels
 * named, never the others (people's).
 */
describe("GitHub stand-in: an issue's labels", () => {
  const start = useStandIn();
  const names = (labels: Array<string | { name?: string }>) =>
    labels.map((l) => (typeof l === "string" ? l : (l.name ?? "")));

  it("POST …/labels adds without replacing; DELETE …/labels/{name} removes one and answers the rest", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t", labels: ["threatbridge", "severity:low", "triaged"] });
    const added = await gh.rest.issues.addLabels({ ...REPO, issue_number: 1, labels: ["severity:high"] });
    expect(names(added.data)).toEqual(["threatbridge", "severity:low", "triaged", "severity:high"]);
    const removed = await gh.rest.issues.removeLabel({ ...REPO, issue_number: 1, name: "Severity:Low" });
    expect(removed.status).toBe(200);
    expect(names(removed.data)).toEqual(["threatbridge", "triaged", "severity:high"]);
    expect(s.issues(FULL)[0]?.labels).toEqual(["threatbridge", "triaged", "severity:high"]);
    const unlabeled = s.events(FULL, 1).filter((e) => e.event === "unlabeled");
    expect(unlabeled).toHaveLength(1);
  });

  it("DELETE of a label the issue does not carry answers 404 and changes nothing; a missing issue 404", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t", labels: ["threatbridge"] });
    expect(await statusOf(gh.rest.issues.removeLabel({ ...REPO, issue_number: 1, name: "nope" }))).toBe(404);
    expect(
      await statusOf(gh.rest.issues.removeLabel({ ...REPO, issue_number: 9, name: "threatbridge" })),
    ).toBe(404);
    expect(s.issues(FULL)[0]?.labels).toEqual(["threatbridge"]);
  });
});
