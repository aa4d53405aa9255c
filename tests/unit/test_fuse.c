/* Fused pairs (cpu/ops_fused.c) against the host CPU: every operation,
 * operand form and width that fuses, followed by Jcc (taken and not),
 * SETcc or CMOVcc with each condition, then an instruction of the same
 * block that reads the pair's flags, keeps some of them or replaces them
 * all (so that the lazy record is left out), on edge values; the same
 * operations alone, their flags dead or not.  The final RFLAGS and every
 * register are compared with the native run. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"

static const uint64_t edge[] = {
    0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0x7fffffff, 0x80000000, 0xffffffff,
    0x8000000000000000ull, 0xffffffffffffffffull, 0x123456789abcdef0ull, 0xfedcba9876543210ull,
};
#define NEDGE (sizeof(edge) / sizeof(edge[0]))
#define ALL_FLAGS 0x8d5u
#define AF 0x10u
#define CF_ZF 0x41u /* BT: OF, SF, AF and PF are undefined */

/* The first instruction: rax/eax/ax/al against rbx/.., an immediate, or
 * [rsi] (which holds rbx's value; rsi points into the data area). */
struct writer { const char *name; uint8_t b[8]; unsigned len; int logical; /* 2: BT */ };
static const struct writer writers[] = {
    { "cmp rax,rbx", { 0x48, 0x39, 0xd8 }, 3, false },
    { "cmp eax,ebx", { 0x39, 0xd8 }, 2, false },
    { "cmp ax,bx", { 0x66, 0x39, 0xd8 }, 3, false },
    { "cmp al,bl", { 0x38, 0xd8 }, 2, false },
    { "cmp bh,al", { 0x38, 0xc7 }, 2, false },
    { "cmp rax,-1", { 0x48, 0x83, 0xf8, 0xff }, 4, false },
    { "cmp eax,0x7fffffff", { 0x3d, 0xff, 0xff, 0xff, 0x7f }, 5, false },
    { "cmp ax,0x8000", { 0x66, 0x3d, 0x00, 0x80 }, 4, false },
    { "cmp al,0x80", { 0x3c, 0x80 }, 2, false },
    { "cmp rax,[rsi]", { 0x48, 0x3b, 0x06 }, 3, false },
    { "cmp eax,[rsi]", { 0x3b, 0x06 }, 2, false },
    { "cmp [rsi],eax", { 0x39, 0x06 }, 2, false },
    { "cmp [rsi],rax", { 0x48, 0x39, 0x06 }, 3, false },
    { "cmp [rsi],ax", { 0x66, 0x39, 0x06 }, 3, false },
    { "cmp byte [rsi],0x80", { 0x80, 0x3e, 0x80 }, 3, false },
    { "cmp dword [rsi],1", { 0x83, 0x3e, 0x01 }, 3, false },
    { "cmp qword [rsi],-2", { 0x48, 0x83, 0x3e, 0xfe }, 4, false },
    { "test rax,rbx", { 0x48, 0x85, 0xd8 }, 3, true },
    { "test eax,ebx", { 0x85, 0xd8 }, 2, true },
    { "test ax,bx", { 0x66, 0x85, 0xd8 }, 3, true },
    { "test al,bl", { 0x84, 0xd8 }, 2, true },
    { "test eax,0x80000001", { 0xa9, 0x01, 0x00, 0x00, 0x80 }, 5, true },
    { "test al,0x81", { 0xa8, 0x81 }, 2, true },
    { "test [rsi],eax", { 0x85, 0x06 }, 2, true },
    { "test byte [rsi],0x80", { 0xf6, 0x06, 0x80 }, 3, true },
    { "test qword [rsi],-1", { 0x48, 0xf7, 0x06, 0xff, 0xff, 0xff, 0xff }, 7, true },
    { "sub rax,rbx", { 0x48, 0x29, 0xd8 }, 3, false },
    { "sub eax,1", { 0x83, 0xe8, 0x01 }, 3, false },
    { "sub eax,[rsi]", { 0x2b, 0x06 }, 2, false },
    { "sub ax,bx", { 0x66, 0x29, 0xd8 }, 3, false },
    { "sub al,bl", { 0x28, 0xd8 }, 2, false },
    { "add rax,rbx", { 0x48, 0x01, 0xd8 }, 3, false },
    { "add eax,-128", { 0x83, 0xc0, 0x80 }, 3, false },
    { "add rax,[rsi]", { 0x48, 0x03, 0x06 }, 3, false },
    { "add al,bl", { 0x00, 0xd8 }, 2, false },
    { "add ah,bl", { 0x00, 0xdc }, 2, false },
    { "and eax,ebx", { 0x21, 0xd8 }, 2, true },
    { "and rax,-16", { 0x48, 0x83, 0xe0, 0xf0 }, 4, true },
    { "or eax,ebx", { 0x09, 0xd8 }, 2, true },
    { "or rax,1", { 0x48, 0x83, 0xc8, 0x01 }, 4, true },
    { "or bl,al", { 0x08, 0xc3 }, 2, true },
    { "or eax,[rsi]", { 0x0b, 0x06 }, 2, true },
    { "and ax,[rsi]", { 0x66, 0x23, 0x06 }, 3, true },
    { "xor eax,ebx", { 0x31, 0xd8 }, 2, true },
    { "xor rax,[rsi]", { 0x48, 0x33, 0x06 }, 3, true },
    { "xor al,0x80", { 0x34, 0x80 }, 2, true },
    { "xor eax,eax", { 0x31, 0xc0 }, 2, true },
    { "inc rax", { 0x48, 0xff, 0xc0 }, 3, false },
    { "inc eax", { 0xff, 0xc0 }, 2, false },
    { "inc ax", { 0x66, 0xff, 0xc0 }, 3, false },
    { "dec eax", { 0xff, 0xc8 }, 2, false },
    { "dec rax", { 0x48, 0xff, 0xc8 }, 3, false },
    { "dec bl", { 0xfe, 0xcb }, 2, false },
    { "bt eax,ebx", { 0x0f, 0xa3, 0xd8 }, 3, 2 },
    { "bt rax,rbx", { 0x48, 0x0f, 0xa3, 0xd8 }, 4, 2 },
    { "bt ax,bx", { 0x66, 0x0f, 0xa3, 0xd8 }, 4, 2 },
    { "bt rax,63", { 0x48, 0x0f, 0xba, 0xe0, 0x3f }, 5, 2 },
    { "bt eax,33", { 0x0f, 0xba, 0xe0, 0x21 }, 4, 2 },
};
#define NWRITERS (sizeof(writers) / sizeof(writers[0]))

/* The second instruction (condition added to byte cc_at) and a first
 * instruction of the block after it. */
struct reader { const char *name; uint8_t b[8]; unsigned len, cc_at; };
static const struct reader readers[] = {
    { "jcc +2; mov dl,1", { 0x70, 0x02, 0xb2, 0x01 }, 4, 0 },
    { "setcc cl", { 0x0f, 0x90, 0xc1 }, 3, 1 },
    { "setcc ah", { 0x0f, 0x90, 0xc4 }, 3, 1 },
    { "cmovcc rcx,rbx", { 0x48, 0x0f, 0x40, 0xcb }, 4, 2 },
    { "cmovcc ecx,eax", { 0x0f, 0x40, 0xc8 }, 3, 1 },
    { "cmovcc cx,bx", { 0x66, 0x0f, 0x40, 0xcb }, 4, 2 },
};
#define NREADERS (sizeof(readers) / sizeof(readers[0]))

/* What follows in the same block: nothing; a reader of CF (ADC); a
 * writer that keeps CF (INC); one that replaces all six (XOR: the pair's
 * record is then dead); PUSHF. */
struct tail { const char *name; uint8_t b[8]; unsigned len; };
static const struct tail tails[] = {
    { "", { 0 }, 0 },
    { "adc rdx,0", { 0x48, 0x83, 0xd2, 0x00 }, 4 },
    { "inc edi", { 0xff, 0xc7 }, 2 },
    { "xor edi,edi", { 0x31, 0xff }, 2 },
    { "pushf; pop rdi", { 0x9c, 0x5f }, 2 },
};
#define NTAILS (sizeof(tails) / sizeof(tails[0]))

START_TEST(pairs_against_the_host)
{
    const struct writer *w = &writers[_i];
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    unsigned k = 0;
    for (unsigned r = 0; r < NREADERS; r++)
        for (unsigned cc = 0; cc < 16; cc++)
            for (unsigned a = 0; a < NEDGE; a++, k++) {
                const struct reader *rd = &readers[r];
                const struct tail *t = &tails[k % NTAILS];
                if (w->logical == 2 && ((cc >> 1) != 1 || k % NTAILS == NTAILS - 1))
                    continue; /* BT: only CF is defined (no PUSHF of the others) */
                uint64_t b = edge[(a * 5 + cc + r) % NEDGE];
                if (k % 7 == 0)
                    b = edge[a]; /* equal operands */
                uint8_t code[32];
                unsigned n = 0;
                memcpy(code + n, w->b, w->len), n += w->len;
                memcpy(code + n, rd->b, rd->len);
                code[n + rd->cc_at] = (uint8_t)(code[n + rd->cc_at] + cc);
                n += rd->len;
                memcpy(code + n, t->b, t->len), n += t->len;
                harness_init(s);
                s->r[0] = edge[a];
                s->r[3] = b;
                s->r[1] = 0x5555aaaa5555aaaaull;
                s->r[2] = 0x1234;
                s->r[6] = HARNESS_DATA + 64;
                s->rflags = 0x202 | (k & 1); /* INC/DEC keep CF */
                memcpy(s->data + 64, &b, 8);
                char what[128];
                snprintf(what, sizeof(what), "%s; %s (cc %u); %s with %#llx, %#llx", w->name,
                         rd->name, cc, t->name, (unsigned long long)edge[a], (unsigned long long)b);
                bad |= harness_compare(code, n, s,
                                       w->logical == 2 ? CF_ZF : w->logical ? ALL_FLAGS & ~AF : ALL_FLAGS, what);
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* An instruction alone whose flags the rest of the block replaces before
 * reading (OPF_NOFLAGS: its result only, the lazy record left as it was),
 * and the same instruction where something still reads some of its flags
 * or the CF it keeps (INC/DEC). */
static const struct tail followers[] = {
    { "xor edi,edi", { 0x31, 0xff }, 2 },
    { "inc edi; setc dl", { 0xff, 0xc7, 0x0f, 0x92, 0xc2 }, 5 },
    { "lea edi,[rax+1]; cmp edi,esi", { 0x8d, 0x78, 0x01, 0x39, 0xf7 }, 5 },
    { "shl edi,1", { 0xd1, 0xe7 }, 2 },
    { "rol edi,1; setz dl", { 0xd1, 0xc7, 0x0f, 0x94, 0xc2 }, 5 },
    { "bt edi,0; adc edx,eax", { 0x0f, 0xba, 0xe7, 0x00, 0x11, 0xc2 }, 6 },
};
#define NFOLLOWERS (sizeof(followers) / sizeof(followers[0]))

START_TEST(dead_records_left_out)
{
    const struct writer *w = &writers[_i];
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned f = 0; f < NFOLLOWERS; f++)
        for (unsigned a = 0; a < NEDGE; a++)
            for (unsigned cf = 0; cf < 2; cf++) {
                uint64_t b = edge[(a * 3 + f) % NEDGE];
                uint8_t code[32];
                unsigned n = 0;
                /* cmp rdx,rcx first: a record for what the writer keeps */
                code[n++] = 0x48, code[n++] = 0x39, code[n++] = 0xca;
                memcpy(code + n, w->b, w->len), n += w->len;
                memcpy(code + n, followers[f].b, followers[f].len), n += followers[f].len;
                harness_init(s);
                s->r[0] = edge[a];
                s->r[3] = b;
                s->r[1] = cf ? 0x10 : 0;
                s->r[2] = 0x8;
                s->r[6] = HARNESS_DATA + 64;
                s->r[7] = edge[(a + 5) % NEDGE];
                memcpy(s->data + 64, &b, 8);
                char what[128];
                snprintf(what, sizeof(what), "cmp rdx,rcx; %s; %s with %#llx, %#llx", w->name,
                         followers[f].name, (unsigned long long)edge[a], (unsigned long long)b);
                bad |= harness_compare(code, n, s, w->logical == 2 ? CF_ZF : ALL_FLAGS & ~AF, what);
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* A block that starts at the second instruction of a pair (a jump into
 * the middle of it) runs it alone, reading the flags the block before
 * left: the first pass runs cmp eax,ebx; jl fused, the second jumps to the
 * jl after cmp rax,rbx. */
START_TEST(jump_into_the_middle_of_a_pair)
{
    static const uint8_t code[] = {
        0x39, 0xd8,             /*  0: cmp eax,ebx */
        0x7c, 0x02,             /*  2: jl 6 */
        0xff, 0xc2,             /*  4: inc edx (not taken) */
        0x0f, 0x9f, 0xc1,       /*  6: setg cl */
        0xff, 0xc6,             /*  9: inc esi (the pass) */
        0x83, 0xfe, 0x02,       /* 11: cmp esi,2 */
        0x73, 0x05,             /* 14: jae 21 (the end) */
        0x48, 0x39, 0xd8,       /* 16: cmp rax,rbx */
        0xeb, 0xed,             /* 19: jmp 2 */
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned a = 0; a < NEDGE; a++)
        for (unsigned b = 0; b < NEDGE; b++) {
            harness_init(s);
            s->r[0] = edge[a];
            s->r[3] = edge[b];
            bad |= harness_compare(code, sizeof(code), s, ALL_FLAGS, "jump to the jl of cmp; jl");
        }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fuse");
    TCase *t = tcase_create("fuse");
    tcase_add_loop_test(t, pairs_against_the_host, 0, NWRITERS);
    tcase_add_loop_test(t, dead_records_left_out, 0, NWRITERS);
    tcase_add_test(t, jump_into_the_middle_of_a_pair);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
