/* A static, libc-free x86_64 guest: write(1, "hello\n", 6); exit_group(3). */
    .text
    .globl _start
_start:
    mov $1, %eax            /* __NR_write */
    mov $1, %edi
    lea msg(%rip), %rsi
    mov $6, %edx
    syscall
    mov $231, %eax          /* __NR_exit_group */
    mov $3, %edi
    syscall

    .section .rodata
msg:
    .ascii "hello\n"

    .section .note.GNU-stack, "", @progbits
