import { describe, expect, test } from "vitest";
import { SimulatorError, startSimulator } from "../../src/simulator/index.js";

describe("startSimulator options", () => {
  test("invalid options are refused with code invalid_options before anything listens", async () => {
    for (const options of [
      { assets: 0, threats: 5 },
      { tokenTtlSeconds: 0 },
      { port: 70_000 },
      { clientId: "" },
    ]) {
      await expect(startSimulator(options)).rejects.toMatchObject({ code: "invalid_options" });
    }
    await expect(startSimulator({ readOnlyClientId: "threatbridge" })).rejects.toBeInstanceOf(SimulatorError);
  });

  test("undefined options take the defaults; custom client credentials and empty data sets work", async () => {
    const platform = await startSimulator({
      port: undefined,
      assets: 3,
      threats: 0,
      clientId: "acme",
      clientSecret: "s3cret",
      tokenTtlSeconds: 42,
    });
    try {
      expect(platform.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
      const answer = await fetch(`${platform.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&client_id=acme&client_secret=s3cret",
      });
      expect(await answer.json()).toMatchObject({ token_type: "Bearer", expires_in: 42 });
      expect(platform.sim.state()).toMatchObject({ assets: 3, threats: 0 });
    } finally {
      await platform.close();
    }
  });

  test("in-process controls throw SimulatorError not_found for unknown ids", async () => {
    const platform = await startSimulator();
    try {
      expect(() => platform.sim.removeAsset("0b7e3f52-6a1d-4c8e-9f00-123456789abc")).toThrow(SimulatorError);
      expect(() => platform.sim.updateThreat("0b7e3f52-6a1d-4c8e-9f00-123456789abc", {})).toThrow(
        expect.objectContaining({ code: "not_found" }),
      );
      expect(platform.sim.getThreat("0b7e3f52-6a1d-4c8e-9f00-123456789abc")).toBeNull();
    } finally {
      await platform.close();
    }
  });
});
