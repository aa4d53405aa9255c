/* Fused pairs with a memory half (cpu/ops_fused_mem.c), compared with the
 * native run in both ABIs: every register operation the pairs take (MOV,
 * MOV imm, LEA, NOT, ADD/SUB/AND/OR/XOR by register and immediate,
 * ROL/ROR/SHL/SHR/SAR by an immediate) after a MOV load that feeds it,
 * before a MOV store of its result, after a store, before a load; with the
 * flags the register operation leaves read by PUSHF after the pair (and a
 * variant whose flags are dead), over edge values with CF set and clear
 * before: one checksum line per pair, 32-bit and (x86_64) 64-bit.  Then
 * the pairs of two MOVs and the aliasing cases (a store the next load
 * reads, in part too; a result that is the next access's base or index; a
 * load of the next load's base), AND then MOVZX of a word, MOVSXD then
 * MOV (x86_64), a load of the base of an ADD r, [m], ROL then ADD r, [m],
 * SHR then a byte store (of a high byte too), a byte store then ADD imm,
 * IMUL r, r, imm then ADD imm (and alone, its CF and OF read: SF ZF PF
 * are undefined after it), ADD [m], imm then XOR, XOR then an indexed
 * load, MOVZX of a byte after MOVZX or OR, and faults in
 * the first and the second half of a pair, and in the compare and the
 * store of a compare-store-branch (cmpstore.c): the signal's rip, address,
 * registers and flags. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "edge_values.h"
#include "pair_faults.h"

#define ARITH 0x8d5ul /* CF PF AF ZF SF OF */
#define AF 0x10ul
#define OF 0x800ul

#ifdef __x86_64__
#define ADDR(x) "%q[" x "]"
#define CMP1 "cmpq $1,"
#else
#define ADDR(x) "%k[" x "]"
#define CMP1 "cmpl $1,"
#endif

/* The register operations: first a text that writes a (from b or an
 * immediate), then one that reads a; the flags of shifts by more than 1
 * have OF undefined (a 1 in the last column). */
#define OPS(X, W, T)                                                                    \
    X(mov, "mov %" W "[b], %" W "[a]", "mov %" W "[a], %" W "[b]", 0, W, T)             \
    X(movi, "mov $0x89abcdef, %" W "[a]", "mov $-5, %" W "[b]", 0, W, T)                \
    X(lea, "lea 7(" ADDR("a") "," ADDR("b") ",2), %" W "[a]",                          \
      "lea -3(" ADDR("a") "," ADDR("a") ",4), %" W "[b]", 0, W, T)                      \
    X(not, "not %" W "[a]", "not %" W "[a]", 0, W, T)                                   \
    X(add, "add %" W "[b], %" W "[a]", "add %" W "[a], %" W "[b]", 0, W, T)             \
    X(sub, "sub %" W "[b], %" W "[a]", "sub %" W "[a], %" W "[b]", 0, W, T)             \
    X(and, "and %" W "[b], %" W "[a]", "and %" W "[a], %" W "[b]", 0, W, T)             \
    X(or, "or %" W "[b], %" W "[a]", "or %" W "[a], %" W "[b]", 0, W, T)                \
    X(xor, "xor %" W "[b], %" W "[a]", "xor %" W "[a], %" W "[b]", 0, W, T)             \
    X(addi, "add $0x7fffffff, %" W "[a]", "add $1, %" W "[a]", 0, W, T)                 \
    X(subi, "sub $-128, %" W "[a]", "sub $0x7fffffff, %" W "[a]", 0, W, T)              \
    X(andi, "and $-0x7ffff010, %" W "[a]", "and $-2, %" W "[a]", 0, W, T)                \
    X(ori, "or $1, %" W "[a]", "or $-0x80000000, %" W "[a]", 0, W, T)                    \
    X(xori, "xor $-1, %" W "[a]", "xor $0x55, %" W "[a]", 0, W, T)                      \
    X(rol, "rol $7, %" W "[a]", "rol $1, %" W "[a]", 1, W, T)                           \
    X(ror, "ror $1, %" W "[a]", "ror $25, %" W "[a]", 1, W, T)                          \
    X(shl, "shl $1, %" W "[a]", "shl $4, %" W "[a]", 1, W, T)                           \
    X(shr, "shr $13, %" W "[a]", "shr $1, %" W "[a]", 1, W, T)                          \
    X(sar, "sar $31, %" W "[a]", "sar $3, %" W "[b]", 1, W, T)

/* The memory halves: m[] is the buffer (%[p]), %[i] is 1; S is the size
 * of the operands. */
#define LD_A(W) "mov (%[p]), %" W "[a]"
#define ST_A(W, S) "mov %" W "[a], " S "(%[p],%[i]," S ")"
#define ST_B(W) "mov %" W "[b], (%[p])"
#define LD_B(W, S) "mov " S "(%[p],%[i]," S "), %" W "[b]"

struct pair_case {
    const char *name;
    unsigned long mask; /* the flags compared */
    unsigned long (*fn)(unsigned long *a, unsigned long *b, void *m, unsigned long cf);
};

#define GEN_ONE(T, name, text)                                                          \
    static unsigned long name(unsigned long *pa, unsigned long *pb, void *m, unsigned long cf) \
    {                                                                                   \
        T a = (T)*pa, b = (T)*pb;                                                       \
        unsigned long fl, i = 1;                                                        \
        asm volatile(CMP1 " %[cf]\n\t" text "\n\tpushf\n\tpop %[fl]"                     \
                     : [fl] "=&r"(fl), [a] "+Q"(a), [b] "+r"(b)                          \
                     : [cf] "m"(cf), [p] "r"(m), [i] "r"(i)                              \
                     : "cc", "memory");                                                 \
        *pa = a;                                                                        \
        *pb = b;                                                                        \
        return fl;                                                                      \
    }
/* Per operation: load then it, it then a store of its result, a store then
 * it, it then a load; and load, it, then an ADD that makes its flags dead. */
#define GEN_OP(name, first, second, undef, W, T, S)                                     \
    GEN_ONE(T, ld_##name##_##T, LD_A(W) "\n\t" second)                                  \
    GEN_ONE(T, st_##name##_##T, first "\n\t" ST_A(W, S))                                \
    GEN_ONE(T, st_then_##name##_##T, ST_B(W) "\n\t" second)                             \
    GEN_ONE(T, ld_after_##name##_##T, first "\n\t" LD_B(W, S))                          \
    GEN_ONE(T, ld_dead_##name##_##T, LD_A(W) "\n\t" second "\n\tadd %" W "[a], %" W "[b]")
#define MASK(undef) (ARITH & ~AF & ((undef) ? ~OF : ~0ul))
#define ROW_OP(name, first, second, undef, W, T, S)                                     \
    { "load; " #name, MASK(undef), ld_##name##_##T },                                   \
    { #name "; store", MASK(undef), st_##name##_##T },                                  \
    { "store; " #name, MASK(undef), st_then_##name##_##T },                             \
    { #name "; load", MASK(undef), ld_after_##name##_##T },                             \
    { "load; " #name "; add", MASK(0), ld_dead_##name##_##T },

/* Two MOVs, and the aliasing cases (q: a pointer register). */
#define MEMS(X, W, T, S)                                                                \
    X(ld_ld, "mov (%[p]), %" W "[a]\n\tmov " S "(%[p]), %" W "[b]", W, T)              \
    X(ld_st, "mov (%[p]), %" W "[a]\n\tmov %" W "[b], (%[p])", W, T)                   \
    X(st_ld, "mov %" W "[a], (%[p])\n\tmov (%[p]), %" W "[b]", W, T)                   \
    X(st_st, "mov %" W "[a], (%[p])\n\tmov %" W "[b], " S "(%[p])", W, T)              \
    X(st_ld_part, "mov %" W "[a], 1(%[p])\n\tmov (%[p]), %" W "[b]", W, T)             \
    X(st_st_part, "mov %" W "[a], (%[p])\n\tmov %" W "[b], 3(%[p])", W, T)             \
    X(andi_index, "and $3, %" W "[a]\n\tmov (%[p]," ADDR("a") "," S "), %" W "[b]", W, T) \
    X(andi_index_st, "and $3, %" W "[a]\n\tmov %" W "[b], (%[p]," ADDR("a") "," S ")", W, T) \
    X(ld_index, "mov 32(%[p]), %" W "[a]\n\tmov (%[p]," ADDR("a") "," S "), %" W "[b]", W, T) \
    X(ld_own_index, "mov 32(%[p]), %" W "[a]\n\tmov (%[p]," ADDR("a") "," S "), %" W "[a]", W, T) \
    X(andi_zx16, "and $31, %" W "[a]\n\tmovzwl (%[p]," ADDR("a") ",2), %k[b]", W, T)      \
    X(andi_zx16_own, "and $31, %" W "[a]\n\tmovzwl (%[p]," ADDR("a") ",2), %k[a]", W, T)  \
    X(ld_base_add, "mov 40(%[p]), " ADDR("a") "\n\tadd (" ADDR("a") ",%[i]," S "), %" W "[b]", W, T) \
    X(rol_add, "rol $7, %" W "[a]\n\tadd 8(%[p]), %" W "[b]", W, T)                      \
    X(rol_add_own, "rol $7, %" W "[a]\n\tadd 8(%[p]), %" W "[a]", W, T)                  \
    X(shr_st8, "shr $13, %" W "[a]\n\tmov %b[a], 1(%[p],%[i],1)", W, T)                  \
    X(st8_addi, "mov %b[a], 1(%[p],%[i],1)\n\tadd $0x7fffffff, %" W "[b]", W, T)         \
    X(st8_addi_own, "mov %b[a], 2(%[p],%[i],2)\n\tadd $-1, %" W "[a]", W, T)            \
    X(imul_addi, "imul $0x41c64e6d, %" W "[a], %" W "[b]\n\tadd $0x3039, %" W "[b]", W, T) \
    X(imul_addi_own, "imul $-7, %" W "[a], %" W "[a]\n\tadd $1, %" W "[a]", W, T)       \
    X(imul_addi_other, "imul $0x10001, %" W "[b], %" W "[a]\n\tadd $-1, %" W "[b]", W, T) \
    X(addmi_xor, "addl $1, 8(%[p])\n\txor %" W "[a], %" W "[b]", W, T)                     \
    X(addmi_xor_wide, "addl $0x7fffffff, (%[p])\n\txor %" W "[b], %" W "[a]", W, T)        \
    X(xor_ldx, "xor %" W "[b], %" W "[a]\n\tmov (%[p],%[i]," S "), %" W "[b]", W, T)       \
    X(xor_ldx_index, "xor %" W "[a], %" W "[a]\n\tmov 8(%[p]," ADDR("a") "," S "), %" W "[b]", W, T) \
    X(xor_ldx_own, "xor %" W "[b], %" W "[a]\n\tmov -" S "(%[p],%[i]," S "), %" W "[a]", W, T) \
    X(zx8_zx8, "movzbl 3(%[p]), %k[a]\n\tmovzbl 9(%[p]), %k[b]", W, T)                    \
    X(zx8_zx8_own, "movzbl (%[p]), %k[a]\n\tmovzbl 15(%[p]), %k[a]", W, T)                \
    X(or_zx8, "or %" W "[b], %" W "[a]\n\tmovzbl 5(%[p]), %k[b]", W, T)                    \
    X(or_zx8_own, "or %" W "[b], %" W "[a]\n\tmovzbl 6(%[p]), %k[a]", W, T)                \
    X(imul_flags, "imul $0x7fff, %" W "[a], %" W "[b]\n\tseto %b[a]\n\tadc $0, %" W "[b]", W, T) \
    X(imul_flags_own, "imul $-2, %" W "[a], %" W "[a]\n\tadc $0, %" W "[a]", W, T)          \
    HIGH_BYTE(X, W, T)
#ifdef __x86_64__
#define HIGH_BYTE(X, W, T) /* AH..BH cannot be in an instruction with a REX prefix */
#else
#define HIGH_BYTE(X, W, T)                                                              \
    X(shr_st8_high, "shr $1, %" W "[b]\n\tmov %h[a], 7(%[p],%[i],2)", W, T)                \
    X(st8_high_addi, "mov %h[a], 7(%[p],%[i],2)\n\tadd $1, %" W "[a]", W, T)
#endif
/* Each also with an ADD after it that makes the flags of both halves dead
 * (the pair's handler without flags records). */
#define GEN_MEM(name, text, W, T)                                                       \
    GEN_ONE(T, m_##name##_##T, text)                                                    \
    GEN_ONE(T, md_##name##_##T, text "\n\tadd $1, %" W "[b]")
#define ROW_MEM(name, text, W, T)                                                       \
    { #name, MASK(0), m_##name##_##T }, { #name "; add", MASK(0), md_##name##_##T },

#define GEN32(name, first, second, undef, W, T) GEN_OP(name, first, second, undef, W, T, "4")
#define ROW32(name, first, second, undef, W, T) ROW_OP(name, first, second, undef, W, T, "4")
OPS(GEN32, "k", uint32_t)
MEMS(GEN_MEM, "k", uint32_t, "4")
static const struct pair_case cases32[] = { OPS(ROW32, "k", uint32_t) MEMS(ROW_MEM, "k", uint32_t, "4") };
#ifdef __x86_64__
#define GEN64(name, first, second, undef, W, T) GEN_OP(name, first, second, undef, W, T, "8")
#define ROW64(name, first, second, undef, W, T) ROW_OP(name, first, second, undef, W, T, "8")
/* MOVSXD then a 32-bit MOV, into and out of the register it wrote. */
#define MOVSXDS(X, W, T, S)                                                             \
    X(movsxd_mov, "movslq %k[b], %q[a]\n\tmov %k[a], %k[b]", W, T)                     \
    X(movsxd_mov_own, "movslq %k[a], %q[a]\n\tmov %k[a], %k[a]", W, T)                 \
    X(movsxd_mov_over, "movslq %k[b], %q[a]\n\tmov %k[b], %k[a]", W, T)
OPS(GEN64, "q", uint64_t)
MEMS(GEN_MEM, "q", uint64_t, "8")
MOVSXDS(GEN_MEM, "q", uint64_t, "8")
static const struct pair_case cases64[] = { OPS(ROW64, "q", uint64_t) MEMS(ROW_MEM, "q", uint64_t, "8")
                                            MOVSXDS(ROW_MEM, "q", uint64_t, "8") };
#endif

/* The buffer: 8 slots of 8 bytes; slot 4 (bytes 32..: its low half too) is
 * an index 0..3, slot 5 the buffer's address (not in the checksum). */
static uint64_t buf[8];

static uint64_t mix(uint64_t sum, uint64_t v) { return sum * 1000003 + v; }

static void run(const struct pair_case *cases, size_t n, const char *width)
{
    for (size_t k = 0; k < n; k++) {
        uint64_t sum = 0;
        for (unsigned x = 0; x < NEDGE; x++)
            for (unsigned y = 0; y < NEDGE; y++)
                for (unsigned long cf = 0; cf < 2; cf++) {
                    unsigned long a = (unsigned long)edge[x], b = (unsigned long)edge[y];
                    for (unsigned s = 0; s < 8; s++)
                        buf[s] = edge[(x * 3 + y + s) % NEDGE] ^ (s * 0x0101010101010101ull);
                    buf[4] = (x + y) & 3;
                    buf[5] = (uintptr_t)buf; /* a pointer to load (in its low half for ia32) */
                    unsigned long fl = cases[k].fn(&a, &b, buf, cf);
                    if ((uint32_t)(a - (uintptr_t)buf) < sizeof(buf))
                        a = (uint32_t)(a - (uintptr_t)buf); /* a pointer loaded from slot 5 */
                    sum = mix(sum, fl & cases[k].mask);
                    sum = mix(sum, a);
                    sum = mix(sum, b);
                    for (unsigned s = 0; s < 8; s++)
                        if (s != 5)
                            sum = mix(sum, buf[s]);
                }
        printf("%s %s: %016llx\n", width, cases[k].name, (unsigned long long)sum);
    }
}

/* ------------------------------------------------------------ faults
 * Each routine sets eax and edx, writes flags, then runs a pair whose
 * load or store at the address in its argument faults: as the first half
 * (nothing of the pair done) or as the second (the first done). */
#ifdef __x86_64__
#define P "%rcx"
#define AXP "%rax"
#define DXP "%rdx"
#define SP "%rsp"
#define ENTER "mov %rdi, %rcx\n"
#else
#define P "%ecx"
#define AXP "%eax"
#define DXP "%edx"
#define SP "%esp"
#define ENTER "mov 4(%esp), %ecx\n"
#endif
#define FAULT_ROUTINES(X)                                                               \
    X(first_load, "mov (" P "), %eax\n add %edx, %eax\n")                               \
    X(second_load, "add $0x7fffffff, %eax\n mov (" P "), %edx\n")                       \
    X(second_load_index, "and $3, %eax\n mov (" P "," AXP ",4), %edx\n")                \
    X(second_movzx_index, "and $0x7fff, %eax\n movzwl (" P "," AXP ",2), %eax\n")       \
    X(first_store, "mov %eax, 8(" P ")\n xor %eax, %edx\n")                             \
    X(second_store, "sub $0x12345, %edx\n mov %edx, (" P ")\n")                         \
    X(load_then_store, "mov (" SP "), %edx\n mov %eax, (" P ")\n")                      \
    X(store_then_load, "mov %eax, (" SP ")\n mov 4(" P "), %edx\n")                     \
    X(load_then_load, "mov (" SP "), %eax\n mov 4(" P "), %edx\n")                     \
    X(load_then_add, "mov " P ", (" SP ")\n mov $1, %edx\n cmp $1, %edx\n"               \
      " mov (" SP "), " P "\n add 4(" P "," DXP ",4), %edx\n")                           \
    X(rol_then_add, "rol $3, %eax\n add 8(" P "), %edx\n")                              \
    X(shr_then_store8, "shr $31, %eax\n mov %dl, (" P "," AXP ",1)\n")                \
    X(store8_then_add, "and $3, %eax\n mov %dl, (" P "," AXP ",1)\n add $1, %eax\n")    \
    X(addmi_then_xor, "addl $1, 4(" P ")\n xor %edx, %eax\n")                            \
    X(xor_then_load_index, "xor %eax, %eax\n mov (" P "," AXP ",4), %edx\n")              \
    X(zx8_then_zx8, "movzbl (" SP "), %eax\n movzbl 1(" P "), %edx\n")                   \
    X(zx8_then_zx8_first, "movzbl 1(" P "), %eax\n movzbl (" SP "), %edx\n")             \
    X(or_then_zx8, "or %edx, %eax\n movzbl 2(" P "), %edx\n")                            \
    X(cmp_store_branch_cmp, "cmpl $0x40, 4(" P ")\n mov %edx, (" SP ")\n jne 1f\n"        \
      " inc %edx\n1:\n")                                                                \
    X(cmp_store_branch_store, "cmpl $0x5a5a1235, (" SP ")\n mov %edx, 4(" P ")\n jb 1f\n" \
      " inc %edx\n1:\n")
#define DECLARE_FAULT(name, text) void f_##name(void *bad);
FAULT_ROUTINES(DECLARE_FAULT)
/* Each pushes a known word for the halves that use the stack (the return
 * address would differ between the runs). */
#define ASM_FAULT(name, text)                                                           \
    ".globl f_" #name "\nf_" #name ":\n" ENTER " push $0x5a5a1234\n"                    \
    " mov $0x80000001, %eax\n mov $0x7ffffff0, %edx\n cmp $1, %eax\n" text             \
    " pop " P "\n ret\n"
__asm__(".text\n" FAULT_ROUTINES(ASM_FAULT) ".text\n");

/* Each routine with a PROT_NONE page (pair_faults.h). */
static void faults(void)
{
    static const struct fault_routine r[] = {
#define FAULT_ROW(name, text) { #name, f_##name },
        FAULT_ROUTINES(FAULT_ROW)
    };
    run_pair_faults(r, sizeof(r) / sizeof(r[0]), 0xffffffff);
}

int main(void)
{
    run(cases32, sizeof(cases32) / sizeof(cases32[0]), "32");
#ifdef __x86_64__
    run(cases64, sizeof(cases64) / sizeof(cases64[0]), "64");
#endif
    faults();
    return 0;
}
