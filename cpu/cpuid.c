/* CPUID: the emulated processor.  Vendor "GenuineIntel" so that glibc's
 * init_cpu_features() takes its well-trodden Intel path (cache sizes from
 * leaf 4); family 6, model 0x2c (Westmere-EP, the Intel part whose
 * features are closest to ours: SSE4.2, POPCNT, AES, PCLMULQDQ, no AVX);
 * the brand string says what it is.  Feature bits: cpu/cpuid.h.
 *
 * Why a real model: glibc (every version since 2.12) marks unaligned loads
 * and copies fast only on the Nehalem/Westmere models or on a part with
 * AVX.  With that, memcpy/memmove are __memmove_sse2_unaligned_erms, which
 * copies 2 KiB and more with REP MOVSB (one host memmove here, see
 * cpu/ops_string.c); on an unknown model without AVX they were
 * __memmove_ssse3, a PALIGNR loop of about 4 instructions per 16 bytes.
 * The model's quirk lists only touch that tuning (and a smaller
 * non-temporal threshold). */
#include <string.h>

#include "cpu/cpuid.h"

/* Leaf 4: deterministic cache parameters (SDM vol. 2A, table 3-8).
 * 32 KiB 8-way L1d and L1i, 1 MiB 16-way L2, 32 MiB 16-way L3, 64-byte lines. */
static void cache_leaf(uint32_t sub, uint32_t out[4])
{
    static const struct { uint32_t type, level, ways, sets; } caches[] = {
        { 1, 1, 8, 64 }, { 2, 1, 8, 64 }, { 3, 2, 16, 1024 }, { 3, 3, 16, 32768 },
    };
    memset(out, 0, 4 * sizeof(uint32_t));
    if (sub >= sizeof(caches) / sizeof(caches[0]))
        return;
    out[0] = caches[sub].type | (caches[sub].level << 5) | (1u << 8) /* self-initialising */;
    out[1] = (63u) | (0u << 12) | ((caches[sub].ways - 1) << 22); /* line 64, 1 partition */
    out[2] = caches[sub].sets - 1;
}

void cpu_cpuid(uint32_t leaf, uint32_t sub, int bits, uint32_t out[4])
{
    memset(out, 0, 4 * sizeof(uint32_t));
    switch (leaf) {
    case 0:
        out[0] = 0xd;
        memcpy(&out[1], "Genu", 4);
        memcpy(&out[3], "ineI", 4);
        memcpy(&out[2], "ntel", 4);
        break;
    case 1:
        /* family 6, model 0x2c (extended model 2, model 0xc), stepping 2 */
        out[0] = (6u << 8) | (0xcu << 4) | (0x2u << 16) | 2;
        out[1] = (8u << 8) | (1u << 16);                      /* clflush line 64, 1 logical cpu */
        out[2] = CPU_CPUID1_ECX;
        out[3] = CPU_CPUID1_EDX;
        break;
    case 4:
        cache_leaf(sub, out);
        break;
    case 7:
        /* Structured extended features: sub-leaf 0 only (EAX = 0). */
        if (sub == 0) {
            out[1] = CPU_CPUID7_EBX;
            out[3] = CPU_CPUID7_EDX;
        }
        break;
    case 0xd:
        /* XSAVE: components 0 (x87) and 1 (SSE), 576 bytes; sub-leaf 1:
         * XSAVEOPT and XSAVEC (no XGETBV1, no XSAVES). */
        if (sub == 0) {
            out[0] = 3;
            out[1] = out[2] = CPU_XSAVE_SIZE;
        } else if (sub == 1) {
            out[0] = 3;
            out[1] = CPU_XSAVE_SIZE;
        }
        break;
    case 0x80000000:
        out[0] = 0x80000008;
        break;
    case 0x80000001:
        /* SYSCALL, NX and long mode for x86_64. */
        out[2] = CPU_CPUID80000001_ECX;
        out[3] = bits == 64 ? ((1u << 11) | (1u << 20) | (1u << 29)) : (1u << 20);
        break;
    case 0x80000002:
    case 0x80000003:
    case 0x80000004: {
        static const char brand[48] = "elfemu virtual x86 CPU";
        memcpy(out, brand + 16 * (leaf - 0x80000002), 16);
        break;
    }
    case 0x80000006:
        out[2] = (1024u << 16) | (6u << 12) | 64; /* L2: 1 MiB, 16-way (code 6), 64-byte lines */
        break;
    case 0x80000008:
        out[0] = 48 | (46u << 8); /* 46 linear address bits: the guest space */
        break;
    default:
        break;
    }
}
