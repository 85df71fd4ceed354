import { describe, expect, it } from "vitest";
import { State } from "../../src/sync/schema.js";
import { withIntent } from "../../src/sync/run/intents.js";
import { Harness, REPO, threatId } from "./harness.js";

/** The intents on the harness's "disk": what a crash at that instant would leave for recovery. */
function intentsOnDisk(h: Harness): string[] {
  return h.disk === null ? [] : Object.keys(State.parse(JSON.parse(h.disk)).intents);
}

const fields = {
  kind: "issue_state" as const,
  threatId: threatId(1),
  repo: REPO,
  number: 1,
  target: "closed" as const,
};

describe("withIntent: one write-ahead bracket for every write that needs it (architecture, intents)", () => {
  it("makes the intent durable before the write goes out, and removes it once the outcome is recorded", async () => {
    const h = new Harness();
    let seenDuringSend: string[] = [];
    await withIntent(h.ctx, fields, async (intent) => {
      seenDuringSend = intentsOnDisk(h);
      expect(seenDuringSend).toEqual([intent.id]);
    });
    expect(seenDuringSend).toHaveLength(1);
    expect(intentsOnDisk(h)).toEqual([]);
    expect(h.ctx.state.intents).toEqual({});
  });

  it("counts a failed write that resolve finds on GitHub as success (a lost response)", async () => {
    const h = new Harness();
    await withIntent(
      h.ctx,
      fields,
      async () => {
        throw new Error("response lost");
      },
      { resolve: async () => true },
    );
    expect(intentsOnDisk(h)).toEqual([]);
  });

  it("removes the intent and passes the error on when the write surely did not land", async () => {
    const h = new Harness();
    const failing = withIntent(
      h.ctx,
      fields,
      async () => {
        throw new Error("refused");
      },
      { resolve: async () => false },
    );
    await expect(failing).rejects.toThrow("refused");
    expect(intentsOnDisk(h)).toEqual([]);
  });

  it("keeps the intent for recovery when keepOnFailure says the write may have landed", async () => {
    const h = new Harness();
    const failing = withIntent(
      h.ctx,
      fields,
      async () => {
        throw new Error("timed out");
      },
      { keepOnFailure: () => true },
    );
    await expect(failing).rejects.toThrow("timed out");
    expect(intentsOnDisk(h)).toHaveLength(1);
    expect(Object.values(h.ctx.state.intents)[0]).toMatchObject({ kind: "issue_state", target: "closed" });
  });

  it("keeps the intent when resolve itself fails: GitHub is read again by recovery, never written blindly", async () => {
    const h = new Harness();
    const failing = withIntent(
      h.ctx,
      fields,
      async () => {
        throw new Error("timed out");
      },
      {
        resolve: async () => {
          throw new Error("read failed too");
        },
      },
    );
    await expect(failing).rejects.toThrow("read failed too");
    expect(intentsOnDisk(h)).toHaveLength(1);
  });
});
