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
 * (old glibc and some static runtimes look the short names up). */
.macro vdso_syscall name, nr
    .globl  __vdso_\name
    .type   __vdso_\name, @function
    .weak   \name
    .type   \name, @function
    .p2align 4
__vdso_\name:
\name:
    .cfi_startproc
    movl    $\nr, %eax
    syscall
    ret
    .cfi_endproc
    .size   __vdso_\name, . - __vdso_\name
    .size   \name, . - \name
.endm

    .text
    vdso_syscall clock_gettime, NR_clock_gettime
    vdso_syscall gettimeofday,  NR_gettimeofday
    vdso_syscall time,          NR_time
    vdso_syscall getcpu,        NR_getcpu
    vdso_syscall clock_getres,  NR_clock_getres

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
