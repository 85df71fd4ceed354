import { emptyState, readStateFile } from "../state/index.js";
import { formatStatus, summarize } from "../sync/index.js";
import { CONFIG_OPTION, parse } from "./usage.js";
import { configFromArgs, type Io } from "./io.js";

/** `status`: what the state holds; reads the file only (no lock, no network). */
export async function statusCommand(args: string[], io: Io): Promise<number> {
  const opts = parse(args, { ...CONFIG_OPTION, json: { type: "boolean", default: false } });
  const { config } = await configFromArgs(opts.config, io.env);
  const state = await readStateFile(config.state.path);
  const report = {
    statePath: config.state.path,
    stateFile: state !== null,
    ...summarize(state ?? emptyState()),
  };
  if (opts.json === true) io.out(JSON.stringify(report));
  else
    io.out(
      `state:      ${config.state.path}${state ? "" : " (absent: no cycle has run)"}\n${formatStatus(report)}`,
    );
  return 0;
}
