/* Self-modifying and JIT-style code: functions written into memory, run,
 * rewritten and run again, in a RWX mapping and through an mprotect cycle;
 * also a function that patches its own immediate while looping.  The
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
    return 0;
}
