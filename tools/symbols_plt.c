/* Names for the PLT entries of an ELF image (see symbols_plt.h).
 *
 * Like the synthetic symbols binutils makes for objdump, an entry is named
 * by what it does, not by its position: every entry of .plt (16 bytes: the
 * lazy layout, whose first entry is the resolver's header), .plt.sec (16
 * bytes: the IBT layout, endbr then the jump, with .plt holding the lazy
 * halves) and .plt.got (8 or 16 bytes, its sh_entsize: functions bound at
 * load time) contains an indirect jump through one GOT slot:
 *   x86_64  ff 25 disp32   jmp *disp(%rip)   (after a bnd prefix or endbr64)
 *   i386    ff 25 abs32    jmp *abs          (non-PIC)
 *   i386    ff a3 disp32   jmp *disp(%ebx)   (PIC: %ebx holds the GOT base,
 *                          .got.plt's address, or .got's without one)
 * and the dynamic relocation (JUMP_SLOT, GLOB_DAT...) at that slot names
 * its symbol.  Layouts that do not match name nothing, so a static
 * program's IRELATIVE slots (no symbol) stay unnamed, as in objdump. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/elfread.h"
#include "tools/symbols_plt.h"

struct reloc {
    uint64_t slot;
    const char *name;   /* in the image's dynamic string table */
};

struct plt_scan {
    const uint8_t *img;
    size_t size;
    bool is64;
    uint64_t got_base;  /* i386 PIC: what %ebx holds */
    struct reloc *rel;
    size_t nrel;
    struct plt_sym *out;
    size_t n, cap;
};

static bool add(struct plt_scan *p, uint64_t value, uint64_t size, const char *name,
                const char *suffix)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        struct plt_sym *v = realloc(p->out, cap * sizeof(*v));
        if (!v)
            return false;
        p->out = v;
        p->cap = cap;
    }
    size_t len = strlen(name) + strlen(suffix) + 1;
    char *s = malloc(len);
    if (!s)
        return false;
    snprintf(s, len, "%s%s", name, suffix);
    p->out[p->n++] = (struct plt_sym){ value, size, s };
    return true;
}

/* The relocations of one SHT_REL/SHT_RELA section whose symbols are the
 * dynamic symbol table dynsym (with its string table dynstr). */
static void read_relocs(struct plt_scan *p, const struct elf_shdr *rs,
                        const struct elf_shdr *dynsym, const struct elf_shdr *dynstr)
{
    bool rela = rs->type == SHT_RELA;
    uint64_t esz = p->is64 ? (rela ? 24 : 16) : (rela ? 12 : 8);
    uint64_t symsz = p->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    if (!elf_in_image(rs->offset, rs->size, p->size) ||
        !elf_in_image(dynsym->offset, dynsym->size, p->size) ||
        !elf_in_image(dynstr->offset, dynstr->size, p->size) || dynstr->size == 0)
        return;
    struct reloc *v = realloc(p->rel, (p->nrel + rs->size / esz + 1) * sizeof(*v));
    if (!v)
        return;
    p->rel = v;
    const char *str = (const char *)p->img + dynstr->offset;
    for (uint64_t o = 0; o + esz <= rs->size; o += esz) {
        const uint8_t *r = p->img + rs->offset + o;
        uint64_t slot = p->is64 ? elf_rd(r, 8) : elf_rd32(r);
        uint64_t info = p->is64 ? elf_rd(r + 8, 8) : elf_rd32(r + 4);
        uint64_t sym = p->is64 ? info >> 32 : info >> 8;
        if (sym == 0 || (sym + 1) * symsz > dynsym->size)
            continue;
        uint32_t name = elf_rd32(p->img + dynsym->offset + sym * symsz);
        /* The name must end inside the string table. */
        if (name >= dynstr->size || !str[name] ||
            !memchr(str + name, 0, dynstr->size - name))
            continue;
        p->rel[p->nrel++] = (struct reloc){ slot, str + name };
    }
}

static const char *reloc_at(const struct plt_scan *p, uint64_t slot)
{
    for (size_t i = 0; i < p->nrel; i++)
        if (p->rel[i].slot == slot)
            return p->rel[i].name;
    return NULL;
}

/* The GOT slot the entry's indirect jump goes through, found in its first
 * bytes (after prefixes and endbr); false when there is none. */
static bool entry_slot(const struct plt_scan *p, const uint8_t *e, uint64_t addr, uint64_t len,
                       uint64_t *slot)
{
    for (uint64_t k = 0; k < 8 && k + 6 <= len; k++) {
        if (e[k] != 0xff)
            continue;
        uint32_t d = elf_rd32(e + k + 2);
        if (e[k + 1] == 0x25) {
            *slot = p->is64 ? addr + k + 6 + (uint64_t)(int64_t)(int32_t)d : d;
            return true;
        }
        if (e[k + 1] == 0xa3 && !p->is64 && p->got_base) {
            *slot = (uint32_t)(p->got_base + d);
            return true;
        }
    }
    return false;
}

static void scan_plt(struct plt_scan *p, const struct elf_shdr *sh, const char *secname,
                     uint64_t esz)
{
    if (sh->type != SHT_PROGBITS || !elf_in_image(sh->offset, sh->size, p->size))
        return;
    bool first_named = false;
    for (uint64_t off = 0; off + esz <= sh->size; off += esz) {
        uint64_t slot;
        const char *name;
        if (entry_slot(p, p->img + sh->offset + off, sh->addr + off, esz, &slot) &&
            (name = reloc_at(p, slot))) {
            if (!add(p, sh->addr + off, esz, name, "@plt"))
                return;
            first_named |= off == 0;
        }
    }
    if (!first_named)
        add(p, sh->addr, sh->size, secname, "");
}

size_t plt_syms(const uint8_t *img, size_t size, struct plt_sym **out)
{
    *out = NULL;
    if (size < 52 || memcmp(img, ELFMAG, SELFMAG) != 0)
        return 0;
    struct plt_scan p = { .img = img, .size = size, .is64 = img[EI_CLASS] == ELFCLASS64 };
    if (p.is64 && size < sizeof(Elf64_Ehdr))
        return 0;
    uint64_t shoff = elf_rd(img + (p.is64 ? 40 : 32), p.is64 ? 8 : 4);
    unsigned shentsize = elf_rd16(img + (p.is64 ? 58 : 46));
    unsigned shnum = elf_rd16(img + (p.is64 ? 60 : 48));
    unsigned shstrndx = elf_rd16(img + (p.is64 ? 62 : 50));
    struct elf_shdr strs;
    if (shnum > 4096 || !elf_section(img, size, p.is64, shoff, shentsize, shstrndx, &strs) ||
        !elf_in_image(strs.offset, strs.size, size) || strs.size == 0)
        return 0;
    const char *names = (const char *)img + strs.offset;
    /* (on the heap: a tool looks symbols up on guest threads' stacks too) */
    struct elf_shdr *sec = calloc(shnum, sizeof(*sec));
    const char **secname = calloc(shnum, sizeof(*secname));
    uint64_t got = 0, got_plt = 0;
    for (unsigned i = 0; i < shnum; i++) {
        if (!sec || !secname || !elf_section(img, size, p.is64, shoff, shentsize, i, &sec[i])) {
            free(sec);
            free(secname);
            return 0;
        }
        bool named = sec[i].name < strs.size && memchr(names + sec[i].name, 0,
                                                       strs.size - sec[i].name);
        secname[i] = named ? names + sec[i].name : "";
        if (!strcmp(secname[i], ".got"))
            got = sec[i].addr;
        else if (!strcmp(secname[i], ".got.plt"))
            got_plt = sec[i].addr;
    }
    p.got_base = got_plt ? got_plt : got;
    for (unsigned i = 0; i < shnum; i++) {
        const struct elf_shdr *s = &sec[i];
        if ((s->type == SHT_REL || s->type == SHT_RELA) && s->link < shnum &&
            sec[s->link].type == SHT_DYNSYM && sec[s->link].link < shnum)
            read_relocs(&p, s, &sec[s->link], &sec[sec[s->link].link]);
    }
    for (unsigned i = 0; i < shnum && p.nrel; i++) {
        if (!strcmp(secname[i], ".plt") || !strcmp(secname[i], ".plt.sec"))
            scan_plt(&p, &sec[i], secname[i], 16);
        else if (!strcmp(secname[i], ".plt.got"))
            scan_plt(&p, &sec[i], secname[i], sec[i].entsize == 16 ? 16 : 8);
    }
    free(p.rel);
    free(sec);
    free(secname);
    *out = p.out;
    return p.n;
}

void plt_syms_free(struct plt_sym *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}
