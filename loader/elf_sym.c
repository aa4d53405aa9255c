/* Dynamic-symbol lookup in an untrusted in-memory ELF image.
 *
 * The steps are those of a dynamic linker resolving one symbol in one
 * object (glibc: _dl_setup_hash + do_lookup_x + check_match): find
 * PT_DYNAMIC, read the table addresses from it, hash the name, walk the
 * bucket chain and compare names, then compare versions through DT_VERSYM
 * and DT_VERDEF.
 *
 * Nothing in the image is trusted.  All reads go through rd_field(), which
 * checks the span against the image size with 64-bit arithmetic that
 * cannot wrap, and assembles little-endian values byte by byte (so the
 * image may be unaligned).  Every loop is bounded by a count taken from
 * the image and by the reads themselves failing at its end. */
#include "loader/elf_sym.h"

#include <elf.h>
#include <stdbool.h>
#include <string.h>

struct elf_img {
    const unsigned char *p;
    uint64_t size;
    bool is64;
    uint64_t phoff; /* program header table, checked to lie in the image */
    unsigned phnum;
};

/* What the dynamic section says.  Table positions are file offsets
 * (already translated from addresses); `have` has a bit per DT_ tag. */
struct elf_dyn {
    uint64_t symtab, syment, strtab, strsz, hash, gnu_hash;
    uint64_t versym, verdef, verdefnum, soname;
    unsigned have;
};

enum {
    HAVE_SYMTAB = 1 << 0,
    HAVE_STRTAB = 1 << 1,
    HAVE_STRSZ = 1 << 2,
    HAVE_SYMENT = 1 << 3,
    HAVE_HASH = 1 << 4,
    HAVE_GNU_HASH = 1 << 5,
    HAVE_VERSYM = 1 << 6,
    HAVE_VERDEF = 1 << 7,
    HAVE_VERDEFNUM = 1 << 8,
    HAVE_SONAME = 1 << 9,
};

/* One dynamic symbol, class-independent. */
struct elf_sym {
    uint32_t name;
    unsigned char info;
    uint16_t shndx;
    uint64_t value;
};

/* ---------------------------------------------------------------- reads */

static bool span_ok(const struct elf_img *img, uint64_t off, uint64_t len)
{
    return off <= img->size && len <= img->size - off;
}

/* Read the len-byte (len <= 8) little-endian field at base + field_off. */
static bool rd_field(const struct elf_img *img, uint64_t base, uint64_t field_off,
                     size_t len, uint64_t *out)
{
    if (base > UINT64_MAX - field_off)
        return false;
    uint64_t off = base + field_off;
    if (!span_ok(img, off, len))
        return false;
    uint64_t v = 0;
    for (size_t i = len; i-- > 0;)
        v = v << 8 | img->p[off + i];
    *out = v;
    return true;
}

/* Read field `f` of the <elf.h> structure `T` found at offset `base`. */
#define RD(img, base, T, f, out) \
    rd_field((img), (base), offsetof(T, f), sizeof(((T *)0)->f), (out))
/* The same for a structure whose layout depends on the class: S is the
 * name without its Elf32_/Elf64_ prefix. */
#define RD_CLASS(img, base, S, f, out)                                     \
    ((img)->is64 ? RD((img), (base), Elf64_##S, f, (out))                  \
                 : RD((img), (base), Elf32_##S, f, (out)))

static bool rd_u32(const struct elf_img *img, uint64_t off, uint64_t *out)
{
    return rd_field(img, off, 0, 4, out);
}

/* ---------------------------------------------------------------- headers */

/* Check the ELF header (mirrors the first checks of load_elf_binary and
 * elf_check_arch) and locate the program header table. */
static bool img_open(struct elf_img *img, const void *image, size_t size)
{
    if (image == NULL)
        return false;
    img->p = image;
    img->size = size;
    if (size < EI_NIDENT || memcmp(img->p, ELFMAG, SELFMAG) != 0)
        return false;
    if (img->p[EI_CLASS] != ELFCLASS32 && img->p[EI_CLASS] != ELFCLASS64)
        return false;
    img->is64 = img->p[EI_CLASS] == ELFCLASS64;
    if (img->p[EI_DATA] != ELFDATA2LSB || img->p[EI_VERSION] != EV_CURRENT)
        return false;

    uint64_t type, machine, phoff, phentsize, phnum;
    if (!RD_CLASS(img, 0, Ehdr, e_type, &type) ||
        !RD_CLASS(img, 0, Ehdr, e_machine, &machine) ||
        !RD_CLASS(img, 0, Ehdr, e_phoff, &phoff) ||
        !RD_CLASS(img, 0, Ehdr, e_phentsize, &phentsize) ||
        !RD_CLASS(img, 0, Ehdr, e_phnum, &phnum))
        return false;
    if (type != ET_DYN && type != ET_EXEC)
        return false;
    /* The class decides the machine: ELFCLASS32 + EM_X86_64 is x32. */
    if (machine != (img->is64 ? EM_X86_64 : EM_386))
        return false;
    uint64_t entsize = img->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
    /* PN_XNUM would put the real count in section 0; no x86 object needs
     * that many program headers, so treat it as corrupt. */
    if (phentsize != entsize || phnum == 0 || phnum >= PN_XNUM)
        return false;
    if (!span_ok(img, phoff, phnum * entsize))
        return false;
    img->phoff = phoff;
    img->phnum = (unsigned)phnum;
    return true;
}

static uint64_t phdr_off(const struct elf_img *img, unsigned i)
{
    return img->phoff + (uint64_t)i * (img->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));
}

/* Translate the address `vaddr` (relative to the load base) to a file
 * offset through the PT_LOAD that holds it in its file-backed part. */
static bool vaddr_to_off(const struct elf_img *img, uint64_t vaddr, uint64_t *off)
{
    for (unsigned i = 0; i < img->phnum; i++) {
        uint64_t ph = phdr_off(img, i), type, offset, va, filesz;
        if (!RD_CLASS(img, ph, Phdr, p_type, &type) ||
            !RD_CLASS(img, ph, Phdr, p_offset, &offset) ||
            !RD_CLASS(img, ph, Phdr, p_vaddr, &va) ||
            !RD_CLASS(img, ph, Phdr, p_filesz, &filesz))
            return false;
        if (type != PT_LOAD || vaddr < va || vaddr - va >= filesz)
            continue;
        uint64_t delta = vaddr - va;
        if (offset > UINT64_MAX - delta || offset + delta >= img->size)
            return false;
        *off = offset + delta;
        return true;
    }
    return false;
}

/* ---------------------------------------------------------------- dynamic */

/* Record the value of one dynamic entry we care about.  The first entry
 * of a tag wins, as in glibc's elf_get_dynamic_info. */
static void dyn_note(struct elf_dyn *dyn, uint64_t tag, uint64_t val)
{
    uint64_t *slot;
    unsigned bit;
    switch (tag) {
    case DT_SYMTAB: slot = &dyn->symtab; bit = HAVE_SYMTAB; break;
    case DT_STRTAB: slot = &dyn->strtab; bit = HAVE_STRTAB; break;
    case DT_STRSZ: slot = &dyn->strsz; bit = HAVE_STRSZ; break;
    case DT_SYMENT: slot = &dyn->syment; bit = HAVE_SYMENT; break;
    case DT_HASH: slot = &dyn->hash; bit = HAVE_HASH; break;
    case DT_GNU_HASH: slot = &dyn->gnu_hash; bit = HAVE_GNU_HASH; break;
    case DT_VERSYM: slot = &dyn->versym; bit = HAVE_VERSYM; break;
    case DT_VERDEF: slot = &dyn->verdef; bit = HAVE_VERDEF; break;
    case DT_VERDEFNUM: slot = &dyn->verdefnum; bit = HAVE_VERDEFNUM; break;
    case DT_SONAME: slot = &dyn->soname; bit = HAVE_SONAME; break;
    default: return;
    }
    if (!(dyn->have & bit)) {
        dyn->have |= bit;
        *slot = val;
    }
}

/* Turn the address of table `bit` into a file offset in place. */
static bool dyn_translate(const struct elf_img *img, struct elf_dyn *dyn,
                          unsigned bit, uint64_t *addr)
{
    return !(dyn->have & bit) || vaddr_to_off(img, *addr, addr);
}

/* Read the dynamic section (the first PT_DYNAMIC) up to DT_NULL or the end
 * of the segment, then check what every lookup needs: a symbol table of
 * the class's entry size and a string table inside the image. */
static bool dyn_read(const struct elf_img *img, struct elf_dyn *dyn)
{
    memset(dyn, 0, sizeof *dyn);
    uint64_t dyn_off = 0, dyn_size = 0;
    bool found = false;
    for (unsigned i = 0; i < img->phnum && !found; i++) {
        uint64_t ph = phdr_off(img, i), type;
        if (!RD_CLASS(img, ph, Phdr, p_type, &type))
            return false;
        if (type != PT_DYNAMIC)
            continue;
        if (!RD_CLASS(img, ph, Phdr, p_offset, &dyn_off) ||
            !RD_CLASS(img, ph, Phdr, p_filesz, &dyn_size))
            return false;
        found = true;
    }
    if (!found || !span_ok(img, dyn_off, dyn_size))
        return false;

    uint64_t entsize = img->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
    for (uint64_t n = 0; n < dyn_size / entsize; n++) {
        uint64_t d = dyn_off + n * entsize, tag, val;
        if (!RD_CLASS(img, d, Dyn, d_tag, &tag) ||
            !RD_CLASS(img, d, Dyn, d_un.d_val, &val))
            return false;
        if (tag == DT_NULL)
            break;
        dyn_note(dyn, tag, val);
    }

    uint64_t sym_size = img->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    if ((dyn->have & (HAVE_SYMTAB | HAVE_STRTAB | HAVE_STRSZ)) !=
        (HAVE_SYMTAB | HAVE_STRTAB | HAVE_STRSZ))
        return false;
    if ((dyn->have & HAVE_SYMENT) && dyn->syment != sym_size)
        return false;
    dyn->syment = sym_size;
    if (!dyn_translate(img, dyn, HAVE_SYMTAB, &dyn->symtab) ||
        !dyn_translate(img, dyn, HAVE_STRTAB, &dyn->strtab) ||
        !dyn_translate(img, dyn, HAVE_HASH, &dyn->hash) ||
        !dyn_translate(img, dyn, HAVE_GNU_HASH, &dyn->gnu_hash) ||
        !dyn_translate(img, dyn, HAVE_VERSYM, &dyn->versym) ||
        !dyn_translate(img, dyn, HAVE_VERDEF, &dyn->verdef))
        return false;
    return span_ok(img, dyn->strtab, dyn->strsz);
}

/* ---------------------------------------------------------------- strings */

/* Does the string at index `idx` of the dynamic string table equal `s`?
 * Both the comparison and the terminating NUL stay inside DT_STRSZ. */
static bool str_eq(const struct elf_img *img, const struct elf_dyn *dyn,
                   uint64_t idx, const char *s)
{
    if (idx >= dyn->strsz)
        return false;
    size_t len = strlen(s);
    if (len >= dyn->strsz - idx)
        return false;
    const unsigned char *p = img->p + dyn->strtab + idx;
    return memcmp(p, s, len) == 0 && p[len] == '\0';
}

/* Point *out at the string at index `idx`, if it is terminated in time. */
static bool str_at(const struct elf_img *img, const struct elf_dyn *dyn,
                   uint64_t idx, const char **out)
{
    if (idx >= dyn->strsz)
        return false;
    const char *p = (const char *)img->p + dyn->strtab + idx;
    if (memchr(p, '\0', dyn->strsz - idx) == NULL)
        return false;
    *out = p;
    return true;
}

/* ---------------------------------------------------------------- symbols */

static bool sym_read(const struct elf_img *img, const struct elf_dyn *dyn,
                     uint64_t index, struct elf_sym *sym)
{
    if (index > (UINT64_MAX - dyn->symtab) / dyn->syment)
        return false;
    uint64_t s = dyn->symtab + index * dyn->syment, name, info, shndx;
    if (!RD_CLASS(img, s, Sym, st_name, &name) ||
        !RD_CLASS(img, s, Sym, st_info, &info) ||
        !RD_CLASS(img, s, Sym, st_shndx, &shndx) ||
        !RD_CLASS(img, s, Sym, st_value, &sym->value))
        return false;
    sym->name = (uint32_t)name;
    sym->info = (unsigned char)info;
    sym->shndx = (uint16_t)shndx;
    return true;
}

/* Is the version definition of symbol `index` the one named `version`?
 * Like glibc's check_match, compare both the name and the ELF hash kept
 * in the Verdef (glibc trusts vd_hash, so a wrong one must not pass). */
static bool version_matches(const struct elf_img *img, const struct elf_dyn *dyn,
                            uint64_t index, const char *version, uint32_t version_hash)
{
    if ((dyn->have & (HAVE_VERSYM | HAVE_VERDEF)) != (HAVE_VERSYM | HAVE_VERDEF))
        return false;
    uint64_t ndx;
    if (index > (UINT64_MAX - dyn->versym) / 2 ||
        !rd_field(img, dyn->versym + index * 2, 0, sizeof(Elf64_Versym), &ndx))
        return false;
    ndx &= 0x7fff; /* drop VERSYM_HIDDEN: a non-default version still matches */
    if (ndx == VER_NDX_LOCAL)
        return false;

    /* Elf32_Verdef and Elf64_Verdef have the same layout.  Each vd_next
     * moves forward, so the walk ends even without VERDEFNUM. */
    uint64_t count = (dyn->have & HAVE_VERDEFNUM) ? dyn->verdefnum : UINT64_MAX;
    uint64_t vd = dyn->verdef;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t vers, vndx, vhash, aux, next, name;
        if (!RD(img, vd, Elf64_Verdef, vd_version, &vers) ||
            !RD(img, vd, Elf64_Verdef, vd_ndx, &vndx) ||
            !RD(img, vd, Elf64_Verdef, vd_hash, &vhash) ||
            !RD(img, vd, Elf64_Verdef, vd_aux, &aux) ||
            !RD(img, vd, Elf64_Verdef, vd_next, &next))
            return false;
        if (vers != VER_DEF_CURRENT)
            return false;
        if (vndx == ndx) {
            /* The first Verdaux names the version itself (later ones
             * name its parents). */
            if (vd > UINT64_MAX - aux || !RD(img, vd + aux, Elf64_Verdaux, vda_name, &name))
                return false;
            return vhash == version_hash && str_eq(img, dyn, name, version);
        }
        /* Verdefs do not overlap; requiring that also bounds the walk
         * to a few hundred steps in a vDSO-sized image. */
        if (next < sizeof(Elf64_Verdef) || vd > UINT64_MAX - next)
            return false;
        vd += next;
    }
    return false;
}

/* What a lookup is after, with the hashes computed once. */
struct sym_query {
    const char *name, *version;
    uint32_t version_hash;
};

/* Does symbol `index` satisfy the query?  Only definitions count: not
 * undefined references, not locals, and only plain code or data (an
 * IFUNC would have to be called to get its address). */
static bool sym_matches(const struct elf_img *img, const struct elf_dyn *dyn,
                        uint64_t index, const struct sym_query *q, uint64_t *value)
{
    struct elf_sym sym;
    if (!sym_read(img, dyn, index, &sym) || sym.shndx == SHN_UNDEF)
        return false;
    unsigned bind = ELF64_ST_BIND(sym.info), type = ELF64_ST_TYPE(sym.info);
    if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
        return false;
    if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
        return false;
    if (!str_eq(img, dyn, sym.name, q->name))
        return false;
    if (q->version != NULL && !version_matches(img, dyn, index, q->version, q->version_hash))
        return false;
    *value = sym.value;
    return true;
}

/* The SysV ELF hash (gABI "Hash Table"), used by DT_HASH and vd_hash. */
static uint32_t elf_hash(const char *s)
{
    uint32_t h = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h = (h << 4) + *p;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

/* The DT_GNU_HASH function: h * 33 + c from 5381. */
static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = h * 33 + *p;
    return h;
}

/* DT_HASH: nbucket, nchain, bucket[nbucket], chain[nchain]; nchain is the
 * number of symbols, so it also bounds the chain walk (a cycle ends).
 * Both arrays must lie in the image, which keeps that bound small. */
static bool lookup_sysv(const struct elf_img *img, const struct elf_dyn *dyn,
                        const struct sym_query *q, uint64_t *value)
{
    uint64_t nbucket, nchain, index;
    if (!rd_u32(img, dyn->hash, &nbucket) || !rd_u32(img, dyn->hash + 4, &nchain) ||
        nbucket == 0 || !span_ok(img, dyn->hash + 8, 4 * (nbucket + nchain)))
        return false;
    uint64_t buckets = dyn->hash + 8, chains = buckets + 4 * nbucket;
    if (!rd_u32(img, buckets + 4 * (elf_hash(q->name) % nbucket), &index))
        return false;
    for (uint64_t steps = 0; index != STN_UNDEF && steps < nchain; steps++) {
        if (index >= nchain)
            return false;
        /* A name match at the wrong version is not the end: the same
         * name may be defined again at another version further on. */
        if (sym_matches(img, dyn, index, q, value))
            return true;
        if (!rd_u32(img, chains + 4 * index, &index))
            return false;
    }
    return false;
}

/* DT_GNU_HASH: nbuckets, symoffset, bloom_size, bloom_shift, the Bloom
 * filter (words of the class's size), buckets, then one hash per symbol
 * from symoffset on, with bit 0 marking the end of a chain. */
static bool lookup_gnu(const struct elf_img *img, const struct elf_dyn *dyn,
                       const struct sym_query *q, uint64_t *value)
{
    uint64_t nbuckets, symoffset, bloom_size, bloom_shift;
    uint64_t gh = dyn->gnu_hash;
    if (!rd_u32(img, gh, &nbuckets) || !rd_u32(img, gh + 4, &symoffset) ||
        !rd_u32(img, gh + 8, &bloom_size) || !rd_u32(img, gh + 12, &bloom_shift))
        return false;
    unsigned word_bits = img->is64 ? 64 : 32;
    if (nbuckets == 0 || bloom_size == 0 || bloom_shift >= 32)
        return false;

    /* The Bloom filter is what glibc consults first: a wrong one hides
     * the symbol from it, so honour it here too. */
    uint32_t h = gnu_hash(q->name);
    uint64_t bloom = gh + 16, word;
    if (!rd_field(img, bloom + (h / word_bits % bloom_size) * (word_bits / 8), 0,
                  word_bits / 8, &word))
        return false;
    uint64_t mask = (1ull << (h % word_bits)) | (1ull << ((h >> bloom_shift) % word_bits));
    if ((word & mask) != mask)
        return false;

    uint64_t buckets = bloom + bloom_size * (word_bits / 8);
    uint64_t chains = buckets + 4 * nbuckets, index, chain_hash;
    if (!rd_u32(img, buckets + 4 * (h % nbuckets), &index) || index == STN_UNDEF ||
        index < symoffset)
        return false;
    /* Each step reads one word further into the image, so the walk ends
     * at the image's end if no entry has the end bit. */
    for (;; index++) {
        if (!rd_u32(img, chains + 4 * (index - symoffset), &chain_hash))
            return false;
        if ((chain_hash | 1) == (h | 1) && sym_matches(img, dyn, index, q, value))
            return true;
        if (chain_hash & 1)
            return false;
    }
}

/* ---------------------------------------------------------------- API */

int ldr_elf_dynsym_via(const void *image, size_t size, enum ldr_elf_hash hash,
                       const char *name, const char *version, uint64_t *value_out)
{
    struct elf_img img;
    struct elf_dyn dyn;
    if (name == NULL || !img_open(&img, image, size) || !dyn_read(&img, &dyn))
        return -1;
    struct sym_query q = { name, version, version ? elf_hash(version) : 0 };
    uint64_t value;
    bool found;
    if (hash == LDR_ELF_HASH_GNU || (hash == LDR_ELF_HASH_ANY && (dyn.have & HAVE_GNU_HASH)))
        found = (dyn.have & HAVE_GNU_HASH) && lookup_gnu(&img, &dyn, &q, &value);
    else
        found = (dyn.have & HAVE_HASH) && lookup_sysv(&img, &dyn, &q, &value);
    if (!found)
        return -1;
    if (value_out != NULL)
        *value_out = value;
    return 0;
}

int ldr_elf_dynsym(const void *image, size_t size, const char *name,
                   const char *version, uint64_t *value_out)
{
    return ldr_elf_dynsym_via(image, size, LDR_ELF_HASH_ANY, name, version, value_out);
}

int ldr_elf_soname(const void *image, size_t size, const char **out)
{
    struct elf_img img;
    struct elf_dyn dyn;
    if (!img_open(&img, image, size) || !dyn_read(&img, &dyn) || !(dyn.have & HAVE_SONAME))
        return -1;
    const char *s;
    if (!str_at(&img, &dyn, dyn.soname, &s))
        return -1;
    if (out != NULL)
        *out = s;
    return 0;
}
