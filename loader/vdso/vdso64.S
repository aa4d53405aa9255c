/* The x86_64 vDSO: what glibc and musl look up through AT_SYSINFO_EHDR.
 *
 * On Linux these functions read the time from a data page shared with the
 * kernel.  We have no such page (the emulator would have to keep it
 * current), so each one simply makes the system call it stands for; the
 * caller gets the same result, just without the speed-up.  The arguments
 * are already in rdi/rsi/rdx where the syscall ABI wants them, and the
 * rcx/r11 that SYSCALL clobbers are caller-saved in the C ABI.
 *
 * The exported names and the LINUX_2.6 version are those of the kernel's
 * vDSO (arch/x86/entry/vdso/vdso.lds.S); vdso64.map makes everything else
 * local, vdso.lds lays out the image. */
#include "vdso_images.h"

#define NR_gettimeofday    96
#define NR_time            201
#define NR_clock_gettime   228
#define NR_clock_getres    229
#define NR_getcpu          309

/* __vdso_<name> makes syscall <nr>; <name> is a weak alias, as on Linux
 * (old glibc and some static runtimes look the short names up).  The body
 * before the syscall ("probe") first writes the result fields that the
 * kernel's vDSO would write in user mode: a bad pointer then faults here
 * with SIGSEGV, as natively, instead of coming back as -EFAULT. */
.macro vdso_entry name
    .globl  __vdso_\name
    .type   __vdso_\name, @function
    .weak   \name
    .type   \name, @function
    .p2align 4
__vdso_\name:
\name:
    .cfi_startproc
.endm

.macro vdso_exit name, nr
    movl    $\nr, %eax
    syscall
    ret
    .cfi_endproc
    .size   __vdso_\name, . - __vdso_\name
    .size   \name, . - \name
.endm

/* The clocks the kernel's vDSO reads itself (REALTIME, MONOTONIC,
 * MONOTONIC_RAW, REALTIME_COARSE, MONOTONIC_COARSE, BOOTTIME, TAI); the
 * others (CPU-time and dynamic clocks) it passes to the syscall untouched. */
#define VDSO_CLOCKS 0x8f3

/* Jump to label when the clock id in edi is not one of VDSO_CLOCKS. */
.macro if_not_vdso_clock label
    cmpl    $11, %edi
    ja      \label
    movl    $VDSO_CLOCKS, %eax
    btl     %edi, %eax
    jnc     \label
.endm

    .text
/* clock_gettime(clock, ts): writes *ts for every clock it serves. */
    vdso_entry clock_gettime
    if_not_vdso_clock 1f
    movq    $0, (%rsi)
    movq    $0, 8(%rsi)
1:
    vdso_exit clock_gettime, NR_clock_gettime

/* gettimeofday(tv, tz): writes whichever is not NULL. */
    vdso_entry gettimeofday
    testq   %rdi, %rdi
    jz      1f
    movq    $0, (%rdi)
    movq    $0, 8(%rdi)
1:  testq   %rsi, %rsi
    jz      2f
    movq    $0, (%rsi)
2:
    vdso_exit gettimeofday, NR_gettimeofday

/* time(t): writes *t unless t is NULL. */
    vdso_entry time
    testq   %rdi, %rdi
    jz      1f
    movq    $0, (%rdi)
1:
    vdso_exit time, NR_time

/* getcpu(cpu, node, cache): writes *cpu and *node unless NULL. */
    vdso_entry getcpu
    testq   %rdi, %rdi
    jz      1f
    movl    $0, (%rdi)
1:  testq   %rsi, %rsi
    jz      2f
    movl    $0, (%rsi)
2:
    vdso_exit getcpu, NR_getcpu

/* clock_getres(clock, res): writes *res (unless NULL) for its clocks. */
    vdso_entry clock_getres
    if_not_vdso_clock 1f
    testq   %rsi, %rsi
    jz      1f
    movq    $0, (%rsi)
    movq    $0, 8(%rsi)
1:
    vdso_exit clock_getres, NR_clock_getres

/* The "Linux" note (type 0) carrying LINUX_VERSION_CODE, which glibc
 * reads to learn the kernel version without a uname call. */
    .section .note.Linux, "a", @note
    .balign 4
    .long   2f - 1f             /* n_namesz, with the NUL */
    .long   4f - 3f             /* n_descsz */
    .long   0                   /* n_type */
1:  .asciz  "Linux"
2:  .balign 4
3:  .long   LDR_VDSO_LINUX_VERSION_CODE
4:

/* The image is never executed as a stack; say so, or ld warns. */
    .section .note.GNU-stack, "", @progbits
