import { describe, expect, it } from "vitest";
import {
  applyWasmTiering,
  DEFAULT_WASM_TIERING_BUDGET,
  wasmTieringBudget,
} from "../../src/cli/wasm-tiering.js";

describe("WebAssembly tiering: the CLI keeps undici's HTTP parser on V8's baseline code unless it is really hot", () => {
  it("sets --wasm-tiering-budget once at start, to the default unless THREATBRIDGE_WASM_TIERING_BUDGET says otherwise", () => {
    const flags: string[] = [];
    const set = (f: string) => void flags.push(f);
    expect(applyWasmTiering({}, set)).toBe(DEFAULT_WASM_TIERING_BUDGET);
    expect(applyWasmTiering({ THREATBRIDGE_WASM_TIERING_BUDGET: "5000000" }, set)).toBe(5_000_000);
    expect(flags).toEqual([
      `--wasm-tiering-budget=${DEFAULT_WASM_TIERING_BUDGET}`,
      "--wasm-tiering-budget=5000000",
    ]);
  });

  it("0 leaves V8's own budget: no flag is set", () => {
    const flags: string[] = [];
    expect(applyWasmTiering({ THREATBRIDGE_WASM_TIERING_BUDGET: "0" }, (f) => void flags.push(f))).toBe(0);
    expect(flags).toEqual([]);
  });

  it("a value that is not a whole number from 0 to 2^31-1 falls back to the default, never reaches V8", () => {
    for (const raw of ["-5", "1.5", "many", "1e12", "5 --expose-gc", " "])
      expect(wasmTieringBudget({ THREATBRIDGE_WASM_TIERING_BUDGET: raw })).toBe(DEFAULT_WASM_TIERING_BUDGET);
  });
});
