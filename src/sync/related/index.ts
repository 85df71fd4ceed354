export { prepareRelated, writesBody } from "./prepare.js";
export { RelatedAssets, type RelatedStoreDeps } from "./related-store.js";
export { absorbRelatedPage, relatedView, walkRelated, type RelatedWalk } from "./related-walk.js";
export { relatedRecord } from "./dry-run-lines.js";
