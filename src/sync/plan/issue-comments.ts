/** The comments the connector posts with its own state changes (contract, "Conventions on GitHub"). */
export const REOPEN_COMMENT =
  "Reopened by threatbridge: the platform reports this threat as `unsolved` again.";
export const ASSET_REMOVED_COMMENT =
  "Closed by threatbridge: the asset of this threat was removed from the platform, so the threat no longer exists there. The issue reopens if the asset is restored while the threat is still unsolved.";
