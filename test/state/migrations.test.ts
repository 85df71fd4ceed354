import { describe, expect, it } from "vitest";
import {
  STATE_VERSION,
  State,
  StateError,
  applyMigrations,
  emptyState,
  migrate,
  type Migration,
} from "../../src/state/index.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof StateError) return err.code;
    throw err;
  }
  return undefined;
}

describe("migrate", () => {
  it("leaves a current-version state as it is", () => {
    const state = emptyState();
    expect(State.parse(migrate(state))).toEqual(state);
  });

  it("refuses a newer version with state_too_new", () => {
    expect(codeOf(() => migrate({ version: STATE_VERSION + 1 }))).toBe("state_too_new");
  });

  it("refuses a missing, non-integer or non-positive version and non-objects with state_corrupt", () => {
    for (const raw of [{}, { version: "1" }, { version: 1.5 }, { version: 0 }, [], null, 3]) {
      expect(codeOf(() => migrate(raw))).toBe("state_corrupt");
    }
  });
});

describe("applyMigrations", () => {
  const toV2: Migration = (s) => ({ ...s, version: 2, added: [] });
  const toV3: Migration = (s) => ({ ...s, version: 3, renamed: s["added"] });

  it("applies each step from the file's version up to the current one, in order", () => {
    const set = {
      current: 3,
      migrations: new Map([
        [1, toV2],
        [2, toV3],
      ]),
    };
    expect(applyMigrations({ version: 1, kept: true }, set)).toEqual({
      version: 3,
      kept: true,
      added: [],
      renamed: [],
    });
    expect(applyMigrations({ version: 2, added: ["x"] }, set)).toEqual({
      version: 3,
      added: ["x"],
      renamed: ["x"],
    });
  });

  it("an old version without a migration step is state_corrupt", () => {
    const set = { current: 3, migrations: new Map([[2, toV3]]) };
    expect(codeOf(() => applyMigrations({ version: 1 }, set))).toBe("state_corrupt");
  });
});
