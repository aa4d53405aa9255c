/* Symbols for the report: "name+0x12" for a guest address.
 *
 * The address's mapping gives the file (its name in the emulator's mapping
 * list) and the file offset; the file's PT_LOAD headers turn that into the
 * file's own virtual address, and its .symtab (else .dynsym) names it.  The
 * vDSO is read from guest memory.  A small ELF32/ELF64 reader, with every
 * offset checked against the image size. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/difftest/difftest.h"

struct sym {
    uint64_t value, size;
    const char *name; /* points into the owned string table copy */
};

struct symfile {
    char name[256];
    struct sym *v;
    size_t n;
    char *strtab;
    struct { uint64_t off, vaddr, filesz; } load[16];
    unsigned nload;
};

#define MAX_FILES 32
static struct symfile files[MAX_FILES];
static unsigned nfiles;

static int sym_cmp(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

static bool in_image(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* Read a field of width 4 or 8 at p. */
static uint64_t rd(const uint8_t *p, int w)
{
    if (w == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd(p, 4); }
static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/* Parse an ELF image's PT_LOADs and symbols into f. */
static void parse(const uint8_t *img, size_t size, struct symfile *f)
{
    if (size < 52 || memcmp(img, ELFMAG, SELFMAG) != 0)
        return;
    bool is64 = img[EI_CLASS] == ELFCLASS64;
    if (is64 && size < sizeof(Elf64_Ehdr))
        return;
    int w = is64 ? 8 : 4;
    /* Offsets of the header fields we need, ELF64 / ELF32. */
    uint64_t phoff = rd(img + (is64 ? 32 : 28), w), shoff = rd(img + (is64 ? 40 : 32), w);
    unsigned phentsize = rd16(img + (is64 ? 54 : 42)), phnum = rd16(img + (is64 ? 56 : 44));
    unsigned shentsize = rd16(img + (is64 ? 58 : 46)), shnum = rd16(img + (is64 ? 60 : 48));

    for (unsigned i = 0; i < phnum && f->nload < 16; i++) {
        uint64_t o = phoff + (uint64_t)i * phentsize;
        if (phentsize < (is64 ? 56u : 32u) || !in_image(o, phentsize, size))
            break;
        const uint8_t *p = img + o;
        if (rd32(p) != PT_LOAD)
            continue;
        /* ELF64: type flags offset vaddr paddr filesz; ELF32: type offset vaddr paddr filesz. */
        f->load[f->nload].off = is64 ? rd(p + 8, 8) : rd32(p + 4);
        f->load[f->nload].vaddr = is64 ? rd(p + 16, 8) : rd32(p + 8);
        f->load[f->nload].filesz = is64 ? rd(p + 32, 8) : rd32(p + 16);
        f->nload++;
    }

    if (shentsize < (is64 ? 64u : 40u) || !in_image(shoff, (uint64_t)shnum * shentsize, size))
        return;
    const uint8_t *symsec = NULL;
    for (unsigned pass = 0; pass < 2 && !symsec; pass++)
        for (unsigned i = 0; i < shnum; i++) {
            const uint8_t *s = img + shoff + (uint64_t)i * shentsize;
            if (rd32(s + 4) == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM)) {
                symsec = s;
                break;
            }
        }
    if (!symsec)
        return;
    /* Section header: name type flags addr offset size link info align entsize. */
    uint64_t off = rd(symsec + (is64 ? 24 : 16), w), ssize = rd(symsec + (is64 ? 32 : 20), w);
    unsigned link = rd32(symsec + (is64 ? 40 : 24));
    uint64_t entsize = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    if (link >= shnum || !in_image(off, ssize, size))
        return;
    const uint8_t *str = img + shoff + (uint64_t)link * shentsize;
    uint64_t stroff = rd(str + (is64 ? 24 : 16), w), strsize = rd(str + (is64 ? 32 : 20), w);
    if (!in_image(stroff, strsize, size) || strsize == 0)
        return;
    f->strtab = malloc(strsize + 1);
    f->v = calloc(ssize / entsize + 1, sizeof(*f->v));
    if (!f->strtab || !f->v)
        return;
    memcpy(f->strtab, img + stroff, strsize);
    f->strtab[strsize] = 0;
    for (uint64_t o = 0; o + entsize <= ssize; o += entsize) {
        const uint8_t *s = img + off + o;
        uint32_t name = rd32(s);
        uint64_t value = is64 ? rd(s + 8, 8) : rd32(s + 4);
        uint64_t sz = is64 ? rd(s + 16, 8) : rd32(s + 8);
        unsigned info = is64 ? s[4] : s[12];
        unsigned shndx = is64 ? rd16(s + 6) : rd16(s + 14);
        unsigned type = info & 0xf;
        if (!value || !name || name >= strsize || shndx == SHN_UNDEF ||
            (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT &&
             type != STT_GNU_IFUNC))
            continue;
        if (!f->strtab[name] || f->strtab[name] == '$')
            continue;
        f->v[f->n++] = (struct sym){ value, sz, f->strtab + name };
    }
    qsort(f->v, f->n, sizeof(*f->v), sym_cmp);
}

static struct symfile *load_file(elfemu *vm, const elfemu_map *m)
{
    for (unsigned i = 0; i < nfiles; i++)
        if (!strcmp(files[i].name, m->name))
            return &files[i];
    if (nfiles == MAX_FILES)
        return NULL;
    struct symfile *f = &files[nfiles++];
    memset(f, 0, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "%s", m->name);
    uint8_t *img = NULL;
    size_t size = 0;
    if (!strcmp(m->name, "[vdso]")) {
        size = (size_t)(m->end - m->start);
        img = malloc(size);
        if (img && elfemu_read(vm, m->start, img, size) != 0)
            size = 0;
    } else if (m->name[0] == '/' || m->name[0] == '.' || strchr(m->name, '/')) {
        FILE *fp = fopen(m->name, "rb");
        if (fp && fseek(fp, 0, SEEK_END) == 0) {
            long l = ftell(fp);
            if (l > 0 && l < (1l << 30) && (img = malloc((size_t)l)) && fseek(fp, 0, SEEK_SET) == 0)
                size = fread(img, 1, (size_t)l, fp);
        }
        if (fp)
            fclose(fp);
    }
    if (img && size)
        parse(img, size, f);
    free(img);
    return f;
}

const char *syms_lookup(elfemu *vm, uint64_t addr)
{
    static char out[320];
    out[0] = 0;
    struct dt_maps maps;
    if (dt_maps_get(vm, &maps) != 0)
        return out;
    const elfemu_map *m = NULL;
    for (size_t i = 0; i < maps.n && !m; i++)
        if (maps.v[i].start <= addr && addr < maps.v[i].end)
            m = &maps.v[i];
    struct symfile *f = m && m->name[0] ? load_file(vm, m) : NULL;
    if (f && f->n) {
        uint64_t foff = (strcmp(m->name, "[vdso]") ? m->offset : 0) + (addr - m->start);
        for (unsigned i = 0; i < f->nload; i++) {
            if (foff < f->load[i].off || foff - f->load[i].off >= f->load[i].filesz)
                continue;
            uint64_t va = f->load[i].vaddr + (foff - f->load[i].off);
            size_t lo = 0, hi = f->n;
            while (lo < hi) { /* the last symbol with value <= va */
                size_t mid = (lo + hi) / 2;
                if (f->v[mid].value <= va)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == 0)
                break;
            /* Among symbols at the same address prefer one whose size covers va. */
            size_t best = lo - 1;
            for (size_t j = lo; j-- > 0 && f->v[j].value == f->v[lo - 1].value;)
                if (f->v[j].size && va - f->v[j].value < f->v[j].size)
                    best = j;
            const struct sym *s = &f->v[best];
            if (s->size && va - s->value >= s->size)
                break;
            if (va == s->value)
                snprintf(out, sizeof(out), "%s", s->name);
            else
                snprintf(out, sizeof(out), "%s+%#llx", s->name,
                         (unsigned long long)(va - s->value));
            break;
        }
    }
    dt_maps_free(&maps);
    return out;
}

void syms_free(void)
{
    for (unsigned i = 0; i < nfiles; i++) {
        free(files[i].v);
        free(files[i].strtab);
    }
    nfiles = 0;
}
