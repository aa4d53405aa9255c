/* The CPU model elfemu emulates, as CPUID describes it.
 *
 * CPUID must report exactly what the interpreter implements, and nothing
 * more: glibc and programs pick code paths from it.  AT_HWCAP is
 * CPUID.1:EDX (boot_cpu_data.x86_capability[CPUID_1_EDX] in the kernel).
 * When an instruction family lands, its bits are added here. */
#ifndef CPU_CPUID_H
#define CPU_CPUID_H

#include <stdint.h>

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

/* CPUID.1:ECX bits. */
#define CPUID1_ECX_SSE3 (1u << 0)
#define CPUID1_ECX_PCLMUL (1u << 1)
#define CPUID1_ECX_SSSE3 (1u << 9)
#define CPUID1_ECX_CX16 (1u << 13)
#define CPUID1_ECX_SSE41 (1u << 19)
#define CPUID1_ECX_SSE42 (1u << 20)
#define CPUID1_ECX_MOVBE (1u << 22)
#define CPUID1_ECX_POPCNT (1u << 23)
#define CPUID1_ECX_AES (1u << 25)
#define CPUID1_ECX_XSAVE (1u << 26)
#define CPUID1_ECX_OSXSAVE (1u << 27)
#define CPUID1_ECX_RDRAND (1u << 30)

/* What the interpreter implements today: with XSAVE for the x87 and SSE
 * components (XCR0 = 3), which glibc's ld.so uses to save registers. */
#define CPU_CPUID1_ECX                                                                       \
    (CPUID1_ECX_SSE3 | CPUID1_ECX_XSAVE | CPUID1_ECX_OSXSAVE |                               \
     CPUID1_ECX_CX16 | CPUID1_ECX_POPCNT | CPUID1_ECX_MOVBE | CPUID1_ECX_RDRAND |            \
     CPUID1_ECX_SSSE3 | CPUID1_ECX_SSE41 | CPUID1_ECX_SSE42 | CPUID1_ECX_AES |               \
     CPUID1_ECX_PCLMUL)

/* CPUID.7.0:EBX and EDX (structured extended features). */
#define CPUID7_EBX_BMI1 (1u << 3)
#define CPUID7_EBX_BMI2 (1u << 8)
#define CPUID7_EBX_ERMS (1u << 9)   /* fast REP MOVSB/STOSB: glibc then uses them */
#define CPUID7_EBX_RDSEED (1u << 18)
#define CPUID7_EBX_ADX (1u << 19)
#define CPUID7_EDX_FSRM (1u << 4)   /* fast short REP MOVSB */

#define CPU_CPUID7_EBX                                                                       \
    (CPUID7_EBX_BMI1 | CPUID7_EBX_BMI2 | CPUID7_EBX_ERMS | CPUID7_EBX_RDSEED | CPUID7_EBX_ADX)
#define CPU_CPUID7_EDX (CPUID7_EDX_FSRM)

/* CPUID.80000001h:ECX: LAHF/SAHF in 64-bit mode (bit 0), LZCNT (ABM, bit 5). */
#define CPU_CPUID80000001_ECX ((1u << 0) | (1u << 5))

/* AT_HWCAP2 bits are Linux's own (HWCAP2_RING3MWAIT, HWCAP2_FSGSBASE): none. */
#define CPU_HWCAP2 0u

/* The XSAVE area of the components elfemu implements (x87 + SSE): the
 * 512-byte legacy region and the 64-byte header (CPUID.0xD). */
#define CPU_XSAVE_SIZE 576u

/* AT_MINSIGSTKSZ: the kernel's get_sigframe_size() for the frames elfemu
 * builds: struct rt_sigframe (440 bytes on x86_64), the XSAVE-format fpstate
 * (576) and its FP_XSTATE_MAGIC2 (4), plus the frame and xsave alignment
 * padding (15 + 63), rounded up to 16. */
#define CPU_SIGFRAME_SIZE ((440u + CPU_XSAVE_SIZE + 4u + 15u + 63u + 15u) & ~15u)

/* CPUID leaf/subleaf for a guest of the given width: out = eax ebx ecx edx. */
void cpu_cpuid(uint32_t leaf, uint32_t subleaf, int bits, uint32_t out[4]);

#endif
