import { isMap, isScalar, isSeq } from "yaml";
import type { Document, LineCounter, Node } from "yaml";

/**
 * Finds the line of a key path in the parsed YAML, for error messages. The line of a mapping
 * entry is the line of its key (where the operator looks); of a list item, the line where the item
 * starts. A path that runs out of the document (a missing key) answers the line of the deepest
 * entry that exists, i.e. the parent; the document root has no line (null).
 */
export function lineOfPath(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number | null {
  let node: unknown = doc.contents;
  let line: number | null = null;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(segment));
      if (pair === undefined) return line;
      line = lineOfNode(pair.key, lines) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number") {
      const item: unknown = node.items[segment];
      if (item === undefined) return line;
      line = lineOfNode(item, lines) ?? line;
      node = item;
    } else {
      return line;
    }
  }
  return line;
}

/** The text of a mapping key as the config sees it (keys are plain scalars in practice). */
export function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === "string" ? key : undefined;
}

function lineOfNode(node: unknown, lines: LineCounter): number | null {
  if (!isNodeWithRange(node)) return null;
  const start = node.range?.[0];
  return start === undefined ? null : lines.linePos(start).line;
}

function isNodeWithRange(node: unknown): node is Node {
  return isScalar(node) || isMap(node) || isSeq(node);
}
