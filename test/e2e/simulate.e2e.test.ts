import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { assertBuilt, CLI } from "./world.js";

/** `threatbridge simulate` as a user runs it: a token, a stream page, the spec's errors, exit 0 on SIGTERM. */
describe("threatbridge simulate (end to end)", () => {
  it("serves the platform API with the given clients until SIGTERM, then exits 0", async () => {
    assertBuilt();
    const child = spawn(
      process.execPath,
      [
        CLI,
        "simulate",
        "--port",
        "0",
        "--threats",
        "7",
        "--seed",
        "3",
        "--client-id",
        "me",
        "--client-secret",
        "s3cret",
        "--token-ttl",
        "60",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m?.[1]) resolve(m[1]);
        });
        child.once("exit", () => reject(new Error(`simulate exited: ${out}`)));
        setTimeout(() => reject(new Error("simulate did not start")), 20_000);
      });
      const tokenAnswer = await fetch(`${url}/oauth/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from("me:s3cret").toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "grant_type=client_credentials",
      });
      const token = (await tokenAnswer.json()) as { access_token: string; expires_in: number };
      expect(token.expires_in).toBe(60);
      const page = await fetch(`${url}/v1/threats?limit=500`, {
        headers: { authorization: `Bearer ${token.access_token}` },
      });
      expect(page.status).toBe(200);
      expect(page.headers.get("x-request-id")).toBeTruthy();
      const body = (await page.json()) as { threats: unknown[]; pagination: { page_size: number } };
      expect(body.pagination.page_size).toBe(body.threats.length);
      const missing = await fetch(`${url}/v1/threats`);
      expect(missing.status).toBe(401);
      expect(((await missing.json()) as { type: string }).type).toBe(`${url}/errors/auth/missing-token`);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  });
});
