/** A small Dockerfile reader for the container checks: instructions, grouped by build stage. */

export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  from: string;
  name: string | null;
  instructions: Instruction[];
}

export interface Dockerfile {
  args: Record<string, string>;
  stages: Stage[];
}

/** Joins `\` continuations, drops comments and blank lines. */
function logicalLines(text: string): Array<{ text: string; line: number }> {
  const out: Array<{ text: string; line: number }> = [];
  let current: { text: string; line: number } | null = null;
  text.split("\n").forEach((raw, index) => {
    const trimmed = raw.trim();
    if (current === null && (trimmed === "" || trimmed.startsWith("#"))) return;
    const continued = trimmed.endsWith("\\");
    const piece = continued ? trimmed.slice(0, -1).trim() : trimmed;
    current =
      current === null
        ? { text: piece, line: index + 1 }
        : { text: `${current.text} ${piece}`, line: current.line };
    if (!continued) {
      out.push(current);
      current = null;
    }
  });
  return out;
}

export function parseDockerfile(text: string): Dockerfile {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const { text: lineText, line } of logicalLines(text)) {
    const match = /^(\S+)\s*(.*)$/.exec(lineText);
    if (!match) continue;
    const keyword = (match[1] ?? "").toUpperCase();
    const rest = match[2] ?? "";
    const stage = stages.at(-1);
    if (keyword === "FROM") {
      const [image = "", as, name] = rest.split(/\s+/);
      const resolved = image.replace(
        /\$\{(\w+)\}|\$(\w+)/g,
        (_, a: string | undefined, b: string | undefined) => args[a ?? b ?? ""] ?? "",
      );
      stages.push({
        from: resolved,
        name: as?.toUpperCase() === "AS" && name ? name : null,
        instructions: [],
      });
    } else if (keyword === "ARG" && !stage) {
      const [key = "", value = ""] = rest.split("=");
      args[key.trim()] = value.trim();
    } else if (stage) {
      stage.instructions.push({ keyword, args: rest, line });
    } else {
      throw new Error(`line ${line}: ${keyword} before the first FROM`);
    }
  }
  return { args, stages };
}

export function instructions(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword);
}

/** The JSON array of an exec-form instruction, or null when it is in shell form. */
export function execForm(args: string): string[] | null {
  try {
    const parsed: unknown = JSON.parse(args);
    if (!Array.isArray(parsed)) return null;
    const items: unknown[] = parsed;
    const strings = items.filter((x): x is string => typeof x === "string");
    return strings.length === items.length ? strings : null;
  } catch {
    return null;
  }
}
