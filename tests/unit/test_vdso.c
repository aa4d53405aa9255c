/* The vDSO images and the dynamic-symbol lookup.
 *
 * The images are checked the way their readers see them: the kernel-like
 * loader (one R+X PT_LOAD at 0), glibc's setup_vdso and dl_vdso_vsym
 * (read-only PT_DYNAMIC, no relocations, GNU hash + versions), musl
 * (DT_HASH + versions), libgcc's unwinder (FDEs, sigreturn bytes).  The
 * header and dynamic checks parse the images here, independently of
 * loader/elf_sym.c; the symbol checks then go through ldr_elf_dynsym, and
 * the last tests feed it truncated and corrupted images. */
#include <check.h>
#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader/elf_sym.h"
#include "loader/vdso/vdso_images.h"

struct expected_sym {
    const char *name, *version;
};

struct vdso_case {
    const char *label;
    const unsigned char *image;
    size_t size;
    unsigned char elf_class;
    unsigned machine;
    const char *soname;
    const struct expected_sym *syms; /* must resolve at their versions */
    size_t nsyms;
    const struct expected_sym *absent; /* must not resolve */
    size_t nabsent;
    const char *probe; /* a symbol for the corruption tests */
    const char *probe_version;
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct expected_sym syms64[] = {
    { "__vdso_clock_gettime", "LINUX_2.6" }, { "__vdso_gettimeofday", "LINUX_2.6" },
    { "__vdso_time", "LINUX_2.6" },          { "__vdso_getcpu", "LINUX_2.6" },
    { "__vdso_clock_getres", "LINUX_2.6" },  { "clock_gettime", "LINUX_2.6" },
    { "gettimeofday", "LINUX_2.6" },         { "time", "LINUX_2.6" },
    { "getcpu", "LINUX_2.6" },               { "clock_getres", "LINUX_2.6" },
};

static const struct expected_sym absent64[] = {
    { "__vdso_time", "LINUX_2.5" },       /* wrong version */
    { "__vdso_time", "LINUX_2.6.1" },     /* version prefix is not enough */
    { "__vdso_time", "LINUX_2." },
    { "__vdso_time", "linux-vdso.so.1" }, /* the base version, not the symbol's */
    { "__vdso_tim", NULL },               /* name prefixes and extensions */
    { "__vdso_timex", NULL },
    { "__vdso_nonexistent", NULL },
    { "__kernel_vsyscall", NULL },        /* ia32-only names */
    { "__vdso_clock_gettime64", NULL },
    { "_DYNAMIC", NULL },                 /* linker-made, kept local */
    { "", NULL },
};

static const struct expected_sym syms32[] = {
    { "__kernel_vsyscall", "LINUX_2.5" },      { "__kernel_sigreturn", "LINUX_2.5" },
    { "__kernel_rt_sigreturn", "LINUX_2.5" },  { "__vdso_clock_gettime", "LINUX_2.6" },
    { "__vdso_gettimeofday", "LINUX_2.6" },    { "__vdso_time", "LINUX_2.6" },
    { "__vdso_clock_getres", "LINUX_2.6" },    { "__vdso_clock_gettime64", "LINUX_2.6" },
    { "__vdso_getcpu", "LINUX_2.6" },
};

static const struct expected_sym absent32[] = {
    { "__kernel_vsyscall", "LINUX_2.6" },
    { "__vdso_clock_gettime", "LINUX_2.5" },
    { "__vdso_getcpu", "LINUX_2.5" },
    { "clock_gettime", NULL }, /* x86_64-only names */
    { "time", NULL },
    { "__kernel_vsyscal", NULL },
    { "__kernel_vsyscall2", NULL },
    { "", NULL },
};

static struct vdso_case get_case(int i)
{
    if (i == 0)
        return (struct vdso_case){ "vdso64", ldr_vdso64_image, ldr_vdso64_size, ELFCLASS64,
                                   EM_X86_64, "linux-vdso.so.1", syms64, COUNT(syms64),
                                   absent64, COUNT(absent64), "__vdso_time", "LINUX_2.6" };
    return (struct vdso_case){ "vdso32", ldr_vdso32_image, ldr_vdso32_size, ELFCLASS32,
                               EM_386, "linux-gate.so.1", syms32, COUNT(syms32),
                               absent32, COUNT(absent32), "__kernel_vsyscall", "LINUX_2.5" };
}

/* ------------------------------------------------- an independent reader */

/* The class-independent parts of the headers, read with memcpy into the
 * <elf.h> structures (the host is little-endian x86 too). */
struct hdr {
    unsigned type, machine, version, ehsize, phentsize, phnum;
    uint64_t phoff;
};

struct phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, filesz, memsz, align;
};

static struct hdr read_hdr(const struct vdso_case *c)
{
    struct hdr h;
    if (c->elf_class == ELFCLASS64) {
        Elf64_Ehdr e;
        ck_assert_uint_ge(c->size, sizeof e);
        memcpy(&e, c->image, sizeof e);
        h = (struct hdr){ e.e_type, e.e_machine, e.e_version, e.e_ehsize,
                          e.e_phentsize, e.e_phnum, e.e_phoff };
    } else {
        Elf32_Ehdr e;
        ck_assert_uint_ge(c->size, sizeof e);
        memcpy(&e, c->image, sizeof e);
        h = (struct hdr){ e.e_type, e.e_machine, e.e_version, e.e_ehsize,
                          e.e_phentsize, e.e_phnum, e.e_phoff };
    }
    return h;
}

static size_t phdr_size(const struct vdso_case *c)
{
    return c->elf_class == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
}

static uint64_t phdr_pos(const struct vdso_case *c, unsigned i)
{
    struct hdr h = read_hdr(c);
    ck_assert_uint_lt(i, h.phnum);
    uint64_t pos = h.phoff + i * phdr_size(c);
    ck_assert_uint_le(pos + phdr_size(c), c->size);
    return pos;
}

static struct phdr read_phdr(const struct vdso_case *c, unsigned i)
{
    uint64_t pos = phdr_pos(c, i);
    if (c->elf_class == ELFCLASS64) {
        Elf64_Phdr p;
        memcpy(&p, c->image + pos, sizeof p);
        return (struct phdr){ p.p_type, p.p_flags, p.p_offset, p.p_vaddr,
                              p.p_filesz, p.p_memsz, p.p_align };
    }
    Elf32_Phdr p;
    memcpy(&p, c->image + pos, sizeof p);
    return (struct phdr){ p.p_type, p.p_flags, p.p_offset, p.p_vaddr,
                          p.p_filesz, p.p_memsz, p.p_align };
}

static struct phdr find_phdr(const struct vdso_case *c, uint32_t type)
{
    struct hdr h = read_hdr(c);
    for (unsigned i = 0; i < h.phnum; i++) {
        struct phdr p = read_phdr(c, i);
        if (p.type == type)
            return p;
    }
    ck_abort_msg("%s: no program header of type %#x", c->label, type);
    return (struct phdr){ 0 };
}

static size_t dyn_size(const struct vdso_case *c)
{
    return c->elf_class == ELFCLASS64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
}

/* Entry n of the dynamic section, or false past DT_NULL. */
static bool read_dyn(const struct vdso_case *c, unsigned n, uint64_t *tag, uint64_t *val,
                     uint64_t *pos)
{
    struct phdr d = find_phdr(c, PT_DYNAMIC);
    if ((n + 1) * dyn_size(c) > d.filesz)
        return false;
    *pos = d.offset + n * dyn_size(c);
    ck_assert_uint_le(*pos + dyn_size(c), c->size);
    if (c->elf_class == ELFCLASS64) {
        Elf64_Dyn e;
        memcpy(&e, c->image + *pos, sizeof e);
        *tag = (uint64_t)e.d_tag;
        *val = e.d_un.d_val;
    } else {
        Elf32_Dyn e;
        memcpy(&e, c->image + *pos, sizeof e);
        *tag = (uint32_t)e.d_tag;
        *val = e.d_un.d_val;
    }
    return *tag != DT_NULL;
}

/* Number of entries with `tag`; the value (and the entry's position) of
 * the first one. */
static int dyn_lookup(const struct vdso_case *c, uint64_t tag, uint64_t *val, uint64_t *pos)
{
    int count = 0;
    uint64_t t, v, p;
    for (unsigned n = 0; read_dyn(c, n, &t, &v, &p); n++) {
        if (t == tag && count++ == 0) {
            if (val)
                *val = v;
            if (pos)
                *pos = p;
        }
    }
    return count;
}

static uint64_t dyn_must(const struct vdso_case *c, uint64_t tag)
{
    uint64_t v = 0;
    ck_assert_msg(dyn_lookup(c, tag, &v, NULL) == 1, "%s: want one dynamic tag %#llx",
                  c->label, (unsigned long long)tag);
    return v;
}

static uint64_t sym_must(const struct vdso_case *c, const char *name, const char *version)
{
    uint64_t v = 0;
    ck_assert_msg(ldr_elf_dynsym(c->image, c->size, name, version, &v) == 0,
                  "%s: %s@%s not found", c->label, name, version ? version : "*");
    return v;
}

static uint32_t rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void wr(unsigned char *buf, uint64_t pos, uint64_t value, size_t width)
{
    for (size_t i = 0; i < width; i++)
        buf[pos + i] = (unsigned char)(value >> (8 * i));
}

/* A private copy of exactly `size` bytes, so that a sanitizer or valgrind
 * sees any read past the end the lookup should have refused. */
static unsigned char *copy_image(const struct vdso_case *c, size_t size)
{
    unsigned char *p = malloc(size ? size : 1);
    ck_assert_ptr_nonnull(p);
    memcpy(p, c->image, size < c->size ? size : c->size);
    return p;
}

/* ------------------------------------------------- headers */

START_TEST(test_elf_header)
{
    struct vdso_case c = get_case(_i);
    ck_assert_uint_le(c.size, LDR_VDSO_MAX_SIZE);
    ck_assert_uint_eq((uintptr_t)c.image % 16, 0);
    ck_assert_int_eq(memcmp(c.image, ELFMAG, SELFMAG), 0);
    ck_assert_uint_eq(c.image[EI_CLASS], c.elf_class);
    ck_assert_uint_eq(c.image[EI_DATA], ELFDATA2LSB);
    ck_assert_uint_eq(c.image[EI_VERSION], EV_CURRENT);
    ck_assert_uint_eq(c.image[EI_OSABI], ELFOSABI_SYSV);

    struct hdr h = read_hdr(&c);
    ck_assert_uint_eq(h.type, ET_DYN);
    ck_assert_uint_eq(h.machine, c.machine);
    ck_assert_uint_eq(h.version, EV_CURRENT);
    ck_assert_uint_eq(h.ehsize, c.elf_class == ELFCLASS64 ? sizeof(Elf64_Ehdr)
                                                          : sizeof(Elf32_Ehdr));
    ck_assert_uint_eq(h.phentsize, phdr_size(&c));
}
END_TEST

/* Exactly LOAD, DYNAMIC, NOTE, GNU_EH_FRAME: one read+execute segment
 * holding everything, and nothing writable anywhere. */
START_TEST(test_program_headers)
{
    struct vdso_case c = get_case(_i);
    static const uint32_t want[] = { PT_LOAD, PT_DYNAMIC, PT_NOTE, PT_GNU_EH_FRAME };
    struct hdr h = read_hdr(&c);
    ck_assert_uint_eq(h.phnum, COUNT(want));
    for (unsigned i = 0; i < h.phnum; i++)
        ck_assert_uint_eq(read_phdr(&c, i).type, want[i]);

    /* Linked at 0 from offset 0: the loader maps the bytes as they are. */
    struct phdr load = read_phdr(&c, 0);
    ck_assert_uint_eq(load.offset, 0);
    ck_assert_uint_eq(load.vaddr, 0);
    ck_assert_uint_eq(load.flags, PF_R | PF_X);
    ck_assert_uint_eq(load.filesz, load.memsz);
    ck_assert_uint_le(load.filesz, c.size);
    ck_assert_uint_eq(load.align, 4096);
    ck_assert_uint_le(h.phoff + h.phnum * phdr_size(&c), load.filesz);

    for (unsigned i = 1; i < h.phnum; i++) {
        struct phdr p = read_phdr(&c, i);
        /* glibc's setup_vdso writes into the dynamic section unless
         * PT_DYNAMIC is read-only, and the vDSO mapping is read-only. */
        ck_assert_uint_eq(p.flags, PF_R);
        ck_assert_uint_eq(p.offset, p.vaddr);
        ck_assert_uint_eq(p.filesz, p.memsz);
        ck_assert_uint_gt(p.filesz, 0);
        ck_assert_uint_le(p.offset + p.filesz, load.filesz);
    }
}
END_TEST

/* One note, "Linux" type 0, holding LINUX_VERSION_CODE (no build-id). */
START_TEST(test_linux_note)
{
    struct vdso_case c = get_case(_i);
    struct phdr n = find_phdr(&c, PT_NOTE);
    ck_assert_uint_eq(n.filesz, 12 + 8 + 4);
    const unsigned char *p = c.image + n.offset;
    ck_assert_uint_eq(rd32(p), 6);     /* n_namesz: "Linux\0" */
    ck_assert_uint_eq(rd32(p + 4), 4); /* n_descsz */
    ck_assert_uint_eq(rd32(p + 8), 0); /* n_type */
    ck_assert_int_eq(memcmp(p + 12, "Linux", 6), 0);
    ck_assert_uint_eq(rd32(p + 20), LDR_VDSO_LINUX_VERSION_CODE);
}
END_TEST

START_TEST(test_dynamic_section)
{
    struct vdso_case c = get_case(_i);
    struct phdr load = read_phdr(&c, 0);
    static const uint64_t pointers[] = { DT_HASH, DT_GNU_HASH, DT_SYMTAB, DT_STRTAB,
                                         DT_VERSYM, DT_VERDEF };
    for (size_t i = 0; i < COUNT(pointers); i++)
        ck_assert_uint_lt(dyn_must(&c, pointers[i]), load.filesz);
    ck_assert_uint_le(dyn_must(&c, DT_STRTAB) + dyn_must(&c, DT_STRSZ), load.filesz);
    ck_assert_uint_eq(dyn_must(&c, DT_SYMENT), c.elf_class == ELFCLASS64 ? sizeof(Elf64_Sym)
                                                                         : sizeof(Elf32_Sym));
    /* The base version (the soname) plus LINUX_2.6, and LINUX_2.5 on ia32. */
    ck_assert_uint_eq(dyn_must(&c, DT_VERDEFNUM), c.elf_class == ELFCLASS64 ? 2 : 3);
    dyn_must(&c, DT_SONAME);

    /* Nobody relocates the vDSO, and it needs nothing from anyone. */
    static const uint64_t forbidden[] = {
        DT_REL,    DT_RELA,       DT_RELSZ,      DT_RELASZ,       DT_JMPREL,
        DT_PLTREL, DT_PLTRELSZ,   DT_TEXTREL,    DT_RELCOUNT,     DT_RELACOUNT,
        DT_NEEDED, DT_INIT,       DT_FINI,       DT_INIT_ARRAY,   DT_FINI_ARRAY,
        DT_PLTGOT, DT_VERNEED,    DT_DEBUG,      DT_SYMBOLIC,     DT_BIND_NOW,
#ifdef DT_RELR
        DT_RELR,
#endif
    };
    for (size_t i = 0; i < COUNT(forbidden); i++)
        ck_assert_msg(dyn_lookup(&c, forbidden[i], NULL, NULL) == 0,
                      "%s: unexpected dynamic tag %#llx", c.label,
                      (unsigned long long)forbidden[i]);
    uint64_t flags = 0;
    if (dyn_lookup(&c, DT_FLAGS, &flags, NULL))
        ck_assert_uint_eq(flags & (DF_TEXTREL | DF_SYMBOLIC | DF_STATIC_TLS), 0);
}
END_TEST

START_TEST(test_soname)
{
    struct vdso_case c = get_case(_i);
    const char *s = NULL;
    ck_assert_int_eq(ldr_elf_soname(c.image, c.size, &s), 0);
    ck_assert_str_eq(s, c.soname);
    ck_assert_int_eq(ldr_elf_soname(NULL, c.size, &s), -1);
    ck_assert_int_eq(ldr_elf_soname(c.image, 16, &s), -1);
}
END_TEST

/* ------------------------------------------------- symbols */

/* Every export resolves at its version, to the same address whichever hash
 * table is walked (glibc reads DT_GNU_HASH, musl DT_HASH), and lands in the
 * executable segment. */
START_TEST(test_symbols_found)
{
    struct vdso_case c = get_case(_i);
    struct phdr load = read_phdr(&c, 0);
    struct phdr eh = find_phdr(&c, PT_GNU_EH_FRAME);
    for (size_t i = 0; i < c.nsyms; i++) {
        const struct expected_sym *s = &c.syms[i];
        uint64_t any = sym_must(&c, s->name, s->version), v = ~0ull;
        ck_assert_int_eq(ldr_elf_dynsym_via(c.image, c.size, LDR_ELF_HASH_SYSV, s->name,
                                            s->version, &v), 0);
        ck_assert_uint_eq(v, any);
        v = ~0ull;
        ck_assert_int_eq(ldr_elf_dynsym_via(c.image, c.size, LDR_ELF_HASH_GNU, s->name,
                                            s->version, &v), 0);
        ck_assert_uint_eq(v, any);
        ck_assert_int_eq(ldr_elf_dynsym(c.image, c.size, s->name, NULL, &v), 0);
        ck_assert_uint_eq(v, any);
        ck_assert_int_eq(ldr_elf_dynsym(c.image, c.size, s->name, s->version, NULL), 0);
        /* Code comes after all the tables in our layout. */
        ck_assert_uint_gt(any, eh.offset);
        ck_assert_uint_lt(any, load.filesz);
    }
}
END_TEST

START_TEST(test_symbols_absent)
{
    struct vdso_case c = get_case(_i);
    for (size_t i = 0; i < c.nabsent; i++) {
        const struct expected_sym *s = &c.absent[i];
        uint64_t v = 12345;
        for (int hash = LDR_ELF_HASH_ANY; hash <= LDR_ELF_HASH_GNU; hash++)
            ck_assert_msg(ldr_elf_dynsym_via(c.image, c.size, hash, s->name, s->version,
                                             &v) == -1,
                          "%s: %s@%s found", c.label, s->name, s->version ? s->version : "*");
        ck_assert_uint_eq(v, 12345); /* untouched on failure */
    }
    ck_assert_int_eq(ldr_elf_dynsym(c.image, c.size, NULL, NULL, NULL), -1);
    ck_assert_int_eq(ldr_elf_dynsym(NULL, c.size, c.probe, NULL, NULL), -1);
}
END_TEST

START_TEST(test_aliases_x86_64)
{
    struct vdso_case c = get_case(0);
    static const char *const names[] = { "clock_gettime", "gettimeofday", "time", "getcpu",
                                         "clock_getres" };
    for (size_t i = 0; i < COUNT(names); i++) {
        char full[64] = "__vdso_";
        strcat(full, names[i]);
        ck_assert_uint_eq(sym_must(&c, names[i], "LINUX_2.6"), sym_must(&c, full, "LINUX_2.6"));
    }
}
END_TEST

/* ------------------------------------------------- code */

START_TEST(test_code_x86_64)
{
    struct vdso_case c = get_case(0);
    static const struct { const char *name; unsigned nr; } fns[] = {
        { "__vdso_clock_gettime", 228 }, { "__vdso_gettimeofday", 96 },
        { "__vdso_time", 201 },          { "__vdso_getcpu", 309 },
        { "__vdso_clock_getres", 229 },
    };
    for (size_t i = 0; i < COUNT(fns); i++) {
        /* After the stores that fault like the kernel's vDSO on a bad
         * pointer: mov $nr,%eax; syscall; ret, within the function's
         * first 64 bytes, and no other syscall before it. */
        const unsigned char want[] = { 0xb8, fns[i].nr & 0xff, fns[i].nr >> 8, 0, 0,
                                       0x0f, 0x05, 0xc3 };
        uint64_t v = sym_must(&c, fns[i].name, "LINUX_2.6");
        ck_assert_uint_le(v + 64, c.size);
        const unsigned char *at = memmem(c.image + v, 64, want, sizeof want);
        ck_assert_msg(at != NULL, "%s: no mov $%u,%%eax; syscall; ret", fns[i].name, fns[i].nr);
        ck_assert_msg(memmem(c.image + v, (size_t)(at - (c.image + v)), "\x0f\x05", 2) == NULL,
                      "%s: a syscall before its own", fns[i].name);
    }
}
END_TEST

START_TEST(test_code_ia32)
{
    struct vdso_case c = get_case(1);
    /* push ecx; push edx; push ebp; mov %esp,%ebp; sysenter; int $0x80;
     * pop ebp; pop edx; pop ecx; ret -- Linux's layout, which programs
     * that inspect __kernel_vsyscall (and our SYSENTER) rely on. */
    static const unsigned char vsyscall[] = { 0x51, 0x52, 0x55, 0x89, 0xe5, 0x0f, 0x34,
                                              0xcd, 0x80, 0x5d, 0x5a, 0x59, 0xc3 };
    uint64_t v = sym_must(&c, "__kernel_vsyscall", "LINUX_2.5");
    ck_assert_uint_le(v + sizeof vsyscall, c.size);
    ck_assert_int_eq(memcmp(c.image + v, vsyscall, sizeof vsyscall), 0);
    ck_assert_int_eq(memcmp(c.image + v + LDR_VDSO32_SYSENTER_RETURN_OFFSET - 2,
                            "\xcd\x80\x5d\x5a\x59\xc3", 6), 0);

    /* The exact bytes libgcc's x86 fallback unwinder matches. */
    v = sym_must(&c, "__kernel_sigreturn", "LINUX_2.5");
    ck_assert_int_eq(memcmp(c.image + v, "\x58\xb8\x77\x00\x00\x00\xcd\x80", 8), 0);
    v = sym_must(&c, "__kernel_rt_sigreturn", "LINUX_2.5");
    ck_assert_int_eq(memcmp(c.image + v, "\xb8\xad\x00\x00\x00\xcd\x80", 7), 0);

    /* cdecl: push ebx; the three arguments into ebx, ecx, edx; then, after
     * the stores that probe the result pointers, mov $nr,%eax; int $0x80;
     * pop ebx; ret within the first 64 bytes, no other int $0x80 before. */
    static const struct { const char *name; unsigned nr; } fns[] = {
        { "__vdso_clock_gettime", 265 }, { "__vdso_gettimeofday", 78 },
        { "__vdso_time", 13 },           { "__vdso_clock_getres", 266 },
        { "__vdso_clock_gettime64", 403 }, { "__vdso_getcpu", 318 },
    };
    static const unsigned char start[] = { 0x53, 0x8b, 0x5c, 0x24, 0x08, 0x8b, 0x4c, 0x24, 0x0c,
                                           0x8b, 0x54, 0x24, 0x10 };
    for (size_t i = 0; i < COUNT(fns); i++) {
        unsigned char want[9] = { 0xb8 };
        wr(want, 1, fns[i].nr, 4);
        memcpy(want + 5, "\xcd\x80\x5b\xc3", 4); /* int $0x80; pop %ebx; ret */
        v = sym_must(&c, fns[i].name, "LINUX_2.6");
        ck_assert_uint_le(v + 64, c.size);
        ck_assert_msg(memcmp(c.image + v, start, sizeof start) == 0, "%s: entry bytes", fns[i].name);
        const unsigned char *at = memmem(c.image + v, 64, want, sizeof want);
        ck_assert_msg(at != NULL, "%s: no mov $%u,%%eax; int $0x80; pop; ret", fns[i].name,
                      fns[i].nr);
        ck_assert_msg(memmem(c.image + v, (size_t)(at - (c.image + v)), "\xcd\x80", 2) == NULL,
                      "%s: an int $0x80 before its own", fns[i].name);
    }
}
END_TEST

/* Is `addr` inside the range of some FDE listed in .eh_frame_hdr?  ld
 * writes the table as datarel sdata4 pairs and the FDEs with pcrel sdata4
 * addresses, which the first check pins down. */
static bool fde_covers(const struct vdso_case *c, uint64_t addr)
{
    struct phdr eh = find_phdr(c, PT_GNU_EH_FRAME);
    const unsigned char *hdr = c->image + eh.offset;
    ck_assert_int_eq(memcmp(hdr, "\x01\x1b\x03\x3b", 4), 0);
    uint32_t count = rd32(hdr + 8);
    ck_assert_uint_le(eh.offset + 12 + 8ull * count, c->size);
    for (uint32_t i = 0; i < count; i++) {
        int32_t start, fde;
        memcpy(&start, hdr + 12 + 8 * i, 4);
        memcpy(&fde, hdr + 16 + 8 * i, 4);
        uint64_t fde_pos = eh.offset + (int64_t)fde;
        ck_assert_uint_le(fde_pos + 16, c->size);
        uint64_t lo = eh.offset + (int64_t)start, len = rd32(c->image + fde_pos + 12);
        if (addr >= lo && addr - lo < len)
            return true;
    }
    return false;
}

/* Unwinding: the ordinary functions have FDEs (a debugger or a crash
 * handler can walk through them); the sigreturn trampolines and the byte
 * before each (an unwinder looks up return address - 1) have none, so
 * libgcc falls back to recognising the signal frame by its bytes. */
START_TEST(test_unwind_info)
{
    struct vdso_case c = get_case(_i);
    for (size_t i = 0; i < c.nsyms; i++) {
        uint64_t v = sym_must(&c, c.syms[i].name, c.syms[i].version);
        if (strstr(c.syms[i].name, "sigreturn")) {
            ck_assert_msg(!fde_covers(&c, v) && !fde_covers(&c, v - 1), "%s has an FDE",
                          c.syms[i].name);
        } else {
            ck_assert_msg(fde_covers(&c, v), "%s has no FDE", c.syms[i].name);
        }
    }
}
END_TEST

/* ------------------------------------------------- hostile images */

/* Run every kind of lookup on the damaged (buf, size).  What they return
 * is not checked (damage may well leave a symbol findable): the point is
 * that none crashes or reads outside buf, which the exact-size copies
 * let a sanitizer build see.  A soname found must lie inside buf. */
static void poke_all(const struct vdso_case *c, const unsigned char *buf, size_t size)
{
    uint64_t v;
    const char *s;
    for (size_t i = 0; i < c->nsyms; i++) {
        for (int hash = LDR_ELF_HASH_ANY; hash <= LDR_ELF_HASH_GNU; hash++) {
            ldr_elf_dynsym_via(buf, size, hash, c->syms[i].name, c->syms[i].version, &v);
            ldr_elf_dynsym_via(buf, size, hash, c->syms[i].name, NULL, &v);
        }
    }
    ldr_elf_dynsym(buf, size, "__vdso_nonexistent", NULL, &v);
    if (ldr_elf_soname(buf, size, &s) == 0) {
        ck_assert((const unsigned char *)s >= buf);
        ck_assert((const unsigned char *)s + strlen(s) < buf + size);
    }
}

/* Every prefix of the image: short ones must fail; any that succeed
 * must give the same answer as the whole image. */
START_TEST(test_truncated)
{
    struct vdso_case c = get_case(_i);
    uint64_t full = sym_must(&c, c.probe, c.probe_version);
    struct phdr dyn = find_phdr(&c, PT_DYNAMIC);
    for (size_t n = 0; n <= c.size; n++) {
        unsigned char *buf = copy_image(&c, n);
        uint64_t v = 0;
        int r = ldr_elf_dynsym(n ? buf : NULL, n, c.probe, c.probe_version, &v);
        if (n < dyn.offset + dyn.filesz)
            ck_assert_msg(r == -1, "%s: found in a %zu-byte prefix", c.label, n);
        if (r == 0)
            ck_assert_uint_eq(v, full);
        if (n == c.size)
            ck_assert_int_eq(r, 0);
        poke_all(&c, buf, n);
        free(buf);
    }
}
END_TEST

struct corruption {
    const char *what;
    uint64_t pos;
    uint64_t value;
    size_t width;
};

/* Corrupt one field at a time; each of these makes the probe unfindable. */
START_TEST(test_corrupt_fields)
{
    struct vdso_case c = get_case(_i);
    bool is64 = c.elf_class == ELFCLASS64;
    struct hdr h = read_hdr(&c);
    uint64_t load_pos = phdr_pos(&c, 0), dyn_phdr_pos = 0;
    for (unsigned i = 0; i < h.phnum; i++)
        if (read_phdr(&c, i).type == PT_DYNAMIC)
            dyn_phdr_pos = phdr_pos(&c, i);
    size_t word = is64 ? 8 : 4;
#define EH(f) (is64 ? offsetof(Elf64_Ehdr, f) : offsetof(Elf32_Ehdr, f))
#define PH(f) (is64 ? offsetof(Elf64_Phdr, f) : offsetof(Elf32_Phdr, f))
    uint64_t strsz_pos = 0, syment_pos = 0, symtab_pos = 0;
    ck_assert_int_eq(dyn_lookup(&c, DT_STRSZ, NULL, &strsz_pos), 1);
    ck_assert_int_eq(dyn_lookup(&c, DT_SYMENT, NULL, &syment_pos), 1);
    ck_assert_int_eq(dyn_lookup(&c, DT_SYMTAB, NULL, &symtab_pos), 1);

    const struct corruption cases[] = {
        { "magic", EI_MAG0, 0x7e, 1 },
        { "class", EI_CLASS, is64 ? ELFCLASS32 : ELFCLASS64, 1 },
        { "class none", EI_CLASS, ELFCLASSNONE, 1 },
        { "big-endian", EI_DATA, ELFDATA2MSB, 1 },
        { "ident version", EI_VERSION, 0, 1 },
        { "type", EH(e_type), ET_REL, 2 },
        { "machine", EH(e_machine), is64 ? EM_386 : EM_X86_64, 2 },
        { "phentsize", EH(e_phentsize), phdr_size(&c) + 1, 2 },
        { "phnum 0", EH(e_phnum), 0, 2 },
        { "phnum PN_XNUM", EH(e_phnum), PN_XNUM, 2 },
        { "phnum too big", EH(e_phnum), 1000, 2 },
        { "phoff at end", EH(e_phoff), c.size, word },
        { "phoff huge", EH(e_phoff), ~0ull, word },
        { "dynamic offset", dyn_phdr_pos + PH(p_offset), c.size, word },
        { "dynamic size", dyn_phdr_pos + PH(p_filesz), ~0ull, word },
        { "dynamic type", dyn_phdr_pos + PH(p_type), PT_NULL, 4 },
        { "load size 0", load_pos + PH(p_filesz), 0, word },
        { "load vaddr", load_pos + PH(p_vaddr), 0x100000, word },
        { "load offset", load_pos + PH(p_offset), ~0ull - 16, word },
        { "strsz huge", strsz_pos + word, ~0ull, word },
        { "strsz 0", strsz_pos + word, 0, word },
        { "syment", syment_pos + word, 7, word },
        { "symtab huge", symtab_pos + word, ~0ull, word },
        { "symtab tag", symtab_pos, DT_NULL, word },
    };
    for (size_t i = 0; i < COUNT(cases); i++) {
        const struct corruption *k = &cases[i];
        unsigned char *buf = copy_image(&c, c.size);
        wr(buf, k->pos, k->value, k->width);
        ck_assert_msg(ldr_elf_dynsym(buf, c.size, c.probe, c.probe_version, NULL) == -1,
                      "%s: still found after corrupting %s", c.label, k->what);
        poke_all(&c, buf, c.size);
        free(buf);
    }
#undef EH
#undef PH
}
END_TEST

/* Each hash table is checked on its own: breaking one leaves the other
 * usable, which shows the lookups really walk the table they claim to. */
START_TEST(test_corrupt_hash_tables)
{
    struct vdso_case c = get_case(_i);
    uint64_t hash = dyn_must(&c, DT_HASH), gnu = dyn_must(&c, DT_GNU_HASH);
    uint32_t bloom_size = rd32(c.image + gnu + 8);
    size_t word = c.elf_class == ELFCLASS64 ? 8 : 4;
    unsigned char *buf = copy_image(&c, c.size);

    wr(buf, hash, 0, 4); /* nbucket = 0: no division by zero */
    ck_assert_int_eq(ldr_elf_dynsym_via(buf, c.size, LDR_ELF_HASH_SYSV, c.probe, NULL, NULL), -1);
    ck_assert_int_eq(ldr_elf_dynsym_via(buf, c.size, LDR_ELF_HASH_GNU, c.probe, NULL, NULL), 0);
    memcpy(buf, c.image, c.size);
    /* Every chain entry points at itself: the walk must still end. */
    uint32_t nbucket = rd32(c.image + hash), nchain = rd32(c.image + hash + 4);
    for (uint32_t i = 0; i < nchain; i++)
        wr(buf, hash + 8 + 4ull * nbucket + 4ull * i, i, 4);
    for (size_t i = 0; i < c.nsyms; i++)
        ldr_elf_dynsym_via(buf, c.size, LDR_ELF_HASH_SYSV, c.syms[i].name, NULL, NULL);
    memcpy(buf, c.image, c.size);

    wr(buf, gnu, 0, 4); /* nbuckets = 0 */
    ck_assert_int_eq(ldr_elf_dynsym_via(buf, c.size, LDR_ELF_HASH_GNU, c.probe, NULL, NULL), -1);
    ck_assert_int_eq(ldr_elf_dynsym(buf, c.size, c.probe, NULL, NULL), -1);
    ck_assert_int_eq(ldr_elf_dynsym_via(buf, c.size, LDR_ELF_HASH_SYSV, c.probe, NULL, NULL), 0);
    memcpy(buf, c.image, c.size);
    wr(buf, gnu + 8, 0, 4); /* bloom_size = 0 */
    ck_assert_int_eq(ldr_elf_dynsym_via(buf, c.size, LDR_ELF_HASH_GNU, c.probe, NULL, NULL), -1);
    memcpy(buf, c.image, c.size);
    wr(buf, gnu + 12, 200, 4); /* bloom_shift past the word */
    ck_assert_int_eq(ldr_elf_dynsym_via(buf, c.size, LDR_ELF_HASH_GNU, c.probe, NULL, NULL), -1);
    memcpy(buf, c.image, c.size);
    memset(buf + gnu + 16, 0, bloom_size * word); /* an empty Bloom filter rejects all */
    for (size_t i = 0; i < c.nsyms; i++)
        ck_assert_int_eq(ldr_elf_dynsym_via(buf, c.size, LDR_ELF_HASH_GNU, c.syms[i].name,
                                            NULL, NULL), -1);
    memcpy(buf, c.image, c.size);
    /* Clear every end-of-chain bit: the walk must stop at the image end. */
    uint32_t nbuckets = rd32(c.image + gnu), symoffset = rd32(c.image + gnu + 4);
    uint64_t chains = gnu + 16 + bloom_size * word + 4ull * nbuckets;
    uint64_t nsyms = rd32(c.image + hash + 4);
    for (uint64_t i = symoffset; i < nsyms; i++)
        buf[chains + 4 * (i - symoffset)] &= 0xfe;
    ck_assert_int_eq(ldr_elf_dynsym_via(buf, c.size, LDR_ELF_HASH_GNU, c.probe, "LINUX_9.9",
                                        NULL), -1);
    free(buf);
}
END_TEST

/* Versions: a symbol is found at its version only if DT_VERSYM and the
 * Verdef (name and hash, as glibc compares both) agree. */
START_TEST(test_corrupt_versions)
{
    struct vdso_case c = get_case(_i);
    uint64_t versym = dyn_must(&c, DT_VERSYM), verdef = dyn_must(&c, DT_VERDEF);
    unsigned char *buf = copy_image(&c, c.size);

    /* Every symbol at VER_NDX_LOCAL: no versioned lookup succeeds, an
     * unversioned one still does. */
    uint64_t nsyms = rd32(c.image + dyn_must(&c, DT_HASH) + 4);
    for (uint64_t i = 0; i < nsyms; i++)
        wr(buf, versym + 2 * i, VER_NDX_LOCAL, 2);
    ck_assert_int_eq(ldr_elf_dynsym(buf, c.size, c.probe, c.probe_version, NULL), -1);
    ck_assert_int_eq(ldr_elf_dynsym(buf, c.size, c.probe, NULL, NULL), 0);
    memcpy(buf, c.image, c.size);

    /* Each Verdef's hash, version and chain in turn. */
    uint64_t vd = verdef;
    for (unsigned n = 0; n < dyn_must(&c, DT_VERDEFNUM); n++) {
        static const struct { size_t off, width; uint64_t value; } fields[] = {
            { offsetof(Elf64_Verdef, vd_hash), 4, 0x12345 },
            { offsetof(Elf64_Verdef, vd_version), 2, 2 },
            { offsetof(Elf64_Verdef, vd_aux), 4, 0x7fffffff },
            { offsetof(Elf64_Verdef, vd_next), 4, 0x7fffffff },
            { offsetof(Elf64_Verdef, vd_next), 4, 0 },
        };
        for (size_t f = 0; f < COUNT(fields); f++) {
            wr(buf, vd + fields[f].off, fields[f].value, fields[f].width);
            poke_all(&c, buf, c.size);
            ck_assert_int_eq(ldr_elf_dynsym(buf, c.size, c.probe, NULL, NULL), 0);
            memcpy(buf, c.image, c.size);
        }
        vd += rd32(c.image + vd + offsetof(Elf64_Verdef, vd_next));
    }
    /* The probe's own Verdef with a wrong hash: not found at its version. */
    vd = verdef;
    for (unsigned n = 0; n < dyn_must(&c, DT_VERDEFNUM); n++) {
        uint64_t aux = vd + rd32(c.image + vd + offsetof(Elf64_Verdef, vd_aux));
        uint32_t name = rd32(c.image + aux + offsetof(Elf64_Verdaux, vda_name));
        const char *s = (const char *)c.image + dyn_must(&c, DT_STRTAB) + name;
        if (strcmp(s, c.probe_version) == 0) {
            wr(buf, vd + offsetof(Elf64_Verdef, vd_hash), 0x12345, 4);
            ck_assert_int_eq(ldr_elf_dynsym(buf, c.size, c.probe, c.probe_version, NULL), -1);
            memcpy(buf, c.image, c.size);
        }
        vd += rd32(c.image + vd + offsetof(Elf64_Verdef, vd_next));
    }
    free(buf);
}
END_TEST

/* Every byte of the image, set to a few values in turn. */
START_TEST(test_corrupt_every_byte)
{
    struct vdso_case c = get_case(_i);
    unsigned char *buf = copy_image(&c, c.size);
    for (size_t pos = 0; pos < c.size; pos++) {
        const unsigned char orig = c.image[pos];
        const unsigned char values[] = { 0x00, 0xff, 0x7f, (unsigned char)(orig ^ 0x01),
                                         (unsigned char)(orig ^ 0x80) };
        for (size_t k = 0; k < COUNT(values); k++) {
            buf[pos] = values[k];
            poke_all(&c, buf, c.size);
        }
        buf[pos] = orig;
    }
    free(buf);
}
END_TEST

/* Random multi-byte damage plus random truncation, reproducibly seeded. */
START_TEST(test_corrupt_random)
{
    struct vdso_case c = get_case(_i);
    uint64_t rng = 0x9e3779b97f4a7c15ull + (uint64_t)_i;
    for (int iter = 0; iter < 20000; iter++) {
        size_t size = c.size;
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        if (rng % 4 == 0)
            size = (size_t)(rng >> 8) % (c.size + 1);
        unsigned char *buf = copy_image(&c, size);
        for (int n = (int)(rng >> 40) % 8 + 1; n > 0 && size > 0; n--) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            buf[(rng >> 16) % size] = (unsigned char)rng;
        }
        poke_all(&c, buf, size);
        free(buf);
    }
}
END_TEST

static Suite *vdso_suite(void)
{
    Suite *s = suite_create("vdso");

    TCase *tc = tcase_create("image");
    tcase_add_loop_test(tc, test_elf_header, 0, 2);
    tcase_add_loop_test(tc, test_program_headers, 0, 2);
    tcase_add_loop_test(tc, test_linux_note, 0, 2);
    tcase_add_loop_test(tc, test_dynamic_section, 0, 2);
    tcase_add_loop_test(tc, test_soname, 0, 2);
    tcase_add_loop_test(tc, test_unwind_info, 0, 2);
    tcase_add_test(tc, test_code_x86_64);
    tcase_add_test(tc, test_code_ia32);
    suite_add_tcase(s, tc);

    tc = tcase_create("lookup");
    tcase_add_loop_test(tc, test_symbols_found, 0, 2);
    tcase_add_loop_test(tc, test_symbols_absent, 0, 2);
    tcase_add_test(tc, test_aliases_x86_64);
    suite_add_tcase(s, tc);

    tc = tcase_create("hostile");
    tcase_set_timeout(tc, 120); /* sanitizer builds are slow */
    tcase_add_loop_test(tc, test_truncated, 0, 2);
    tcase_add_loop_test(tc, test_corrupt_fields, 0, 2);
    tcase_add_loop_test(tc, test_corrupt_hash_tables, 0, 2);
    tcase_add_loop_test(tc, test_corrupt_versions, 0, 2);
    tcase_add_loop_test(tc, test_corrupt_every_byte, 0, 2);
    tcase_add_loop_test(tc, test_corrupt_random, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(vdso_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
