/* A static, libc-free ia32 guest: write(1, "hello\n", 6); exit_group(3). */
    .text
    .globl _start
_start:
    mov $4, %eax            /* __NR_write (i386) */
    mov $1, %ebx
    mov $msg, %ecx
    mov $6, %edx
    int $0x80
    mov $252, %eax          /* __NR_exit_group (i386) */
    mov $3, %ebx
    int $0x80

    .section .rodata
msg:
    .ascii "hello\n"

    .section .note.GNU-stack, "", @progbits
