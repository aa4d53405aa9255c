/* The ia32 vDSO (linux-gate.so.1).
 *
 * __kernel_vsyscall is the entry point ia32 libcs call for every system
 * call (AT_SYSINFO points at it).  It has exactly the kernel's shape
 * (arch/x86/entry/vdso/vdso32/system_call.S): save ecx/edx/ebp, put esp in
 * ebp and SYSENTER.  SYSENTER saves no return address, so the kernel -- and
 * our emulated SYSENTER -- resumes at the landing pad after `int $0x80`,
 * which restores the three registers.  The `int $0x80` itself is the
 * fallback path for CPUs without SYSENTER and is skipped on return.
 *
 * The sigreturn trampolines are what the kernel points a signal frame's
 * return address at when the handler was installed without SA_RESTORER.
 * Their bytes are fixed: libgcc's unwinder recognises a signal frame by
 * matching them (x86_fallback_frame_state), so they must stay exactly
 * `pop %eax; mov $119,%eax; int $0x80` and `mov $173,%eax; int $0x80`, and
 * must have no FDE of their own.
 *
 * The clock functions are plain cdecl C functions that make the system
 * call with int $0x80, like the x86_64 ones (see vdso64.S for why). */
#include "vdso_images.h"

#define NR_time             13
#define NR_gettimeofday     78
#define NR_sigreturn        119
#define NR_rt_sigreturn     173
#define NR_clock_gettime    265
#define NR_clock_getres     266
#define NR_clock_gettime64  403
#define NR_getcpu           318

    .text

/* An unwinder looks up the FDE for (return address - 1); for a signal
 * frame that byte is just before __kernel_sigreturn.  This nop keeps it
 * out of every FDE so the lookup fails and the byte-matching fallback
 * above takes over. */
    .p2align 4
    nop
    .globl  __kernel_sigreturn
    .type   __kernel_sigreturn, @function
__kernel_sigreturn:
    popl    %eax                /* drop the signal number */
    movl    $NR_sigreturn, %eax
    int     $0x80
    .size   __kernel_sigreturn, . - __kernel_sigreturn

    nop
    .globl  __kernel_rt_sigreturn
    .type   __kernel_rt_sigreturn, @function
__kernel_rt_sigreturn:
    movl    $NR_rt_sigreturn, %eax
    int     $0x80
    .size   __kernel_rt_sigreturn, . - __kernel_rt_sigreturn

    .p2align 4
    .globl  __kernel_vsyscall
    .type   __kernel_vsyscall, @function
__kernel_vsyscall:
    .cfi_startproc
    pushl   %ecx
    .cfi_adjust_cfa_offset 4
    .cfi_rel_offset %ecx, 0
    pushl   %edx
    .cfi_adjust_cfa_offset 4
    .cfi_rel_offset %edx, 0
    pushl   %ebp
    .cfi_adjust_cfa_offset 4
    .cfi_rel_offset %ebp, 0
    movl    %esp, %ebp          /* the kernel finds arg 6 at (%ebp) */
    sysenter
    int     $0x80
.Lsysenter_return:
    popl    %ebp
    .cfi_adjust_cfa_offset -4
    .cfi_restore %ebp
    popl    %edx
    .cfi_adjust_cfa_offset -4
    .cfi_restore %edx
    popl    %ecx
    .cfi_adjust_cfa_offset -4
    .cfi_restore %ecx
    ret
    .cfi_endproc
    .size   __kernel_vsyscall, . - __kernel_vsyscall

/* The emulator hard-codes where SYSENTER returns to; keep them in step. */
.if .Lsysenter_return - __kernel_vsyscall - LDR_VDSO32_SYSENTER_RETURN_OFFSET
    .error "LDR_VDSO32_SYSENTER_RETURN_OFFSET does not match __kernel_vsyscall"
.endif

/* __vdso_<name>(a1, a2, a3) makes syscall <nr> with the arguments in ebx,
 * ecx, edx.  ebx is callee-saved in the i386 C ABI, so it is saved around
 * the call; after the push the first argument is at 8(%esp) (the words
 * after a function's own arguments are the caller's stack, readable).  As
 * in vdso64.S, the body before the syscall ("probe") first writes the
 * result fields the kernel's vDSO writes in user mode, so a bad pointer
 * faults here with SIGSEGV as natively. */
.macro vdso_entry name
    .p2align 4
    .globl  __vdso_\name
    .type   __vdso_\name, @function
__vdso_\name:
    .cfi_startproc
    pushl   %ebx
    .cfi_adjust_cfa_offset 4
    .cfi_rel_offset %ebx, 0
    movl    8(%esp), %ebx
    movl    12(%esp), %ecx
    movl    16(%esp), %edx
.endm

.macro vdso_exit name, nr
    movl    $\nr, %eax
    int     $0x80
    popl    %ebx
    .cfi_adjust_cfa_offset -4
    .cfi_restore %ebx
    ret
    .cfi_endproc
    .size   __vdso_\name, . - __vdso_\name
.endm

/* The clocks the kernel's vDSO reads itself (see vdso64.S). */
#define VDSO_CLOCKS 0x8f3

/* Jump to label when the clock id in ebx is not one of VDSO_CLOCKS. */
.macro if_not_vdso_clock label
    cmpl    $11, %ebx
    ja      \label
    movl    $VDSO_CLOCKS, %eax
    btl     %ebx, %eax
    jnc     \label
.endm

/* clock_gettime(clock, struct old_timespec32 *): 8 bytes. */
    vdso_entry clock_gettime
    if_not_vdso_clock 1f
    movl    $0, (%ecx)
    movl    $0, 4(%ecx)
1:
    vdso_exit clock_gettime, NR_clock_gettime

/* gettimeofday(tv, tz): writes whichever is not NULL. */
    vdso_entry gettimeofday
    testl   %ebx, %ebx
    jz      1f
    movl    $0, (%ebx)
    movl    $0, 4(%ebx)
1:  testl   %ecx, %ecx
    jz      2f
    movl    $0, (%ecx)
2:
    vdso_exit gettimeofday, NR_gettimeofday

/* time(t): writes *t unless t is NULL. */
    vdso_entry time
    testl   %ebx, %ebx
    jz      1f
    movl    $0, (%ebx)
1:
    vdso_exit time, NR_time

/* getcpu(cpu, node, cache): writes *cpu and *node unless NULL. */
    vdso_entry getcpu
    testl   %ebx, %ebx
    jz      1f
    movl    $0, (%ebx)
1:  testl   %ecx, %ecx
    jz      2f
    movl    $0, (%ecx)
2:
    vdso_exit getcpu, NR_getcpu

/* clock_getres(clock, res): writes *res (unless NULL) for its clocks. */
    vdso_entry clock_getres
    if_not_vdso_clock 1f
    testl   %ecx, %ecx
    jz      1f
    movl    $0, (%ecx)
    movl    $0, 4(%ecx)
1:
    vdso_exit clock_getres, NR_clock_getres

/* clock_gettime64(clock, struct __kernel_timespec *): 16 bytes. */
    vdso_entry clock_gettime64
    if_not_vdso_clock 1f
    movl    $0, (%ecx)
    movl    $0, 4(%ecx)
    movl    $0, 8(%ecx)
    movl    $0, 12(%ecx)
1:
    vdso_exit clock_gettime64, NR_clock_gettime64

/* See vdso64.S. */
    .section .note.Linux, "a", @note
    .balign 4
    .long   2f - 1f             /* n_namesz, with the NUL */
    .long   4f - 3f             /* n_descsz */
    .long   0                   /* n_type */
1:  .asciz  "Linux"
2:  .balign 4
3:  .long   LDR_VDSO_LINUX_VERSION_CODE
4:

    .section .note.GNU-stack, "", @progbits
