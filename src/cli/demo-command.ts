import { runDemo, runWorkflowDemo, type OpenDemoEngine } from "../demo/index.js";
import { createLogger } from "../observability/index.js";
import { pino } from "pino";
import type { Io } from "./io.js";
import { DEMO } from "./command-specs.js";
import { parseCommand } from "./usage.js";
import { openEngine } from "./open-engine.js";
import { packageRoot } from "./package-root.js";
import { placeOf } from "./place.js";

/** `demo` (contract): simulator + GitHub stand-in + connector in one process, narrated; exit 0, 1 on failure. */
export async function demoCommand(args: string[], io: Io): Promise<number> {
  const workflow = parseCommand(DEMO, args).workflow;
  // The narration is the output; logs (stderr) only say something when something goes wrong.
  const logger = createLogger({
    level: io.env["THREATBRIDGE_LOG_LEVEL"] ?? "error",
    destination: pino.destination({ fd: 2, sync: true }),
  });
  try {
    const open: OpenDemoEngine = (config, log, clock) =>
      openEngine(config, { logger: log, ...(clock ? { clock } : {}) });
    if (workflow) await runWorkflowDemo({ say: io.out, logger, openEngine: open });
    else {
      // Its last words name the commands as they are typed where it runs (checkout, package, image).
      const place = placeOf({
        root: packageRoot(),
        script: process.argv[1],
        cwd: process.cwd(),
        env: io.env,
      });
      await runDemo({ say: io.out, logger, openEngine: open, place });
    }
    return 0;
  } catch (error) {
    io.err(`threatbridge demo failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
