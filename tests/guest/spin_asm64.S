/* A static, libc-free x86_64 guest that never ends: it counts in rax in a
 * loop of one block (for elfemu_stop from another thread, test_hooks). */
    .text
    .globl _start
_start:
    xor %eax, %eax
1:
    inc %rax
    jmp 1b

    .section .note.GNU-stack, "", @progbits
