/* The x86_64 pairs with a memory half (cpu/ops_fused_mem64.c), compared
 * with the native run: every pair of its list, each with its second half
 * reading what the first wrote (the loaded value as a source, a base or an
 * index; a store the next load reads, in part too), 32- and 64-bit
 * destinations, MOVZX into r32 and r64, a rip-relative operand; the flags
 * read by PUSHF after the pair (those of its flag-writing half, or the
 * CMP's before it when the pair writes none), over edge values with CF
 * set and clear before: one checksum line per case (and the same for the
 * CF of NEG as ADC and SBB read it).  Then faults in the first and in
 * the second half of the pairs (pair_faults.h). */
#include <stdint.h>
#include <stdio.h>

#include "edge_values.h"
#include "pair_faults.h"

#define ARITH 0x8d5ul /* CF PF AF ZF SF OF */
#define AF 0x10ul

/* A word a rip-relative operand reads and writes. */
uint64_t rip_word __attribute__((used));

/* The cases: a pair of instructions over a (%[a]), b (%[b]), the buffer
 * %[p] (8 slots of 8 bytes; slot 4 holds an index 0..3, slot 5 the
 * buffer's address) and %[i] = 1. */
#define CASES(X)                                                                        \
    X(ldq_ldq, "mov 8(%[p]), %q[a]\n\tmov 16(%[p]), %q[b]")                            \
    X(ldq_ldq_base, "mov 40(%[p]), %q[a]\n\tmov 8(%q[a]), %q[b]")                      \
    X(ldq_ldq_own, "mov 40(%[p]), %q[a]\n\tmov 24(%q[a]), %q[a]")                      \
    X(ldq_ldq_rip, "mov rip_word(%%rip), %q[a]\n\tmov 16(%[p]), %q[b]")                \
    X(stq_lea, "mov %q[a], 8(%[p])\n\tlea 7(%q[a],%q[b],2), %q[b]")                    \
    X(stq_ldzw, "mov %q[a], 8(%[p])\n\tmovzwl 9(%[p]), %k[b]")                        \
    X(stq_ldzw_q, "mov %q[b], 8(%[p])\n\tmovzwq 14(%[p]), %q[a]")                     \
    X(ldq_movsxd, "mov 8(%[p]), %q[a]\n\tmovslq %k[a], %q[b]")                         \
    X(ldq_movsxd_own, "mov 16(%[p]), %q[a]\n\tmovslq %k[a], %q[a]")                    \
    X(ldzw_movq, "movzwl 8(%[p]), %k[a]\n\tmov %q[a], %q[b]")                          \
    X(ldzw_movl, "movzwl 14(%[p]), %k[a]\n\tmov %k[a], %k[b]")                         \
    X(ldzwq_movl, "movzwq 14(%[p]), %q[a]\n\tmov %k[b], %k[a]")                        \
    X(movsxd_stq, "movslq %k[b], %q[a]\n\tmov %q[a], 8(%[p])")                         \
    X(movsxd_stq_other, "movslq %k[b], %q[a]\n\tmov %q[b], 16(%[p])")                  \
    X(ldq_stq, "mov 8(%[p]), %q[a]\n\tmov %q[a], 16(%[p])")                            \
    X(ldq_stq_same, "mov 8(%[p]), %q[a]\n\tmov %q[b], 8(%[p])")                        \
    X(ldzw_ldzw, "movzwl 8(%[p]), %k[a]\n\tmovzwl 10(%[p]), %k[b]")                    \
    X(movq_stq, "mov %q[b], %q[a]\n\tmov %q[a], 8(%[p])")                              \
    X(ldq_lea, "mov 8(%[p]), %q[a]\n\tlea 3(%q[a]), %q[b]")                            \
    X(lea_ldqx, "lea 2(%[i]), %q[a]\n\tmov (%[p],%q[a],8), %q[b]")                     \
    X(stq_movq, "mov %q[a], 8(%[p])\n\tmov %q[a], %q[b]")                              \
    X(subi_ldq, "sub $0x7fffffff, %q[a]\n\tmov 8(%[p]), %q[b]")                        \
    X(subi_ldq_own, "sub $1, %q[a]\n\tmov 16(%[p]), %q[a]")                            \
    X(ldzw_ldqx, "movzwl 32(%[p]), %k[a]\n\tmov (%[p],%q[a],8), %q[b]")                \
    X(lea_stq, "lea 7(%q[a],%q[b],2), %q[a]\n\tmov %q[a], 8(%[p])")                    \
    X(stq_stq, "mov %q[a], 8(%[p])\n\tmov %q[b], 12(%[p])")                            \
    X(stq_ldq, "mov %q[a], 8(%[p])\n\tmov 4(%[p]), %q[b]")                             \
    X(stq_ldq_same, "mov %q[a], 8(%[p])\n\tmov 8(%[p]), %q[b]")                        \
    X(stq_rip_ldq, "mov %q[a], rip_word(%%rip)\n\tmov 8(%[p]), %q[b]")                 \
    X(lea_ldq, "lea 8(%[p]), %q[a]\n\tmov 8(%q[a]), %q[b]")                            \
    X(ldq_movq, "mov 8(%[p]), %q[a]\n\tmov %q[a], %q[b]")                              \
    X(ldq_movl, "mov 8(%[p]), %q[a]\n\tmov %k[a], %k[b]")                              \
    X(andil_ldzwx, "and $3, %k[a]\n\tmovzwl (%[p],%q[a],2), %k[b]")                    \
    X(andil_ldzwx_own, "and $7, %k[a]\n\tmovzwl 1(%[p],%q[a],2), %k[a]")               \
    X(movsxd_movl, "movslq %k[b], %q[a]\n\tmov %k[a], %k[b]")                          \
    X(ldl_movl, "mov 12(%[p]), %k[a]\n\tmov %k[a], %k[b]")                             \
    X(ldl_andil, "mov 12(%[p]), %k[a]\n\tand $-0x7ffff010, %k[a]")                     \
    X(ldl_andil_zero, "mov 12(%[p]), %k[b]\n\tand $0x80000000, %k[a]")                 \
    X(lea_movsxd, "lea 5(%q[a]), %q[a]\n\tmovslq %k[a], %q[b]")                        \
    X(movsxd_lea, "movslq %k[b], %q[a]\n\tlea 1(%q[a],%q[a],2), %q[b]")                \
    X(lea_ldzwx, "lea 1(%[i]), %q[a]\n\tmovzwl (%[p],%q[a],2), %k[b]")                 \
    X(ldzb_lea, "movzbl 9(%[p]), %k[a]\n\tlea 1(%q[a],%q[b],4), %q[b]")                \
    X(ldzbq_lea, "movzbq 15(%[p]), %q[a]\n\tlea -1(%q[a]), %q[a]")                     \
    X(addmiq_stq, "addq $1, 8(%[p])\n\tmov %q[a], 16(%[p])")                          \
    X(addmiq_stq_same, "addq $-1, 8(%[p])\n\tmov %q[b], 8(%[p])")                     \
    X(addmiq_stq_part, "addq $0x7fffffff, 8(%[p])\n\tmov %q[a], 12(%[p])")            \
    /* not pairs: CF after NEG as ADC and SBB read it (cpu/flags.h cpu_cf) */           \
    X(neg8_sbb, "neg %b[a]\n\tsbb %k[b], %k[b]")                                      \
    X(neg16_sbb, "neg %w[a]\n\tsbb %b[b], %b[b]")                                     \
    X(neg32_adc, "neg %k[a]\n\tadc $0, %q[b]")                                        \
    X(neg64_sbb, "neg %q[a]\n\tsbb %q[b], %q[b]")

#define GEN_CASE(name, text)                                                            \
    static unsigned long c_##name(uint64_t *pa, uint64_t *pb, void *m, unsigned long cf)  \
    {                                                                                   \
        uint64_t a = *pa, b = *pb, i = 1;                                               \
        unsigned long fl;                                                               \
        asm volatile("cmpq $1, %[cf]\n\t" text "\n\tpushf\n\tpop %[fl]"                 \
                     : [fl] "=&r"(fl), [a] "+r"(a), [b] "+r"(b)                          \
                     : [cf] "m"(cf), [p] "r"(m), [i] "r"(i)                              \
                     : "cc", "memory");                                                 \
        *pa = a;                                                                        \
        *pb = b;                                                                        \
        return fl;                                                                      \
    }
CASES(GEN_CASE)

static const struct pair_case {
    const char *name;
    unsigned long (*fn)(uint64_t *a, uint64_t *b, void *m, unsigned long cf);
} cases[] = {
#define ROW_CASE(name, text) { #name, c_##name },
    CASES(ROW_CASE)
};

static uint64_t buf[8];

static uint64_t mix(uint64_t sum, uint64_t v) { return sum * 1000003 + v; }

/* A pointer into buf becomes its offset (the runs' addresses differ). */
static uint64_t unpoint(uint64_t v)
{
    return v - (uintptr_t)buf < sizeof(buf) ? v - (uintptr_t)buf : v;
}

static void run(void)
{
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        uint64_t sum = 0;
        for (unsigned x = 0; x < NEDGE; x++)
            for (unsigned y = 0; y < NEDGE; y++)
                for (unsigned long cf = 0; cf < 2; cf++) {
                    uint64_t a = edge[x], b = edge[y];
                    for (unsigned s = 0; s < 8; s++)
                        buf[s] = edge[(x * 3 + y + s) % NEDGE] ^ (s * 0x0101010101010101ull);
                    buf[4] = (x + y) & 3;
                    buf[5] = (uintptr_t)buf;
                    rip_word = edge[(x + 5 * y) % NEDGE];
                    unsigned long fl = cases[k].fn(&a, &b, buf, cf);
                    sum = mix(sum, fl & (ARITH & ~AF));
                    sum = mix(sum, unpoint(a));
                    sum = mix(sum, unpoint(b));
                    sum = mix(sum, rip_word);
                    for (unsigned s = 0; s < 8; s++)
                        if (s != 5)
                            sum = mix(sum, buf[s]);
                }
        printf("%s: %016llx\n", cases[k].name, (unsigned long long)sum);
    }
}

/* ------------------------------------------------------------ faults
 * Each routine sets rax and rdx, writes flags, then runs a pair whose
 * load or store at the address in its argument (rcx) faults: as the first
 * half (nothing of the pair done) or as the second (the first done). */
#define FAULT_ROUTINES(X)                                                               \
    X(ldq_ldq_first, "mov (%rcx), %rax\n mov 8(%rsp), %rdx\n")                          \
    X(ldq_ldq_second, "mov (%rsp), %rax\n mov 8(%rcx), %rdx\n")                         \
    X(ldq_stq_second, "mov (%rsp), %rax\n mov %rax, (%rcx)\n")                          \
    X(stq_ldq_first, "mov %rdx, 16(%rcx)\n mov (%rsp), %rax\n")                         \
    X(stq_ldq_second, "mov %rax, (%rsp)\n mov 8(%rcx), %rdx\n")                         \
    X(stq_ldzw_second, "mov %rdx, (%rsp)\n movzwl 2(%rcx), %eax\n")                     \
    X(subi_ldq_second, "sub $0x12345, %rax\n mov (%rcx), %rdx\n")                       \
    X(andil_ldzwx_second, "and $3, %eax\n movzwl (%rcx,%rax,2), %edx\n")                \
    X(lea_stq_second, "lea 1(%rax,%rdx,2), %rax\n mov %rax, 8(%rcx)\n")                 \
    X(movsxd_stq_second, "movslq %edx, %rax\n mov %rax, (%rcx)\n")                      \
    X(ldzw_ldzw_first, "movzwl (%rcx), %eax\n movzwl 2(%rsp), %edx\n")                  \
    X(ldzw_ldzw_second, "movzwl (%rsp), %eax\n movzwl 2(%rcx), %edx\n")                 \
    X(ldzw_ldqx_second, "movzwl 4(%rsp), %eax\n mov (%rcx,%rax,8), %rdx\n")              \
    X(lea_ldqx_second, "lea 8(%rax,%rax,1), %rdx\n mov (%rcx,%rdx,8), %rax\n")                 \
    X(ldl_andil_first, "mov 4(%rcx), %eax\n and $0xff, %eax\n")                         \
    X(addmiq_stq_first, "addq $1, 8(%rcx)\n mov %rax, (%rsp)\n")                      \
    X(addmiq_stq_second, "addq $1, (%rsp)\n mov %rax, 8(%rcx)\n")                     \
    X(ldzb_lea_first, "movzbl 5(%rcx), %eax\n lea 1(%rax,%rdx,4), %rdx\n")
#define DECLARE_FAULT(name, text) void f_##name(void *bad);
FAULT_ROUTINES(DECLARE_FAULT)
/* Each pushes a known word for the halves that use the stack (the return
 * address would differ between the runs). */
#define ASM_FAULT(name, text)                                                           \
    ".globl f_" #name "\nf_" #name ":\n mov %rdi, %rcx\n push $0x5a5a1234\n"            \
    " mov $0x8000000000000001, %rax\n mov $0x7ffffffffffffff0, %rdx\n cmp $1, %eax\n"   \
    text " pop %rcx\n ret\n"
__asm__(".text\n" FAULT_ROUTINES(ASM_FAULT) ".text\n");

/* Each routine with a PROT_NONE page (pair_faults.h). */
static void faults(void)
{
    static const struct fault_routine r[] = {
#define FAULT_ROW(name, text) { #name, f_##name },
        FAULT_ROUTINES(FAULT_ROW)
    };
    run_pair_faults(r, sizeof(r) / sizeof(r[0]), ~0ul);
}

int main(void)
{
    run();
    faults();
    return 0;
}
