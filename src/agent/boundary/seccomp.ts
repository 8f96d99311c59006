/**
 * The system-call filter every sandboxed command runs under, as a classic BPF program for
 * bubblewrap's `--seccomp FD`. The mounts and namespaces keep a command's writes inside its roots;
 * this filter takes away the ways around them that no mount can close:
 * - `socket(AF_UNIX, …)`: a Unix socket reaches any listener whose file it can see, and connecting
 *   needs no write access, so a read-only bind does not stop it (the server's own control socket,
 *   a Docker or systemd socket). `socketpair` stays allowed: its two ends reach nothing else.
 * - io_uring: it opens and connects sockets without the `socket` and `connect` calls a filter sees.
 * - keyctl, add_key, request_key: the kernel keyrings of the server's uid.
 * - bpf, perf_event_open, userfaultfd: kernel attack surface no build or test needs.
 * - `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)`: typing into a terminal's input queue.
 * - every call of another architecture's ABI (x86's int 0x80, x32), where the numbers differ.
 * A denied call fails with EPERM; the command goes on and reports it.
 */

/** Offsets into `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;
/** The low 32 bits of a call's argument, on a little-endian machine (both architectures here are). */
const arg = (index: number) => 16 + 8 * index;

// Classic BPF opcodes, and seccomp's return values.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const RET_EPERM = 0x00050000 | EPERM;

const AF_UNIX = 1;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
/** x32 system calls are x86-64 calls with this bit set. */
const X32_SYSCALL_BIT = 0x40000000;

/** The system-call numbers the filter looks at, per architecture. */
interface SyscallTable {
  readonly audit: number;
  readonly socket: number;
  readonly ioctl: number;
  readonly denied: readonly number[];
  readonly x32: boolean;
}

const TABLES: Readonly<Record<string, SyscallTable>> = {
  x64: {
    audit: 0xc000003e,
    socket: 41,
    ioctl: 16,
    // io_uring_setup/enter/register, keyctl, add_key, request_key, bpf, perf_event_open, userfaultfd
    denied: [425, 426, 427, 250, 248, 249, 321, 298, 323],
    x32: true,
  },
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    ioctl: 29,
    denied: [425, 426, 427, 219, 217, 218, 280, 241, 282],
    x32: false,
  },
};

/** One `struct sock_filter` instruction; a jump names its targets by label, resolved on assembly. */
interface Instruction {
  readonly code: number;
  readonly k: number;
  readonly jt?: string;
  readonly jf?: string;
}

type Line = Instruction | { readonly label: string };

const load = (offset: number): Instruction => ({ code: LD_W_ABS, k: offset });
const ret = (value: number): Instruction => ({ code: RET_K, k: value });
/** Jumps to `to` when the accumulator equals `k` (or is at least `k`), else falls through. */
const jumpIf = (code: number, k: number, to: string): Instruction => ({ code, k, jt: to });

/**
 * The filter program for this machine's architecture (`process.arch`), as the bytes bubblewrap
 * reads, or null when there is no table for it (sandboxed commands then fail closed).
 */
export function seccompProgram(arch: string = process.arch): Buffer | null {
  const table = TABLES[arch];
  if (!table) return null;
  return assemble([
    load(ARCH),
    jumpIf(JEQ_K, table.audit, "native"),
    ret(RET_KILL_PROCESS),
    { label: "native" },
    load(NR),
    ...(table.x32 ? [jumpIf(JGE_K, X32_SYSCALL_BIT, "deny")] : []),
    jumpIf(JEQ_K, table.socket, "socket"),
    jumpIf(JEQ_K, table.ioctl, "ioctl"),
    ...table.denied.map((nr) => jumpIf(JEQ_K, nr, "deny")),
    ret(RET_ALLOW),
    { label: "socket" },
    load(arg(0)),
    jumpIf(JEQ_K, AF_UNIX, "deny"),
    ret(RET_ALLOW),
    { label: "ioctl" },
    load(arg(1)),
    jumpIf(JEQ_K, TIOCSTI, "deny"),
    jumpIf(JEQ_K, TIOCLINUX, "deny"),
    ret(RET_ALLOW),
    { label: "deny" },
    ret(RET_EPERM),
  ]);
}

/** The program's bytes (`struct sock_filter[]`): jumps become forward offsets from the next instruction. */
function assemble(lines: readonly Line[]): Buffer {
  const at = new Map<string, number>();
  const instructions: Instruction[] = [];
  for (const line of lines) {
    if ("label" in line) at.set(line.label, instructions.length);
    else instructions.push(line);
  }
  const bytes = Buffer.alloc(instructions.length * 8);
  instructions.forEach((instruction, i) => {
    const offset = (label: string | undefined) => (label === undefined ? 0 : at.get(label)! - i - 1);
    bytes.writeUInt16LE(instruction.code, i * 8);
    bytes.writeUInt8(offset(instruction.jt), i * 8 + 2);
    bytes.writeUInt8(offset(instruction.jf), i * 8 + 3);
    bytes.writeUInt32LE(instruction.k, i * 8 + 4);
  });
  return bytes;
}
