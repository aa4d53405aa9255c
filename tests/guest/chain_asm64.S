/* A static, libc-free x86_64 guest whose instruction count is known: a
 * loop of short blocks that the emulator runs chained (cpu/chain.h), with
 * a CALL and RET, a fused test-and-branch both ways, a JMP and a fused
 * dec-and-branch.  1000 rounds of 5 + 2 (odd rcx) or 1 (even) + 2
 * instructions, 2 before and 3 after: 8505 instructions; it exits with
 * (1000 * 1001 / 2 + 500 * 3 - 500) & 0xff = 252 (tests/unit/test_chain.c,
 * tests/e2e/chain_trace.sh). */
    .text
    .globl _start
_start:
    xor %ebx, %ebx
    mov $1000, %ecx
outer:
    call leaf
    test $1, %cl
    jz 1f
    add $3, %rbx
    jmp 2f
1:
    sub $1, %rbx
2:
    dec %ecx
    jnz outer
    mov %ebx, %edi
    mov $231, %eax              /* exit_group */
    syscall

    .type leaf, @function
leaf:
    add %rcx, %rbx
    ret
    .size leaf, . - leaf

    .section .note.GNU-stack, "", @progbits
