/* elfemu-view: the initial-stack figure's model (see stackfig.h).  The
 * slots are found the way a libc's _start finds them (argc at the stack
 * pointer, argv, envp, auxv) plus what the load record says about the data
 * above auxv; the strings are found through the pointers to them. */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/view/stackfig.h"

struct builder {
    struct stackfig *f;
    size_t cap;
    elfemu *vm;
    unsigned w;     /* the guest's word: 8 or 4 */
};

static uint64_t word_at(const struct builder *b, uint64_t addr)
{
    uint64_t v = 0;
    elfemu_read(b->vm, addr, &v, b->w);
    return v;
}

static struct stackfig_slot *add(struct builder *b, uint64_t addr, uint64_t size,
                                 enum stackfig_kind kind, enum stackfig_band band)
{
    if (b->f->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        struct stackfig_slot *s = realloc(b->f->slots, cap * sizeof(*s));
        if (!s)
            return NULL;
        b->f->slots = s;
        b->cap = cap;
    }
    struct stackfig_slot *s = &b->f->slots[b->f->n++];
    memset(s, 0, sizeof(*s));
    s->addr = addr;
    s->size = size;
    s->kind = kind;
    s->band = band;
    s->target = -1;
    return s;
}

/* The guest string at addr as 'text\0', shortened; its length with the NUL. */
static uint64_t quote(const struct builder *b, uint64_t addr, char *out, size_t size)
{
    size_t n = 0;
    uint64_t len = 0;
    out[n++] = '\'';
    for (;; len++) {
        unsigned char ch;
        if (elfemu_read(b->vm, addr + len, &ch, 1) != 0)
            break;
        if (ch == 0) {
            len++;
            break;
        }
        if (n + 8 < size && n < 56)
            out[n++] = (ch >= 32 && ch < 127) ? (char)ch : '?';
        else if (n + 8 < size && out[n - 1] != '.')
            n += (size_t)snprintf(out + n, size - n, "...");
    }
    snprintf(out + n, size - n, "\\0'");
    return len;
}

/* A string slot for the pointer value, unless one is there already. */
static int add_string(struct builder *b, uint64_t addr, enum stackfig_kind kind, unsigned index)
{
    for (size_t i = 0; i < b->f->n; i++)
        if (b->f->slots[i].addr == addr && b->f->slots[i].band == SF_BAND_STRINGS)
            return 0;
    struct stackfig_slot *s = add(b, addr, 0, kind, SF_BAND_STRINGS);
    if (!s)
        return -1;
    s->index = index;
    s->size = quote(b, addr, s->text, sizeof(s->text));
    return 0;
}

static int add_pointers(struct builder *b, uint64_t base, unsigned count, enum stackfig_kind kind,
                        enum stackfig_kind null_kind, const char *name)
{
    for (unsigned i = 0; i <= count; i++) {
        uint64_t v = word_at(b, base + (uint64_t)i * b->w);
        struct stackfig_slot *s = add(b, base + (uint64_t)i * b->w, b->w,
                                      i < count ? kind : null_kind, SF_BAND_POINTERS);
        if (!s)
            return -1;
        s->index = i;
        s->value = v;
        if (v)
            snprintf(s->text, sizeof(s->text), "%s[%u]=%#" PRIx64, name, i, v);
        else
            snprintf(s->text, sizeof(s->text), "%s[%u]=(nil)", name, i);
    }
    return 0;
}

static int add_auxv(struct builder *b, const elfemu_load_info *li)
{
    for (unsigned i = 0; i < li->nauxv; i++) {
        uint64_t a = li->auxv_addr + (uint64_t)i * 2 * b->w;
        struct stackfig_slot *s = add(b, a, 2 * b->w, SF_AUXV, SF_BAND_AUXV);
        if (!s)
            return -1;
        s->index = i;
        s->aux_type = word_at(b, a);
        s->value = word_at(b, a + b->w);
        const char *name = elfemu_auxv_name(s->aux_type);
        /* Counts and ids in decimal as in the seed's figure, the rest in hex. */
        uint64_t t = s->aux_type;
        int decimal = t == AT_PHENT || t == AT_PHNUM || t == AT_PAGESZ || t == AT_CLKTCK ||
                      t == AT_UID || t == AT_EUID || t == AT_GID || t == AT_EGID ||
                      t == AT_SECURE || t == AT_FLAGS || t == AT_NULL || t == 51;
        snprintf(s->text, sizeof(s->text),
                 decimal ? "%s(%" PRIu64 ")=%" PRIu64 : "%s(%" PRIu64 ")=%#" PRIx64,
                 name ? name : "AT_?", t, s->value);
    }
    return 0;
}

/* Fill a hole [lo, hi) that no slot covers, named for where it is. */
static int add_hole(struct builder *b, uint64_t lo, uint64_t hi, const elfemu_load_info *li)
{
    enum stackfig_kind kind;
    enum stackfig_band band;
    const char *what;
    if (lo >= li->stack_top - 8) {
        kind = SF_END_MARKER, band = SF_BAND_STRINGS, what = "end marker (a NULL pointer)";
    } else if (lo >= li->platform_addr) {
        kind = SF_ALIGN_GAP, band = SF_BAND_STRINGS,
        what = "gap (arch_align_stack)";
    } else {
        kind = SF_PADDING, band = SF_BAND_AUXV_DATA, what = "zero padding to align the stack";
    }
    struct stackfig_slot *s = add(b, lo, hi - lo, kind, band);
    if (!s)
        return -1;
    if (kind == SF_END_MARKER)
        snprintf(s->text, sizeof(s->text), "%s", what);
    else
        snprintf(s->text, sizeof(s->text), "%" PRIu64 " byte%s of %s", hi - lo,
                 hi - lo == 1 ? "" : "s", what);
    return 0;
}

static int by_address_down(const void *x, const void *y)
{
    const struct stackfig_slot *a = x, *b = y;
    return a->addr < b->addr ? 1 : a->addr > b->addr ? -1 : 0;
}

int stackfig_is_pointer(const struct stackfig_slot *s)
{
    if (s->kind == SF_ARGV || s->kind == SF_ENVP)
        return 1;
    if (s->kind != SF_AUXV)
        return 0;
    switch (s->aux_type) {
    case AT_SYSINFO_EHDR: case AT_SYSINFO: case AT_PHDR: case AT_BASE: case AT_ENTRY:
    case AT_RANDOM: case AT_EXECFN: case AT_PLATFORM:
        return s->value != 0;
    }
    return 0;
}

int stackfig_find(const struct stackfig *f, uint64_t addr)
{
    for (size_t i = 0; i < f->n; i++)
        if (addr >= f->slots[i].addr && addr < f->slots[i].addr + f->slots[i].size)
            return (int)i;
    return -1;
}

int stackfig_build(struct stackfig *f, elfemu *vm, const elfemu_load_info *li)
{
    memset(f, 0, sizeof(*f));
    struct builder b = { f, 0, vm, li->bits == 64 ? 8u : 4u };
    f->bits = li->bits;
    f->top = li->stack_top;
    f->sp = li->sp;
    uint64_t check;
    if (elfemu_read(vm, li->sp, &check, b.w) != 0)
        return -1;

    /* The pointer area, bottom up: argc, argv, envp, auxv. */
    struct stackfig_slot *argc = add(&b, li->sp, b.w, SF_ARGC, SF_BAND_POINTERS);
    if (!argc)
        goto fail;
    argc->value = word_at(&b, li->sp);
    snprintf(argc->text, sizeof(argc->text), "argc=%" PRIu64, argc->value);
    if (add_pointers(&b, li->argv_addr, li->argc, SF_ARGV, SF_ARGV_NULL, "argv") ||
        add_pointers(&b, li->envp_addr, li->envc, SF_ENVP, SF_ENVP_NULL, "envp") ||
        add_auxv(&b, li))
        goto fail;

    /* The data above auxv. */
    struct stackfig_slot *s = add(&b, li->random_addr, 16, SF_RANDOM, SF_BAND_AUXV_DATA);
    if (!s)
        goto fail;
    uint8_t rnd[16] = { 0 };
    elfemu_read(vm, li->random_addr, rnd, sizeof(rnd));
    int n = snprintf(s->text, sizeof(s->text), "random data: ");
    for (int i = 0; i < 16; i++)
        n += snprintf(s->text + n, sizeof(s->text) - (size_t)n, "%02x", rnd[i]);
    if (!(s = add(&b, li->platform_addr, 0, SF_PLATFORM, SF_BAND_AUXV_DATA)))
        goto fail;
    s->size = quote(&b, li->platform_addr, s->text, sizeof(s->text));

    /* The strings, through the pointers to them. */
    size_t npointers = f->n;
    for (size_t i = 0; i < npointers; i++) {
        struct stackfig_slot p = f->slots[i];
        if ((p.kind == SF_ARGV || p.kind == SF_ENVP) && p.value >= li->strings_low &&
            p.value < li->stack_top &&
            add_string(&b, p.value, p.kind == SF_ARGV ? SF_ARG_STRING : SF_ENV_STRING, p.index))
            goto fail;
    }
    if (add_string(&b, li->execfn_addr, SF_EXECFN, 0))
        goto fail;

    /* Whatever no slot covers between the stack pointer and the top. */
    qsort(f->slots, f->n, sizeof(*f->slots), by_address_down);
    uint64_t above = li->stack_top;
    size_t known = f->n;
    for (size_t i = 0; i < known; i++) {
        uint64_t end = f->slots[i].addr + f->slots[i].size;
        if (end < above && add_hole(&b, end, above, li))
            goto fail;
        if (f->slots[i].addr < above)
            above = f->slots[i].addr;
    }
    qsort(f->slots, f->n, sizeof(*f->slots), by_address_down);

    /* The arrows: each pointer to the slot it points into. */
    for (size_t i = 0; i < f->n; i++)
        if (stackfig_is_pointer(&f->slots[i]))
            f->slots[i].target = stackfig_find(f, f->slots[i].value);
    return 0;
fail:
    stackfig_free(f);
    return -1;
}

void stackfig_free(struct stackfig *f)
{
    free(f->slots);
    f->slots = NULL;
    f->n = 0;
}
