/* The CPU model elfemu emulates, as far as the loader and CPUID must agree.
 *
 * AT_HWCAP is CPUID.1:EDX of the CPU (boot_cpu_data.x86_capability[CPUID_1_EDX]
 * in the kernel), so it must list exactly the features the interpreter
 * implements: glibc and programs pick code paths from it.  The CPU issue's
 * CPUID handler reports the same bits. */
#ifndef CPU_CPUID_H
#define CPU_CPUID_H

/* CPUID.1:EDX bits (SDM vol. 2A, CPUID, table 3-11). */
#define CPUID1_EDX_FPU (1u << 0)
#define CPUID1_EDX_TSC (1u << 4)
#define CPUID1_EDX_CX8 (1u << 8)
#define CPUID1_EDX_SEP (1u << 11)   /* SYSENTER/SYSEXIT: ia32 __kernel_vsyscall */
#define CPUID1_EDX_CMOV (1u << 15)
#define CPUID1_EDX_CLFSH (1u << 19)
#define CPUID1_EDX_MMX (1u << 23)
#define CPUID1_EDX_FXSR (1u << 24)
#define CPUID1_EDX_SSE (1u << 25)
#define CPUID1_EDX_SSE2 (1u << 26)

#define CPU_CPUID1_EDX                                                                       \
    (CPUID1_EDX_FPU | CPUID1_EDX_TSC | CPUID1_EDX_CX8 | CPUID1_EDX_SEP | CPUID1_EDX_CMOV |   \
     CPUID1_EDX_CLFSH | CPUID1_EDX_MMX | CPUID1_EDX_FXSR | CPUID1_EDX_SSE | CPUID1_EDX_SSE2)

/* AT_HWCAP2 bits are Linux's own (HWCAP2_RING3MWAIT, HWCAP2_FSGSBASE): none. */
#define CPU_HWCAP2 0u

/* AT_MINSIGSTKSZ: the kernel's get_sigframe_size() for the frames elfemu
 * builds: struct rt_sigframe (440 bytes on x86_64), the FXSAVE-format fpstate
 * (512) and its FP_XSTATE_MAGIC2 (4), plus the frame and xsave alignment
 * padding (15 + 63), rounded up to 16. */
#define CPU_SIGFRAME_SIZE ((440u + 512u + 4u + 15u + 63u + 15u) & ~15u)

#endif
