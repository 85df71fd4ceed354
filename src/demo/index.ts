export { runDemo } from "./demo.js";
export { closingHint, type Place } from "./closing-hint.js";
export { DemoError } from "./narrate.js";
export type { OpenDemoEngine } from "./setup.js";
export { runWorkflowDemo } from "./workflow.js";
