/* A libc-free x86_64 guest whose syscalls exercise --strace's formats with
 * deterministic values only (no time, pid, host-dependent result or
 * address it did not choose): errors, escaped and truncated strings, a
 * bad pointer, pipe fds, buffers read back, iovecs, fcntl, mmap flags, a
 * stat of /dev/null, a timespec, a futex op.  Then, by its argument:
 *   none    exit_group(0)
 *   crash   write to address 0x10: dies of SIGSEGV
 *   fork    fork; the child writes and exits with 3, the parent waits
 *   exec    execve itself with no argument and no environment
 * tests/e2e/strace_demo.sh compares the trace with expected files. */
#define SYS(n) mov $n, %eax; syscall

    .text
    .globl _start
_start:
    mov (%rsp), %r15                /* argc */
    mov 8(%rsp), %r13               /* argv[0] */
    mov 16(%rsp), %r14              /* argv[1] (NULL without one) */

    mov $-100, %rdi                 /* openat(AT_FDCWD, missing, O_RDONLY|O_CLOEXEC) */
    lea missing(%rip), %rsi
    mov $0x80000, %edx
    xor %r10d, %r10d
    SYS(257)

    mov $1, %edi                    /* write(1, msg, ...) with escapes */
    lea msg(%rip), %rsi
    mov $msg_len, %edx
    SYS(1)

    mov $1, %edi                    /* a long buffer: shown truncated */
    lea long_msg(%rip), %rsi
    mov $long_len, %edx
    SYS(1)

    mov $1, %edi                    /* write(1, 0x10, 5): EFAULT */
    mov $0x10, %esi
    mov $5, %edx
    SYS(1)

    lea fds(%rip), %rdi             /* pipe2(fds, O_CLOEXEC) */
    mov $0x80000, %esi
    SYS(293)

    mov $4, %edi                    /* writev(4, iov, 2) */
    lea wiov(%rip), %rsi
    mov $2, %edx
    SYS(20)

    mov $3, %edi                    /* read(3, buf, 4): the bytes read */
    lea buf(%rip), %rsi
    mov $4, %edx
    SYS(0)

    mov $3, %edi                    /* readv(3, riov, 2): the rest */
    lea riov(%rip), %rsi
    mov $2, %edx
    SYS(19)

    mov $3, %edi                    /* lseek(3, 0, SEEK_CUR): ESPIPE */
    xor %esi, %esi
    mov $1, %edx
    SYS(8)

    mov $3, %edi                    /* fcntl(3, F_GETFD) = 0x1 (flags FD_CLOEXEC) */
    mov $1, %esi
    SYS(72)

    mov $3, %edi                    /* fcntl(3, F_SETFL, O_RDONLY|O_NONBLOCK) */
    mov $4, %esi
    mov $04000, %edx
    SYS(72)

    mov $-100, %rdi                 /* newfstatat(AT_FDCWD, "/dev/null", st, 0) */
    lea devnull(%rip), %rsi
    lea st(%rip), %rdx
    xor %r10d, %r10d
    SYS(262)

    lea missing(%rip), %rdi         /* access(missing, R_OK|X_OK): ENOENT */
    mov $5, %esi
    SYS(21)

    mov $0x10000000, %edi           /* mmap(0x10000000, 8192, RW, PRIVATE|FIXED|ANON, -1, 0) */
    mov $8192, %esi
    mov $3, %edx
    mov $0x32, %r10d
    mov $-1, %r8
    xor %r9d, %r9d
    SYS(9)

    mov $0x10000000, %edi           /* mprotect(0x10000000, 4096, PROT_READ) */
    mov $4096, %esi
    mov $1, %edx
    SYS(10)

    mov $0x10000000, %edi           /* futex(0x10000000, FUTEX_WAKE_PRIVATE, 1) = 0 */
    mov $129, %esi
    mov $1, %edx
    SYS(202)

    mov $0x10000000, %edi           /* munmap(0x10000000, 8192) */
    mov $8192, %esi
    SYS(11)

    lea ts(%rip), %rdi              /* nanosleep({tv_sec=0, tv_nsec=1000}, NULL) */
    xor %esi, %esi
    SYS(35)

    mov $99, %edi                   /* close(99): EBADF */
    SYS(3)

    cmp $1, %r15
    jbe done
    cmpb $'f', (%r14)
    je fork
    cmpb $'e', (%r14)
    je exec
    movl $1, 0x10                   /* crash: SIGSEGV at 0x10 */
done:
    xor %edi, %edi                  /* exit_group(0) */
    SYS(231)

fork:
    SYS(57)                         /* fork() */
    test %eax, %eax
    jnz 1f
    mov $1, %edi                    /* the child: write(1, "child\n", 6), exit 3 */
    lea child_msg(%rip), %rsi
    mov $6, %edx
    SYS(1)
    mov $3, %edi
    SYS(231)
1:  mov $-1, %rdi                   /* wait4(-1, [status], 0, NULL) */
    lea status(%rip), %rsi
    xor %edx, %edx
    xor %r10d, %r10d
    SYS(61)
    jmp done

exec:
    mov %r13, exec_argv(%rip)       /* execve(argv[0], [argv[0]], NULL) */
    mov %r13, %rdi
    lea exec_argv(%rip), %rsi
    xor %edx, %edx
    SYS(59)
    mov %eax, %edi                  /* only if it failed */
    neg %edi
    SYS(231)

    .section .rodata
missing:
    .asciz "/nonexistent/elfemu-strace-demo"
devnull:
    .asciz "/dev/null"
msg:
    .ascii "tab\tquote\"back\\slash\0\1\0012\377\n"
    msg_len = . - msg
long_msg:
    .ascii "0123456789abcdefghijklmnopqrstuvwxyz\n"
    long_len = . - long_msg
ping:
    .ascii "ping pong\n"
child_msg:
    .ascii "child\n"
ts:
    .quad 0, 1000

    .data
    .balign 8
wiov:
    .quad ping, 5, ping + 5, 5
riov:
    .quad buf + 4, 2, buf + 6, 10
fds:
    .long -1, -1
status:
    .long 0
exec_argv:
    .quad 0, 0

    .bss
    .balign 16
buf:
    .skip 64
st:
    .skip 144

    .section .note.GNU-stack, "", @progbits
