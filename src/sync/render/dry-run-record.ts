/** One action of the plan. `--json` prints it as it is: `action`, `threat_id`, where known the rest. */
export interface DryRunRecord {
  action: string;
  threat_id: string;
  repository?: string;
  issue?: number;
  severity?: string;
  title?: string;
  labels?: string[];
  assignees?: string[];
  detail?: string;
  /** A create a route places: the rule and what of it matched (`routes[1]: asset_name *.acme.test`). */
  route?: string;
  /** The related assets the written body lists (config `render.related_assets`), and how many more. */
  related_assets?: { id: string; name: string | null; type: string | null }[];
  related_more?: number;
}

/** Where the engine writes what it decided: the real writer, or the dry-run printer. */
export interface DryRunSink {
  /**
   * `githubWrite`: the line is a write to GitHub, one the write budget would pace (the plan's time
   * at the budget counts those); absent for lines that write nothing.
   */
  print(line: DryRunRecord, githubWrite?: boolean): void;
}
