/* A static, libc-free x86_64 guest for instruction counts across indirect
 * branches that go straight into the block at their target (cpu/chain.h
 * chain_indirect: the blocks of a branch's last two targets):
 *  - 3000 rounds of a CALL through a register to one of four functions by
 *    the round's low two bits (so the last two targets are never the next:
 *    the miss side too), one of which leaves through a JMP through a
 *    register; then a JMP through memory, always to the same place.
 * tests/unit/test_hooks.c counts it chained, hooked and stepped: 3 + 3000
 * rounds of 7 + 750 * (2 + 2 + 4 + 2) in the functions + 3 = 28506
 * instructions.  rbx sums 750 * (1 + 2 + 3 + 4) = 7500, and the guest exits
 * with its low byte, 76. */
    .text
    .globl _start
_start:
    xor %ebx, %ebx
    mov $3000, %ecx
    lea table(%rip), %rsi
round:
    mov %ecx, %eax
    and $3, %eax
    mov (%rsi,%rax,8), %rdx
    call *%rdx                  /* four targets in turn */
    jmp *next(%rip)             /* through memory, to back */
back:
    dec %ecx
    jnz round
    mov %ebx, %edi
    mov $231, %eax              /* exit_group */
    syscall

f0: add $1, %rbx
    ret
f1: add $2, %rbx
    ret
f2: lea f2_tail(%rip), %rax
    jmp *%rax                   /* through a register */
f2_tail:
    add $3, %rbx
    ret
f3: add $4, %rbx
    ret

    .data
    .balign 8
table: .quad f0, f1, f2, f3
next:  .quad back

    .section .note.GNU-stack, "", @progbits
