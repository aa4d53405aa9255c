/* Reading and validating an ELF header and its program header table.
 *
 * Mirrors the checks at the top of load_elf_binary() and elf_read_implies_exec()
 * in fs/binfmt_elf.c, and adds the ones the kernel leaves to the MMU (segments
 * beyond the file or the address space, overlaps) so that every bad file gets
 * one clear reason instead of a crash later.  ELF32 and ELF64 are both widened
 * into struct ldr_elf; the class decides the rest of the load, as
 * compat_binfmt_elf.c does for 32-bit programs. */
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "loader/loader.h"

bool ldr_is_elf(const uint8_t *buf, uint64_t len)
{
    return len >= SELFMAG && memcmp(buf, ELFMAG, SELFMAG) == 0;
}

static int read_header(struct ldr_elf *e, const struct ldr_file *f, elfemu_error *err)
{
    union { Elf64_Ehdr h64; Elf32_Ehdr h32; uint8_t raw[sizeof(Elf64_Ehdr)]; } u;
    uint64_t have = f->size < sizeof(u) ? f->size : sizeof(u);
    memset(&u, 0, sizeof(u));
    if (ldr_pread(f, u.raw, have, 0) != 0)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "cannot read the ELF header");
    if (!ldr_is_elf(u.raw, have))
        return ldr_fail(err, LDR_ENOEXEC, f->path, "not an ELF file (bad magic)");
    if (have < EI_NIDENT)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "truncated ELF header (%" PRIu64 " bytes)",
                        have);
    uint8_t cls = u.raw[EI_CLASS], data = u.raw[EI_DATA], ver = u.raw[EI_VERSION];
    if (cls != ELFCLASS32 && cls != ELFCLASS64)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "bad ELF class %u in e_ident", cls);
    if (data != ELFDATA2LSB)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "bad ELF data encoding %u in e_ident (x86 is little-endian)", data);
    if (ver != EV_CURRENT)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "bad ELF version %u in e_ident", ver);
    uint64_t need = cls == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
    if (have < need)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "truncated ELF header (%" PRIu64 " of %" PRIu64 " bytes)", have, need);
    if (cls == ELFCLASS64) {
        e->bits = 64;
        e->type = u.h64.e_type;
        e->machine = u.h64.e_machine;
        e->entry = u.h64.e_entry;
        e->phoff = u.h64.e_phoff;
        e->phnum = u.h64.e_phnum;
        e->phentsize = u.h64.e_phentsize;
    } else {
        e->bits = 32;
        e->type = u.h32.e_type;
        e->machine = u.h32.e_machine;
        e->entry = u.h32.e_entry;
        e->phoff = u.h32.e_phoff;
        e->phnum = u.h32.e_phnum;
        e->phentsize = u.h32.e_phentsize;
    }
    if (e->type != ET_EXEC && e->type != ET_DYN)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "not an executable or shared object (e_type %d)", e->type);
    int want = e->bits == 64 ? EM_X86_64 : EM_386;
    if (e->machine != want) {
        if (e->bits == 32 && e->machine == EM_X86_64)
            return ldr_fail(err, LDR_ENOEXEC, f->path, "x32 ABI programs are not supported");
        return ldr_fail(err, LDR_ENOEXEC, f->path, "wrong machine %d for ELF%d (expected %s)",
                        e->machine, e->bits, e->bits == 64 ? "x86_64" : "i386");
    }
    unsigned phsz = e->bits == 64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
    if (e->phentsize != phsz)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "bad e_phentsize %u (expected %u)",
                        e->phentsize, phsz);
    /* load_elf_phdrs(): at least one, and the table within 64 KiB. */
    if (e->phnum < 1 || e->phnum > 65536u / phsz)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "e_phnum %u out of range (1..%u)", e->phnum,
                        65536u / phsz);
    if (e->phoff > f->size || (uint64_t)e->phnum * phsz > f->size - e->phoff)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "program header table [%#" PRIx64 ", +%u) beyond the end of the file "
                        "(%" PRIu64 " bytes)", e->phoff, e->phnum * phsz, f->size);
    return 0;
}

static int read_phdrs(struct ldr_elf *e, const struct ldr_file *f, elfemu_error *err)
{
    unsigned phsz = e->phentsize;
    uint8_t *raw = malloc((size_t)e->phnum * phsz);
    e->ph = calloc(e->phnum, sizeof(*e->ph));
    if (!raw || !e->ph) {
        free(raw);
        return ldr_fail(err, LDR_ENOEXEC, f->path, "out of memory");
    }
    if (ldr_pread(f, raw, (uint64_t)e->phnum * phsz, e->phoff) != 0) {
        free(raw);
        return ldr_fail(err, LDR_ENOEXEC, f->path, "cannot read the program headers");
    }
    for (unsigned i = 0; i < e->phnum; i++) {
        struct ldr_phdr *p = &e->ph[i];
        if (e->bits == 64) {
            Elf64_Phdr h;
            memcpy(&h, raw + (size_t)i * phsz, sizeof(h));
            *p = (struct ldr_phdr){ h.p_type, h.p_flags, h.p_offset, h.p_vaddr,
                                    h.p_filesz, h.p_memsz, h.p_align };
        } else {
            Elf32_Phdr h;
            memcpy(&h, raw + (size_t)i * phsz, sizeof(h));
            *p = (struct ldr_phdr){ h.p_type, h.p_flags, h.p_offset, h.p_vaddr,
                                    h.p_filesz, h.p_memsz, h.p_align };
        }
    }
    free(raw);
    return 0;
}

static int check_interp(struct ldr_elf *e, const struct ldr_file *f, const struct ldr_phdr *p,
                        elfemu_error *err)
{
    /* load_elf_binary(): 2 <= p_filesz <= PATH_MAX, NUL-terminated. */
    if (p->filesz < 2 || p->filesz > PATH_MAX)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "PT_INTERP size %" PRIu64 " out of range",
                        p->filesz);
    if (p->offset > f->size || p->filesz > f->size - p->offset)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "PT_INTERP beyond the end of the file");
    if (ldr_pread(f, e->interp, p->filesz, p->offset) != 0)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "cannot read PT_INTERP");
    if (e->interp[p->filesz - 1] != '\0')
        return ldr_fail(err, LDR_ENOEXEC, f->path, "PT_INTERP path is not NUL-terminated");
    if (strlen(e->interp) == 0)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "PT_INTERP path is empty");
    e->has_interp = true;
    return 0;
}

static int check_load(struct ldr_elf *e, const struct ldr_file *f, unsigned i,
                      const struct ldr_phdr *prev, uint64_t space_size, elfemu_error *err)
{
    const struct ldr_phdr *p = &e->ph[i];
    if (p->filesz > p->memsz)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "segment %u: p_filesz %#" PRIx64 " > p_memsz %#" PRIx64, i, p->filesz,
                        p->memsz);
    if (p->offset > f->size || p->filesz > f->size - p->offset)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "segment %u: file range [%#" PRIx64 ", +%#" PRIx64 ") beyond the end of "
                        "the file (%" PRIu64 " bytes)", i, p->offset, p->filesz, f->size);
    if ((p->vaddr - p->offset) % MM_PAGE_SIZE != 0)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "segment %u: p_vaddr %#" PRIx64 " and p_offset %#" PRIx64
                        " differ modulo the page size", i, p->vaddr, p->offset);
    if (p->align > 1 && (p->align & (p->align - 1)) != 0)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "segment %u: p_align %#" PRIx64 " is not a power of two", i, p->align);
    if (p->memsz > space_size || p->vaddr > space_size - p->memsz)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "segment %u: [%#" PRIx64 ", +%#" PRIx64 ") outside the %d-bit guest "
                        "address space", i, p->vaddr, p->memsz, space_size == (1ull << 32) ? 32 : 46);
    if (prev && p->vaddr < prev->vaddr + prev->memsz)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "segment %u at %#" PRIx64 " overlaps or precedes the previous PT_LOAD "
                        "(which ends at %#" PRIx64 ")", i, p->vaddr, prev->vaddr + prev->memsz);
    return 0;
}

int ldr_elf_read(struct ldr_elf *e, const struct ldr_file *f, uint64_t space_size,
                 elfemu_error *err)
{
    memset(e, 0, sizeof(*e));
    if (read_header(e, f, err) != 0 || read_phdrs(e, f, err) != 0)
        return -1;
    /* An ia32 image lives in 4 GiB whatever the emulator's own width. */
    if (e->bits == 32)
        space_size = 1ull << 32;
    const struct ldr_phdr *prev = NULL;
    e->lo = UINT64_MAX;
    e->max_align = MM_PAGE_SIZE;
    for (unsigned i = 0; i < e->phnum; i++) {
        const struct ldr_phdr *p = &e->ph[i];
        switch (p->type) {
        case PT_INTERP:
            if (!e->has_interp && check_interp(e, f, p, err) != 0)
                return -1;
            break;
        case PT_GNU_STACK:
            e->has_gnu_stack = true;
            e->gnu_stack_exec = (p->flags & PF_X) != 0;
            break;
        case PT_LOAD:
            if (check_load(e, f, i, prev, space_size, err) != 0)
                return -1;
            prev = p;
            if (mm_page_down(p->vaddr) < e->lo)
                e->lo = mm_page_down(p->vaddr);
            if (p->vaddr + p->memsz > e->hi)
                e->hi = p->vaddr + p->memsz;
            if (p->align > e->max_align)
                e->max_align = p->align;
            break;
        }
    }
    if (!prev)
        return ldr_fail(err, LDR_ENOEXEC, f->path, "no PT_LOAD segment");
    /* A position-independent image must fit in the space wherever it goes. */
    if (e->hi - e->lo > space_size / 2)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "PT_LOAD segments span %#" PRIx64 " bytes, more than half the guest "
                        "address space", e->hi - e->lo);
    /* load_elf_binary(): BAD_ADDR(e_entry), the entry must be a user address. */
    if (e->entry >= space_size)
        return ldr_fail(err, LDR_ENOEXEC, f->path,
                        "entry point %#" PRIx64 " outside the %d-bit guest address space",
                        e->entry, space_size == (1ull << 32) ? 32 : 46);
    return 0;
}

void ldr_elf_free(struct ldr_elf *e)
{
    free(e->ph);
    e->ph = NULL;
}
