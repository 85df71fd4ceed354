import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assertBuilt, CLI } from "./world.js";

/**
 * README's "Try it locally" as written, from a built checkout to a person's close becoming a
 * verdict on the platform. The block's lines are read from README.md and run one by one:
 * `threatbridge …` is the alias the block defines (this checkout's dist/cli.js), a trailing `&`
 * runs in the background, `export`, `mkdir -p` and `cd` do what a shell does, and `curl` is
 * fetch with curl's `-X` and `-d`. The one liberty taken: the fakes bind free ports instead of
 * 8080/8081 (other tests on this machine may hold those): `simulate` binds port 0 for both and its
 * banner tells which it got, the URLs in the block are rewritten to them and the config's own
 * variables (PLATFORM_BASE_URL, ...) carry them to the commands.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The first ```sh block after "**Try it locally.**", its continued lines joined. */
async function tryItLocally(): Promise<string[]> {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("**Try it locally.**"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** Shell words, with '…' and "…" quoting (enough for the block's lines). */
function words(line: string): string[] {
  return [...line.matchAll(/(?:'[^']*'|"[^"]*"|[^\s'"]+)+/g)].map((m) =>
    m[0].replace(/'([^']*)'|"([^"]*)"/g, "$1$2"),
  );
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe("README: Try it locally", () => {
  it("runs as written: init, config validate, sync, a person's close through the stand-in's control route, sync again: the platform's threat has alice's verdict", async () => {
    assertBuilt();
    const lines = await tryItLocally();
    const home = await mkdtemp(join(tmpdir(), "threatbridge-try-"));
    dirs.push(home);
    // Where `simulate` serves, from its banner (it binds port 0 for both fakes).
    let platformUrl = "";
    let githubUrl = "";
    const ports = (text: string): string =>
      text.replaceAll("http://127.0.0.1:8080", platformUrl).replaceAll("http://127.0.0.1:8081", githubUrl);
    const env: Record<string, string> = { PATH: process.env["PATH"] ?? "" };
    /** The banner's URLs, once both are out; the config's variables carry them to the commands. */
    const serving = (banner: string): boolean => {
      const platform = /platform simulator on (http:\/\/127\.0\.0\.1:\d+) /.exec(banner)?.[1];
      const github = /GitHub stand-in on (http:\/\/127\.0\.0\.1:\d+) /.exec(banner)?.[1];
      if (platform === undefined || github === undefined) return false;
      [platformUrl, githubUrl] = [platform, github];
      Object.assign(env, {
        PLATFORM_BASE_URL: platformUrl,
        PLATFORM_TOKEN_URL: `${platformUrl}/oauth/token`,
        GITHUB_API_URL: githubUrl,
      });
      return true;
    };
    let cwd = ROOT;
    let alias = false;
    const outputs: { line: string; ran: Ran }[] = [];

    const threatbridge = (args: string[], background: boolean): Promise<Ran> => {
      expect(alias, "the block defines threatbridge before using it").toBe(true);
      const extra = args[0] === "simulate" ? ["--port", "0", "--github-port", "0"] : [];
      const child = spawn(process.execPath, [CLI, ...args, ...extra], {
        cwd,
        env: { ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      if (background)
        // Serving once the stand-in's line is out: the banner's last.
        return new Promise((resolveRun, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`${args.join(" ")} did not start: ${stdout}${stderr}`)),
            20_000,
          );
          child.stdout.on("data", () => {
            if (!serving(stdout)) return;
            clearTimeout(timer);
            resolveRun({ code: null, stdout, stderr });
          });
          child.once("exit", () => reject(new Error(`${args.join(" ")} exited: ${stdout}${stderr}`)));
        });
      return new Promise((resolveRun, reject) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`${args.join(" ")} did not finish: ${stderr}`));
        }, 90_000);
        child.on("exit", (code) => {
          clearTimeout(timer);
          resolveRun({ code, stdout, stderr });
        });
      });
    };

    const curl = async (args: string[]): Promise<Ran> => {
      let method = "GET";
      let body: string | undefined;
      let url = "";
      for (let i = 0; i < args.length; i++) {
        const arg = args[i] ?? "";
        if (arg === "-X") method = args[++i] ?? "";
        else if (arg === "-d") {
          body = args[++i];
          if (method === "GET") method = "POST";
        } else if (arg !== "-s") url = arg;
      }
      const res = await fetch(ports(url), { method, ...(body === undefined ? {} : { body }) });
      return { code: res.ok ? 0 : 22, stdout: await res.text(), stderr: "" };
    };

    for (const line of lines) {
      for (const command of line.split(" && ")) {
        const [program = "", ...args] = words(command.replace(/\s*#.*$/, ""));
        const background = args.at(-1) === "&";
        if (background) args.pop();
        let ran: Ran = { code: 0, stdout: "", stderr: "" };
        if (program === "npm")
          continue; // `npm ci && npm run build`: done before the suite runs
        else if (program === "alias") {
          expect(args[0]).toMatch(/^threatbridge=node \S+\/dist\/cli\.js$/);
          alias = true;
        } else if (program === "mkdir") {
          expect(args[0]).toBe("-p");
          const dir = join(home, args[1] ?? "");
          await mkdir(dir, { recursive: true });
        } else if (program === "cd") cwd = join(home, args[0] ?? "");
        else if (program === "export")
          for (const assignment of args) {
            const [name = "", ...value] = assignment.split("=");
            env[name] = value.join("=");
          }
        else if (program === "threatbridge") ran = await threatbridge(args, background);
        else if (program === "curl") ran = await curl(args);
        else throw new Error(`the README's block runs ${program}, which this test does not know`);
        expect(ran.code, `${command}\n${ran.stderr}${ran.stdout}`).toSatisfy(
          (c) => c === 0 || (background && c === null),
        );
        outputs.push({ line: command, ran });
      }
    }

    const ranLines = outputs.map((o) => o.line);
    expect(ranLines.filter((l) => l.startsWith("threatbridge init"))).toHaveLength(1);
    expect(ranLines).toContain("threatbridge config validate");
    expect(ranLines.filter((l) => l === "threatbridge sync")).toHaveLength(2);
    expect(outputs.find((o) => o.line === "threatbridge config validate")?.ran.stdout).toBe(
      "config/threatbridge.yaml: valid\n",
    );

    // The person's close went through the control route and named alice.
    const close = outputs.find((o) => o.line.startsWith("curl") && o.line.includes("/close"));
    const closed = JSON.parse(close?.ran.stdout ?? "{}") as {
      number: number;
      state: string;
      closed_by: string;
    };
    expect(closed).toMatchObject({ state: "closed", closed_by: "alice" });

    // The second sync sent alice's verdict: the issue's threat on the platform says so.
    const issue = (await (
      await fetch(`${githubUrl}/repos/acme/security-threats/issues/${closed.number}`, {
        headers: { authorization: "token ghp_standin" },
      })
    ).json()) as { body: string };
    const threatId = /threatbridge:threat=([0-9a-f-]+)/.exec(issue.body)?.[1];
    expect(threatId).toBeDefined();
    const threat = (await (await fetch(`${platformUrl}/_sim/threats/${threatId ?? ""}`)).json()) as {
      status: string;
      status_note: string;
    };
    // `solved`, or `pending` where the platform re-tests the finding first (the platform API's status table).
    expect(["solved", "pending"]).toContain(threat.status);
    expect(threat.status_note).toBe(
      `Closed on GitHub (acme/security-threats#${closed.number}) by alice as completed.`,
    );
    const secondSync = outputs.filter((o) => o.line === "threatbridge sync")[1];
    expect(secondSync?.ran.stderr).toContain(threatId);
  }, 180_000);
});
