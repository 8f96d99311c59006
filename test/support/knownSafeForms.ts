/**
 * The known-safe table both tests read: test/unit/knownSafe.test.ts checks that every `safe` form
 * is accepted and every `unsafe` spelling refused, and test/e2e/knownSafeEffects.test.ts runs
 * every `safe` form for real, in a scratch directory holding {@link SCRATCH_FILES}, and checks
 * that it changed nothing there and ran no program but its own.
 */

/** The files of a form's scratch directory; the forms name them as operands. */
export const SCRATCH_FILES: Readonly<Record<string, string>> = {
  "a.txt": "alpha\nbeta\nbeta\ngamma 10\n",
  "b.txt": "one\ttwo\nthree\tfour\n",
  "n.txt": "1000\n2048\n",
  "b64.txt": "aGVsbG8K\n",
  "dir/c.txt": "nested\n",
};

type Argv = readonly string[];

/** Each known-safe command: forms that must be accepted (and are run for real), and dangerous or unknown spellings that must not. */
export const KNOWN_SAFE_TABLE: Readonly<Record<string, { readonly safe: readonly Argv[]; readonly unsafe: readonly Argv[] }>> = {
  cat: {
    safe: [["cat", "a.txt"], ["cat", "-n", "--", "a.txt", "b.txt"], ["cat", "-vET", "a.txt"], ["cat", "a.txt", "--number"]],
    unsafe: [["cat", "--show-al", "a.txt"], ["cat", "--number=1", "a.txt"], ["./cat", "a.txt"], ["/bin/cat", "a.txt"], ["cat", "-x"]],
  },
  cd: { safe: [["cd", "dir"], ["cd", "-P", "--", "dir"]], unsafe: [["./cd", "dir"]] },
  cut: {
    safe: [["cut", "-f", "1", "b.txt"], ["cut", "-d", " ", "-f2", "a.txt"], ["cut", "--characters=1-3", "a.txt"]],
    unsafe: [["cut", "--fie=1", "b.txt"], ["cut", "-f"]],
  },
  echo: { safe: [["echo", "-n", "--output=x", "-o", "x"], ["echo"]], unsafe: [["/bin/echo", "x"], ["./echo"]] },
  expr: { safe: [["expr", "1", "+", "2"], ["expr", "length", "abc"]], unsafe: [["/usr/bin/expr", "1"]] },
  false: { safe: [["false"]], unsafe: [["./false"]] },
  grep: {
    safe: [
      ["grep", "beta", "a.txt"], ["grep", "-rn", "nested", "."], ["grep", "-e", "-exec", "-e", "alpha", "a.txt"], ["grep", "-3", "-c", "beta", "a.txt"],
      ["grep", "--include=*.txt", "-rl", "alpha", "."], ["grep", "-f", "b.txt", "a.txt"], ["grep", "alpha", "a.txt", "--color=never"],
    ],
    unsafe: [["grep", "--exclude-fro=x", "y", "a.txt"], ["grep", "-X", "grep", "y"], ["grep", "--colr", "x"], ["grep", "-e"], ["./grep", "x"]],
  },
  head: {
    safe: [["head", "-n", "2", "a.txt"], ["head", "-2", "a.txt"], ["head", "--bytes=5", "a.txt", "b.txt"], ["head", "-qn1", "a.txt", "b.txt"]],
    unsafe: [["head", "--line=2", "a.txt"], ["head", "-n"], ["head", "-x", "a.txt"]],
  },
  id: { safe: [["id"], ["id", "-un"], ["id", "--groups"]], unsafe: [["id", "--use"]] },
  ls: {
    safe: [["ls"], ["ls", "-la"], ["ls", "-R", "--color=never", "dir", "a.txt"], ["ls", "-I", "*.txt", "-1"], ["ls", "--sort=size", "-w", "80"]],
    unsafe: [["ls", "--al"], ["ls", "--sort"], ["/bin/ls"], ["./ls"], ["ls", "-y"]],
  },
  nl: { safe: [["nl", "a.txt"], ["nl", "-ba", "-w", "3", "a.txt"]], unsafe: [["nl", "--body=a", "a.txt"]] },
  numfmt: { safe: [["numfmt", "--to=iec", "1024"], ["numfmt", "--from=auto", "--field=1", "--header", "n.txt"]], unsafe: [["numfmt", "--t=iec", "1"]] },
  paste: { safe: [["paste", "a.txt", "b.txt"], ["paste", "-sd", ",", "a.txt"]], unsafe: [["paste", "--ser", "a.txt"]] },
  pwd: { safe: [["pwd"], ["pwd", "-P"]], unsafe: [["/bin/pwd"]] },
  rev: { safe: [["rev", "a.txt"]], unsafe: [["rev", "--zer", "a.txt"]] },
  seq: { safe: [["seq", "3"], ["seq", "-1", "2"], ["seq", "-s", ",", "-w", "1", "10"], ["seq", "-f", "%.1f", "1", "0.5", "2"]], unsafe: [["seq", "--sep=,", "3"]] },
  stat: { safe: [["stat", "a.txt"], ["stat", "-c", "%n %s", "a.txt", "dir"], ["stat", "--printf=%s\\n", "a.txt"]], unsafe: [["stat", "--form=%n", "a.txt"]] },
  tac: { safe: [["tac", "a.txt"], ["tac", "-s", "a", "a.txt"]], unsafe: [["tac", "--sep=a", "a.txt"]] },
  tail: {
    safe: [["tail", "-n", "2", "a.txt"], ["tail", "-1", "a.txt"], ["tail", "-n", "+2", "a.txt"], ["tail", "-c", "4", "a.txt", "b.txt"]],
    unsafe: [["tail", "--line=2", "a.txt"], ["tail", "--follo", "a.txt"]],
  },
  tr: { safe: [["tr", "a-z", "A-Z"], ["tr", "-d", "a"], ["tr", "-cs", "a-z", "\\n"]], unsafe: [["tr", "--del", "a"]] },
  true: { safe: [["true"], ["true", "--anything", "-x"]], unsafe: [["/bin/true"]] },
  uname: { safe: [["uname"], ["uname", "-a"], ["uname", "--kernel-name", "-m"]], unsafe: [["uname", "--al"], ["uname", "x"]] },
  wc: { safe: [["wc", "-l", "a.txt"], ["wc", "a.txt", "b.txt", "--total=never"]], unsafe: [["wc", "--line", "a.txt"], ["wc", "--files0=x"]] },
  which: { safe: [["which", "ls"], ["which", "-a", "cat", "nothing-here"]], unsafe: [["which", "--read-alias", "ls"], ["./which", "ls"]] },
  whoami: { safe: [["whoami"]], unsafe: [["whoami", "x"]] },
  find: {
    safe: [
      ["find", ".", "-name", "*.txt"], ["find", ".", "-name", "-exec"], ["find", "-L", ".", "-type", "f", "-newer", "a.txt", "-print"],
      ["find", ".", "-maxdepth", "1", "-printf", "%p\\n"], ["find", "dir", "-newermt", "2000-01-01", "-ls"], ["find", ".", "(", "-name", "a*", "-o", "-path", "./dir", ")", "-prune"],
      ["find"],
    ],
    unsafe: [
      ["find", ".", "-exec", "rm", "{}", ";"], ["find", ".", "-execdir", "x", "{}", "+"], ["find", ".", "-ok", "x", ";"], ["find", ".", "-okdir", "x", ";"],
      ["find", ".", "-delete"], ["find", ".", "-name", "x", "-o", "-delete"], ["find", ".", "-fls", "out"], ["find", ".", "-fprint", "out"],
      ["find", ".", "-fprint0", "out"], ["find", ".", "-fprintf", "out", "%p"], ["find", ".", "-unknown"], ["find", ".", "-name"],
    ],
  },
  rg: {
    safe: [["rg", "-n", "alpha", "a.txt"], ["rg", "-i", "--", "-exec", "a.txt"], ["rg", "--files"], ["rg", "beta", "-c", "--glob", "*.txt"], ["rg", "-uu", "-e", "beta", "-e", "gamma"]],
    unsafe: [
      ["rg", "--pre", "cat", "x"], ["rg", "--pre=cat", "x"], ["rg", "--pre-glob", "*", "--pre", "x", "y"], ["rg", "--hostname-bin", "x", "y"], ["rg", "-z", "x"],
      ["rg", "-nz", "x"], ["rg", "--search-zip", "x"], ["rg", "x", "--pre", "cat"], ["rg", "x", "-iz"], ["rg", "--pr=cat", "x"],
    ],
  },
  base64: {
    safe: [["base64", "a.txt"], ["base64", "-d", "b64.txt"], ["base64", "-w", "0", "a.txt"], ["base64", "--wrap=10", "a.txt"], ["base64", "--", "a.txt"]],
    unsafe: [["base64", "-o", "out", "a.txt"], ["base64", "-oout"], ["base64", "--output=x"], ["base64", "a.txt", "out"], ["base64", "--wr=1", "a.txt"]],
  },
  sed: {
    safe: [["sed", "-n", "1p", "a.txt"], ["sed", "-n", "2,3p", "a.txt"], ["sed", "-n", "5p"]],
    unsafe: [
      ["sed", "-n", "1p", "--expression=w /tmp/x"], ["sed", "-n", "1p", "-ew/tmp/x"], ["sed", "-n", "1p", "-i"], ["sed", "-n", "1p", "-f", "script"],
      ["sed", "-n", "1p", "-s"], ["sed", "-n", "1p", "--expr=w x"], ["sed", "-n", "1p", "--in-place"], ["sed", "-n", "1p", "a.txt", "b.txt"],
      ["sed", "-n", "1p", "--"], ["sed", "-i", "s/a/b/", "a.txt"], ["sed", "-n", "1w x"], ["sed", "-n", "1p;w x"], ["sed", "-n", "1e id"],
      ["sed", "-ne", "1p"], ["sed", "--quiet", "1p"], ["sed", "-n", "-e", "1p"], ["sed", "-n", "1p", "-z"],
    ],
  },
  uniq: {
    safe: [["uniq", "a.txt"], ["uniq", "-c", "a.txt"], ["uniq", "-f", "1", "a.txt"], ["uniq", "-2", "a.txt"], ["uniq", "--skip-fields=1", "-"], ["uniq"]],
    unsafe: [["uniq", "a.txt", "out"], ["uniq", "--", "a.txt", "out"], ["uniq", "a.txt", "-c"], ["uniq", "-c", "a.txt", "out"], ["uniq", "--coun", "a.txt"]],
  },
  // Not known-safe whatever their arguments.
  git: { safe: [], unsafe: [["git", "status"], ["git", "log"]] },
  env: { safe: [], unsafe: [["env"], ["env", "cat", "a.txt"]] },
  sort: { safe: [], unsafe: [["sort", "a.txt"], ["sort", "-o", "x", "a.txt"]] },
  tree: { safe: [], unsafe: [["tree"]] },
  xargs: { safe: [], unsafe: [["xargs", "cat"]] },
};
