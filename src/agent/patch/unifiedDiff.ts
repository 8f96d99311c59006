const CONTEXT = 3;
// Above this many line pairs the quadratic diff is skipped and the file shown as replaced.
const MAX_CELLS = 4_000_000;

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Unified diff hunks (`@@ -a,b +c,d @@`, 3 lines of context) from `before` to `after`; "" when equal. */
export function unifiedDiff(before: string, after: string): string {
  if (before === after) return "";
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = a.length * b.length > MAX_CELLS ? replaceAll(a, b) : lcsOps(a, b);
  const changed = ops.flatMap((op, index) => (op.kind === " " ? [] : [index]));
  const hunks: string[] = [];
  let group = 0;
  while (group < changed.length) {
    let last = group;
    while (last + 1 < changed.length && changed[last + 1]! - changed[last]! <= CONTEXT * 2 + 1) last++;
    const start = Math.max(0, changed[group]! - CONTEXT);
    const end = Math.min(ops.length, changed[last]! + CONTEXT + 1);
    const slice = ops.slice(start, end);
    const oldCount = slice.filter((op) => op.kind !== "+").length;
    const newCount = slice.filter((op) => op.kind !== "-").length;
    const header = `@@ -${range(ops[start]!.oldIndex, oldCount)} +${range(ops[start]!.newIndex, newCount)} @@\n`;
    hunks.push(header + slice.map((op) => `${op.kind}${op.text}\n`).join(""));
    group = last + 1;
  }
  return hunks.join("");
}

interface Op {
  readonly kind: " " | "-" | "+";
  readonly text: string;
  readonly oldIndex: number;
  readonly newIndex: number;
}

function range(start: number, count: number): string {
  const first = count === 0 ? start : start + 1;
  return count === 1 ? `${first}` : `${first},${count}`;
}

function replaceAll(a: string[], b: string[]): Op[] {
  return [
    ...a.map((text, index) => ({ kind: "-" as const, text, oldIndex: index, newIndex: 0 })),
    ...b.map((text, index) => ({ kind: "+" as const, text, oldIndex: a.length, newIndex: index })),
  ];
}

function lcsOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const table = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * (m + 1) + j] = a[i] === b[j] ? table[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: " ", text: a[i]!, oldIndex: i++, newIndex: j++ });
    else if (i < n && (j === m || table[(i + 1) * (m + 1) + j]! >= table[i * (m + 1) + j + 1]!)) ops.push({ kind: "-", text: a[i]!, oldIndex: i++, newIndex: j });
    else ops.push({ kind: "+", text: b[j]!, oldIndex: i, newIndex: j++ });
  }
  return ops;
}
