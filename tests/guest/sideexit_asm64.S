/* A static, libc-free x86_64 guest for instruction counts across side
 * exits (cpu/chain.h): a loop whose blocks hold conditional branches that
 * leave them when taken (fused TEST/CMP + Jcc, JP, JRCXZ) and a LOOP back,
 * 3000 rounds, so that chains end at their budget on side exits as well.
 * tests/unit/test_hooks.c counts it chained, hooked and stepped.  rbx sums
 * 2 per even round (3000 in all), 1 per even round from 1500 up (751), 7
 * per odd round whose rcx & 6 has odd parity (750 rounds: 5250) and 1 per
 * odd round (1500): 10501, and the guest exits with its low byte, 5. */
    .text
    .globl _start
_start:
    xor %ebx, %ebx
    mov $3000, %ecx
top:
    test $1, %cl
    jnz odd                     /* side exit (fused TEST + Jcc) */
    add $2, %rbx
    cmp $1500, %ecx
    jb low                      /* side exit (fused CMP + Jcc) */
    add $1, %rbx
low:
    jmp next
odd:
    mov %ecx, %eax
    and $6, %eax
    jp par                      /* side exit (parity: not fused) */
    add $7, %rbx
par:
    jrcxz never                 /* side exit, never taken */
    add $1, %rbx
next:
    loop top                    /* LOOP: the back edge */
    mov %ebx, %edi
    mov $231, %eax              /* exit_group */
    syscall
never:
    ud2

    .section .note.GNU-stack, "", @progbits
