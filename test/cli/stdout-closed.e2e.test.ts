import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ignoreClosedReader } from "../../src/cli/stdout-closed.js";
import { assertBuilt, CLI } from "../e2e/world.js";

/**
 * A reader that closes the output early (`threatbridge config schema | head -1`): the command ends
 * as it would have, exit 0 and nothing on stderr, instead of an unhandled EPIPE's stack trace
 * (Node ignores SIGPIPE, so a write to the closed pipe is an error event).
 */
describe("stdout closed by its reader", () => {
  it("the built CLI drops the rest of its output and exits as the command does, quietly", async () => {
    assertBuilt();
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      // `config schema`: ~50 KB on stdout, no config and no network needed.
      const child = spawn(process.execPath, [CLI, "config", "schema"], {
        stdio: ["ignore", "pipe", "pipe"],
        env: { PATH: process.env["PATH"] ?? "" },
      });
      // Closed before the process has started: its first write meets EPIPE.
      child.stdout.destroy();
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error("threatbridge config schema did not finish"));
      }, 20_000);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("other errors of the stream are still thrown", () => {
    const stream = new PassThrough();
    ignoreClosedReader(stream);
    const quiet = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    expect(() => stream.emit("error", quiet)).not.toThrow();
    const other = Object.assign(new Error("no space left"), { code: "ENOSPC" });
    expect(() => stream.emit("error", other)).toThrow("no space left");
  });
});
