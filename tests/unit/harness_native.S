/* harness_native_call(struct hstate *s, void *code): load the state, jump to
 * code, which ends with "jmp *harness_back(%rip)"-like absolute jump to
 * harness_native_return, store the state back.  Offsets follow struct hstate:
 * r[16] at 0, rflags at 128, fx at 144 (16-byte aligned). */
    .text
    .globl harness_native_call
    .globl harness_native_return
harness_native_call:
    push %rbx
    push %rbp
    push %r12
    push %r13
    push %r14
    push %r15
    mov %rdi, state_ptr(%rip)
    mov %rsp, host_rsp(%rip)
    mov %rsi, code_ptr(%rip)
    fxsave host_fx(%rip)
    fxrstor 144(%rdi)
    pushq 128(%rdi)              /* flags first, on our own stack: movs keep them */
    popfq
    mov 4*8(%rdi), %rsp          /* the test's stack lives in the data area */
    mov 0*8(%rdi), %rax
    mov 1*8(%rdi), %rcx
    mov 2*8(%rdi), %rdx
    mov 3*8(%rdi), %rbx
    mov 5*8(%rdi), %rbp
    mov 6*8(%rdi), %rsi
    mov 8*8(%rdi), %r8
    mov 9*8(%rdi), %r9
    mov 10*8(%rdi), %r10
    mov 11*8(%rdi), %r11
    mov 12*8(%rdi), %r12
    mov 13*8(%rdi), %r13
    mov 14*8(%rdi), %r14
    mov 15*8(%rdi), %r15
    mov 7*8(%rdi), %rdi
    jmp *code_ptr(%rip)
harness_native_return:
    mov %rax, scratch(%rip)
    mov state_ptr(%rip), %rax
    mov %rcx, 1*8(%rax)
    mov %rdx, 2*8(%rax)
    mov %rbx, 3*8(%rax)
    mov %rsp, 4*8(%rax)
    mov %rbp, 5*8(%rax)
    mov %rsi, 6*8(%rax)
    mov %rdi, 7*8(%rax)
    mov %r8, 8*8(%rax)
    mov %r9, 9*8(%rax)
    mov %r10, 10*8(%rax)
    mov %r11, 11*8(%rax)
    mov %r12, 12*8(%rax)
    mov %r13, 13*8(%rax)
    mov %r14, 14*8(%rax)
    mov %r15, 15*8(%rax)
    mov scratch(%rip), %rcx
    mov %rcx, 0*8(%rax)
    mov host_rsp(%rip), %rsp     /* back on our stack before pushing anything */
    pushfq
    popq 128(%rax)
    fxsave 144(%rax)
    fxrstor host_fx(%rip)
    cld
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbp
    pop %rbx
    ret

    .bss
    .balign 16
host_fx: .skip 512
state_ptr: .skip 8
host_rsp: .skip 8
code_ptr: .skip 8
scratch: .skip 8

    .section .note.GNU-stack, "", @progbits
