import { isRecord } from "../../shared/json.js";
import { escapeMarkdownInline } from "./escape.js";
import { precut, safePrefix } from "./truncate.js";

/** `module_data` as Markdown: the platform API leaves its fields open, so any JSON is flattened to dotted paths. */

interface FlatEntry {
  key: string;
  value: string;
}

// Bounds so that a pathological object costs little; the body has room for far less anyway.
const MAX_DEPTH = 8;
const MAX_ENTRIES = 2_000;
const MAX_RAW_KEY = 200;
const MAX_RAW_VALUE = 4_000;

function scalar(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  return null;
}

function flattenModuleData(data: Record<string, unknown>): FlatEntry[] {
  const out: FlatEntry[] = [];
  const visit = (value: unknown, path: string, depth: number): void => {
    if (out.length >= MAX_ENTRIES || value === null || value === undefined) return;
    const plain = scalar(value);
    if (plain !== null) {
      out.push({ key: path, value: plain });
      return;
    }
    if (depth >= MAX_DEPTH) return;
    if (Array.isArray(value)) {
      const items: unknown[] = value;
      const plainItems = items.map(scalar);
      if (plainItems.every((item, i) => item !== null || items[i] === null || items[i] === undefined)) {
        const joined = plainItems.filter((item): item is string => item !== null).join(", ");
        if (joined !== "") out.push({ key: path, value: joined });
        return;
      }
      items.forEach((item, i) => visit(item, `${path}[${i}]`, depth + 1));
      return;
    }
    if (isRecord(value)) {
      for (const [key, child] of Object.entries(value))
        visit(child, path === "" ? key : `${path}.${key}`, depth + 1);
    }
  };
  visit(data, "", 0);
  return out;
}

export function moduleDataRows(data: Record<string, unknown> | null): string[] {
  if (data === null) return [];
  return flattenModuleData(data).map(({ key, value }) => {
    const k = cell(key, MAX_RAW_KEY);
    const v = cell(value, MAX_RAW_VALUE);
    return `| ${k} | ${v} |`;
  });
}

/** One escaped cell: escaping can grow text up to sixfold (`"` → `&quot;`), so bound both sides. */
function cell(raw: string, max: number): string {
  const { text, cut } = precut(raw, max);
  const escaped = escapeMarkdownInline(text);
  const limit = max * 2;
  if (!cut && escaped.length <= limit) return escaped;
  return `${safePrefix(escaped, limit).trimEnd()}… (truncated)`;
}

export const MODULE_DATA_HEADER = "| Field | Value |\n|---|---|";

/**
 * The module data table within `budget` code units, or null when there is nothing to show.
 * Rows that do not fit are dropped with a visible note saying how many.
 */
export function moduleDataTable(rows: string[], budget: number): string | null {
  if (rows.length === 0) return null;
  const full = [MODULE_DATA_HEADER, ...rows].join("\n");
  if (full.length <= budget) return full;
  const noteOnly = `_(module data truncated: ${rows.length} ${rows.length === 1 ? "field" : "fields"} not shown)_`;
  if (budget < MODULE_DATA_HEADER.length + 120) return noteOnly.length <= budget ? noteOnly : null;
  const kept: string[] = [];
  let length = MODULE_DATA_HEADER.length;
  const noteRoom = 60;
  for (const row of rows) {
    if (length + 1 + row.length > budget - noteRoom) break;
    kept.push(row);
    length += 1 + row.length;
  }
  const dropped = rows.length - kept.length;
  const table = [MODULE_DATA_HEADER, ...kept].join("\n");
  return `${table}\n\n_(truncated: ${dropped} more ${dropped === 1 ? "field" : "fields"} not shown)_`;
}
