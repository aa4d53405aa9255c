/* --strace: one line per guest syscall in strace's style, to stderr or to
 * --trace-file.
 *
 * The dispatchers (syscalls/dispatch.c) call strace_enter() before and
 * strace_leave() after a handler, only when strace_on is set, so tracing
 * costs one predictable branch per syscall when it is off.  Arguments the
 * call reads are formatted before it runs; buffers and structures it writes
 * are formatted after it returned, and the line is written then, in one
 * write(2), so lines of concurrent threads and processes never interleave.
 * Calls that do not return (exit, exit_group: result letter n) are shown as
 * `exit_group(0) = ?` before they run.
 *
 * The formats come from the spec strings of syscalls/list.h (the letters
 * are documented there); syscalls/strace_fmt.c renders arguments and
 * structures, syscalls/strace_names.c names errnos, signals and si_codes. */
#ifndef SYSCALLS_STRACE_H
#define SYSCALLS_STRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"

/* Set once before the guest runs (strace_open()); read-only afterwards. */
extern bool strace_on;

/* Start tracing to stderr (path NULL) or to the file path, created and
 * truncated, or appended to when append is true (what a re-executed elfemu
 * does after the guest's execve: see strace_reexec_args()); pids: lines
 * carry the pid from the start (a fork child that called execve).  The
 * file is opened O_APPEND|O_CLOEXEC on a high descriptor so that the
 * guest's own descriptors are numbered as natively.  0 or -errno. */
int strace_open(const char *path, bool append, bool pids);

/* The same with every line handed to sink(line, len, user) instead of
 * written (the embedding API's elfemu_config::strace_line): one whole
 * line a call, its '\n' included, under the lock that orders lines. */
typedef void (*strace_sink)(const char *line, size_t len, void *user);
void strace_open_sink(strace_sink sink, void *user, bool pids);

/* The options that make a re-executed elfemu (the guest called execve)
 * trace to the same place in the same way: fills out[] with up to 4
 * strings ("--strace", "--trace-file-append" FILE when tracing to a file,
 * "--trace-pids" once there are several processes) and returns how many;
 * 0 when tracing is off.  The strings stay valid.  WIRE(proc): exec.c
 * adds them to the new elfemu's options. */
int strace_reexec_args(const char *out[4]);

/* The hook around one syscall (nr in the numbering of c->bits).  Lines
 * are buffered; see strace.c for when they are written. */
void strace_enter(struct cpu *c, uint64_t nr, const uint64_t a[6]);
void strace_leave(struct cpu *c, int64_t result);

/* The guest process now has n threads: lines get a `[pid TID] ` prefix
 * while there are several (strace -f).  syscalls/thread.c calls it when a
 * guest thread starts and ends. */
void strace_set_threads(int n);

/* A fork happened (proc calls it in both processes after the host fork):
 * from now on lines carry the `[pid N] ` prefix (strace -f shows it once
 * there are several processes; elfemu cannot tell when the others are
 * gone, so it stays), and the child does not print the line of the fork
 * call itself (strace shows it once, with the parent's result). */
void strace_forked(bool in_child);

/* execve is about to replace this process and succeed: print the pending
 * line of the current call with `= 0` now, since the new image cannot.
 * WIRE(proc): exec.c calls it right before the host execve. */
void strace_exec_now(struct cpu *c);

/* `--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x10} ---`
 * when a signal is delivered to the guest (si in guest terms: si_addr a
 * guest address). */
void strace_signal(struct cpu *c, const siginfo_t *si);

/* `+++ killed by SIGSEGV +++` and `+++ exited with N +++` when the guest
 * process ends. */
void strace_killed(int sig);
/* The same for a whole thread group ended by one of its threads: others
 * are the tids of the other threads but the leader (strace -f shows a line
 * for each, the leader's last). */
void strace_group_killed(int sig, const pid_t *others, int n);
void strace_group_exited(int status, const pid_t *others, int n);
void strace_exited(int status);

#endif
