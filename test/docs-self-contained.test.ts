import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { ROOT } from "./helpers/spawn.ts";

/**
 * A clone holds everything a user reads: the README, the changelog, docs/ and the OpenAPI document
 * name no specification file outside the repository, and every relative link of the README and
 * docs/ leads to a file the repository has.
 */
const OUTSIDE = /\.\.\/shared|\b(SPEC|CONTRACT|SOURCES)\.md\b|\b(SPEC|CONTRACT) §/;

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f));
  return ["README.md", "CHANGELOG.md", ...docs];
}

interface Link {
  target: string;
  anchor?: string;
  line: number;
}

/** The anchors GitHub gives a file's headings (lower case, punctuation dropped, spaces as hyphens). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading)
      anchors.add(
        heading[1]!
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, "")
          .replace(/ /g, "-"),
      );
  }
  return anchors;
}

/**
 * `[text](target)` links that are not URLs, with the line they are on (a same-page anchor has an
 * empty target);
 * code blocks and code spans are not links (a sample of generated Markdown may hold some).
 */
function relativeLinks(text: string): Link[] {
  const out: Link[] = [];
  let fenced = false;
  text.split("\n").forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) return;
    for (const match of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split("#");
      out.push({ target: path!, anchor, line: i + 1 });
    }
  });
  return out;
}

describe("the documentation stands on its own", () => {
  for (const file of markdownFiles()) {
    test(`${file} names no file outside the repository`, () => {
      const text = readFileSync(join(ROOT, file), "utf8");
      const lines = text.split("\n").flatMap((line, i) => (OUTSIDE.test(line) ? [`${i + 1}: ${line}`] : []));
      expect(lines).toEqual([]);
    });
  }

  for (const file of markdownFiles().filter((f) => f !== "CHANGELOG.md")) {
    test(`${file}'s relative links lead to files of the repository`, () => {
      const text = readFileSync(join(ROOT, file), "utf8");
      const broken = relativeLinks(text).flatMap(({ target, anchor, line }) => {
        const path = target === "" ? join(ROOT, file) : join(ROOT, dirname(file), target);
        const shown = `${line}: ${relative(ROOT, path)}${anchor ? `#${anchor}` : ""}`;
        if (!existsSync(path)) return [shown];
        if (!anchor || !path.endsWith(".md")) return [];
        return anchorsOf(readFileSync(path, "utf8")).has(anchor) ? [] : [shown];
      });
      expect(broken).toEqual([]);
    });
  }

  describe("the OpenAPI document", () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness();
    });
    afterAll(() => h.close());

    test("names no file outside the repository", async () => {
      const { status, body } = await h.json("GET", "/openapi/json");
      expect(status).toBe(200);
      const text = JSON.stringify(body);
      expect(text.match(new RegExp(OUTSIDE.source, "g")) ?? []).toEqual([]);
    });
  });
});
