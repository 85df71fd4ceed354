export { CLOSING_HINT, runDemo } from "./demo.js";
export { DemoError } from "./narrate.js";
export type { OpenDemoEngine } from "./setup.js";
export { runWorkflowDemo } from "./workflow.js";
