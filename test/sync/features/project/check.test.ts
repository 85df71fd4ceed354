import { describe, expect, it } from "vitest";
import { checkProject } from "../../../../src/sync/features/project/check.js";
import { makeConfig, REPO } from "../../harness.js";
import { FakeProjects } from "./fake-projects.js";

const config = makeConfig({
  github: {
    token: "t",
    repository: REPO,
    project: {
      owner: "acme",
      number: 7,
      fields: { Severity: "{{ threat.severity }}", Priority: "P1", Triage: "urgent" },
    },
  },
});
const platform = { streamThreats: () => (async function* () {})() };

// Contract: "`check` reads the project and names every configured field it cannot find".
describe("threatbridge check of github.project", () => {
  it("names every configured field the project lacks, and a fixed single-select value with no option", async () => {
    const p = new FakeProjects([
      { id: 1, name: "Severity", type: "single_select", options: [{ id: "o1", name: "High" }] },
      { id: 2, name: "Triage", type: "single_select", options: [{ id: "o2", name: "Later" }] },
    ]);
    const lines = await checkProject(config, { platform, conversation: p });
    expect(lines.map((l) => l.status)).toEqual(["pass", "warn", "warn"]);
    expect(lines[1]?.detail).toContain('"Priority"');
    expect(lines[1]?.detail).not.toContain("Severity");
    expect(lines[2]?.detail).toContain('Triage: no option "urgent"');
    // The severity's render for each severity: the board offers High alone.
    expect(lines[2]?.detail).toContain('Severity: no option "informational", "low", "medium", "critical"');
    // Reads only.
    expect(p.requests.add + p.requests.patch).toBe(0);
  });

  it("a missing project, or no projects API (404): one failing line saying project items are off", async () => {
    const p = new FakeProjects();
    p.missing = true;
    const lines = await checkProject(config, { platform, conversation: p });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: "fail" });
    expect(lines[0]?.detail).toContain("off");
  });

  it("says nothing without github.project", async () => {
    expect(await checkProject(makeConfig(), { platform, conversation: new FakeProjects() })).toEqual([]);
  });
});
