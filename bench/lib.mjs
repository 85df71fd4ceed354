// What the benchmarks share: the simulator in a process of its own (so that its memory and CPU do
// not count), and a platform client for it.
import { spawn } from "node:child_process";
import { createPlatformClient } from "../dist/platform/index.js";

export async function startSimulatorProcess(args) {
  const child = spawn(process.execPath, ["dist/cli.js", "simulate", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d.toString();
      const m = /on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once("exit", () => reject(new Error(`simulator exited: ${out}`)));
    setTimeout(() => reject(new Error("simulator did not start in 60 s")), 60_000).unref();
  });
  return { url, stop: () => child.kill("SIGTERM") };
}

export function platformClient(url, extra = {}) {
  return createPlatformClient({
    baseUrl: url,
    tokenUrl: `${url}/oauth/token`,
    clientId: "threatbridge",
    clientSecret: "threatbridge-secret",
    tokenAuth: "client_secret_basic",
    ...extra,
  });
}
