/* elfemu-difftest --fuzz SEED COUNT: random instruction sequences.
 *
 * Each case is a small static ELF program written to a temporary file:
 *
 *   code 0x10000000 (r-x)  a prologue that loads a random machine state
 *                          (x87 stack, MXCSR, XMM0-15, the arithmetic flags,
 *                          every GPR but rsp) from the data page, then
 *                          --fuzz-len random instructions, then exit_group(0)
 *   data 0x10010000 (rw-)  random bytes; rbx points into its middle, and
 *                          every generated memory operand is [rbx] or
 *                          [rbx+disp8]; the state block lies at its end
 *
 * and is run by the ordinary lockstep loop, so a case is self-contained:
 * the file of a failing case is kept and reproduces with
 * `elfemu-difftest FILE`.  Instructions are random bytes shaped like an
 * instruction (prefixes, REX, one of the opcode maps, a ModRM byte,
 * displacement and immediate bytes) and kept when Zydis decodes them to an
 * instruction of an ISA extension the emulated CPU offers that neither
 * branches, nor is privileged, nor touches memory other than the data
 * page and the stack, nor writes rsp or rbx.  A case ends early, without
 * counting as a failure, when both sides fault the same way; an
 * instruction the emulator lacks ends it too and is tallied. */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/difftest/difftest.h"

#define CODE_VA 0x10000000ull
#define DATA_VA 0x10010000ull
#define CODE_MAX 8192
#define DATA_SIZE 4096
#define STATE_OFF 0xc00   /* x87 0x00, MXCSR 0x80, XMM 0x100, RFLAGS 0x200, GPRs 0x208 */
#define RBX_OFF 0x800

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------ instructions */
static bool isa_offered(ZydisISAExt ext)
{
    switch (ext) {
    case ZYDIS_ISA_EXT_BASE: case ZYDIS_ISA_EXT_LONGMODE: case ZYDIS_ISA_EXT_X87:
    case ZYDIS_ISA_EXT_MMX: case ZYDIS_ISA_EXT_SSE: case ZYDIS_ISA_EXT_SSE2:
    case ZYDIS_ISA_EXT_SSE3: case ZYDIS_ISA_EXT_SSSE3: case ZYDIS_ISA_EXT_SSE4:
    case ZYDIS_ISA_EXT_AES: case ZYDIS_ISA_EXT_PCLMULQDQ: case ZYDIS_ISA_EXT_BMI1:
    case ZYDIS_ISA_EXT_BMI2: case ZYDIS_ISA_EXT_LZCNT: case ZYDIS_ISA_EXT_MOVBE:
    case ZYDIS_ISA_EXT_ADOX_ADCX: case ZYDIS_ISA_EXT_RDRAND: case ZYDIS_ISA_EXT_RDSEED:
    case ZYDIS_ISA_EXT_CLFSH: case ZYDIS_ISA_EXT_PAUSE:
        return true;
    default:
        return false;
    }
}

static bool acceptable(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *zo)
{
    if (!isa_offered(zi->meta.isa_ext) || (zi->attributes & ZYDIS_ATTRIB_IS_PRIVILEGED))
        return false;
    switch (zi->meta.category) {
    case ZYDIS_CATEGORY_COND_BR: case ZYDIS_CATEGORY_UNCOND_BR: case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_RET: case ZYDIS_CATEGORY_SYSCALL: case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_INTERRUPT: case ZYDIS_CATEGORY_SYSTEM: case ZYDIS_CATEGORY_IO:
    case ZYDIS_CATEGORY_IOSTRINGOP: case ZYDIS_CATEGORY_STRINGOP: case ZYDIS_CATEGORY_SEGOP:
        return false;
    default:
        break;
    }
    /* 0F 0D with a register operand: a reserved NOP on Intel, #UD on AMD. */
    if (zi->opcode_map == ZYDIS_OPCODE_MAP_0F && zi->opcode == 0x0d)
        return false;
    switch (zi->mnemonic) {
    case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1: case ZYDIS_MNEMONIC_UD2:
    case ZYDIS_MNEMONIC_HLT: case ZYDIS_MNEMONIC_INT3: case ZYDIS_MNEMONIC_INT1:
    case ZYDIS_MNEMONIC_ENTER: case ZYDIS_MNEMONIC_LEAVE: case ZYDIS_MNEMONIC_POPF:
    case ZYDIS_MNEMONIC_POPFD: case ZYDIS_MNEMONIC_POPFQ: case ZYDIS_MNEMONIC_LFS:
    case ZYDIS_MNEMONIC_LGS: case ZYDIS_MNEMONIC_LSS: case ZYDIS_MNEMONIC_CLI:
    case ZYDIS_MNEMONIC_STI:
        return false;
    case ZYDIS_MNEMONIC_BT: case ZYDIS_MNEMONIC_BTC: case ZYDIS_MNEMONIC_BTR:
    case ZYDIS_MNEMONIC_BTS:
        /* A register bit offset reaches anywhere from a memory operand. */
        if (zo[0].type == ZYDIS_OPERAND_TYPE_MEMORY && zo[1].type == ZYDIS_OPERAND_TYPE_REGISTER)
            return false;
        break;
    default:
        break;
    }
    for (unsigned i = 0; i < zi->operand_count; i++) {
        const ZydisDecodedOperand *op = &zo[i];
        if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
            switch (ZydisRegisterGetClass(op->reg.value)) {
            case ZYDIS_REGCLASS_SEGMENT: case ZYDIS_REGCLASS_CONTROL: case ZYDIS_REGCLASS_DEBUG:
            case ZYDIS_REGCLASS_TABLE: case ZYDIS_REGCLASS_TEST: case ZYDIS_REGCLASS_BOUND:
            case ZYDIS_REGCLASS_IP:
                return false;
            default:
                break;
            }
            int g = insn_gpr(64, op->reg.value);
            if ((op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
                (g == ELFEMU_RSP || g == ELFEMU_RBX))
                return false;
        } else if (op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM) {
            int base = insn_gpr(64, op->mem.base);
            bool plain_seg = op->mem.segment == ZYDIS_REGISTER_DS ||
                             op->mem.segment == ZYDIS_REGISTER_SS ||
                             op->mem.segment == ZYDIS_REGISTER_ES;
            if (!plain_seg || zi->address_width != 64)
                return false;
            if (op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN) {
                if (base != ELFEMU_RSP && base != ELFEMU_RBX)
                    return false;
            } else if (op->mem.base != ZYDIS_REGISTER_RBX || op->mem.index != ZYDIS_REGISTER_NONE ||
                       op->mem.disp.value < -RBX_OFF || op->mem.disp.value >= RBX_OFF / 2) {
                return false; /* only the data page before the state block */
            }
        }
    }
    return true;
}

/* Random bytes shaped like an instruction; the decoder says what they are. */
static unsigned candidate(uint64_t *s, uint8_t *b)
{
    unsigned n = 0;
    uint64_t r = rnd(s);
    unsigned p = r % 100;
    if (p < 20)
        b[n++] = 0x66;
    else if (p < 30)
        b[n++] = 0xf2;
    else if (p < 40)
        b[n++] = 0xf3;
    r = rnd(s);
    bool mem = r % 4 == 0;
    if (r & 4) {
        uint8_t rex = (uint8_t)(0x40 | ((r >> 5) & 8) | ((r >> 6) & 4));
        if (!mem)
            rex |= (uint8_t)((r >> 7) & 1);
        b[n++] = rex;
    }
    r = rnd(s);
    unsigned map = r % 10;
    if (map >= 6) {
        b[n++] = 0x0f;
        if (map == 9)
            b[n++] = (r & 16) ? 0x38 : 0x3a;
    }
    b[n++] = (uint8_t)(r >> 8);
    unsigned reg = (r >> 16) & 7;
    if (mem) {
        bool disp = (r >> 20) & 1;
        b[n++] = (uint8_t)((disp ? 0x40 : 0x00) | (reg << 3) | 3); /* [rbx] or [rbx+disp8] */
        if (disp) /* half of them 16-byte aligned, for SSE's aligned forms */
            b[n++] = (uint8_t)((r >> 24) & ((r >> 40) & 1 ? 0xf0 : 0xff));
    } else {
        b[n++] = (uint8_t)(0xc0 | (reg << 3) | ((r >> 24) & 7));
    }
    uint64_t imm = rnd(s);
    memcpy(b + n, &imm, 8);
    return n + 8;
}

static unsigned gen_insn(ZydisDecoder *dec, uint64_t *s, uint8_t *out)
{
    for (;;) {
        uint8_t b[32];
        unsigned n = candidate(s, b);
        ZydisDecodedInstruction zi;
        ZydisDecodedOperand zo[ZYDIS_MAX_OPERAND_COUNT];
        if (ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, b, n, &zi, zo)) && acceptable(&zi, zo)) {
            memcpy(out, b, zi.length);
            return zi.length;
        }
    }
}

/* ------------------------------------------------------------ the program */
struct prog {
    uint8_t code[CODE_MAX];
    unsigned ncode;
    uint8_t data[DATA_SIZE];
};

static void emit(struct prog *p, const void *b, unsigned n)
{
    if (p->ncode + n <= CODE_MAX) {
        memcpy(p->code + p->ncode, b, n);
        p->ncode += n;
    }
}

/* OP [rax + disp32] with ModRM.reg = reg; rex 0 for none. */
static void emit_rax_d32(struct prog *p, uint8_t prefix, uint8_t rex, const uint8_t *op,
                         unsigned oplen, unsigned reg, uint32_t disp)
{
    if (prefix)
        emit(p, &prefix, 1);
    if (rex)
        emit(p, &rex, 1);
    emit(p, op, oplen);
    uint8_t modrm = (uint8_t)(0x80 | ((reg & 7) << 3));
    emit(p, &modrm, 1);
    emit(p, &disp, 4);
}

static uint64_t special_value(uint64_t *s)
{
    static const uint64_t v[] = { 0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
                                  0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
                                  0x7fffffffffffffff, 0x8000000000000000, ~0ull };
    uint64_t r = rnd(s);
    switch (r % 4) {
    case 0: return v[(r >> 8) % (sizeof(v) / sizeof(v[0]))];
    case 1: return (r >> 8) & 0xff;
    default: return rnd(s);
    }
}

/* An 80-bit value: mostly normal numbers near 1, sometimes special. */
static void random_f80(uint64_t *s, uint8_t out[10])
{
    uint64_t r = rnd(s), mant = rnd(s) | (1ull << 63);
    uint16_t se = (uint16_t)(0x3fff - 32 + (r % 64));
    switch ((r >> 8) % 16) {
    case 0: mant = 0; se = 0; break;                         /* zero */
    case 1: mant = 1ull << 63; se = 0x7fff; break;           /* infinity */
    case 2: se = 0x7fff; break;                              /* NaN */
    case 3: mant >>= 1; se = 0; break;                       /* denormal */
    default: break;
    }
    if (r & (1ull << 20))
        se |= 0x8000;
    memcpy(out, &mant, 8);
    memcpy(out + 8, &se, 2);
}

static void build_prog(struct prog *p, uint64_t seed, unsigned len)
{
    uint64_t s = seed;
    memset(p, 0, sizeof(*p));
    for (unsigned i = 0; i < STATE_OFF; i += 8) {
        uint64_t v = (i / 8) % 4 == 0 ? special_value(&s) : rnd(&s);
        memcpy(p->data + i, &v, 8);
    }
    uint8_t *st = p->data + STATE_OFF;
    for (int i = 0; i < 8; i++)
        random_f80(&s, st + 16 * i);
    uint32_t mxcsr = 0x1f80 | (uint32_t)((rnd(&s) % 4) << 13);
    if (rnd(&s) % 8 == 0)
        mxcsr |= 0x8040; /* FTZ and DAZ */
    memcpy(st + 0x80, &mxcsr, 4);
    for (int i = 0; i < 32; i++) {
        uint64_t v = rnd(&s);
        if (v % 3 == 0) { /* two floats that are ordinary numbers */
            float f[2] = { (float)(int32_t)(v >> 32) / 1024.0f, (float)(int16_t)v };
            memcpy(&v, f, 8);
        } else if (v % 3 == 1) {
            double d = (double)(int64_t)rnd(&s) / 65536.0;
            memcpy(&v, &d, 8);
        }
        memcpy(st + 0x100 + 8 * i, &v, 8);
    }
    uint64_t fl = (rnd(&s) & 0x8d5) | 0x202;
    memcpy(st + 0x200, &fl, 8);
    for (int i = 0; i < 16; i++) {
        uint64_t v = i == ELFEMU_RBX ? DATA_VA + RBX_OFF : special_value(&s);
        memcpy(st + 0x208 + 8 * i, &v, 8);
    }

    /* The prologue: rax = the state block, then load everything from it. */
    uint64_t state = DATA_VA + STATE_OFF;
    emit(p, "\x48\xb8", 2);
    emit(p, &state, 8);
    emit(p, "\xdb\xe3", 2); /* fninit */
    for (int i = 7; i >= 0; i--)
        emit_rax_d32(p, 0, 0, (const uint8_t *)"\xdb", 1, 5, (uint32_t)(16 * i)); /* fld tbyte */
    emit_rax_d32(p, 0, 0, (const uint8_t *)"\x0f\xae", 2, 2, 0x80);              /* ldmxcsr */
    for (int i = 0; i < 16; i++)                                                  /* movdqu */
        emit_rax_d32(p, 0xf3, i >= 8 ? 0x44 : 0, (const uint8_t *)"\x0f\x6f", 2, (unsigned)i,
                     (uint32_t)(0x100 + 16 * i));
    emit_rax_d32(p, 0, 0, (const uint8_t *)"\xff", 1, 6, 0x200); /* push qword */
    emit(p, "\x9d", 1);                                          /* popfq */
    for (int i = 15; i >= 0; i--) {
        if (i == ELFEMU_RSP)
            continue; /* rax is loaded last: it is the base */
        emit_rax_d32(p, 0, (uint8_t)(0x48 | (i >= 8 ? 4 : 0)), (const uint8_t *)"\x8b", 1,
                     (unsigned)i, (uint32_t)(0x208 + 8 * i));
    }

    ZydisDecoder dec;
    ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    for (unsigned i = 0; i < len && p->ncode + 15 + 16 <= CODE_MAX; i++) {
        uint8_t b[15];
        emit(p, b, gen_insn(&dec, &s, b));
    }
    emit(p, "\xb8\xe7\x00\x00\x00\x31\xff\x0f\x05", 9); /* exit_group(0) */
}

/* A static ET_EXEC with the code and data segments and PT_GNU_STACK. */
static int write_elf(const char *path, const struct prog *p)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph[3];
    memset(&eh, 0, sizeof(eh));
    memset(ph, 0, sizeof(ph));
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_entry = CODE_VA;
    eh.e_phoff = sizeof(eh);
    eh.e_ehsize = sizeof(eh);
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 3;
    ph[0] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, 0x1000, CODE_VA, CODE_VA, p->ncode, p->ncode, 0x1000 };
    ph[1] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W, 0x3000, DATA_VA, DATA_VA, DATA_SIZE, DATA_SIZE, 0x1000 };
    ph[2] = (Elf64_Phdr){ PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0, 16 };
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    if (fd < 0)
        return -1;
    bool ok = pwrite(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
              pwrite(fd, ph, sizeof(ph), sizeof(eh)) == sizeof(ph) &&
              pwrite(fd, p->code, p->ncode, 0x1000) == (ssize_t)p->ncode &&
              pwrite(fd, p->data, DATA_SIZE, 0x3000) == DATA_SIZE;
    close(fd);
    return ok ? 0 : -1;
}

/* ------------------------------------------------------------ the runner */
struct tally {
    char name[32];
    unsigned n;
};

static void tally_add(struct tally *t, unsigned *n, unsigned max, const struct dt_insn *in)
{
    ZydisDisassembledInstruction di;
    const char *mn = "(bad)";
    if (ZYAN_SUCCESS(ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, in->rip, in->bytes, in->len,
                                           &di)))
        mn = ZydisMnemonicGetString(di.info.mnemonic);
    unsigned i = 0;
    while (i < *n && strcmp(t[i].name, mn) != 0)
        i++;
    if (i == *n && *n < max) {
        snprintf(t[*n].name, sizeof(t[0].name), "%s", mn);
        t[(*n)++].n = 0;
    }
    if (i < *n)
        t[i].n++;
}

static void tally_print(const struct tally *t, unsigned n, const char *what)
{
    for (unsigned i = 0; i < n; i++)
        fprintf(stderr, "  %s: %-16s %u case%s\n", what, t[i].name, t[i].n, t[i].n == 1 ? "" : "s");
}

int dt_fuzz(uint64_t seed, uint64_t count, unsigned len, const struct dt_options *base)
{
    static struct prog p;
    struct dt_options o = *base;
    o.quiet = true;
    o.fuzz = true;
    if (!o.max)
        o.max = 100000;
    char path[4096];
    const char *tmpdir = getenv("TMPDIR");
    snprintf(path, sizeof(path), "%s/elfemu-difftest-fuzz-%d.elf",
             tmpdir && *tmpdir ? tmpdir : "/tmp", (int)getpid());
    struct tally unimpl[64], faults[64];
    unsigned nunimpl = 0, nfaults = 0, faulted = 0, partial = 0, failed = 0;
    uint64_t total = 0;
    int status = DT_EXIT_OK;
    for (uint64_t k = 0; k < count && (status == DT_EXIT_OK || (o.keep_going && status == DT_EXIT_MISMATCH)); k++) {
        build_prog(&p, seed + k, len);
        if (write_elf(path, &p) != 0) {
            fprintf(stderr, "elfemu-difftest: cannot write %s\n", path);
            return DT_EXIT_ERROR;
        }
        struct native n;
        elfemu_config cfg;
        elfemu_config_init(&cfg);
        cfg.have_seed = true;
        cfg.log_unimplemented = false;
        elfemu *vm = NULL;
        char *argv[] = { path, NULL }, *envp[] = { NULL };
        elfemu_error err;
        int rc = DT_EXIT_ERROR;
        if (native_spawn(&n) == 0 && (vm = elfemu_create(&cfg)) &&
            elfemu_load(vm, path, argv, envp, &err) == 0 && mirror_build(&n, vm) == 0)
            rc = dt_run(&n, vm, &o);
        native_kill(&n);
        elfemu_destroy(vm);
        dt_syms_free();
        total += dt_last_count();
        if (dt_last_fault()) {
            faulted++;
            tally_add(faults, &nfaults, 64, dt_last_insn());
        }
        if (rc == DT_EXIT_UNIMPLEMENTED) {
            partial++;
            tally_add(unimpl, &nunimpl, 64, dt_last_insn());
            rc = DT_EXIT_OK;
        }
        if (rc != DT_EXIT_OK) {
            status = rc;
            failed++;
            char keep[64];
            snprintf(keep, sizeof(keep), "elfemu-difftest-fuzz-%" PRIu64 ".elf", seed + k);
            bool kept = rc == DT_EXIT_MISMATCH && write_elf(keep, &p) == 0;
            fprintf(stderr, "difftest --fuzz: case %" PRIu64 " (seed %" PRIu64 ") failed%s%s\n",
                    k, seed + k, kept ? "; reproduce with: elfemu-difftest " : "",
                    kept ? keep : "");
        }
    }
    unlink(path);
    if ((status == DT_EXIT_OK || (o.keep_going && status == DT_EXIT_MISMATCH)) && !base->quiet) {
        fprintf(stderr, "difftest --fuzz: %" PRIu64 " cases, %" PRIu64 " instructions, %u mismatch%s"
                        " (%u ended at a fault on both sides, %u at an instruction the emulator "
                        "lacks)\n", count, total, failed, failed == 1 ? "" : "es", faulted, partial);
        tally_print(unimpl, nunimpl, "unimplemented");
        if (base->verbose)
            tally_print(faults, nfaults, "ended by a fault at");
    }
    return status;
}
