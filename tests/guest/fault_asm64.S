/* A libc-free x86_64 guest that prints a line and then dies on one faulting
 * instruction, chosen at build time: FAULT_UD2 (SIGILL), FAULT_BAD (bytes
 * that are no instruction: SIGILL), FAULT_HLT (privileged: SIGSEGV),
 * FAULT_INT3 (SIGTRAP).  Natively and under elfemu the signal must match. */
    .text
    .globl _start
_start:
    mov $1, %eax
    mov $1, %edi
    lea msg(%rip), %rsi
    mov $7, %edx
    syscall
#if defined(FAULT_UD2)
    ud2
#elif defined(FAULT_BAD)
    .byte 0x0f, 0x04            /* an undefined opcode */
#elif defined(FAULT_HLT)
    hlt
#elif defined(FAULT_INT3)
    int3
#else
#error "define one FAULT_*"
#endif

    .section .rodata
msg:
    .ascii "before\n"

    .section .note.GNU-stack, "", @progbits
