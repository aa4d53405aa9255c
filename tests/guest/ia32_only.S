/* ia32_only: the instructions that exist only outside 64-bit mode, run over
 * many operand values; every result (registers and all six arithmetic
 * flags) goes to stdout as raw bytes, compared with the native run.
 * PUSHA/POPA, DAA/DAS/AAA/AAS, AAM/AAD, one-byte INC/DEC, ARPL, BOUND and
 * INTO in range, PUSH/POP of segment registers.  With an argument, the program
 * ends with the fault it names: "aam0" (#DE), "bound" (#BR), "into" (#OF),
 * "popds" (#GP). */
    .code32
    .text

/* Flags the loops feed in: none or all of CF PF AF ZF SF OF (and IF). */
#define ARITH 0x8d5

    .globl _start
_start:
    mov (%esp), %eax                /* argc and argv[1] before anything overwrites them */
    mov %eax, argc
    mov 8(%esp), %eax
    mov %eax, argv1
    mov $outbuf, %edi               /* output cursor, kept in outp */
    mov %edi, outp

    /* ---------------------------------------------- DAA DAS AAA AAS */
    .irp insn, daa, das, aaa, aas
    xor %esi, %esi                  /* esi: flag combination 0..7 */
1:  xor %ebx, %ebx                  /* ebx: AL 0..255 */
2:  call flags_for                  /* edx = EFLAGS image for combination esi */
    mov %bl, %al
    mov %bl, %ah
    xor $0x5a, %ah
    push %edx
    popf
    \insn
    pushf
    pop %edx
    call put_ax_flags
    inc %ebx
    cmp $256, %ebx
    jne 2b
    inc %esi
    cmp $8, %esi
    jne 1b
    .endr

    /* ---------------------------------------------- AAM AAD */
    .irp imm, 1, 2, 3, 7, 10, 16, 37, 100, 128, 255
    xor %esi, %esi
1:  xor %ebx, %ebx                  /* ebx: AX, stepping by 97 */
2:  call flags_for
    mov %ebx, %eax
    push %edx
    popf
    aam $\imm
    pushf
    pop %edx
    call put_ax_flags
    call flags_for
    mov %ebx, %eax
    push %edx
    popf
    aad $\imm
    pushf
    pop %edx
    call put_ax_flags
    add $97, %ebx
    cmp $0x10000, %ebx
    jb 2b
    add $7, %esi                    /* combinations 0 and 7 */
    cmp $14, %esi
    jne 1b
    .endr

    /* ---------------------------------------------- INC/DEC r32 (0x40-0x4f), r16 */
    xor %esi, %esi
1:  xor %ebp, %ebp                  /* ebp: index into incdec_vals */
2:  mov incdec_vals(,%ebp,4), %eax
    call flags_for
    push %edx
    mov %eax, %ecx
    mov %eax, %edx
    mov %eax, %ebx
    mov %eax, %edi
    popf
    inc %eax
    inc %ecx
    dec %edx
    dec %ebx
    inc %di
    pushf
    call put_regs5
    mov incdec_vals(,%ebp,4), %eax
    call flags_for
    push %edx
    mov %eax, %ecx
    mov %eax, %edx
    mov %eax, %ebx
    mov %eax, %edi
    popf
    dec %eax
    dec %ecx
    inc %edx
    inc %ebx
    dec %di
    pushf
    call put_regs5
    inc %ebp
    cmp $NINCDEC, %ebp
    jne 2b
    inc %esi
    cmp $8, %esi
    jne 1b
    /* ESP, EBP, ESI, EDI through 0x44-0x47 and 0x4c-0x4f */
    mov %esp, %ecx
    mov $0x7fffffff, %ebp
    mov $0xffffffff, %esi
    mov $0x0000ffff, %edi
    inc %esp
    inc %ebp
    inc %esi
    inc %edi
    pushf
    sub %ecx, %esp
    mov %esp, %eax                  /* 1 - 4 (the pushf) */
    add %ecx, %esp
    pop %edx
    mov %esp, %ebx
    dec %esp
    dec %ebp
    dec %esi
    dec %edi
    pushf
    pop %edx
    mov outp, %ecx
    mov %eax, (%ecx)
    mov %ebp, 4(%ecx)
    mov %esi, 8(%ecx)
    mov %edi, 12(%ecx)
    and $ARITH, %edx
    mov %edx, 16(%ecx)
    sub %esp, %ebx                  /* 1 */
    mov %ebx, 20(%ecx)
    add $24, %ecx
    mov %ecx, outp

    /* ---------------------------------------------- PUSHA / POPA */
    call pusha_test

    /* ---------------------------------------------- PUSH/POP sreg */
    call sreg_test

    /* ---------------------------------------------- ARPL (register and memory) */
    xor %esi, %esi
1:  xor %ebx, %ebx                  /* bl: dest RPL in bits 0-1, source RPL in bits 4-5 */
2:  call flags_for
    mov %ebx, %eax
    or $0xa500, %eax                /* dest 0xa5xx */
    mov %ebx, %ecx
    shr $4, %ecx
    or $0x1230, %ecx                /* source 0x123y */
    push %edx
    popf
    arpl %cx, %ax
    pushf
    pop %edx
    call put_ax_flags
    call flags_for
    mov %ebx, %eax
    or $0x5a00, %eax
    mov %ax, arpl_word
    push %edx
    popf
    arpl %cx, arpl_word
    pushf
    pop %edx
    mov arpl_word, %ax
    call put_ax_flags
    inc %ebx
    cmp $64, %ebx
    jne 2b
    inc %esi
    cmp $8, %esi
    jne 1b

    /* ---------------------------------------------- 32-bit address wrap-around */
    call wrap_test

    /* ---------------------------------------------- BOUND, INTO in range */
    call bound_test
    call into_test

    /* ---------------------------------------------- write, then the fault asked for */
    mov outp, %edx
    sub $outbuf, %edx
    mov $outbuf, %ecx
    mov $4, %eax                    /* write(1, outbuf, len) */
    mov $1, %ebx
    int $0x80
    cmpl $1, argc
    je exit0
    mov argv1, %esi
    mov (%esi), %eax
    cmp $0x306d6161, %eax           /* "aam0" */
    je fault_aam0
    cmp $0x6e756f62, %eax           /* "boun" */
    je fault_bound
    cmp $0x6f746e69, %eax           /* "into" */
    je fault_into
    cmp $0x64706f70, %eax           /* "popd": POP DS of the kernel's data selector */
    je fault_popds
exit0:
    mov $252, %eax                  /* exit_group(0) */
    xor %ebx, %ebx
    int $0x80

fault_aam0:
    mov $0x1234, %eax
    aam $0                          /* #DE: SIGFPE */
    jmp exit0
fault_bound:
    mov $11, %eax
    bound %eax, bounds_0_10         /* #BR: SIGSEGV */
    jmp exit0
fault_into:
    mov $0x7fffffff, %eax
    inc %eax                        /* OF = 1 */
    into                            /* #OF: SIGSEGV */
    jmp exit0
fault_popds:
    push $0x18                      /* __KERNEL_DS: DPL 0 */
    pop %ds                         /* #GP: SIGSEGV */
    jmp exit0

/* edx = EFLAGS with ARITH bits all clear (esi even... see table) */
flags_for:
    mov flag_combos(,%esi,4), %edx
    ret

/* Append AX (2 bytes) and the arithmetic flags of edx (2 bytes). */
put_ax_flags:
    push %ecx
    mov outp, %ecx
    mov %ax, (%ecx)
    and $ARITH, %edx
    mov %dx, 2(%ecx)
    add $4, %ecx
    mov %ecx, outp
    pop %ecx
    ret

/* Append eax ecx edx ebx edi and the flags pushed by the caller. */
put_regs5:
    push %ebp
    mov outp, %ebp
    mov %eax, (%ebp)
    mov %ecx, 4(%ebp)
    mov %edx, 8(%ebp)
    mov %ebx, 12(%ebp)
    mov %edi, 16(%ebp)
    mov 8(%esp), %eax               /* the flags (past ebp and the return address) */
    and $ARITH, %eax
    mov %eax, 20(%ebp)
    add $24, %ebp
    mov %ebp, outp
    pop %ebp
    ret $4

/* PUSHAD/POPAD and PUSHAW/POPAW with every register distinct; the pushed
 * images (ESP as an offset from ESP before) and the registers after POPA. */
pusha_test:
    pusha                           /* save the caller's registers */
    mov %esp, saved_esp
    mov $0x11111111, %eax
    mov $0x22222222, %ecx
    mov $0x33333333, %edx
    mov $0x44444444, %ebx
    mov $0x55555555, %ebp
    mov $0x66666666, %esi
    mov $0x77777777, %edi
    pushal
    mov outp, %eax                  /* copy the 8 slots */
    xor %ecx, %ecx
1:  mov (%esp,%ecx,4), %edx
    mov %edx, (%eax,%ecx,4)
    inc %ecx
    cmp $8, %ecx
    jne 1b
    mov saved_esp, %edx
    sub %edx, 12(%eax)              /* the ESP slot, relative */
    add $32, %eax
    mov %eax, outp
    /* new values for POPA to load; its ESP slot is ignored */
    xor %ecx, %ecx
1:  mov %ecx, %edx
    imul $0x01010101, %edx
    xor $0xa5c3e1f0, %edx
    mov %edx, (%esp,%ecx,4)
    inc %ecx
    cmp $8, %ecx
    jne 1b
    mov %esp, %edx
    popal
    push %eax
    mov outp, %eax
    mov %ecx, 4(%eax)
    pop %ecx
    mov %ecx, (%eax)
    mov %edx, 8(%eax)
    mov %ebx, 12(%eax)
    mov %esp, %ecx
    sub saved_esp, %ecx             /* 0: POPA leaves ESP at its end */
    mov %ecx, 16(%eax)
    mov %ebp, 20(%eax)
    mov %esi, 24(%eax)
    mov %edi, 28(%eax)
    add $32, %eax
    mov %eax, outp
    /* 16-bit forms: the upper halves stay */
    mov $0x1111aaaa, %eax
    mov $0x2222bbbb, %ecx
    mov $0x3333cccc, %edx
    mov $0x4444dddd, %ebx
    mov $0x5555eeee, %ebp
    mov $0x66660101, %esi
    mov $0x77770202, %edi
    pushaw
    mov %esp, %eax
    sub saved_esp, %eax             /* -16 */
    mov outp, %ecx
    mov %eax, (%ecx)
    mov (%esp), %eax
    mov %eax, 4(%ecx)
    mov 4(%esp), %eax
    mov %eax, 8(%ecx)
    mov 8(%esp), %eax
    mov %eax, 12(%ecx)
    mov 12(%esp), %eax
    mov %eax, 16(%ecx)
    mov saved_esp, %eax
    sub %ax, 10(%ecx)               /* the SP slot, relative */
    add $20, %ecx
    mov %ecx, outp
    movl $0x91929394, (%esp)
    movl $0x95969798, 4(%esp)
    movl $0x999a9b9c, 8(%esp)
    movl $0x9d9e9fa0, 12(%esp)
    mov $0x1111aaaa, %eax
    mov $0x2222bbbb, %ecx
    popaw
    push %eax
    mov outp, %eax
    mov %ecx, 4(%eax)
    pop %ecx
    mov %ecx, (%eax)
    mov %edx, 8(%eax)
    mov %ebx, 12(%eax)
    mov %esp, %ecx
    sub saved_esp, %ecx
    mov %ecx, 16(%eax)
    mov %ebp, 20(%eax)
    mov %esi, 24(%eax)
    mov %edi, 28(%eax)
    add $32, %eax
    mov %eax, outp
    mov saved_esp, %esp
    popa
    ret

/* PUSH/POP of ES CS SS DS FS GS: the selectors the host gives a 32-bit
 * process, what the 32-bit and 16-bit pushes move, and POPs of them. */
sreg_test:
    mov outp, %edi
    mov %esp, %ebp
    .irp sreg, es, cs, ss, ds, fs, gs
    movl $0xdeadbeef, -4(%esp)
    push %\sreg
    pop %eax
    mov %ax, (%edi)                 /* the selector (upper half: CPU-specific) */
    movw $0xbeef, -2(%esp)
    pushw %\sreg
    mov %ebp, %ecx
    sub %esp, %ecx                  /* 2 */
    popw %ax
    mov %ax, 2(%edi)
    mov %cx, 4(%edi)
    mov %\sreg, %eax
    mov %ax, 6(%edi)
    add $8, %edi
    .endr
    /* POP DS/ES/SS/FS/GS of the values they hold, and swaps that are valid */
    .irp sreg, es, ss, ds, fs, gs
    push %\sreg
    pop %\sreg
    mov %\sreg, %eax
    mov %ax, (%edi)
    add $2, %edi
    .endr
    push %ds
    pop %es
    push %ss
    pop %ds
    pushw %es
    popw %ss
    mov %es, %eax
    mov %ax, (%edi)
    mov %ds, %eax
    mov %ax, 2(%edi)
    mov %ss, %eax
    mov %ax, 4(%edi)
    mov %ebp, %ecx
    sub %esp, %ecx                  /* 0 */
    mov %cx, 6(%edi)
    add $8, %edi
    /* LDS LES LSS LFS LGS: far pointers whose selectors are those the
     * registers hold; 32- and 16-bit offsets */
    mov %ds, %eax
    mov %ax, farp+4
    mov %ax, farp16+2
    lds farp, %eax
    les farp, %ecx
    lss farp, %edx
    mov %fs, %ebx
    mov %bx, farp+4
    lfs farp, %ebx
    mov %gs, %esi
    mov %si, farp+4
    lgs farp, %esi
    mov %eax, (%edi)
    mov %ecx, 4(%edi)
    mov %edx, 8(%edi)
    mov %ebx, 12(%edi)
    mov %esi, 16(%edi)
    mov $0x55555555, %eax
    lds farp16, %ax
    mov %eax, 20(%edi)
    mov %ds, %eax
    mov %ax, 24(%edi)
    mov %es, %eax
    mov %ax, 26(%edi)
    mov %ss, %eax
    mov %ax, 28(%edi)
    add $30, %edi
    mov %edi, outp
    ret

/* Effective addresses are computed modulo 2^32: base + index, base +
 * index * scale and base + displacement that pass 4 GiB wrap around to the
 * data below (loads, a store, LEA); the values read go to the output. */
wrap_test:
    push %ebx
    push %esi
    mov outp, %edi
    mov $wrap_data, %ebx
    add $0x80000000, %ebx
    mov $0x80000000, %ecx
    mov (%ebx,%ecx), %eax           /* wrap_data[0] */
    stosl
    lea 4(%ebx,%ecx,1), %eax        /* wrap_data + 4, wrapped */
    sub $wrap_data, %eax
    stosl
    mov $wrap_data, %esi
    sub $0x40000000, %esi
    mov $0x10000000, %ecx
    mov 4(%esi,%ecx,4), %eax        /* wrap_data[1]: index * 4 reaches 2^32 */
    stosl
    mov $wrap_data, %esi
    add $8, %esi
    mov $0xfffffff8, %ecx
    movl $0x41424344, 4(%esi,%ecx)  /* stores to wrap_data[1] */
    mov wrap_data+4, %eax
    stosl
    mov $wrap_data, %esi
    add $12, %esi
    mov -12(%esi), %eax             /* negative displacement */
    stosl
    mov $-16, %esi
    mov wrap_data+24(%esi), %eax    /* 0xfffffff0 + disp: wrap_data[2] */
    stosl
    mov %edi, outp
    pop %esi
    pop %ebx
    ret

/* BOUND inside the bounds (signed, both ends inclusive): no fault, no
 * change; the flags stay. */
bound_test:
    mov outp, %edi
    mov $-5, %eax
    bound %eax, bounds_m5_5
    mov $5, %eax
    bound %eax, bounds_m5_5
    mov $0, %eax
    bound %eax, bounds_m5_5
    mov $10, %ecx
    bound %ecx, bounds_0_10
    mov $0x8000, %ecx
    bound %cx, bounds16                 /* -32768 .. 0x7fff */
    mov $0x7fff, %ecx
    bound %cx, bounds16
    mov %eax, (%edi)
    mov %ecx, 4(%edi)
    add $8, %edi
    mov %edi, outp
    ret

/* INTO with OF clear: nothing happens. */
into_test:
    mov $0x7ffffffe, %eax
    inc %eax                        /* OF = 0 */
    into
    pushf
    pop %edx
    mov outp, %ecx
    mov %eax, (%ecx)
    and $ARITH, %edx
    mov %edx, 4(%ecx)
    add $8, %ecx
    mov %ecx, outp
    ret

    .section .rodata
    .p2align 2
flag_combos:    /* none, CF, AF, CF|AF, then the same with PF ZF SF OF set */
    .long 0x202, 0x203, 0x212, 0x213, 0xac6, 0xac7, 0xad6, 0xad7
incdec_vals:
    .long 0, 1, 0xf, 0x10, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff
    .long 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff
    .long 0x12345678, 0xabcdef0f
    .set NINCDEC, (. - incdec_vals) / 4
bounds_m5_5:
    .long -5, 5
bounds_0_10:
    .long 0, 10
bounds16:
    .short -32768, 0x7fff

    .data
    .p2align 2
outp:
    .long 0
saved_esp:
    .long 0
farp:
    .long 0x89abcdef
    .short 0
farp16:
    .short 0x4321, 0
argc:
    .long 0
argv1:
    .long 0
arpl_word:
    .short 0
    .p2align 2
wrap_data:
    .long 0x11223344, 0x55667788, 0x99aabbcc

    .bss
    .p2align 4
outbuf:
    .space 1 << 20

    .section .note.GNU-stack, "", @progbits
