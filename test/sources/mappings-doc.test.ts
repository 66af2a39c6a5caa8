import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SOURCES } from "../../src/sources/registry.ts";
import { ROOT } from "../helpers/spawn.ts";

/**
 * docs/source-mappings.md's per-source tables and the sources' declared mappings agree: every
 * mapping a source declares is a row of its section with the same category, and every row is a
 * mapping of that category (a row may name several types; the doc names a class of types by its
 * distinctive part: `…ticket.status_changed`, `*.failed`, "Order Completed").
 */
interface Row {
  names: string[];
  category: string;
  line: string;
}

const page = readFileSync(join(ROOT, "docs/source-mappings.md"), "utf8");

/** The table rows of each `### \`id\`` section: the names its first cell gives, and the category. */
function sections(): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  let rows: Row[] | undefined;
  for (const line of page.split("\n")) {
    const heading = /^###\s+`([a-z_]+)`/.exec(line);
    if (heading) {
      rows = [];
      out.set(heading[1]!, rows);
    } else if (/^## /.test(line)) rows = undefined;
    else if (rows && /^\| /.test(line) && !/^\| -/.test(line)) {
      const [first = "", category = ""] = line.split(" | ").map((c) => c.replace(/^\| /, ""));
      if (category === "category") continue;
      // "that category": each kind the row names is written as the category of its name.
      if (category.startsWith("that category"))
        for (const kind of [...first.matchAll(/`([a-z]+)`/g)].map((m) => m[1]!))
          rows.push({ names: [kind], category: kind, line });
      else rows.push({ names: namesOf(first), category: category.split(/[\s(;,]/)[0]!, line });
    }
  }
  return out;
}

/** What a type cell names: its code spans, its quoted phrases and its words, normalised. */
function namesOf(cell: string): string[] {
  const spans = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/^[…*.]+/, ""));
  const quoted = [...cell.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.toLowerCase().replace(/ /g, "_"));
  const words = cell
    .replace(/`[^`]*`/g, " ")
    .split(/[^\w]+/)
    .filter(Boolean);
  return [...spans, ...quoted, ...words];
}

const names = (key: string, row: Row) =>
  row.names.some((n) => n === key || (n.length > 3 && key.includes(n)));

const declared = [...SOURCES.values()].flatMap((source) => {
  const mappings = (source as { mappings?: Record<string, { category: string }> }).mappings;
  return mappings ? [{ id: source.id, mappings: Object.entries(mappings) }] : [];
});

describe("docs/source-mappings.md and the declared mappings", () => {
  const tables = sections();
  test("the declarative sources are all there", () => {
    expect(declared.length).toBeGreaterThanOrEqual(18);
  });
  for (const { id, mappings } of declared) {
    test(`${id}: each mapping is a row of its category, each row a mapping`, () => {
      const rows = tables.get(id) ?? [];
      expect(rows.length).toBeGreaterThan(0);
      const undocumented = mappings
        .filter(([key, m]) => !rows.some((r) => r.category === m.category && names(key, r)))
        .map(([key, m]) => `${key} (${m.category})`);
      const unmapped = rows
        .filter((r) => !mappings.some(([key, m]) => r.category === m.category && names(key, r)))
        .map((r) => r.line.slice(0, 100));
      expect({ undocumented, unmapped }).toEqual({ undocumented: [], unmapped: [] });
    });
  }
});
