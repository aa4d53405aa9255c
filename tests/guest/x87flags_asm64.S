/* A static, libc-free x86_64 guest for test_hooks: 1 + 1 on the x87 is
 * exact, so no exception flag may be set afterwards; the exit status is
 * the status word's exception flags (0 natively). */
    .text
    .globl _start
_start:
    fninit
    fld1
    fld1
    faddp
    fnstsw %ax
    and $0x3f, %eax
    mov %eax, %edi
    mov $231, %eax          /* __NR_exit_group */
    syscall

    .section .note.GNU-stack, "", @progbits
