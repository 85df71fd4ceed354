import { Writable } from "node:stream";
import { createGitHub, type GitHubGateway, type GitHubOptions } from "../../src/github/index.js";
import { createLogger } from "../../src/observability/index.js";
import { startFakeGitHub, type FakeGitHub, type FakeOptions } from "./fake-github.js";

export const TOKEN = "ghp_test";
export const REPO = "acme/threats";

export interface Harness {
  fake: FakeGitHub;
  gh: GitHubGateway;
  /** Every log line the gateway wrote, as text. */
  logs: string[];
  close(): Promise<void>;
}

/** A gateway against a fresh fake, with retry waits shrunk to milliseconds. */
export async function startHarness(
  overrides: Partial<GitHubOptions> = {},
  fakeOptions: FakeOptions = {},
): Promise<Harness> {
  const fake = await startFakeGitHub(fakeOptions);
  const { gh, logs } = gatewayFor(fake, overrides);
  return { fake, gh, logs, close: () => fake.close() };
}

/** A gateway (and its captured log lines) talking to an existing fake. */
export function gatewayFor(
  fake: FakeGitHub,
  overrides: Partial<GitHubOptions> = {},
): { gh: GitHubGateway; logs: string[] } {
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString("utf8"));
      callback();
    },
  });
  const gh = createGitHub({
    apiUrl: `${fake.url}/`,
    auth: { token: TOKEN },
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    managedLabel: "threatbridge",
    logger: createLogger({ level: "debug", destination }),
    retryAfterBaseValue: 1,
    ...overrides,
  });
  return { gh, logs };
}
