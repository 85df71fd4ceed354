export { CLOSING_HINT, runDemo, type DemoOptions } from "./demo.js";
export { DemoError } from "./narrate.js";
export type { DemoEngine, OpenDemoEngine } from "./setup.js";
export { runWorkflowDemo, WORKFLOW_DEMO_CONFIG, type WorkflowDemoOptions } from "./workflow.js";
