/* A static, libc-free x86_64 guest for --trace (tests/e2e/trace.sh): known
 * stores and loads (plain, read-modify-write, the stack, a REP MOVSB), and
 * two nested functions for the filters.  Exits with status 5. */
    .text
    .globl _start
_start:
    lea buf(%rip), %rbx
    movabs $0x1122334455667788, %rax
    mov %rax, (%rbx)            /* store 8 */
    movl $0xdeadbeef, 8(%rbx)   /* store 4 */
    mov (%rbx), %rcx            /* load 8 */
    movzwl 8(%rbx), %edx        /* load 2 */
    add %rcx, 16(%rbx)          /* load 8, then store 8 */
    call outer
    push $7
    pop %rsi
    cld
    lea 32(%rbx), %rdi
    mov %rbx, %rsi
    mov $3, %ecx
    rep movsb                   /* 3 loads and 3 stores of 1 byte */
    mov %eax, %edi
    mov $231, %eax              /* exit_group(5) */
    syscall

    .type outer, @function
outer:
    mov $2, %eax
    call inner
    add $1, %eax
    ret
    .size outer, . - outer

    .type inner, @function
inner:
    imul %eax, %eax
    cmp $4, %eax
    ret
    .size inner, . - inner

    .bss
    .align 64
buf:
    .zero 64

    .section .note.GNU-stack, "", @progbits
