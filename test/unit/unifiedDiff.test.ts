import { describe, expect, it } from "vitest";
import { TurnDiff } from "../../src/agent/patch/turnDiff.js";
import { unifiedDiff } from "../../src/agent/patch/unifiedDiff.js";
import { gitApply, gitDiff, gitHunks } from "../support/gitDiff.js";

/** A source-like file of `count` lines, each different, joined by `eol`. */
function file(count: number, eol = "\n"): string {
  return Array.from({ length: count }, (_, i) => `  const value${i} = compute(${i});${eol}`).join("");
}

/** `text` with line `index` (from 0) replaced. */
function changeLine(text: string, index: number, eol = "\n"): string {
  const lines = text.split(eol);
  lines[index] = `  const value${index} = recompute(${index});`;
  return lines.join(eol);
}

/** Expects our hunks to equal git's, and returns them. */
async function expectGit(before: string, after: string): Promise<string> {
  const ours = await unifiedDiff(before, after);
  expect(ours).toBe(gitHunks(before, after));
  return ours;
}

/** `text` with lines 3 and 4 swapped, then every `every` lines the same. */
function swapPairs(text: string, every: number): string {
  const lines = text.split("\n");
  for (let i = 3; i + 1 < lines.length - 1; i += every) [lines[i], lines[i + 1]] = [lines[i + 1]!, lines[i]!];
  return lines.join("\n");
}

const hunkCount = (diff: string) => diff.split("\n").filter((line) => line.startsWith("@@")).length;

describe("unifiedDiff, against git diff --no-index", () => {
  it.each([1, 2_000, 2_001, 10_000])("shows a one-line change in a file of %i lines as one hunk with 3 lines of context", async (count) => {
    const before = file(count);
    for (const index of new Set([0, Math.floor(count / 2), count - 1])) {
      const diff = await expectGit(before, changeLine(before, index));
      expect(hunkCount(diff)).toBe(1);
      expect(diff.split("\n").filter((line) => line.startsWith(" ")).length).toBe(Math.min(index, 3) + Math.min(count - 1 - index, 3));
    }
  });

  it("shows a final newline added or removed, with git's marker", async () => {
    const withNewline = file(10);
    const without = withNewline.slice(0, -1);
    const added = await expectGit(without, withNewline);
    expect(added).toBe(
      "@@ -7,4 +7,4 @@\n   const value6 = compute(6);\n   const value7 = compute(7);\n   const value8 = compute(8);\n-  const value9 = compute(9);\n\\ No newline at end of file\n+  const value9 = compute(9);\n",
    );
    await expectGit(withNewline, without);
    // Changes near an end without a newline: the marker follows the context line, or the changed line.
    await expectGit(without, changeLine(without, 7));
    await expectGit(without, changeLine(without, 9));
    await expectGit(without, `${changeLine(without, 9)}\n`);
  });

  it("keeps CR as part of the line in CRLF files, as git does", async () => {
    const before = file(50, "\r\n");
    const diff = await expectGit(before, changeLine(before, 20, "\r\n"));
    expect(diff).toContain("-  const value20 = compute(20);\r\n+  const value20 = recompute(20);\r\n");
    // A line whose ending changes from CRLF to LF is a changed line.
    await expectGit(before, before.replace("compute(30);\r\n", "compute(30);\n"));
    await expectGit(before.slice(0, -2), before);
  });

  it("shows files created from or emptied to nothing, and nothing for equal texts", async () => {
    expect(await expectGit("", "a\nb\n")).toBe("@@ -0,0 +1,2 @@\n+a\n+b\n");
    expect(await expectGit("a\n", "")).toBe("@@ -1 +0,0 @@\n-a\n");
    expect(await expectGit("a", "")).toBe("@@ -1 +0,0 @@\n-a\n\\ No newline at end of file\n");
    expect(await unifiedDiff(file(100), file(100))).toBe("");
  });

  it("places changes next to repeated lines where git does", async () => {
    const fn = (name: string, value: number) => `function ${name}() {\n  return ${value};\n}\n`;
    await expectGit(`${fn("a", 1)}\n${fn("c", 3)}`, `${fn("a", 1)}\n${fn("b", 2)}\n${fn("c", 3)}`);
    await expectGit("a\n\n\n\nb\n", "a\n\n\nb\n");
    await expectGit("x\ny\ny\nz\n", "x\ny\ny\ny\nz\n");
    await expectGit(`${file(300)}}\n\n${file(5)}}\n\n`, `${file(300)}}\n\n${file(5)}}\n\nextra\n}\n\n`);
  });

  it("agrees with git on many scattered changes, several hunks and hunks that merge", async () => {
    const before = file(2_000);
    const after = before.split("\n").map((line, i) => (i % 97 === 5 ? `${line} // changed` : i % 7 === 0 ? null : line)).filter((line) => line !== null);
    await expectGit(before, after.join("\n"));
    // Lines that stay in the file, moved: a longer edit script, which jsdiff computes in slices.
    expect(hunkCount(await expectGit(before, swapPairs(before, 20)))).toBe(100);
    expect(hunkCount(await expectGit(file(10_000), swapPairs(file(10_000), 20)))).toBe(500);
  });

  it("past the edit limit shows the changed lines removed and added whole, still a diff git applies", async () => {
    const before = file(10_000);
    const after = swapPairs(before, 4);
    const diff = await unifiedDiff(before, after);
    expect(hunkCount(diff)).toBe(1);
    expect(gitApply(before, diff)).toBe(after);
  });
});

describe("TurnDiff", () => {
  it("renders updates, additions and deletions as git diff shows them, file by file in path order", async () => {
    const turn = new TurnDiff();
    const big = file(2_001);
    turn.record("/p/b.txt", big, changeLine(big, 1_000));
    turn.record("/p/a.txt", null, "new\n");
    turn.record("/p/c.txt", "gone\n", null);
    turn.record("/p/empty.txt", null, "");
    turn.record("/p/same.txt", "x\n", "y\n");
    turn.record("/p/same.txt", "y\n", "x\n");
    expect(await turn.render()).toBe(
      [
        gitDiff("/p/a.txt", null, "new\n"),
        gitDiff("/p/b.txt", big, changeLine(big, 1_000)),
        gitDiff("/p/c.txt", "gone\n", null),
        gitDiff("/p/empty.txt", null, ""),
      ].join(""),
    );
    // A later change to one file: its part follows, the others stay.
    turn.record("/p/b.txt", changeLine(big, 1_000), big);
    expect(await turn.render()).toBe([gitDiff("/p/a.txt", null, "new\n"), gitDiff("/p/c.txt", "gone\n", null), gitDiff("/p/empty.txt", null, "")].join(""));
  });
});
