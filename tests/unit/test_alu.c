/* The integer ALU against the host CPU: every operation, width and operand
 * form on edge values, with all six arithmetic flags compared. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"

static const uint64_t edge[] = {
    0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
    0xffffffff, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
    0xffffffffffffffffull, 0x123456789abcdef0ull, 0xfedcba9876543210ull, 0x0f0f0f0f0f0f0f0full,
};
#define NEDGE (sizeof(edge) / sizeof(edge[0]))
#define ALL_FLAGS 0x8d5u

/* op rax/eax/ax/al, rbx/ebx/bx/bl for one opcode family (reg,reg form). */
struct rr_case { const char *name; uint8_t bytes[4]; unsigned len; };

static const struct rr_case rr_cases[] = {
    /* 64-bit */
    { "add rax,rbx", { 0x48, 0x01, 0xd8 }, 3 }, { "or rax,rbx", { 0x48, 0x09, 0xd8 }, 3 },
    { "adc rax,rbx", { 0x48, 0x11, 0xd8 }, 3 }, { "sbb rax,rbx", { 0x48, 0x19, 0xd8 }, 3 },
    { "and rax,rbx", { 0x48, 0x21, 0xd8 }, 3 }, { "sub rax,rbx", { 0x48, 0x29, 0xd8 }, 3 },
    { "xor rax,rbx", { 0x48, 0x31, 0xd8 }, 3 }, { "cmp rax,rbx", { 0x48, 0x39, 0xd8 }, 3 },
    { "test rax,rbx", { 0x48, 0x85, 0xd8 }, 3 },
    /* 32-bit (zero-extends) */
    { "add eax,ebx", { 0x01, 0xd8 }, 2 }, { "adc eax,ebx", { 0x11, 0xd8 }, 2 },
    { "sbb eax,ebx", { 0x19, 0xd8 }, 2 }, { "sub eax,ebx", { 0x29, 0xd8 }, 2 },
    { "xor eax,ebx", { 0x31, 0xd8 }, 2 }, { "cmp eax,ebx", { 0x39, 0xd8 }, 2 },
    /* 16-bit (merges) */
    { "add ax,bx", { 0x66, 0x01, 0xd8 }, 3 }, { "sub ax,bx", { 0x66, 0x29, 0xd8 }, 3 },
    { "adc ax,bx", { 0x66, 0x11, 0xd8 }, 3 }, { "cmp ax,bx", { 0x66, 0x39, 0xd8 }, 3 },
    /* 8-bit, incl. a high-byte register */
    { "add al,bl", { 0x00, 0xd8 }, 2 }, { "sub al,bl", { 0x28, 0xd8 }, 2 },
    { "sbb al,bl", { 0x18, 0xd8 }, 2 }, { "add ah,bl", { 0x00, 0xdc }, 2 },
    { "sub bh,al", { 0x28, 0xc7 }, 2 }, { "cmp al,bl", { 0x38, 0xd8 }, 2 },
    /* unary */
    { "inc rax", { 0x48, 0xff, 0xc0 }, 3 }, { "dec eax", { 0xff, 0xc8 }, 2 },
    { "neg rax", { 0x48, 0xf7, 0xd8 }, 3 }, { "neg al", { 0xf6, 0xd8 }, 2 },
    { "not rax", { 0x48, 0xf7, 0xd0 }, 3 }, { "inc ax", { 0x66, 0xff, 0xc0 }, 3 },
    { "dec bl", { 0xfe, 0xcb }, 2 },
};

START_TEST(reg_reg_all_edges)
{
    const struct rr_case *k = &rr_cases[_i];
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned a = 0; a < NEDGE; a++)
        for (unsigned b = 0; b < NEDGE; b++)
            for (int cf = 0; cf < 2; cf++) {
                harness_init(s);
                s->r[0] = edge[a];
                s->r[3] = edge[b];
                s->rflags = 0x202 | (unsigned)cf;
                char what[96];
                snprintf(what, sizeof(what), "%s with %#llx, %#llx, CF=%d", k->name,
                         (unsigned long long)edge[a], (unsigned long long)edge[b], cf);
                /* AF is undefined for the logical operations */
                uint64_t mask = (k->name[0] == 'a' && k->name[1] == 'n') || k->name[0] == 'o' ||
                                k->name[0] == 'x' || k->name[0] == 't' ? ALL_FLAGS & ~0x10u : ALL_FLAGS;
                bad |= harness_compare(k->bytes, k->len, s, mask, what);
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Memory forms, immediates, LOCK, and conditions read by Jcc/SETcc/CMOVcc. */
START_TEST(memory_immediate_and_conditions)
{
    static const struct { const char *name; uint8_t b[12]; unsigned len; } cases[] = {
        { "add [rsi],rbx", { 0x48, 0x01, 0x1e }, 3 },
        { "sub rbx,[rsi+8]", { 0x48, 0x2b, 0x5e, 0x08 }, 4 },
        { "add qword [rsi],-1", { 0x48, 0x83, 0x06, 0xff }, 4 },
        { "lock add [rsi],ebx", { 0xf0, 0x01, 0x1e }, 3 },
        { "lock sbb [rsi],rbx", { 0xf0, 0x48, 0x19, 0x1e }, 4 },
        { "cmp byte [rsi+rcx*2+3],0x80", { 0x80, 0x7c, 0x4e, 0x03, 0x80 }, 5 },
        { "and eax,0xfffffff0", { 0x83, 0xe0, 0xf0 }, 3 },
        { "add rax,0x7fffffff", { 0x48, 0x05, 0xff, 0xff, 0xff, 0x7f }, 6 },
        { "inc qword [rsi]", { 0x48, 0xff, 0x06 }, 3 },
        { "lock dec dword [rsi]", { 0xf0, 0xff, 0x0e }, 3 },
        { "neg word [rsi]", { 0x66, 0xf7, 0x1e }, 3 },
        { "cmp rax,rbx; setl cl", { 0x48, 0x39, 0xd8, 0x0f, 0x9c, 0xc1 }, 6 },
        { "cmp rax,rbx; setbe cl", { 0x48, 0x39, 0xd8, 0x0f, 0x96, 0xc1 }, 6 },
        { "sub eax,ebx; seto cl", { 0x29, 0xd8, 0x0f, 0x90, 0xc1 }, 5 },
        { "test al,bl; setp cl", { 0x84, 0xd8, 0x0f, 0x9a, 0xc1 }, 5 },
        { "cmp eax,ebx; cmovg rcx,rbx", { 0x39, 0xd8, 0x48, 0x0f, 0x4f, 0xcb }, 6 },
        { "cmp eax,ebx; cmovle ecx,ebx", { 0x39, 0xd8, 0x0f, 0x4e, 0xcb }, 5 },
        { "add al,bl; setnle cl", { 0x00, 0xd8, 0x0f, 0x9f, 0xc1 }, 5 },
        { "inc eax; sets cl", { 0xff, 0xc0, 0x0f, 0x98, 0xc1 }, 5 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        for (unsigned a = 0; a < NEDGE; a += 3)
            for (unsigned b = 0; b < NEDGE; b += 2) {
                harness_init(s);
                s->r[0] = edge[a];
                s->r[3] = edge[b];
                s->r[1] = 0x5555;
                s->r[6] = HARNESS_DATA + 64;
                memcpy(s->data + 64, &edge[b], 8);
                memcpy(s->data + 72, &edge[a], 8);
                char what[96];
                snprintf(what, sizeof(what), "%s with %#llx, %#llx", cases[k].name,
                         (unsigned long long)edge[a], (unsigned long long)edge[b]);
                bad |= harness_compare(cases[k].b, cases[k].len, s, ALL_FLAGS & ~0x10u, what);
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Dead-flag elimination (cpu/block.c) must never drop flags that a later
 * instruction of the block reads, including through CF-preserving INC,
 * count-0 shifts (which keep the old flags) and RCL's carry in. */
START_TEST(dead_flags_within_blocks)
{
    static const struct { const char *name; uint8_t b[16]; unsigned len; } cases[] = {
        { "shl eax,3; add ebx,1; setc cl", { 0xc1, 0xe0, 0x03, 0x83, 0xc3, 0x01, 0x0f, 0x92, 0xc1 }, 9 },
        { "bt eax,3; inc ebx; setc cl", { 0x0f, 0xba, 0xe0, 0x03, 0xff, 0xc3, 0x0f, 0x92, 0xc1 }, 9 },
        { "rol eax,1; rcl ebx,1", { 0xd1, 0xc0, 0xd1, 0xd3 }, 4 },
        { "add eax,ebx; shl eax,cl; setz dl", { 0x01, 0xd8, 0xd3, 0xe0, 0x0f, 0x94, 0xc2 }, 7 },
        { "ror eax,5; ror ebx,7; xor eax,ebx; setp cl", { 0xc1, 0xc8, 0x05, 0xc1, 0xcb, 0x07, 0x31, 0xd8, 0x0f, 0x9a, 0xc1 }, 11 },
        { "sub eax,ebx; rol ecx,1; seto dl; setz dh", { 0x29, 0xd8, 0xd1, 0xc1, 0x0f, 0x90, 0xc2, 0x0f, 0x94, 0xc6 }, 10 },
        { "imul eax,ebx; shr ebx,1; adc eax,0", { 0x0f, 0xaf, 0xc3, 0xd1, 0xeb, 0x83, 0xd0, 0x00 }, 8 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        for (unsigned a = 0; a < NEDGE; a++)
            for (unsigned cl = 0; cl < 3; cl++) {
                harness_init(s);
                s->r[0] = edge[a];
                s->r[3] = edge[(a * 7 + 3) % NEDGE];
                s->r[1] = cl == 2 ? 33 : cl; /* includes counts that mask to 0 */
                s->rflags = 0x202 | (a & 1);
                bad |= harness_compare(cases[k].b, cases[k].len, s, ALL_FLAGS & ~0x10u, cases[k].name);
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Every condition (SETcc and Jcc: one handler per condition, with inline
 * fast paths after CMP/SUB and TEST/AND/OR/XOR) after each kind of
 * flag-setting operation and width. */
START_TEST(conditions_after_each_operation)
{
    static const struct { const char *name; uint8_t b[4]; unsigned len; } ops[] = {
        { "cmp eax,ebx", { 0x39, 0xd8 }, 2 },       { "cmp rax,rbx", { 0x48, 0x39, 0xd8 }, 3 },
        { "sub eax,ebx", { 0x29, 0xd8 }, 2 },       { "cmp al,bl", { 0x38, 0xd8 }, 2 },
        { "cmp ax,bx", { 0x66, 0x39, 0xd8 }, 3 },   { "test eax,ebx", { 0x85, 0xd8 }, 2 },
        { "test rax,rbx", { 0x48, 0x85, 0xd8 }, 3 }, { "and eax,ebx", { 0x21, 0xd8 }, 2 },
        { "or rax,rbx", { 0x48, 0x09, 0xd8 }, 3 },  { "xor eax,ebx", { 0x31, 0xd8 }, 2 },
        { "test al,bl", { 0x84, 0xd8 }, 2 },        { "add eax,ebx", { 0x01, 0xd8 }, 2 },
        { "inc rax", { 0x48, 0xff, 0xc0 }, 3 },     { "neg eax", { 0xf7, 0xd8 }, 2 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
        for (unsigned cc = 0; cc < 16; cc++)
            for (unsigned a = 0; a < NEDGE; a += 2)
                for (unsigned b = 1; b < NEDGE; b += 3) {
                    /* op; setcc cl; jcc +2; mov dl,1 */
                    uint8_t code[16];
                    unsigned n = 0;
                    memcpy(code, ops[k].b, ops[k].len), n += ops[k].len;
                    code[n++] = 0x0f, code[n++] = (uint8_t)(0x90 + cc), code[n++] = 0xc1;
                    code[n++] = (uint8_t)(0x70 + cc), code[n++] = 2;
                    code[n++] = 0xb2, code[n++] = 1;
                    harness_init(s);
                    s->r[0] = edge[a];
                    s->r[3] = a == b ? edge[a] : edge[b];
                    char what[96];
                    snprintf(what, sizeof(what), "%s; setcc/jcc %u with %#llx, %#llx", ops[k].name, cc,
                             (unsigned long long)s->r[0], (unsigned long long)s->r[3]);
                    bad |= harness_compare(code, n, s, ALL_FLAGS & ~0x10u, what);
                }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alu");
    TCase *t = tcase_create("alu");
    tcase_add_loop_test(t, reg_reg_all_edges, 0, sizeof(rr_cases) / sizeof(rr_cases[0]));
    tcase_add_test(t, memory_immediate_and_conditions);
    tcase_add_test(t, conditions_after_each_operation);
    tcase_add_test(t, dead_flags_within_blocks);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
