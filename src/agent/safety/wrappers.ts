import { grammar, parseArgs, type Grammar, type ParsedOption } from "./options.js";
import { runs, unknown, type Analysis, type Analyzer, type NestedParser, type Run } from "./runs.js";
import type { ShellWord } from "./shellTypes.js";
import { isSensitiveVariable, UNKNOWN_ARGUMENTS, type Assignment } from "./variables.js";

/** How a wrapper's words end in the command it runs, beyond its option grammar. */
interface WrapperSpec {
  readonly grammar: Grammar;
  /** Words between the options and the command (timeout's DURATION, taskset's MASK). */
  readonly operands?: number;
  /** Options whose value is a shell script the wrapper runs (`flock -c`, `script -c`, `su -c`). */
  readonly scripts?: readonly string[];
  /** Options that change directory before the command runs ("always": it always does). */
  readonly chdir?: readonly string[] | "always";
  /** Options after which what runs cannot be known, and why. */
  readonly unknowable?: Readonly<Record<string, string>>;
  /** Options after which nothing runs (`command -v` only describes). */
  readonly describes?: readonly string[];
  /** With no command, the wrapper runs an interactive shell, reading standard input. */
  readonly shellWithout?: boolean;
  /** Reads the operands where they are more than fixed words and a command (chroot's root, flock's `FILE -c SCRIPT`, xargs's input). */
  readonly operandRuns?: (options: readonly ParsedOption[], operands: readonly ShellWord[]) => { readonly command: readonly ShellWord[]; readonly runs: readonly Run[] };
  /** `NAME=value` words before the command set variables for it (env, sudo). */
  readonly assignments?: boolean;
  /** The option whose `NAME=value` sets a variable for the command. */
  readonly environment?: string;
  /** The option naming an output file, which may be `|COMMAND`. */
  readonly pipeOutput?: string;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  builtin: { grammar: grammar([]) },
  command: { grammar: grammar(["-p", "-v", "-V"]), describes: ["-v", "-V"] },
  coproc: { grammar: grammar([]) },
  exec: { grammar: grammar(["-c", "-l", "-a="]) },
  nohup: { grammar: grammar(["--help", "--version"]) },
  time: { grammar: grammar(["-p|--portability", "-a|--append", "-q|--quiet", "-v|--verbose", "-o|--output=", "-f|--format=", "--help", "-V|--version"]) },
  nice: { grammar: grammar(["-n|--adjustment=", "--help", "--version"], { numeric: /^-[-+]?\d/ }) },
  timeout: {
    grammar: grammar(["-k|--kill-after=", "-s|--signal=", "-v|--verbose", "--preserve-status", "--foreground", "--help", "--version"]),
    operands: 1,
  },
  stdbuf: { grammar: grammar(["-i|--input=", "-o|--output=", "-e|--error=", "--help", "--version"]) },
  setsid: { grammar: grammar(["-c|--ctty", "-f|--fork", "-w|--wait", "-h|--help", "-V|--version"]) },
  ionice: { grammar: grammar(["-c|--class=", "-n|--classdata=", "-t|--ignore", "-h|--help", "-V|--version"]) },
  taskset: { grammar: grammar(["-a|--all-tasks", "-c|--cpu-list", "-h|--help", "-V|--version"]), operands: 1 },
  chrt: {
    grammar: grammar([
      "-b|--batch", "-d|--deadline", "-f|--fifo", "-i|--idle", "-o|--other", "-r|--rr", "-R|--reset-on-fork", "-a|--all-tasks", "-v|--verbose",
      "-T|--sched-runtime=", "-P|--sched-period=", "-D|--sched-deadline=", "-h|--help", "-V|--version",
    ]),
    operands: 1,
  },
  prlimit: {
    grammar: grammar([
      "-p|--pid=", "-o|--output=", "--noheadings", "--raw", "--verbose", "-h|--help", "-V|--version",
      ...["c|--core", "d|--data", "e|--nice", "f|--fsize", "i|--sigpending", "l|--memlock", "m|--rss", "n|--nofile", "q|--msgqueue", "r|--rtprio"].map((o) => `-${o}=?`),
      ...["s|--stack", "t|--cpu", "u|--nproc", "v|--as", "x|--locks", "y|--rttime"].map((o) => `-${o}=?`),
    ]),
  },
  setpriv: {
    grammar: grammar([
      "-d|--dump", "--nnp|--no-new-privs", "--clear-groups", "--keep-groups", "--init-groups", "--reset-env", "-h|--help", "-V|--version",
      ...["ambient-caps", "inh-caps", "bounding-set", "ruid", "euid", "rgid", "egid", "reuid", "regid", "groups", "securebits", "pdeathsig"].map((o) => `--${o}=`),
      "--selinux-label=", "--apparmor-profile=",
    ]),
    describes: ["-d"],
  },
  unshare: {
    grammar: grammar([
      ...["m|--mount", "u|--uts", "i|--ipc", "n|--net", "p|--pid", "U|--user", "C|--cgroup", "T|--time"].map((o) => `-${o}=?`),
      "-f|--fork", "-r|--map-root-user", "-c|--map-current-user", "--map-auto", "--keep-caps", "--kill-child=?", "--mount-proc=?",
      "--map-user=", "--map-group=", "--map-users=", "--map-groups=", "--propagation=", "--setgroups=", "--monotonic=", "--boottime=",
      "-w|--wd=", "-S|--setuid=", "-G|--setgid=", "-h|--help", "-V|--version",
    ]),
    chdir: ["-w"],
    shellWithout: true,
  },
  chroot: {
    grammar: grammar(["--userspec=", "--groups=", "--skip-chdir", "--help", "--version"]),
    operandRuns: (_, [root, ...command]) => ({ command, runs: root?.text === "/" ? [] : [{ kind: "unknown", reason: "chroot runs the command in another root" }] }),
    chdir: "always",
    shellWithout: true,
  },
  flock: {
    grammar: grammar([
      "-s|--shared", "-x|-e|--exclusive", "-u|--unlock", "-n|--nonblocking|--nb", "-w|--timeout|--wait=", "-E|--conflict-exit-code=", "-o|--close",
      "-F|--no-fork", "--verbose", "--fcntl", "--start=", "--length=", "-h|--help", "-V|--version", "-c|--command=",
    ]),
    operandRuns: (_, [, ...command]) =>
      command[0]?.literal && ["-c", "--command"].includes(command[0].text) ? { command: [], runs: command[1] ? [{ kind: "script", script: command[1] }] : [] } : { command, runs: [] },
    scripts: ["-c"],
  },
  script: {
    grammar: grammar(
      [
        "-I|--log-in=", "-O|--log-out=", "-B|--log-io=", "-T|--log-timing=", "-t|--timing=?", "-m|--logging-format=", "-a|--append", "-c|--command=",
        "-e|--return", "-f|--flush", "--force", "-E|--echo=", "-o|--output-limit=", "-q|--quiet", "-h|--help", "-V|--version",
      ],
      { permute: true },
    ),
    operands: 1,
    scripts: ["-c"],
    shellWithout: true,
  },
  sudo: {
    grammar: grammar([
      "-A|--askpass", "-b|--background", "-B|--bell", "-E", "--preserve-env=?", "-e|--edit", "-H|--set-home", "-i|--login", "-K|--remove-timestamp",
      "-k|--reset-timestamp", "-l|--list", "-N|--no-update", "-n|--non-interactive", "-P|--preserve-groups", "-S|--stdin", "-s|--shell", "-V|--version",
      "-v|--validate", "-h=?", "--help", "--host=", "-a=", "-C|--close-from=", "-c|--login-class=", "-D|--chdir=", "-g|--group=", "-p|--prompt=",
      "-R|--chroot=", "-r|--role=", "-T|--command-timeout=", "-t|--type=", "-U|--other-user=", "-u|--user=",
    ]),
    chdir: ["-D", "-i"],
    unknowable: { "-e": "sudo -e runs an editor the environment names", "-R": "sudo -R runs the command in another root" },
    shellWithout: true,
    assignments: true,
  },
  doas: { grammar: grammar(["-C=", "-L", "-n", "-s", "-u="]), shellWithout: true },
  strace: {
    grammar: grammar([
      "-A|--output-append-mode", "-c|--summary-only", "-C|--summary", "-d|--debug", "-D", "--daemonize=?", "-f|--follow-forks", "-F", "--output-separately",
      "-h|--help", "-i|--instruction-pointer", "-k|--stack-trace", "-n|--syscall-number", "-q", "--quiet=?", "-r", "--relative-timestamps=?", "-t",
      "--absolute-timestamps=?", "-T", "--syscall-times=?", "-v|--no-abbrev", "-V|--version", "-w|--summary-wall-clock", "-x", "-y", "--decode-fds=?",
      "-z|--successful-only", "-Z|--failed-only", "--seccomp-bpf", "-a|--columns=", "-b|--detach-on=", "-e=", "-E|--env=", "-I|--interruptible=",
      "-o|--output=", "-O|--summary-syscall-overhead=", "-p|--attach=", "-P|--trace-path=", "-s|--string-limit=", "-S|--summary-sort-by=",
      "-u|--user=", "-U|--summary-columns=", "-X|--const-print-style=",
      ...["trace", "signal", "status", "abbrev", "verbose", "raw", "read", "write", "fault", "inject", "kvm"].map((o) => `--${o}=`),
    ]),
    environment: "-E",
    pipeOutput: "-o",
  },
  ltrace: {
    grammar: grammar([
      "-b|--no-signals", "-c", "-C|--demangle", "-f", "-h|--help", "-i", "-L", "-r", "-S", "-t", "-T", "-V|--version", "-a|--align=", "-A=",
      "-D|--debug=", "-e=", "-F|--config=", "-l|--library=", "-n|--indent=", "-o|--output=", "-p=", "-s=", "-u=", "-w|--where=", "-x=",
    ]),
  },
  fakeroot: { grammar: grammar(["-u|--unknown-is-real", "-i=", "-s=", "-b|--fd-base=", "-v|--version", "-h|--help"], { permute: true }), shellWithout: true },
  "systemd-run": {
    grammar: grammar([
      "-h|--help", "--version", "--no-ask-password", "--user", "--system", "--scope", "--slice-inherit", "--no-block", "-r|--remain-after-exit",
      "--wait", "--send-sighup", "-d|--same-dir", "-t|--pty", "-P|--pipe", "-q|--quiet", "-G|--collect", "--on-timezone-change", "--on-clock-change",
      "-H|--host=", "-M|--machine=", "-u|--unit=", "--description=", "--slice=", "--service-type=", "--uid=", "--gid=", "--nice=",
      "--working-directory=", "-E|--setenv=", "--on-active=", "--on-boot=", "--on-startup=", "--on-unit-active=", "--on-unit-inactive=", "--on-calendar=",
    ]),
    chdir: ["--working-directory"],
    environment: "-E",
  },
  xargs: {
    grammar: grammar([
      "-0|--null", "-a|--arg-file=", "-d|--delimiter=", "-E=", "-e|--eof=?", "-I=", "-i|--replace=?", "-L=", "-l|--max-lines=?", "-n|--max-args=",
      "-o|--open-tty", "-p|--interactive", "-r|--no-run-if-empty", "-s|--max-chars=", "-t|--verbose", "--show-limits", "-x|--exit", "-P|--max-procs=",
      "--process-slot-var=", "--help", "--version",
    ]),
    operandRuns: (options, operands) => ({ command: xargsCommand(options, operands), runs: [] }),
  },
};

const ENV = grammar([
  "-i|--ignore-environment", "-0|--null", "-u|--unset=", "-C|--chdir=", "-S|--split-string=", "-v|--debug", "--block-signal=?", "--default-signal=?",
  "--ignore-signal=?", "--list-signal-handling", "--help", "--version",
]);
const SU = grammar(
  [
    "-c|--command|--session-command=", "-f|--fast", "-g|--group=", "-G|--supp-group=", "-l|--login", "-m|-p|--preserve-environment", "-P|--pty",
    "-s|--shell=", "-w|--whitelist-environment=", "-u|--user=", "-h|--help", "-V|--version",
  ],
  { permute: true },
);
const WATCH = grammar([
  "-b|--beep", "-c|--color", "-C|--no-color", "-d|--differences=?", "-e|--errexit", "-g|--chgexit", "-q|--equexit=", "-n|--interval=", "-p|--precise",
  "-r|--no-rerun", "-t|--no-title", "-w|--no-wrap|--no-linewrap", "-x|--exec", "-h|--help", "-v|--version",
]);
const MAX_ENV_SPLITS = 4;

/**
 * The programs that run a command given in their words, each read by its own option grammar
 * (util-linux, coreutils, procps, findutils and sudo as of Debian 12). An option the grammar does
 * not know makes what runs unknown rather than being skipped.
 */
export const WRAPPER_ANALYZERS: Readonly<Record<string, Analyzer>> = {
  ...Object.fromEntries(Object.entries(WRAPPERS).map(([name, spec]) => [name, (args: readonly ShellWord[]) => wrapped(name, spec, args)])),
  env: (args, parse) => envRuns(args, parse, 0),
  su: (args) => suRuns("su", args),
  runuser: (args) => suRuns("runuser", args),
  watch: watchRuns,
  valgrind: valgrindRuns,
  faketime: faketimeRuns,
  unbuffer: (args) => (args[0]?.literal && args[0].text === "-p" ? runs({ kind: "command", words: args.slice(1) }) : runs({ kind: "command", words: args })),
  busybox: (args) => {
    if (args.length === 0) return null;
    return args[0]!.literal && !args[0]!.text.startsWith("-") ? runs({ kind: "command", words: args }) : unknown("busybox's applet is not known");
  },
};

/** What a wrapper of the table runs. */
function wrapped(name: string, spec: WrapperSpec, args: readonly ShellWord[]): Analysis | null {
  const parsed = parseArgs(spec.grammar, args);
  if ("problem" in parsed) return unknown(`${name}: ${parsed.problem}`);
  const found: Run[] = [];
  const assignments: Assignment[] = [];
  for (const option of parsed.options) {
    const why = spec.unknowable?.[option.name];
    if (why) found.push({ kind: "unknown", reason: why });
    if (spec.describes?.includes(option.name)) return null;
    if (option.value && spec.scripts?.includes(option.name)) found.push({ kind: "script", script: option.value });
    if (option.value) found.push(...optionRuns(option, spec, assignments));
  }
  let command: readonly ShellWord[] = parsed.operands.slice(spec.operands ?? 0);
  if (spec.operandRuns) {
    const read = spec.operandRuns(parsed.options, parsed.operands);
    found.push(...read.runs);
    command = read.command;
  }
  if (spec.assignments) {
    const leading = leadingAssignments(command);
    assignments.push(...leading);
    command = command.slice(leading.length);
  }
  if (command.length > 0) found.push({ kind: "command", words: command });
  else if (spec.shellWithout && !found.some((run) => run.kind === "script")) found.push({ kind: "unknown", reason: `${name} runs a shell reading standard input` });
  const movesDirectory = spec.chdir === "always" || parsed.options.some((option) => spec.chdir?.includes(option.name));
  return { runs: found, assignments, movesDirectory };
}

/**
 * An option that sets a variable for the command (`strace -E NAME=value`, `systemd-run -E`); as
 * `-E NAME`, strace unsets it. strace's `-o |COMMAND` pipes its output into a command.
 */
function optionRuns(option: ParsedOption, spec: WrapperSpec, assignments: Assignment[]): Run[] {
  const value = option.value!;
  if (option.name === spec.pipeOutput && /^[|!]/.test(value.text)) return [{ kind: "script", script: { ...value, text: value.text.slice(1) } }];
  if (option.name !== spec.environment) return [];
  if (!value.literal) return [{ kind: "unknown", reason: `${option.name} sets a variable that cannot be known` }];
  const equals = value.text.indexOf("=");
  if (equals === -1) return isSensitiveVariable(value.text) ? [{ kind: "unknown", reason: `${option.name} ${value.text} changes a variable that matters` }] : [];
  assignments.push({ name: value.text.slice(0, equals), value: literal(value.text.slice(equals + 1)) });
  return [];
}

/**
 * `NAME=value` words before a command. A word of unknown value ends them: it is then the
 * program's name, which makes what runs unknown, whether or not it was an assignment.
 */
function leadingAssignments(words: readonly ShellWord[]): Assignment[] {
  const assignments: Assignment[] = [];
  for (const word of words) {
    const equals = word.literal ? word.text.indexOf("=") : -1;
    if (equals <= 0) break;
    assignments.push({ name: word.text.slice(0, equals), value: literal(word.text.slice(equals + 1)) });
  }
  return assignments;
}

function literal(text: string): ShellWord {
  return { text, literal: true, splits: false };
}

/**
 * The command xargs runs: its words, then words read from standard input, which are unknown; with
 * `-I R` (or `-i`), R in its words is replaced by them instead. No command is `echo`, which runs nothing.
 */
function xargsCommand(options: readonly ParsedOption[], command: readonly ShellWord[]): ShellWord[] {
  const replace = options.find((option) => option.name === "-I" || option.name === "-i");
  if (!replace) return command.length > 0 ? [...command, UNKNOWN_ARGUMENTS] : [];
  const marker = replace.value?.text ?? "{}";
  return command.map((word) => (word.text.includes(marker) ? { text: word.text, literal: false, splits: false } : word));
}

/**
 * env's words: options, `NAME=value` assignments, then the command. `-S STRING` splits STRING
 * into words that take its place, options and assignments included; it is read as a script, and
 * must be one plain command with no backslash (env's `\_` separates words where bash's does not),
 * else what runs is unknown. `-i` and `-u NAME` of a variable that matters leave a nested shell's
 * PATH unknown (bash's default PATH ends in `.`).
 */
function envRuns(args: readonly ShellWord[], parse: NestedParser, splits: number): Analysis | null {
  const parsed = parseArgs(ENV, args);
  if ("problem" in parsed) return unknown(`env: ${parsed.problem}`);
  const split = parsed.options.find((option) => option.name === "-S");
  const before = split ? parsed.options.slice(0, parsed.options.indexOf(split)) : parsed.options;
  const found: Run[] = [];
  for (const option of before) {
    if (option.name === "-i") found.push({ kind: "unknown", reason: "env -i empties the environment, PATH included" });
    if (option.name === "-u" && (!option.value!.literal || isSensitiveVariable(option.value!.text))) found.push({ kind: "unknown", reason: `env -u unsets ${option.value!.text}` });
  }
  const movesDirectory = before.some((option) => option.name === "-C");
  if (split) {
    const value = split.value!;
    const script = value.literal && !value.text.includes("\\") && splits < MAX_ENV_SPLITS ? parse(value.text).plain : null;
    if (script?.length !== 1) {
      return { runs: [...found, { kind: "unknown", reason: "env -S splits a string that cannot be read as words" }, { kind: "script", script: value }], movesDirectory };
    }
    const words = script[0]!.map((text) => ({ text, literal: true, splits: false }));
    const rest = envRuns([...words, ...args.slice(split.end)], parse, splits + 1);
    return { runs: [...found, ...(rest?.runs ?? [])], assignments: rest?.assignments, movesDirectory: movesDirectory || rest?.movesDirectory };
  }
  let operands = parsed.operands;
  if (operands[0]?.literal && operands[0].text === "-") {
    found.push({ kind: "unknown", reason: "env - empties the environment, PATH included" });
    operands = operands.slice(1);
  }
  const assignments = leadingAssignments(operands);
  const command = operands.slice(assignments.length);
  if (command.length > 0) found.push({ kind: "command", words: command });
  return { runs: found, assignments, movesDirectory };
}

/**
 * su and runuser: `-c SCRIPT` runs SCRIPT with the user's shell; runuser's `-u USER COMMAND…`
 * runs the command itself. Otherwise the user's shell runs interactively, or runs the words
 * after the user name as its own arguments: unknown, as is a shell chosen with `-s`. Options may
 * come anywhere (getopt permutes them), `-` alone means `--login`.
 */
function suRuns(name: string, args: readonly ShellWord[]): Analysis {
  const parsed = parseArgs(SU, args);
  if ("problem" in parsed) return unknown(`${name}: ${parsed.problem}`);
  const option = (wanted: string) => parsed.options.find((found) => found.name === wanted);
  const operands = parsed.operands.filter((word) => !(word.literal && word.text === "-"));
  const movesDirectory = option("-l") !== undefined || operands.length < parsed.operands.length;
  if (option("-s")) return { ...unknown(`${name} -s runs a shell of its choosing`), movesDirectory };
  const script = option("-c")?.value;
  // runuser -u names the user with an option, so its operands are the command.
  const userOperands = name === "runuser" && option("-u") ? 0 : 1;
  const interactive: Run = { kind: "unknown", reason: `${name} runs a shell reading standard input` };
  if (userOperands === 0 && !script) return { runs: [operands.length > 0 ? { kind: "command", words: operands } : interactive], movesDirectory };
  if (operands.length > userOperands) return { ...unknown(`${name} passes words to the user's shell`), movesDirectory };
  return { runs: [script ? { kind: "script", script } : interactive], movesDirectory };
}

/** watch runs its words joined by spaces with `sh -c`, or as they are with `-x`. */
function watchRuns(args: readonly ShellWord[]): Analysis | null {
  const parsed = parseArgs(WATCH, args);
  if ("problem" in parsed) return unknown(`watch: ${parsed.problem}`);
  const command = parsed.operands;
  if (command.length === 0) return null;
  if (parsed.options.some((option) => option.name === "-x")) return runs({ kind: "command", words: command });
  if (command.some((word) => !word.literal)) return unknown("watch runs words of unknown value as a script");
  return runs({ kind: "script", script: { text: command.map((word) => word.text).join(" "), literal: true, splits: false } });
}

/** valgrind's command is its first word not starting with `-` (its options never take a separate value). */
function valgrindRuns(args: readonly ShellWord[]): Analysis | null {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.literal) return unknown(`valgrind: ${word.text} may be an option`);
    if (word.text === "--") return runs({ kind: "command", words: args.slice(i + 1) });
    if (!word.text.startsWith("-")) return runs({ kind: "command", words: args.slice(i) });
  }
  return null;
}

/** faketime's own option loop (libfaketime): `-m`, `-f`, `-p PID`, `--exclude-monotonic`, `--disable-shm`; then TIMESTAMP and the command. */
function faketimeRuns(args: readonly ShellWord[]): Analysis | null {
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!word.literal) return unknown(`faketime: ${word.text} may be an option`);
    if (word.text === "-p") i++;
    else if (word.text === "--date-prog") return unknown("faketime --date-prog runs a program of its choosing");
    else if (!["-m", "-f", "--exclude-monotonic", "--disable-shm"].includes(word.text)) break;
  }
  if (args[i]?.splits) return unknown("faketime's timestamp may be several words");
  return args.length > i + 1 ? runs({ kind: "command", words: args.slice(i + 1) }) : null;
}
