export { prepareRelated, writesBody } from "./prepare.js";
export { RelatedAssets } from "./related-store.js";
export { walkRelated } from "./related-walk.js";
export { relatedRecord } from "./dry-run-lines.js";
