/* Self-modifying and JIT-style code: functions written into memory, run,
 * rewritten and run again, in a RWX mapping and through an mprotect cycle;
 * also a function that patches its own immediate while looping, and code
 * that patches an instruction further down its own block.  The
 * emulator's decoded blocks must follow every write. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef int (*fn_t)(void);

static void emit_ret_const(uint8_t *p, int32_t v)
{
    p[0] = 0xb8; /* mov eax, imm32 */
    memcpy(p + 1, &v, 4);
    p[5] = 0xc3; /* ret */
}

/* movb $42, (the immediate of the "mov eax, 1" at offset at, plus 1):
 * rip-relative on x86_64, absolute on ia32; 7 bytes at p. */
static void emit_patch_store(uint8_t *p, uint8_t *imm)
{
    p[0] = 0xc6;
    p[1] = 0x05;
#ifdef __x86_64__
    int32_t rel = (int32_t)(imm - (p + 7));
    memcpy(p + 2, &rel, 4);
#else
    uint32_t abs = (uint32_t)(uintptr_t)imm;
    memcpy(p + 2, &abs, 4);
#endif
    p[6] = 42;
}

/* kind 0: store; mov eax, 1; ret.  kind 1: xor eax, eax; store; test eax,
 * eax; jnz to the ret (not taken); mov eax, 1; ret.  Both return 42 once
 * the store has patched the mov. */
static void emit_self_patch(uint8_t *p, int kind)
{
    static const uint8_t mov1_ret[] = { 0xb8, 1, 0, 0, 0, 0xc3 };
    if (kind == 0) {
        emit_patch_store(p, p + 8);
        memcpy(p + 7, mov1_ret, sizeof(mov1_ret));
        return;
    }
    static const uint8_t xor_eax[] = { 0x31, 0xc0 }, test_jnz[] = { 0x85, 0xc0, 0x75, 0x05 };
    memcpy(p, xor_eax, 2);
    emit_patch_store(p + 2, p + 14);
    memcpy(p + 9, test_jnz, 4);
    memcpy(p + 13, mov1_ret, sizeof(mov1_ret));
}

int main(void)
{
    uint8_t *rwx = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (rwx == MAP_FAILED)
        return 1;
    long sum = 0;
    for (int i = 0; i < 1000; i++) {
        emit_ret_const(rwx + 64 * (i % 8), i);
        sum += ((fn_t)(rwx + 64 * (i % 8)))();
    }
    printf("rwx sum %ld\n", sum);

    /* W^X style: write, mprotect to R+X, run, back to R+W, rewrite. */
    uint8_t *wx = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    sum = 0;
    for (int i = 0; i < 100; i++) {
        mprotect(wx, 4096, PROT_READ | PROT_WRITE);
        emit_ret_const(wx, 7 * i);
        mprotect(wx, 4096, PROT_READ | PROT_EXEC);
        sum += ((fn_t)wx)();
    }
    printf("w^x sum %ld\n", sum);

    /* A loop that rewrites the immediate of an instruction it will run next:
     *   counter: mov eax, imm; ret -- patched between calls without a new mapping. */
    uint8_t *p = rwx + 4096;
    emit_ret_const(p, 0);
    int acc = 0;
    for (int i = 1; i <= 50; i++) {
        acc += ((fn_t)p)();
        int32_t next = i * i;
        memcpy(p + 1, &next, 4); /* the page holding decoded code is written */
    }
    printf("patched acc %d\n", acc);

    /* Code that patches an instruction further down its own straight run
     * (the next one, and one after an untaken conditional branch): the
     * patched instruction runs with the new bytes, as natively. */
    uint8_t *q = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED)
        return 1;
    int seen[2] = { 0, 0 };
    for (int round = 0; round < 20; round++)
        for (int k = 0; k < 2; k++) {
            emit_self_patch(q + 64 * k, k);
            seen[k] += ((fn_t)(q + 64 * k))();
        }
    printf("self-patched %d %d\n", seen[0], seen[1]);
    return 0;
}
