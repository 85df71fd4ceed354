/**
 * Range checks of a cron expression's fields. node-cron's validate() accepts `*\/61` in the minute
 * field or 24 in the hour field and then never (or wrongly) fires; the contract wants such a
 * schedule to be a config error with its line. Names (`mon`, `jan`) are node-cron's to check.
 */

interface FieldRange {
  name: string;
  min: number;
  max: number;
}

const FIVE: readonly FieldRange[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 7 },
];
const SECOND: FieldRange = { name: "second", min: 0, max: 59 };

/** The first out-of-range value of the expression, as a message; undefined when all are in range. */
export function cronRangeProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  const ranges = fields.length === 6 ? [SECOND, ...FIVE] : fields.length === 5 ? FIVE : undefined;
  if (ranges === undefined) return undefined;
  for (const [index, field] of fields.entries()) {
    const range = ranges[index];
    if (range === undefined) continue;
    for (const part of field.split(",")) {
      const problem = partProblem(part, range);
      if (problem !== undefined) return `${range.name} field "${field}": ${problem}`;
    }
  }
  return undefined;
}

function partProblem(part: string, range: FieldRange): string | undefined {
  const [base = "", step, ...extra] = part.split("/");
  if (extra.length > 0) return undefined;
  const span = `${range.min}-${range.max}`;
  if (step !== undefined) {
    if (!/^\d+$/.test(step)) return undefined;
    const n = Number(step);
    if (n < 1 || n > range.max) return `step ${n} is out of range (1-${range.max})`;
  }
  for (const value of base.split("-")) {
    if (!/^\d+$/.test(value)) continue;
    const n = Number(value);
    if (n < range.min || n > range.max) return `${n} is out of range (${span})`;
  }
  return undefined;
}
