/* The syscall list: SYSCALL(name, x86_64 number, i386 number), -1 where an
 * ABI lacks the call.  It generates both dispatch tables (and, later, the
 * --strace formats and the sandbox policy).  Handlers are sys_<name>. */
SYSCALL(write, 1, 4)
SYSCALL(exit, 60, 1)
SYSCALL(exit_group, 231, 252)
