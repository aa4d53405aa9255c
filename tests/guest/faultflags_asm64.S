/* A static, libc-free x86_64 guest for test_hooks (exact_fatal_faults): an
 * ADD whose flags only a fault could show, then a load from address 0 that
 * kills the guest (no handler), then a CMP that writes every flag. */
    .text
    .globl _start
_start:
    mov $0x7fffffffffffffff, %rax
    xor %ebx, %ebx
    add $1, %rax            /* OF SF AF PF */
    mov (%rbx), %rcx        /* SIGSEGV: the guest dies here */
    cmp $1, %rax
    mov $231, %eax          /* __NR_exit_group */
    xor %edi, %edi
    syscall

    .section .note.GNU-stack, "", @progbits
