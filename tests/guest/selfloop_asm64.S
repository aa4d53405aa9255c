/* A static, libc-free x86_64 guest for instruction counts across loops
 * that are one block each (cpu/chain.h chain_taken: a branch back to its
 * own block's start goes round without the rest of a hop), each longer
 * than a chain so that chains end at their budget inside them:
 *  - 3000 rounds of ADD, DEC and a fused JNZ back, whose block goes on
 *    past the JNZ (a side exit to its own start);
 *  - 2000 rounds of ADD and a LOOP back that ends its block.
 * tests/unit/test_hooks.c counts it chained, hooked and stepped: 2 + 9000
 * + 1 + 4000 + 3 = 13006 instructions.  rbx sums 1..3000 (4501500) and
 * 2000: 4503500, and the guest exits with its low byte, 204. */
    .text
    .globl _start
_start:
    xor %ebx, %ebx
    mov $3000, %ecx
fused:
    add %rcx, %rbx
    dec %ecx
    jnz fused                   /* side exit back to the block's start */
    mov $2000, %ecx
plain:
    add $1, %rbx
    loop plain                  /* LOOP: ends its block */
    mov %ebx, %edi
    mov $231, %eax              /* exit_group */
    syscall

    .section .note.GNU-stack, "", @progbits
