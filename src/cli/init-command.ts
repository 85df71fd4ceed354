import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { configJsonSchema } from "../config/index.js";
import type { Io } from "./io.js";
import { INIT } from "./command-specs.js";
import { shippedConfigPath } from "./package-root.js";
import { parseCommand } from "./usage.js";

/** Where `init` writes, under D: the path `-c` defaults to when no $THREATBRIDGE_CONFIG is set. */
const CONFIG_FILE = join("config", "threatbridge.yaml");
/** The schema the example's first line names (`$schema=./threatbridge.schema.json`), for editors. */
const SCHEMA_FILE = join("config", "threatbridge.schema.json");

function errorCode(error: unknown): unknown {
  return error instanceof Error && "code" in error ? error.code : undefined;
}

/**
 * `init [--dir D]`: the shipped example config, copied to D/config/threatbridge.yaml so that the
 * other commands run from D find it without -c. Never overwrites: an existing file is exit 2.
 */
export async function initCommand(args: string[], io: Io): Promise<number> {
  const opts = parseCommand(INIT, args);
  const dir = resolve(opts.dir ?? ".");
  const example = shippedConfigPath();
  if (example === undefined) {
    io.err(
      "threatbridge init: the example config (config/threatbridge.yaml) is missing from this installation",
    );
    return 1;
  }
  const target = join(dir, CONFIG_FILE);
  // Shown as typed from where the user is: "config/threatbridge.yaml", not an absolute path.
  const shown = relative(process.cwd(), target) || target;
  try {
    await mkdir(join(dir, "config"), { recursive: true });
    // `wx`: the check and the write are one step, so a file that appears meanwhile is kept too.
    await writeFile(target, await readFile(example, "utf8"), { flag: "wx" });
  } catch (error) {
    if (errorCode(error) === "EEXIST") {
      io.err(
        `threatbridge init: ${shown} already exists; init never overwrites a config: edit it, move it away, or pass --dir D`,
      );
      return 2;
    }
    io.err(
      `threatbridge init: cannot write ${shown}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }
  const schemaWritten = await writeFile(
    join(dir, SCHEMA_FILE),
    `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
    {
      flag: "wx",
    },
  ).then(
    () => true,
    () => false,
  );
  const from = opts.dir === undefined ? "here" : relative(process.cwd(), dir) || ".";
  io.out(`wrote ${shown}${schemaWritten ? " and its JSON Schema beside it" : ""}`);
  io.out(
    `Commands run from ${from} read it without -c. As written it talks to \`threatbridge simulate --with-github\`; ` +
      "its comments say what to set for real use. Next: `threatbridge config validate`.",
  );
  const fromEnv = io.env["THREATBRIDGE_CONFIG"];
  if (fromEnv !== undefined && fromEnv !== "")
    io.out(
      `Note: $THREATBRIDGE_CONFIG is set (${fromEnv}), so the commands read that file instead; pass -c ${shown} or unset it.`,
    );
  return 0;
}
