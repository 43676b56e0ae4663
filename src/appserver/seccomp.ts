/**
 * The seccomp filter of every agent sandbox, as a classic-BPF program bubblewrap installs (`--seccomp FD`) just
 * before it runs the sandbox's first command: system calls an agent never needs fail with EPERM (mounting,
 * tracing or reading other processes' memory, kernel keyrings, eBPF, perf, modules, kexec, swap, reboot,
 * joining namespaces, file handles, userfaultfd); creating a user namespace fails with EPERM (`unshare` and
 * `clone` with CLONE_NEWUSER) and `clone3`, whose flags a filter cannot read, with ENOSYS so the C library falls
 * back to `clone`. Only the native architecture runs: a system call of another ABI (32-bit x86, x32) kills the
 * process. What is left is what `setpriv`, the codex binary and ordinary tools use.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;
const CLONE_NEWUSER = 0x10000000;
const EPERM = 1;
const ENOSYS = 38;

const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const RET_ALLOW = 0x7fff0000;

// Classic BPF opcodes.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

// Offsets in struct seccomp_data: nr, arch, instruction pointer, args (64-bit each; the low half first on these
// little-endian machines, and only the low half counts for the int-sized arguments compared here).
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const argLow = (index: number) => 16 + 8 * index;

export type SeccompArch = 'x86_64' | 'aarch64';

/** System calls refused with EPERM: name → [x86_64 number, aarch64 number] (null where the call does not exist). */
export const DENIED_SYSCALLS: Record<string, [number | null, number | null]> = {
  mount: [165, 40],
  umount2: [166, 39],
  pivot_root: [155, 41],
  move_mount: [429, 429],
  open_tree: [428, 428],
  fsopen: [430, 430],
  fsconfig: [431, 431],
  fsmount: [432, 432],
  fspick: [433, 433],
  mount_setattr: [442, 442],
  ptrace: [101, 117],
  process_vm_readv: [310, 270],
  process_vm_writev: [311, 271],
  keyctl: [250, 219],
  add_key: [248, 217],
  request_key: [249, 218],
  bpf: [321, 280],
  perf_event_open: [298, 241],
  kexec_load: [246, 104],
  kexec_file_load: [320, 294],
  init_module: [175, 105],
  finit_module: [313, 273],
  delete_module: [176, 106],
  swapon: [167, 224],
  swapoff: [168, 225],
  reboot: [169, 142],
  setns: [308, 268],
  open_by_handle_at: [304, 265],
  name_to_handle_at: [303, 264],
  userfaultfd: [323, 282],
  acct: [163, 89],
  quotactl: [179, 60],
  quotactl_fd: [443, 443],
  lookup_dcookie: [212, 18],
  syslog: [103, 116],
  vhangup: [153, 58],
  iopl: [172, null],
  ioperm: [173, null],
};

/** [x86_64, aarch64] numbers of the calls whose flags are checked. */
const UNSHARE: [number, number] = [272, 97];
const CLONE: [number, number] = [56, 220];
const CLONE3 = 435;

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const stmt = (code: number, k: number): Insn => ({ code, jt: 0, jf: 0, k });
const jump = (code: number, k: number, jt: number, jf: number): Insn => ({ code, jt, jf, k });

/** The checks of one architecture (the syscall number already in the accumulator is reloaded first). */
function archBody(arch: SeccompArch): Insn[] {
  const column = arch === 'x86_64' ? 0 : 1;
  const denied = Object.values(DENIED_SYSCALLS)
    .map((numbers) => numbers[column])
    .filter((nr): nr is number => nr !== null);
  const body: Insn[] = [stmt(LD_W_ABS, OFFSET_NR)];
  // x32 calls carry a high bit on the x86_64 audit arch: another ABI, killed like a foreign arch.
  if (arch === 'x86_64') body.push(jump(JGE_K, X32_SYSCALL_BIT, 0, 1), stmt(RET_K, RET_KILL_PROCESS));
  for (const nr of denied) body.push(jump(JEQ_K, nr, 0, 1), stmt(RET_K, RET_ERRNO | EPERM));
  body.push(jump(JEQ_K, CLONE3, 0, 1), stmt(RET_K, RET_ERRNO | ENOSYS));
  // unshare(flags) and clone(flags, …): the flags are the first argument on both architectures.
  for (const nr of [UNSHARE[column], CLONE[column]]) {
    body.push(
      jump(JEQ_K, nr, 0, 3),
      stmt(LD_W_ABS, argLow(0)),
      jump(JSET_K, CLONE_NEWUSER, 0, 1),
      stmt(RET_K, RET_ERRNO | EPERM),
      // Flags without CLONE_NEWUSER (or another call): reload the number for the checks that follow.
      stmt(LD_W_ABS, OFFSET_NR),
    );
  }
  body.push(stmt(RET_K, RET_ALLOW));
  return body;
}

/** The filter's instructions: dispatch on the audit arch, then each architecture's checks. */
export function seccompProgram(): Insn[] {
  const x86 = archBody('x86_64');
  const arm = archBody('aarch64');
  // A jump goes to the instruction `1 + offset` after it, and an offset is one byte.
  if (x86.length + 1 > 255) throw new Error('seccomp program: the x86_64 block is too long for a jump over it');
  // arch == x86_64 → x86 block (right after the head); arch == aarch64 → arm block; else kill.
  const head: Insn[] = [
    stmt(LD_W_ABS, OFFSET_ARCH),
    jump(JEQ_K, AUDIT_ARCH_X86_64, 2, 0),
    jump(JEQ_K, AUDIT_ARCH_AARCH64, 1 + x86.length, 0),
    stmt(RET_K, RET_KILL_PROCESS),
  ];
  return [...head, ...x86, ...arm];
}

/** The program as `struct sock_filter[]` in the host's byte order (what bubblewrap reads from its fd). */
export function seccompBytes(program: Insn[] = seccompProgram()): Buffer {
  const buffer = Buffer.alloc(program.length * 8);
  program.forEach((insn, index) => {
    const offset = index * 8;
    buffer.writeUInt16LE(insn.code, offset);
    buffer.writeUInt8(insn.jt, offset + 2);
    buffer.writeUInt8(insn.jf, offset + 3);
    buffer.writeUInt32LE(insn.k >>> 0, offset + 4);
  });
  return buffer;
}

/** True where this filter's numbers apply (the service's own architecture, little-endian). */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch === 'x64' || arch === 'arm64';
}

/**
 * Writes the program to `file` (service-owned, 0644, replaced atomically) for the sandbox wrapper to open as
 * bubblewrap's `--seccomp` descriptor.
 */
export async function writeSeccompFile(file: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${Date.now()}`;
  await fsp.writeFile(temporary, seccompBytes(), { mode: 0o644, flag: fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL });
  await fsp.rename(temporary, file);
}
