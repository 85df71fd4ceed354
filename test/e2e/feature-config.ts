/**
 * The workflow features' config block the dry-run end-to-end tests share: grouping by asset
 * (parent mode), an SLA per severity with weekly milestones, and notes with the last 3 comments.
 */
export const WORKFLOW_FEATURES_YAML = `grouping:
  by: asset
sla:
  critical: 7d
  high: 30d
  medium: 90d
  low: 180d
  milestones: weekly
notes:
  comments: 3
`;
