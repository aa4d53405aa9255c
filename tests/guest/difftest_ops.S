/* A libc-free x86_64 guest for elfemu-difftest: integer ALU and flags,
 * loops, calls, push/pop, a few SSE moves, and system calls whose effects
 * difftest must replay into the native side (their results are loaded and
 * mixed into a checksum afterwards, so a missed replay shows up as a
 * register mismatch):
 *   write, brk (grow, store, shrink), mmap of anonymous memory (stores,
 *   mprotect, munmap, MAP_FIXED over a used range), getrandom into a
 *   buffer, clock_gettime, uname.
 * Prints "difftest_ops ok", then "difftest_ops " and a checksum of the
 * deterministic results in hex, and exits with status 0 (the same natively
 * and under elfemu).  No string instructions.
 *
 * Built with -DDIFFTEST_UNIMPLEMENTED it starts with LSL, an instruction
 * every x86_64 CPU runs in user mode and the emulator does not implement:
 * difftest must stop there with "emulator: unimplemented instruction" and
 * exit status 2 (pick another one if LSL ever gets implemented). */
#define SYS_write 1
#define SYS_mmap 9
#define SYS_mprotect 10
#define SYS_munmap 11
#define SYS_brk 12
#define SYS_uname 63
#define SYS_clock_gettime 228
#define SYS_exit_group 231
#define SYS_getrandom 318

    .text
    .globl _start
_start:
#ifdef DIFFTEST_UNIMPLEMENTED
    mov $0x2b, %ecx             /* __USER_DS */
    lsl %ecx, %eax
#endif
    xor %r15d, %r15d            /* r15: the running checksum */

    /* ---- ALU and flags: a loop over operand pairs ---- */
    lea pairs(%rip), %rbx
    mov $npairs, %ecx
1:  mov (%rbx), %rax
    mov 8(%rbx), %rdx
    call alu_mix
    add $16, %rbx
    dec %ecx
    jnz 1b

    /* ---- shifts and rotates by 0, 1, several and many bits ---- */
    xor %ecx, %ecx
2:  mov $0x8000000180000001, %rax
    call shift_mix
    inc %ecx
    cmp $70, %ecx
    jb 2b

    /* ---- multiply and divide ---- */
    mov $0x123456789abcdef, %rax
    mov $0xfedcba987, %rcx
    mul %rcx
    add %rax, %r15
    add %rdx, %r15
    mov $-77777, %rax
    cqo
    mov $123, %rcx
    idiv %rcx
    add %rax, %r15
    add %rdx, %r15
    imul $-3, %r15, %rax
    xor %rax, %r15

    /* ---- bit scans and tests ---- */
    mov $0x00f0000000000000, %rax
    bsf %rax, %rdx
    add %rdx, %r15
    bsr %rax, %rdx
    add %rdx, %r15
    bt $52, %rax
    setc %dl
    movzbl %dl, %edx
    add %rdx, %r15
    bts $3, %r15
    btr $5, %r15

    /* ---- compare-exchange, exchange, conditional moves ---- */
    mov %r15, %rax
    mov %r15, scratch(%rip)
    mov $0x55, %rdx
    lock cmpxchg %rdx, scratch(%rip)
    sete %cl
    movzbl %cl, %ecx
    add scratch(%rip), %rcx
    xchg %rcx, %r15
    cmp $1000, %r15
    cmova %rcx, %r15
    cmovbe %rcx, %rax
    add %rax, %r15

    /* ---- push/pop, pushf/popf ---- */
    push %r15
    push $-2
    pushf
    pop %rax
    and $0x8d5, %eax             /* the arithmetic flags */
    add %rax, %r15
    pop %rax
    add %rax, %r15
    pop %rax
    rol $13, %rax
    xor %rax, %r15

    /* ---- SSE moves and integer adds ---- */
    movq %r15, %xmm0
    pshufd $0x44, %xmm0, %xmm1
    paddq %xmm1, %xmm0
    movdqa %xmm0, vec(%rip)
    mov vec+8(%rip), %rax
    add %rax, %r15

    /* ---- write ---- */
    mov $SYS_write, %eax
    mov $1, %edi
    lea msg(%rip), %rsi
    mov $msg_len, %edx
    syscall

    /* ---- getrandom into a buffer, then load it ---- */
    mov $SYS_getrandom, %eax
    lea rnd(%rip), %rdi
    mov $32, %esi
    xor %edx, %edx
    syscall
    mov rnd(%rip), %rax
    add rnd+24(%rip), %rax
    mov %rax, %r14              /* random: kept out of the final status */

    /* ---- clock_gettime ---- */
    mov $SYS_clock_gettime, %eax
    mov $1, %edi                /* CLOCK_MONOTONIC */
    lea ts(%rip), %rsi
    syscall
    mov ts+8(%rip), %rax
    add ts(%rip), %rax
    add %rax, %r14

    /* ---- uname ---- */
    mov $SYS_uname, %eax
    lea uts(%rip), %rdi
    syscall
    movzbl uts+65*4(%rip), %eax /* machine[0]: 'x' */
    add %rax, %r15

    /* ---- brk: grow by three pages, store, read back, shrink ---- */
    mov $SYS_brk, %eax
    xor %edi, %edi
    syscall
    mov %rax, %rbx              /* the current break */
    lea 0x3000(%rbx), %rdi
    mov $SYS_brk, %eax
    syscall
    movq $0x1111, (%rbx)
    movq $0x2222, 0x2ff8(%rbx)
    mov (%rbx), %rax
    add 0x2ff8(%rbx), %rax
    add %rax, %r15
    mov %rbx, %rdi
    mov $SYS_brk, %eax
    syscall

    /* ---- mmap anonymous memory, store, mprotect, munmap, MAP_FIXED again ---- */
    mov $SYS_mmap, %eax
    xor %edi, %edi
    mov $0x4000, %esi
    mov $3, %edx                /* PROT_READ | PROT_WRITE */
    mov $0x22, %r10d            /* MAP_PRIVATE | MAP_ANONYMOUS */
    mov $-1, %r8
    xor %r9d, %r9d
    syscall
    mov %rax, %rbx
    xor %ecx, %ecx
3:  mov %rcx, (%rbx,%rcx,8)     /* a loop of stores over two pages */
    add $64, %ecx
    cmp $1024, %ecx
    jb 3b
    mov 512*8(%rbx), %rax
    add %rax, %r15
    mov $SYS_mprotect, %eax
    lea 0x2000(%rbx), %rdi
    mov $0x2000, %esi
    mov $1, %edx                /* PROT_READ */
    syscall
    mov 0x2000(%rbx), %rax      /* still zero */
    add %rax, %r15
    mov $SYS_munmap, %eax
    lea 0x3000(%rbx), %rdi
    mov $0x1000, %esi
    syscall
    mov $SYS_mmap, %eax         /* MAP_FIXED over the first page: zero again */
    mov %rbx, %rdi
    mov $0x1000, %esi
    mov $3, %edx
    mov $0x32, %r10d            /* MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED */
    mov $-1, %r8
    xor %r9d, %r9d
    syscall
    mov 64*8(%rbx), %rax        /* 0 after the new mapping (was 64) */
    add %rax, %r15
    mov 0x1000+64*8(%rbx), %rax /* the second page kept its bytes */
    add %rax, %r15

    /* ---- a recursive call chain ---- */
    mov $12, %edi
    call fib
    add %rax, %r15

    /* ---- print the checksum in hex, then exit_group(0) ---- */
    lea hexbuf+13(%rip), %rdi   /* after "difftest_ops " */
    lea hexdigits(%rip), %rsi
    mov $60, %ecx
5:  mov %r15, %rax
    shr %cl, %rax
    and $15, %eax
    movzbl (%rsi,%rax), %eax
    mov %al, (%rdi)
    inc %rdi
    sub $4, %ecx
    jns 5b
    mov $SYS_write, %eax
    mov $1, %edi
    lea hexbuf(%rip), %rsi
    mov $hexbuf_len, %edx
    syscall
    mov $SYS_exit_group, %eax
    xor %edi, %edi
    syscall

/* alu_mix: rax, rdx -> mixes many flag-setting operations into r15. */
alu_mix:
    push %rbx
    push %rcx
    mov %rax, %rbx
    add %rdx, %rbx
    adc $0, %r15
    sub %rdx, %rax
    sbb %rbx, %r15
    mov %rax, %rcx
    and %rdx, %rcx
    or %rcx, %r15
    xor %rdx, %rcx
    neg %rcx
    not %rcx
    add %rcx, %r15
    cmp %rdx, %rax
    setl %cl
    setb %ch
    add %rcx, %r15
    test %eax, %edx
    setp %cl
    sets %ch
    add %rcx, %r15
    inc %ax
    dec %dl
    add %rax, %r15
    add %rdx, %r15
    lea 3(%rax,%rdx,4), %rcx
    add %rcx, %r15
    movsbq %dl, %rcx
    add %rcx, %r15
    movswl %ax, %ecx
    add %rcx, %r15
    imul %rdx, %rax
    add %rax, %r15
    rol $7, %r15
    pop %rcx
    pop %rbx
    ret

/* shift_mix: rax shifted and rotated by cl in every form, into r15. */
shift_mix:
    mov %rax, %rdx
    shl %cl, %rdx
    add %rdx, %r15
    mov %rax, %rdx
    shr %cl, %edx
    add %rdx, %r15
    mov %rax, %rdx
    sar %cl, %dx
    add %rdx, %r15
    mov %rax, %rdx
    rol %cl, %dl
    add %rdx, %r15
    mov %rax, %rdx
    ror %cl, %rdx
    add %rdx, %r15
    mov %rax, %rdx
    rcl %cl, %edx
    add %rdx, %r15
    mov %rax, %rdx
    shld %cl, %r15, %rdx
    add %rdx, %r15
    mov %rax, %rdx
    shrd %cl, %r15, %rdx
    add %rdx, %r15
    pushf
    pop %rdx
    and $0xc5, %edx             /* CF PF ZF SF: defined after SHRD by 0..63 */
    add %rdx, %r15
    ret

/* fib(edi) -> rax, naively recursive. */
fib:
    cmp $2, %edi
    jb 1f
    push %rdi
    dec %edi
    call fib
    pop %rdi
    push %rax
    sub $2, %edi
    call fib
    pop %rdx
    add %rdx, %rax
    ret
1:  mov %edi, %eax
    ret

    .section .rodata
msg:
    .ascii "difftest_ops ok\n"
    msg_len = . - msg
    .balign 8
pairs:
    .quad 0, 0
    .quad 1, -1
    .quad 0x7fffffffffffffff, 1
    .quad 0x8000000000000000, -1
    .quad 0x00000000ffffffff, 0x0000000100000001
    .quad 0x123456789abcdef0, 0x0fedcba987654321
    .quad -5, 7
    .quad 0x80, 0x7f
    npairs = (. - pairs) / 16
hexdigits:
    .ascii "0123456789abcdef"

    .data
    .balign 16
vec:
    .quad 0, 0
scratch:
    .quad 0
rnd:
    .fill 32, 1, 0
ts:
    .quad 0, 0
uts:
    .fill 390, 1, 0
hexbuf:
    .ascii "difftest_ops 0000000000000000\n"
    hexbuf_len = . - hexbuf

    .section .note.GNU-stack, "", @progbits
