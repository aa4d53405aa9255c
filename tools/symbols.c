/* Symbols of the guest's code for the tools (--trace, elfemu-difftest):
 * "name+0x12" for a guest address, and where a function is.
 *
 * Every executable mapping of the guest is a module: its file (the name in
 * the emulator's mapping list) and the file offset give, through the
 * file's PT_LOAD headers, the file's own virtual address, and its .symtab
 * (else .dynsym) names it, with `name@plt` for its PLT entries
 * (tools/symbols_plt.c).  The vDSO is read from guest memory.  A small
 * ELF32/ELF64 reader, with every offset checked against the image size. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/elfread.h"
#include "tools/symbols.h"
#include "tools/symbols_plt.h"

struct sym {
    uint64_t value, size;
    const char *name; /* points into the owned string table copy */
};

struct symfile {
    char name[256];
    struct sym *v;
    size_t n;
    char *strtab;
    struct plt_sym *plt;    /* the PLT entries' names (f->v points at them too) */
    size_t nplt;
    struct { uint64_t off, vaddr, filesz; } load[16];
    unsigned nload;
};

/* One executable mapping. */
struct module {
    uint64_t start, end, offset;
    struct symfile *file;
    bool vdso;
};

struct syms {
    elfemu *vm;
    struct symfile **files;
    unsigned nfiles;
    struct module *mods;
    unsigned nmods;
    bool stale;             /* the mappings changed since the last scan */
    unsigned last;          /* the module of the last lookup */
};

static int sym_cmp(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

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
    uint64_t phoff = elf_rd(img + (is64 ? 32 : 28), w), shoff = elf_rd(img + (is64 ? 40 : 32), w);
    unsigned phentsize = elf_rd16(img + (is64 ? 54 : 42)), phnum = elf_rd16(img + (is64 ? 56 : 44));
    unsigned shentsize = elf_rd16(img + (is64 ? 58 : 46)), shnum = elf_rd16(img + (is64 ? 60 : 48));

    for (unsigned i = 0; i < phnum && f->nload < 16; i++) {
        uint64_t o = phoff + (uint64_t)i * phentsize;
        if (phentsize < (is64 ? 56u : 32u) || !elf_in_image(o, phentsize, size))
            break;
        const uint8_t *p = img + o;
        if (elf_rd32(p) != PT_LOAD)
            continue;
        /* ELF64: type flags offset vaddr paddr filesz; ELF32: type offset vaddr paddr filesz. */
        f->load[f->nload].off = is64 ? elf_rd(p + 8, 8) : elf_rd32(p + 4);
        f->load[f->nload].vaddr = is64 ? elf_rd(p + 16, 8) : elf_rd32(p + 8);
        f->load[f->nload].filesz = is64 ? elf_rd(p + 32, 8) : elf_rd32(p + 16);
        f->nload++;
    }

    if (shentsize < (is64 ? 64u : 40u) || !elf_in_image(shoff, (uint64_t)shnum * shentsize, size))
        return;
    const uint8_t *symsec = NULL;
    for (unsigned pass = 0; pass < 2 && !symsec; pass++)
        for (unsigned i = 0; i < shnum; i++) {
            const uint8_t *s = img + shoff + (uint64_t)i * shentsize;
            if (elf_rd32(s + 4) == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM)) {
                symsec = s;
                break;
            }
        }
    if (!symsec)
        return;
    /* Section header: name type flags addr offset size link info align entsize. */
    uint64_t off = elf_rd(symsec + (is64 ? 24 : 16), w), ssize = elf_rd(symsec + (is64 ? 32 : 20), w);
    unsigned link = elf_rd32(symsec + (is64 ? 40 : 24));
    uint64_t entsize = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    if (link >= shnum || !elf_in_image(off, ssize, size))
        return;
    const uint8_t *str = img + shoff + (uint64_t)link * shentsize;
    uint64_t stroff = elf_rd(str + (is64 ? 24 : 16), w), strsize = elf_rd(str + (is64 ? 32 : 20), w);
    if (!elf_in_image(stroff, strsize, size) || strsize == 0)
        return;
    f->strtab = malloc(strsize + 1);
    f->v = calloc(ssize / entsize + 1, sizeof(*f->v));
    if (!f->strtab || !f->v)
        return;
    memcpy(f->strtab, img + stroff, strsize);
    f->strtab[strsize] = 0;
    for (uint64_t o = 0; o + entsize <= ssize; o += entsize) {
        const uint8_t *s = img + off + o;
        uint32_t name = elf_rd32(s);
        uint64_t value = is64 ? elf_rd(s + 8, 8) : elf_rd32(s + 4);
        uint64_t sz = is64 ? elf_rd(s + 16, 8) : elf_rd32(s + 8);
        unsigned info = is64 ? s[4] : s[12];
        unsigned shndx = is64 ? elf_rd16(s + 6) : elf_rd16(s + 14);
        unsigned type = info & 0xf;
        if (!value || !name || name >= strsize || shndx == SHN_UNDEF ||
            (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT &&
             type != STT_GNU_IFUNC))
            continue;
        if (!f->strtab[name] || f->strtab[name] == '$')
            continue;
        f->v[f->n++] = (struct sym){ value, sz, f->strtab + name };
    }
}

/* The PLT entries' names join the symbols. */
static void add_plt(const uint8_t *img, size_t size, struct symfile *f)
{
    f->nplt = plt_syms(img, size, &f->plt);
    struct sym *v = f->nplt ? realloc(f->v, (f->n + f->nplt) * sizeof(*v)) : NULL;
    if (!v)
        return;
    f->v = v;
    for (size_t i = 0; i < f->nplt; i++)
        f->v[f->n++] = (struct sym){ f->plt[i].value, f->plt[i].size, f->plt[i].name };
}


static struct symfile *load_file(struct syms *s, const elfemu_map *m)
{
    for (unsigned i = 0; i < s->nfiles; i++)
        if (!strcmp(s->files[i]->name, m->name))
            return s->files[i];
    struct symfile *f = calloc(1, sizeof(*f));
    struct symfile **v = realloc(s->files, (s->nfiles + 1) * sizeof(*v));
    if (!f || !v) {
        free(f);
        if (v)
            s->files = v;
        return NULL;
    }
    s->files = v;
    s->files[s->nfiles++] = f;
    snprintf(f->name, sizeof(f->name), "%s", m->name);
    uint8_t *img = NULL;
    size_t size = 0;
    if (!strcmp(m->name, "[vdso]")) {
        size = (size_t)(m->end - m->start);
        img = malloc(size);
        if (img && elfemu_read(s->vm, m->start, img, size) != 0)
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
    if (img && size) {
        parse(img, size, f);
        add_plt(img, size, f);
        if (f->n)
            qsort(f->v, f->n, sizeof(*f->v), sym_cmp);
    }
    free(img);
    return f;
}

struct syms *syms_new(elfemu *vm)
{
    struct syms *s = calloc(1, sizeof(*s));
    if (s) {
        s->vm = vm;
        s->stale = true;
    }
    return s;
}

void syms_free(struct syms *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->nfiles; i++) {
        free(s->files[i]->v);
        free(s->files[i]->strtab);
        plt_syms_free(s->files[i]->plt, s->files[i]->nplt);
        free(s->files[i]);
    }
    free(s->files);
    free(s->mods);
    free(s);
}

void syms_changed(struct syms *s)
{
    s->stale = true;
}

/* The executable mappings now, each with its file's symbols. */
static void scan(struct syms *s)
{
    s->stale = false;
    s->nmods = 0;
    s->last = 0;
    size_t n = elfemu_maps(s->vm, NULL, 0);
    elfemu_map *maps = calloc(n + 8, sizeof(*maps));
    if (!maps)
        return;
    n = elfemu_maps(s->vm, maps, n + 8);
    struct module *mods = realloc(s->mods, (n + 1) * sizeof(*mods));
    if (!mods) {
        free(maps);
        return;
    }
    s->mods = mods;
    for (size_t i = 0; i < n; i++) {
        const elfemu_map *m = &maps[i];
        if (!(m->prot & 4 /* PROT_EXEC */) || !m->name[0])
            continue;
        struct symfile *f = load_file(s, m);
        if (f)
            mods[s->nmods++] = (struct module){ m->start, m->end, m->offset, f,
                                                !strcmp(m->name, "[vdso]") };
    }
    free(maps);
}

static const struct module *module_at(struct syms *s, uint64_t addr)
{
    if (s->stale)
        scan(s);
    if (s->last < s->nmods && s->mods[s->last].start <= addr && addr < s->mods[s->last].end)
        return &s->mods[s->last];
    for (unsigned i = 0; i < s->nmods; i++)
        if (s->mods[i].start <= addr && addr < s->mods[i].end) {
            s->last = i;
            return &s->mods[i];
        }
    return NULL;
}

static unsigned underscores(const char *n)
{
    unsigned k = 0;
    while (n[k] == '_')
        k++;
    return k;
}

/* Of two symbols at the same address, whether a names va better than b. */
static bool better(const struct sym *a, const struct sym *b, uint64_t va)
{
    bool ca = a->size && va - a->value < a->size, cb = b->size && va - b->value < b->size;
    if (ca != cb)
        return ca;
    unsigned ua = underscores(a->name), ub = underscores(b->name);
    if (ua != ub)
        return ua < ub;
    bool ia = !strncmp(a->name, "_IO_", 4), ib = !strncmp(b->name, "_IO_", 4);
    if (ia != ib)
        return ib;
    return strlen(a->name) < strlen(b->name);
}

/* The symbol covering file virtual address va, or NULL. */
static const struct sym *sym_at(const struct symfile *f, uint64_t va)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) { /* the last symbol with value <= va */
        size_t mid = (lo + hi) / 2;
        if (f->v[mid].value <= va)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    /* Among symbols at the same address prefer one whose size covers va,
     * then the public name (printf over _IO_printf, memcpy over __memcpy). */
    size_t best = lo - 1;
    for (size_t j = lo; j-- > 0 && f->v[j].value == f->v[lo - 1].value;)
        if (better(&f->v[j], &f->v[best], va))
            best = j;
    const struct sym *sy = &f->v[best];
    if (sy->size && va - sy->value >= sy->size)
        return NULL;
    return sy;
}

bool syms_find(struct syms *s, uint64_t addr, const char **name, uint64_t *offset)
{
    const struct module *m = module_at(s, addr);
    if (!m || !m->file->n)
        return false;
    const struct symfile *f = m->file;
    uint64_t foff = (m->vdso ? 0 : m->offset) + (addr - m->start);
    for (unsigned i = 0; i < f->nload; i++) {
        if (foff < f->load[i].off || foff - f->load[i].off >= f->load[i].filesz)
            continue;
        const struct sym *sy = sym_at(f, f->load[i].vaddr + (foff - f->load[i].off));
        if (!sy)
            return false;
        *name = sy->name;
        *offset = f->load[i].vaddr + (foff - f->load[i].off) - sy->value;
        return true;
    }
    return false;
}

size_t syms_format(struct syms *s, uint64_t addr, char *out, size_t size)
{
    const char *name;
    uint64_t off;
    if (!syms_find(s, addr, &name, &off)) {
        if (size)
            out[0] = 0;
        return 0;
    }
    int n = off ? snprintf(out, size, "%s+%#llx", name, (unsigned long long)off)
                : snprintf(out, size, "%s", name);
    return n < 0 ? 0 : (size_t)n;
}

size_t syms_addresses(struct syms *s, const char *name, uint64_t *out, size_t max)
{
    if (s->stale)
        scan(s);
    size_t n = 0;
    for (unsigned i = 0; i < s->nmods; i++) {
        const struct module *m = &s->mods[i];
        const struct symfile *f = m->file;
        for (size_t j = 0; j < f->n; j++) {
            if (strcmp(f->v[j].name, name))
                continue;
            /* Its file offset, then where this mapping put it. */
            for (unsigned k = 0; k < f->nload; k++) {
                uint64_t va = f->v[j].value;
                if (va < f->load[k].vaddr || va - f->load[k].vaddr >= f->load[k].filesz)
                    continue;
                uint64_t foff = f->load[k].off + (va - f->load[k].vaddr);
                uint64_t base = m->vdso ? 0 : m->offset;
                if (foff >= base && foff - base < m->end - m->start && n < max)
                    out[n++] = m->start + (foff - base);
                break;
            }
        }
    }
    return n;
}

bool syms_maps_call(int bits, uint64_t nr)
{
    if (bits == 64)
        return nr == 9 || nr == 10 || nr == 11 || nr == 25;
    /* mmap, mmap2, munmap, mprotect, mremap */
    return nr == 90 || nr == 192 || nr == 91 || nr == 125 || nr == 163;
}
