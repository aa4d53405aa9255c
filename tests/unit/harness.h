/* The instruction test harness: run the same machine code on the host CPU
 * and in elfemu's interpreter from the same state, and compare.
 *
 * The state holds the general registers, RFLAGS, the x87/SSE state as an
 * FXSAVE image, and a 64 KiB data area mapped at HARNESS_DATA in both
 * worlds (natively with MAP_FIXED, in the guest space at the same address),
 * so memory operands and the stack (point rsp into it) behave the same.
 * Code must not depend on its own address (no rip-relative data).  x86_64
 * only (the ia32 CPU has its own issue). */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#define HARNESS_DATA 0x10000000ull
#define HARNESS_DATA_SIZE 0x10000u

struct hstate {
    uint64_t r[16];            /* rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
    uint64_t rflags;
    uint8_t fx[512] __attribute__((aligned(16))); /* FXSAVE image: x87, MXCSR, XMM0-15 */
    uint8_t data[HARNESS_DATA_SIZE];
};

/* A state with rsp at the top of the data area minus 256 bytes, rflags 0x202,
 * Linux's initial FCW (0x37f) and MXCSR (0x1f80), zeroed registers and data. */
void harness_init(struct hstate *s);

/* Run code (len bytes) natively / in the emulator, updating *s.  Returns 0,
 * or the signal the code raised (then *s is the state at the fault as far
 * as it is known: only the emulator reports it). */
int harness_native(const uint8_t *code, size_t len, struct hstate *s);
int harness_emu(const uint8_t *code, size_t len, struct hstate *s);

/* Run both from *s and compare everything, with the arithmetic flags in
 * flag_mask only (the SDM leaves the others undefined for some
 * instructions).  On a difference prints both sides and returns nonzero;
 * the native result is left in *s. */
int harness_compare(const uint8_t *code, size_t len, struct hstate *s, uint64_t flag_mask,
                    const char *what);

/* True when the host CPU has every feature in flags (space-separated names
 * as in /proc/cpuinfo, e.g. "bmi1 bmi2 adx"): the native side of a test can
 * only run instructions the host has. */
int harness_host_has(const char *flags);

/* The exit status ctest treats as "skipped" (SKIP_RETURN_CODE). */
#define HARNESS_SKIP 77

/* Accessors into the FXSAVE image. */
static inline void *hs_xmm(struct hstate *s, int i) { return s->fx + 160 + 16 * i; }
static inline uint32_t *hs_mxcsr(struct hstate *s) { return (uint32_t *)(s->fx + 24); }
static inline void *hs_st(struct hstate *s, int i) { return s->fx + 32 + 16 * i; }

#endif
