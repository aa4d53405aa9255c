/* gen_corpus: write the malformed-ELF corpus for the loader.
 *
 *   gen_corpus OUTDIR VALID64_STATIC VALID32_STATIC VALID64_DYN
 *
 * Every case starts from one of the three valid programs (hello_asm64,
 * hello_asm32, showargs_64_dyn in the test build) and breaks exactly one
 * thing, so that exactly one check of loader/elf.c, load.c, script.c or
 * file.c must fire.  OUTDIR/expected.tsv gets one line per case:
 *
 *   name <TAB> exit status <TAB> substring of the reason the loader must print
 *
 * The reasons are computed from the values actually found in the input files
 * (segment numbers, offsets, sizes), so the corpus follows the guest programs
 * when the toolchain lays them out differently.  tests/corpus/run_corpus.sh
 * runs elfemu on each case and checks status, stderr and stdout.
 *
 * Cases that currently fail because of a known loader weakness are written to
 * OUTDIR/pending.tsv instead (same format); move them to expected.tsv (clear
 * their "pending" flag below) once the loader is fixed. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define PAGE 4096u

static char outdir[PATH_MAX];  /* absolute */
static FILE *tsv, *pending_tsv;
static unsigned ncases, npending;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gen_corpus: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* ---------------------------------------------------------------- images */

struct img {
    uint8_t *d;
    size_t n;
};

static struct img img_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    struct img im = { 0 };
    size_t cap = 0;
    for (;;) {
        if (im.n == cap) {
            cap = cap ? cap * 2 : 65536;
            im.d = realloc(im.d, cap);
            if (!im.d)
                die("out of memory");
        }
        size_t got = fread(im.d + im.n, 1, cap - im.n, f);
        im.n += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        die("%s: read error", path);
    fclose(f);
    if (im.n < 64 || memcmp(im.d, ELFMAG, SELFMAG) != 0)
        die("%s: not an ELF file", path);
    return im;
}

static struct img img_copy(const struct img *src)
{
    struct img im = { malloc(src->n ? src->n : 1), src->n };
    if (!im.d)
        die("out of memory");
    memcpy(im.d, src->d, src->n);
    return im;
}

static struct img img_text(const char *text)
{
    struct img im = { (uint8_t *)strdup(text), strlen(text) };
    if (!im.d)
        die("out of memory");
    return im;
}

static void img_free(struct img *im)
{
    free(im->d);
    im->d = NULL;
    im->n = 0;
}

/* Append len bytes (zeros when data is NULL); returns the old size. */
static size_t img_append(struct img *im, const void *data, size_t len)
{
    size_t at = im->n;
    im->d = realloc(im->d, im->n + len + 1);
    if (!im->d)
        die("out of memory");
    if (data)
        memcpy(im->d + at, data, len);
    else
        memset(im->d + at, 0, len);
    im->n += len;
    return at;
}

static void img_truncate(struct img *im, size_t len)
{
    if (len > im->n)
        die("truncation at %zu beyond %zu", len, im->n);
    im->n = len;
}

/* Little-endian fields at a byte offset. */
static uint64_t get_le(const struct img *im, size_t off, unsigned size)
{
    if (off + size > im->n)
        die("read of %u bytes at %zu beyond %zu", size, off, im->n);
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint64_t)im->d[off + i] << (8 * i);
    return v;
}

static void put_le(struct img *im, size_t off, unsigned size, uint64_t v)
{
    if (off + size > im->n)
        die("write of %u bytes at %zu beyond %zu", size, off, im->n);
    for (unsigned i = 0; i < size; i++)
        im->d[off + i] = (uint8_t)(v >> (8 * i));
}

static bool is64(const struct img *im) { return im->d[EI_CLASS] == ELFCLASS64; }

/* ELF header fields, for either class. */
enum ehf { E_TYPE, E_MACHINE, E_ENTRY, E_PHOFF, E_PHENTSIZE, E_PHNUM };

static void ehf_loc(const struct img *im, enum ehf f, size_t *off, unsigned *size)
{
    bool b64 = is64(im);
    switch (f) {
    case E_TYPE: *off = 16; *size = 2; break;
    case E_MACHINE: *off = 18; *size = 2; break;
    case E_ENTRY: *off = 24; *size = b64 ? 8 : 4; break;
    case E_PHOFF: *off = b64 ? 32 : 28; *size = b64 ? 8 : 4; break;
    case E_PHENTSIZE: *off = b64 ? 54 : 42; *size = 2; break;
    case E_PHNUM: *off = b64 ? 56 : 44; *size = 2; break;
    }
}

static uint64_t eh_get(const struct img *im, enum ehf f)
{
    size_t off;
    unsigned size;
    ehf_loc(im, f, &off, &size);
    return get_le(im, off, size);
}

static void eh_set(struct img *im, enum ehf f, uint64_t v)
{
    size_t off;
    unsigned size;
    ehf_loc(im, f, &off, &size);
    put_le(im, off, size, v);
}

static unsigned ehdr_size(const struct img *im) { return is64(im) ? 64 : 52; }
static unsigned phent(const struct img *im) { return is64(im) ? 56 : 32; }
static unsigned phnum(const struct img *im) { return (unsigned)eh_get(im, E_PHNUM); }
static uint64_t phoff(const struct img *im) { return eh_get(im, E_PHOFF); }

/* Program header fields, for either class. */
enum phf { P_TYPE, P_FLAGS, P_OFFSET, P_VADDR, P_FILESZ, P_MEMSZ, P_ALIGN };

static void phf_loc(const struct img *im, unsigned i, enum phf f, size_t *off, unsigned *size)
{
    size_t base = (size_t)phoff(im) + (size_t)i * phent(im);
    static const unsigned o64[] = { 0, 4, 8, 16, 32, 40, 48 };
    static const unsigned o32[] = { 0, 24, 4, 8, 16, 20, 28 };
    bool b64 = is64(im);
    *off = base + (b64 ? o64[f] : o32[f]);
    *size = (b64 && f != P_TYPE && f != P_FLAGS) ? 8 : 4;
}

static uint64_t ph_get(const struct img *im, unsigned i, enum phf f)
{
    size_t off;
    unsigned size;
    phf_loc(im, i, f, &off, &size);
    return get_le(im, off, size);
}

static void ph_set(struct img *im, unsigned i, enum phf f, uint64_t v)
{
    size_t off;
    unsigned size;
    phf_loc(im, i, f, &off, &size);
    put_le(im, off, size, v);
}

/* Index of the first program header of type t, or -1. */
static int ph_find(const struct img *im, uint32_t t)
{
    for (unsigned i = 0; i < phnum(im); i++)
        if (ph_get(im, i, P_TYPE) == t)
            return (int)i;
    return -1;
}

/* Index of the k-th PT_LOAD (0-based); dies when there is none. */
static unsigned load_idx(const struct img *im, unsigned k)
{
    for (unsigned i = 0; i < phnum(im); i++)
        if (ph_get(im, i, P_TYPE) == PT_LOAD && k-- == 0)
            return i;
    die("the input has too few PT_LOAD segments");
}

static unsigned nloads(const struct img *im)
{
    unsigned n = 0;
    for (unsigned i = 0; i < phnum(im); i++)
        n += ph_get(im, i, P_TYPE) == PT_LOAD;
    return n;
}

/* Give the image a PT_INTERP of filesz bytes at the end of the file holding
 * the first len bytes of s (the rest zero).  The existing PT_INTERP is reused;
 * otherwise a PT_NOTE or PT_GNU_PROPERTY header is turned into one.  Returns
 * the index of the PT_INTERP header. */
static unsigned set_interp_raw(struct img *im, const void *s, size_t len, uint64_t filesz)
{
    int i = ph_find(im, PT_INTERP);
    if (i < 0)
        i = ph_find(im, PT_NOTE);
    if (i < 0)
        i = ph_find(im, PT_GNU_PROPERTY);
    if (i < 0)
        die("no PT_INTERP, PT_NOTE or PT_GNU_PROPERTY header to turn into a PT_INTERP");
    size_t at = img_append(im, NULL, filesz > len ? (size_t)filesz : len);
    memcpy(im->d + at, s, len);
    ph_set(im, (unsigned)i, P_TYPE, PT_INTERP);
    ph_set(im, (unsigned)i, P_FLAGS, PF_R);
    ph_set(im, (unsigned)i, P_OFFSET, at);
    ph_set(im, (unsigned)i, P_VADDR, 0);
    ph_set(im, (unsigned)i, P_FILESZ, filesz);
    ph_set(im, (unsigned)i, P_MEMSZ, filesz);
    ph_set(im, (unsigned)i, P_ALIGN, 1);
    return (unsigned)i;
}

/* A NUL-terminated interpreter path. */
static unsigned set_interp(struct img *im, const char *path)
{
    return set_interp_raw(im, path, strlen(path) + 1, strlen(path) + 1);
}

/* ---------------------------------------------------------------- output */

static void path_of(char *buf, size_t size, const char *name)
{
    if ((size_t)snprintf(buf, size, "%s/%s", outdir, name) >= size)
        die("path too long: %s/%s", outdir, name);
}

static void write_file(const char *name, const void *data, size_t len)
{
    char path[PATH_MAX];
    path_of(path, sizeof(path), name);
    FILE *f = fopen(path, "wb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    if (len && fwrite(data, 1, len, f) != len)
        die("%s: write error", path);
    if (fclose(f) != 0)
        die("%s: %s", path, strerror(errno));
    if (chmod(path, 0755) != 0)
        die("%s: chmod: %s", path, strerror(errno));
}

/* Record a case: name, expected status, expected reason (printf format). */
static void vexpect(bool pending, const char *name, int status, const char *fmt, va_list ap)
{
    char reason[1024];
    vsnprintf(reason, sizeof(reason), fmt, ap);
    if (strchr(reason, '\t') || strchr(reason, '\n'))
        die("%s: the reason must not contain a tab or newline", name);
    fprintf(pending ? pending_tsv : tsv, "%s\t%d\t%s\n", name, status, reason);
    if (pending)
        npending++;
    else
        ncases++;
}

static void __attribute__((format(printf, 3, 4))) expect(const char *name, int status,
                                                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vexpect(false, name, status, fmt, ap);
    va_end(ap);
}

static void __attribute__((format(printf, 3, 4), unused)) expect_pending(const char *name, int status,
                                                                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vexpect(true, name, status, fmt, ap);
    va_end(ap);
}

/* Write the image as OUTDIR/name, record the case, and free the image. */
static void __attribute__((format(printf, 4, 5))) emit(const char *name, struct img *im,
                                                       int status, const char *fmt, ...)
{
    write_file(name, im->d, im->n);
    va_list ap;
    va_start(ap, fmt);
    vexpect(false, name, status, fmt, ap);
    va_end(ap);
    img_free(im);
}

static void __attribute__((format(printf, 4, 5), unused)) emit_pending(const char *name,
                                                               struct img *im, int status,
                                                               const char *fmt, ...)
{
    write_file(name, im->d, im->n);
    va_list ap;
    va_start(ap, fmt);
    vexpect(true, name, status, fmt, ap);
    va_end(ap);
    img_free(im);
}

/* %#x as the loader prints it ("0" for zero, "0x1f" otherwise). */
static const char *hx(uint64_t v)
{
    static char ring[8][24];
    static unsigned next;
    char *s = ring[next++ % 8];
    if (v)
        snprintf(s, sizeof(ring[0]), "%#" PRIx64, v);
    else
        snprintf(s, sizeof(ring[0]), "0");
    return s;
}

/* ---------------------------------------------------------------- cases */

#define NOEXEC 126
#define NOENT 127

/* "(N bytes)": the file size as the loader prints it. */
static const char *file_size_str(const struct img *im)
{
    static char s[32];
    snprintf(s, sizeof(s), "(%zu bytes)", im->n);
    return s;
}

/* Header: magic, e_ident, e_type, e_machine, e_phentsize, e_phnum, e_phoff. */
static void header_cases(const struct img *v, const char *tag)
{
    struct img im;
    unsigned ps = phent(v), hs = ehdr_size(v), bits = is64(v) ? 64 : 32;
    char name[64];

    /* Truncations inside the magic, e_ident, the header and the phdr table. */
    static const size_t cuts[] = { 1, 3, 4, 15, 16, 40, 51, 52, 63, 64 };
    for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
        size_t cut = cuts[k];
        if (cut > hs || (cut == 51 && bits == 64) || (cut == 63 && bits == 32))
            continue;
        im = img_copy(v);
        img_truncate(&im, cut);
        snprintf(name, sizeof(name), "trunc%s_%zu", tag, cut);
        if (cut < SELFMAG)
            emit(name, &im, NOEXEC, "not an ELF file (bad magic)");
        else if (cut < EI_NIDENT)
            emit(name, &im, NOEXEC, "truncated ELF header (%zu bytes)", cut);
        else if (cut < hs)
            emit(name, &im, NOEXEC, "truncated ELF header (%zu of %u bytes)", cut, hs);
        else
            emit(name, &im, NOEXEC,
                 "program header table [%s, +%u) beyond the end of the file (%zu bytes)",
                 hx(phoff(v)), phnum(v) * ps, cut);
    }
    /* In the middle of the third program header. */
    im = img_copy(v);
    size_t cut = (size_t)phoff(v) + 2 * ps + ps / 2;
    img_truncate(&im, cut);
    snprintf(name, sizeof(name), "trunc%s_mid_phdrs", tag);
    emit(name, &im, NOEXEC, "program header table [%s, +%u) beyond the end of the file (%zu bytes)",
         hx(phoff(v)), phnum(v) * ps, cut);
    /* Just before the end of the last PT_LOAD's file bytes. */
    im = img_copy(v);
    unsigned last = load_idx(v, nloads(v) - 1);
    uint64_t lo = ph_get(v, last, P_OFFSET), lf = ph_get(v, last, P_FILESZ);
    img_truncate(&im, (size_t)(lo + lf - 1));
    snprintf(name, sizeof(name), "trunc%s_last_segment", tag);
    emit(name, &im, NOEXEC, "segment %u: file range [%s, +%s) beyond the end of the file %s",
         last, hx(lo), hx(lf), file_size_str(&im));

    /* e_ident. */
    im = img_copy(v);
    im.d[EI_CLASS] = bits == 64 ? ELFCLASSNONE : 3;
    snprintf(name, sizeof(name), "class%u%s", im.d[EI_CLASS], tag);
    emit(name, &im, NOEXEC, "bad ELF class %u in e_ident", bits == 64 ? 0u : 3u);

    im = img_copy(v);
    im.d[EI_DATA] = bits == 64 ? ELFDATA2MSB : ELFDATANONE;
    snprintf(name, sizeof(name), "data%u%s", im.d[EI_DATA], tag);
    emit(name, &im, NOEXEC, "bad ELF data encoding %u in e_ident", im.d[EI_DATA]);

    im = img_copy(v);
    im.d[EI_VERSION] = bits == 64 ? EV_NONE : 2;
    snprintf(name, sizeof(name), "version%u%s", im.d[EI_VERSION], tag);
    emit(name, &im, NOEXEC, "bad ELF version %u in e_ident", im.d[EI_VERSION]);

    /* e_type. */
    im = img_copy(v);
    eh_set(&im, E_TYPE, bits == 64 ? ET_REL : ET_CORE);
    snprintf(name, sizeof(name), "etype_%s%s", bits == 64 ? "rel" : "core", tag);
    emit(name, &im, NOEXEC, "not an executable or shared object (e_type %d)",
         bits == 64 ? ET_REL : ET_CORE);

    /* e_machine. */
    im = img_copy(v);
    eh_set(&im, E_MACHINE, EM_ARM);
    snprintf(name, sizeof(name), "machine_arm%s", tag);
    emit(name, &im, NOEXEC, "wrong machine %d for ELF%u (expected %s)", EM_ARM, bits,
         bits == 64 ? "x86_64" : "i386");
    im = img_copy(v);
    if (bits == 64) {
        eh_set(&im, E_MACHINE, EM_386);
        emit("machine_386_in_elf64", &im, NOEXEC, "wrong machine %d for ELF64 (expected x86_64)",
             EM_386);
    } else {
        eh_set(&im, E_MACHINE, EM_X86_64); /* the x32 ABI */
        emit("machine_x32", &im, NOEXEC, "x32 ABI programs are not supported");
    }

    /* e_phentsize. */
    im = img_copy(v);
    unsigned other = bits == 64 ? 32 : 56;
    eh_set(&im, E_PHENTSIZE, other);
    snprintf(name, sizeof(name), "phentsize%u%s", other, tag);
    emit(name, &im, NOEXEC, "bad e_phentsize %u (expected %u)", other, ps);
    if (bits == 64) {
        im = img_copy(v);
        eh_set(&im, E_PHENTSIZE, 0);
        emit("phentsize0_64", &im, NOEXEC, "bad e_phentsize 0 (expected %u)", ps);
    }

    /* e_phnum. */
    unsigned maxnum = 65536u / ps;
    static const unsigned nums[] = { 0, 65535 };
    for (unsigned k = 0; k < 2; k++) {
        im = img_copy(v);
        eh_set(&im, E_PHNUM, nums[k]);
        snprintf(name, sizeof(name), "phnum%u%s", nums[k], tag);
        emit(name, &im, NOEXEC, "e_phnum %u out of range (1..%u)", nums[k], maxnum);
    }
    /* One past the kernel's bound, and the bound itself (the table then runs
     * past the end of these small files). */
    im = img_copy(v);
    eh_set(&im, E_PHNUM, maxnum + 1);
    snprintf(name, sizeof(name), "phnum%u%s", maxnum + 1, tag);
    emit(name, &im, NOEXEC, "e_phnum %u out of range (1..%u)", maxnum + 1, maxnum);
    im = img_copy(v);
    eh_set(&im, E_PHNUM, maxnum);
    snprintf(name, sizeof(name), "phnum%u%s", maxnum, tag);
    emit(name, &im, NOEXEC, "program header table [%s, +%u) beyond the end of the file %s",
         hx(phoff(v)), maxnum * ps, file_size_str(&im));

    /* e_phoff past the end of the file, near the top of the offset range (so
     * that phoff + size wraps), and straddling the end. */
    uint64_t offs[3] = { v->n + PAGE, bits == 64 ? UINT64_MAX - 7 : UINT32_MAX - 7,
                         v->n - ps / 2 };
    static const char *const offname[3] = { "past_eof", "wraps", "straddles_eof" };
    for (unsigned k = 0; k < 3; k++) {
        im = img_copy(v);
        eh_set(&im, E_PHOFF, offs[k]);
        snprintf(name, sizeof(name), "phoff_%s%s", offname[k], tag);
        emit(name, &im, NOEXEC,
             "program header table [%s, +%u) beyond the end of the file %s", hx(offs[k]),
             phnum(v) * ps, file_size_str(&im));
    }
}

/* PT_LOAD checks of check_load() and the no-PT_LOAD and span checks. */
static void load_cases(const struct img *v, const char *tag)
{
    struct img im;
    char name[64];
    bool b64 = is64(v);
    unsigned s1 = load_idx(v, 1), s2 = load_idx(v, 2), s0 = load_idx(v, 0);
    uint64_t s1off = ph_get(v, s1, P_OFFSET), s1vaddr = ph_get(v, s1, P_VADDR);
    uint64_t s1filesz = ph_get(v, s1, P_FILESZ), s1memsz = ph_get(v, s1, P_MEMSZ);
    uint64_t s2off = ph_get(v, s2, P_OFFSET), s2vaddr = ph_get(v, s2, P_VADDR);
    uint64_t s2memsz = ph_get(v, s2, P_MEMSZ);
    const char *space = b64 ? "46-bit" : "32-bit";

    /* p_offset past the end of the file (congruent with p_vaddr). */
    im = img_copy(v);
    uint64_t off = (v->n + 16 * PAGE) / PAGE * PAGE + (s1vaddr % PAGE);
    ph_set(&im, s1, P_OFFSET, off);
    snprintf(name, sizeof(name), "load_offset_past_eof%s", tag);
    emit(name, &im, NOEXEC, "segment %u: file range [%s, +%s) beyond the end of the file %s",
         s1, hx(off), hx(s1filesz), file_size_str(v));

    /* p_offset so large that p_offset + p_filesz wraps. */
    im = img_copy(v);
    off = (b64 ? UINT64_MAX : UINT32_MAX) / PAGE * PAGE + (s1vaddr % PAGE);
    ph_set(&im, s1, P_OFFSET, off);
    snprintf(name, sizeof(name), "load_offset_wraps%s", tag);
    emit(name, &im, NOEXEC, "segment %u: file range [%s, +%s) beyond the end of the file %s",
         s1, hx(off), hx(s1filesz), file_size_str(v));

    /* p_filesz runs past the end of the file. */
    im = img_copy(v);
    ph_set(&im, s1, P_FILESZ, 0x10000000);
    ph_set(&im, s1, P_MEMSZ, 0x10000000);
    snprintf(name, sizeof(name), "load_filesz_past_eof%s", tag);
    emit(name, &im, NOEXEC, "segment %u: file range [%s, +0x10000000) beyond the end of the file",
         s1, hx(s1off));

    /* p_filesz > p_memsz. */
    im = img_copy(v);
    uint64_t memsz = b64 ? s1filesz / 2 : 0;
    ph_set(&im, s1, P_MEMSZ, memsz);
    snprintf(name, sizeof(name), "filesz_gt_memsz%s", tag);
    emit(name, &im, NOEXEC, "segment %u: p_filesz %s > p_memsz %s", s1, hx(s1filesz), hx(memsz));

    /* Overlapping PT_LOADs: the second starts inside the first. */
    im = img_copy(v);
    uint64_t s0vaddr = ph_get(v, s0, P_VADDR), s0end = s0vaddr + ph_get(v, s0, P_MEMSZ);
    uint64_t ov = (s0vaddr & ~(uint64_t)(PAGE - 1)) + (s1off % PAGE);
    if (ov < s0vaddr)
        ov += PAGE;
    if (ov >= s0end)
        die("cannot make segment %u overlap segment %u", s1, s0);
    ph_set(&im, s1, P_VADDR, ov);
    snprintf(name, sizeof(name), "load_overlap%s", tag);
    emit(name, &im, NOEXEC,
         "segment %u at %s overlaps or precedes the previous PT_LOAD (which ends at %s)", s1,
         hx(ov), hx(s0end));

    /* PT_LOADs out of order: the third below the first. */
    im = img_copy(v);
    uint64_t below = (s0vaddr & ~(uint64_t)(PAGE - 1)) - 16 * PAGE + (s2off % PAGE);
    ph_set(&im, s2, P_VADDR, below);
    snprintf(name, sizeof(name), "load_out_of_order%s", tag);
    emit(name, &im, NOEXEC,
         "segment %u at %s overlaps or precedes the previous PT_LOAD (which ends at %s)", s2,
         hx(below), hx(s1vaddr + s1memsz));

    /* p_vaddr and p_offset not congruent modulo the page size: vaddr moved,
     * then offset moved. */
    im = img_copy(v);
    ph_set(&im, s1, P_VADDR, s1vaddr + 0x10);
    snprintf(name, sizeof(name), "misaligned_vaddr%s", tag);
    emit(name, &im, NOEXEC, "segment %u: p_vaddr %s and p_offset %s differ modulo the page size",
         s1, hx(s1vaddr + 0x10), hx(s1off));
    im = img_copy(v);
    ph_set(&im, s2, P_OFFSET, s2off + 1);
    snprintf(name, sizeof(name), "misaligned_offset%s", tag);
    emit(name, &im, NOEXEC, "segment %u: p_vaddr %s and p_offset %s differ modulo the page size",
         s2, hx(s2vaddr), hx(s2off + 1));

    /* p_align not a power of two. */
    im = img_copy(v);
    uint64_t align = b64 ? 0x1800 : 3;
    ph_set(&im, s1, P_ALIGN, align);
    snprintf(name, sizeof(name), "align_not_pow2%s", tag);
    emit(name, &im, NOEXEC, "segment %u: p_align %s is not a power of two", s1, hx(align));

    /* p_vaddr beyond the guest space (the first page past it). */
    im = img_copy(v);
    uint64_t top = b64 ? 1ull << 46 : 1ull << 32;
    uint64_t va = b64 ? top + (s2off % PAGE) : top - PAGE + (s2off % PAGE);
    uint64_t ms = b64 ? s2memsz : 2 * PAGE;
    ph_set(&im, s2, P_VADDR, va);
    ph_set(&im, s2, P_MEMSZ, ms);
    snprintf(name, sizeof(name), "vaddr_beyond_space%s", tag);
    emit(name, &im, NOEXEC, "segment %u: [%s, +%s) outside the %s guest address space", s2,
         hx(va), hx(ms), space);

    /* Huge p_memsz. */
    im = img_copy(v);
    ms = b64 ? 1ull << 63 : UINT32_MAX;
    ph_set(&im, s2, P_MEMSZ, ms);
    snprintf(name, sizeof(name), "memsz_huge%s", tag);
    emit(name, &im, NOEXEC, "segment %u: [%s, +%s) outside the %s guest address space", s2,
         hx(s2vaddr), hx(ms), space);

    if (b64) {
        /* p_vaddr + p_memsz wraps around 2^64. */
        im = img_copy(v);
        va = UINT64_MAX / PAGE * PAGE + (s2off % PAGE);
        ph_set(&im, s2, P_VADDR, va);
        ph_set(&im, s2, P_MEMSZ, 2 * PAGE);
        emit("vaddr_memsz_wraps_64", &im, NOEXEC,
             "segment %u: [%s, +%s) outside the 46-bit guest address space", s2, hx(va),
             hx(2 * PAGE));
        /* A kernel-half address. */
        im = img_copy(v);
        va = 0xffffffff80000000ull + (s2off % PAGE);
        ph_set(&im, s2, P_VADDR, va);
        emit("vaddr_kernel_half_64", &im, NOEXEC,
             "segment %u: [%s, +%s) outside the 46-bit guest address space", s2, hx(va),
             hx(s2memsz));
    }

    /* An entry point the kernel's BAD_ADDR() refuses (an ELF32 e_entry is
     * always below 2^32). */
    if (b64) {
        static const uint64_t entries[2] = { 1ull << 46, 0xffffffff81000000ull };
        static const char *const ename[2] = { "entry_beyond_space_64", "entry_kernel_half_64" };
        for (unsigned k = 0; k < 2; k++) {
            im = img_copy(v);
            eh_set(&im, E_ENTRY, entries[k]);
            emit(ename[k], &im, NOEXEC, "entry point %s outside the 46-bit guest address space",
                 hx(entries[k]));
        }
    }

    /* Weakness: a fixed-address program placed where the stack goes (just
     * below the stack top) is mapped, then silently replaced by the stack,
     * and run. */
    im = img_copy(v);
    uint64_t delta = (b64 ? 0x3fffffe00000ull : 0xffe00000ull) - (s0vaddr & ~(uint64_t)(PAGE - 1));
    for (unsigned i = 0; i < phnum(&im); i++)
        if (ph_get(&im, i, P_TYPE) == PT_LOAD)
            ph_set(&im, i, P_VADDR, ph_get(&im, i, P_VADDR) + delta);
    eh_set(&im, E_ENTRY, eh_get(&im, E_ENTRY) + delta);
    snprintf(name, sizeof(name), "exec_in_stack_area%s", tag);
    emit(name, &im, NOEXEC, "overlap the stack");

    /* No PT_LOAD at all. */
    im = img_copy(v);
    for (unsigned i = 0; i < phnum(&im); i++)
        if (ph_get(&im, i, P_TYPE) == PT_LOAD)
            ph_set(&im, i, P_TYPE, PT_NULL);
    snprintf(name, sizeof(name), "no_load%s", tag);
    emit(name, &im, NOEXEC, "no PT_LOAD segment");
}

/* PT_INTERP contents, and the interpreter it names. */
static void interp_cases(const struct img *v64, const struct img *v32, const struct img *dyn,
                         const char *abs64, const char *abs32, const char *absdyn)
{
    struct img im;
    char p[PATH_MAX + 64];

    /* Not NUL-terminated. */
    static const char nonul[] = "/nonexistent/ld-elfemu.so.2";
    im = img_copy(v64);
    set_interp_raw(&im, nonul, strlen(nonul), strlen(nonul));
    emit("interp_no_nul_64", &im, NOEXEC, "PT_INTERP path is not NUL-terminated");
    im = img_copy(v32);
    set_interp_raw(&im, nonul, strlen(nonul), strlen(nonul));
    emit("interp_no_nul_32", &im, NOEXEC, "PT_INTERP path is not NUL-terminated");

    /* Sizes 0, 1, PATH_MAX + 1 and 2^63. */
    im = img_copy(v64);
    set_interp_raw(&im, "", 0, 0);
    emit("interp_size0", &im, NOEXEC, "PT_INTERP size 0 out of range");
    im = img_copy(v32);
    set_interp_raw(&im, "", 1, 1);
    emit("interp_size1", &im, NOEXEC, "PT_INTERP size 1 out of range");
    im = img_copy(v64);
    memset(p, 'a', PATH_MAX);
    p[0] = '/';
    p[PATH_MAX] = '\0';
    set_interp_raw(&im, p, PATH_MAX + 1, PATH_MAX + 1);
    emit("interp_size_over_path_max", &im, NOEXEC, "PT_INTERP size %d out of range",
         PATH_MAX + 1);
    im = img_copy(v64);
    ph_set(&im, set_interp(&im, "/lib64/ld-linux-x86-64.so.2"), P_FILESZ, 1ull << 63);
    emit("interp_size_huge", &im, NOEXEC, "PT_INTERP size %" PRIu64 " out of range",
         (uint64_t)1 << 63);

    /* A component longer than NAME_MAX passes the size check and is then
     * refused by open() (kept short enough for the message to show in full). */
    im = img_copy(v64);
    memset(p, 'a', 260);
    p[0] = '/';
    p[260] = '\0';
    set_interp(&im, p);
    emit("interp_name_too_long", &im, NOEXEC, "interpreter %s: File name too long", p);

    /* Beyond the end of the file, also with a wrapping offset. */
    im = img_copy(v64);
    unsigned i = set_interp(&im, "/lib64/ld-linux-x86-64.so.2");
    ph_set(&im, i, P_OFFSET, im.n + 1);
    emit("interp_past_eof_64", &im, NOEXEC, "PT_INTERP beyond the end of the file");
    im = img_copy(v32);
    i = set_interp(&im, "/lib/ld-linux.so.2");
    ph_set(&im, i, P_OFFSET, UINT32_MAX - 4);
    emit("interp_offset_wraps_32", &im, NOEXEC, "PT_INTERP beyond the end of the file");
    im = img_copy(v64);
    i = set_interp(&im, "/lib64/ld-linux-x86-64.so.2");
    ph_set(&im, i, P_OFFSET, UINT64_MAX - 4);
    emit("interp_offset_wraps_64", &im, NOEXEC, "PT_INTERP beyond the end of the file");

    /* Empty path. */
    im = img_copy(v64);
    set_interp_raw(&im, "\0", 2, 2);
    emit("interp_empty", &im, NOEXEC, "PT_INTERP path is empty");

    /* Missing interpreter: static programs given one, and the dynamic
     * program's own string changed in place. */
    static const char missing[] = "/nonexistent/ld-elfemu.so.2";
    im = img_copy(v64);
    set_interp(&im, missing);
    emit("interp_missing_64", &im, NOENT, "interpreter %s: No such file or directory", missing);
    im = img_copy(v32);
    set_interp(&im, missing);
    emit("interp_missing_32", &im, NOENT, "interpreter %s: No such file or directory", missing);
    im = img_copy(dyn);
    int k = ph_find(&im, PT_INTERP);
    if (k < 0)
        die("the dynamic program has no PT_INTERP");
    uint64_t ioff = ph_get(&im, (unsigned)k, P_OFFSET), isz = ph_get(&im, (unsigned)k, P_FILESZ);
    if (isz < 2 || ioff + isz > im.n)
        die("the dynamic program's PT_INTERP is odd");
    memset(im.d + ioff, 'x', isz - 1);
    memcpy(im.d + ioff, "/nonexistent/", 13 < isz - 1 ? 13 : isz - 1);
    char dmissing[PATH_MAX];
    snprintf(dmissing, sizeof(dmissing), "%.*s", (int)(isz - 1), (const char *)im.d + ioff);
    emit("dyn_interp_missing", &im, NOENT, "interpreter %s: No such file or directory", dmissing);

    /* A path through a regular file. */
    im = img_copy(v64);
    snprintf(p, sizeof(p), "%s/text_file/ld.so", outdir);
    set_interp(&im, p);
    emit("interp_enotdir", &im, NOENT, "interpreter %s: Not a directory", p);

    /* The interpreter is a text file, a script, a directory. */
    im = img_copy(v64);
    snprintf(p, sizeof(p), "%s/text_file", outdir);
    set_interp(&im, p);
    emit("interp_text_file", &im, NOEXEC, "interpreter %s: not an ELF file (bad magic)", p);
    im = img_copy(v64);
    snprintf(p, sizeof(p), "%s/script_missing_interp", outdir);
    set_interp(&im, p);
    emit("interp_is_script", &im, NOEXEC, "interpreter %s: not an ELF file (bad magic)", p);
    im = img_copy(v64);
    set_interp(&im, outdir);
    emit("interp_directory", &im, NOEXEC, "interpreter %s: Is a directory", outdir);

    /* The interpreter is itself a malformed ELF file from this corpus. */
    im = img_copy(v64);
    snprintf(p, sizeof(p), "%s/class0_64", outdir);
    set_interp(&im, p);
    emit("interp_bad_class", &im, NOEXEC, "interpreter %s: bad ELF class 0 in e_ident", p);
    im = img_copy(v32);
    snprintf(p, sizeof(p), "%s/misaligned_vaddr_32", outdir);
    set_interp(&im, p);
    emit("interp_misaligned_32", &im, NOEXEC, "interpreter %s: segment %u: p_vaddr", p,
         load_idx(v32, 1));

    /* The interpreter itself has a PT_INTERP. */
    im = img_copy(v64);
    set_interp(&im, absdyn);
    emit("interp_is_dynamic", &im, NOEXEC, "interpreter %s is itself dynamic (it has a PT_INTERP)",
         absdyn);
    im = img_copy(dyn);
    set_interp(&im, absdyn);
    emit("dyn_interp_is_itself", &im, NOEXEC,
         "interpreter %s is itself dynamic (it has a PT_INTERP)", absdyn);

    /* The interpreter is of the other class. */
    im = img_copy(v32);
    set_interp(&im, abs64);
    emit("interp_elf64_for_elf32", &im, NOEXEC, "interpreter %s is ELF64 but the program is ELF32",
         abs64);
    im = img_copy(v64);
    set_interp(&im, abs32);
    emit("interp_elf32_for_elf64", &im, NOEXEC, "interpreter %s is ELF32 but the program is ELF64",
         abs32);

    /* Weakness: a fixed-address interpreter at the program's own addresses
     * is mapped over the program. */
    im = img_copy(v64);
    set_interp(&im, abs64);
    emit("interp_overlaps_program", &im, NOEXEC, "overlaps");

    /* Weakness: a newline in PT_INTERP ends up in the one-line message. */
    im = img_copy(v64);
    set_interp(&im, "/nonexistent\nsecond line");
    emit("interp_with_newline", &im, NOENT,
                 "No such file or directory");
    /* Weakness: a FIFO as interpreter blocks in open(). */
    im = img_copy(v64);
    snprintf(p, sizeof(p), "%s/fifo", outdir);
    set_interp(&im, p);
    emit("interp_fifo", &im, NOEXEC, "interpreter %s: Permission denied", p);
}

/* The address-space checks of the dynamic (PIE) program. */
static void dyn_cases(const struct img *dyn)
{
    struct img im;
    unsigned n = nloads(dyn);
    unsigned s1 = load_idx(dyn, 1), last = load_idx(dyn, n - 1);

    im = img_copy(dyn);
    uint64_t va = ph_get(dyn, load_idx(dyn, 0), P_VADDR) / PAGE * PAGE +
                  ph_get(dyn, s1, P_OFFSET) % PAGE;
    ph_set(&im, s1, P_VADDR, va);
    emit("dyn_load_overlap", &im, NOEXEC, "segment %u at %s overlaps or precedes", s1, hx(va));

    /* A PIE whose PT_LOADs span more than half of the space cannot be placed. */
    im = img_copy(dyn);
    va = ph_get(dyn, last, P_VADDR) + 0x300000000000ull;
    ph_set(&im, last, P_VADDR, va);
    emit("dyn_span_too_large", &im, NOEXEC, "more than half the guest address space");

    /* Weakness: a PIE without interpreter whose entry point is inside the
     * space before the load bias is added, outside it after (the kernel's
     * BAD_ADDR() checks the biased value). */
    im = img_copy(dyn);
    ph_set(&im, (unsigned)ph_find(&im, PT_INTERP), P_TYPE, PT_NULL);
    eh_set(&im, E_ENTRY, 0x200000000000ull + eh_get(dyn, E_ENTRY));
    emit("dyn_entry_beyond_space", &im, NOEXEC, "outside the 46-bit guest address space");
}

/* Files that are not ELF, #! scripts, and paths that are not files. */
static void other_cases(const char *abs64)
{
    char p[PATH_MAX + 64], body[PATH_MAX + 600];
    struct img im;

    im = img_text("");
    emit("empty_file", &im, NOEXEC, "not an ELF file (bad magic)");
    im = img_text("hello, this is not a program\n");
    emit("text_file", &im, NOEXEC, "not an ELF file (bad magic)");
    im = img_text("\177EL");
    emit("magic_only_3", &im, NOEXEC, "not an ELF file (bad magic)");
    im = img_text("\177ELG\2\1\1");
    emit("bad_magic_byte3", &im, NOEXEC, "not an ELF file (bad magic)");

    /* #! lines without an interpreter name. */
    im = img_text("#!\n");
    emit("script_no_name", &im, NOEXEC, "bad #! line: no interpreter name");
    im = img_text("#! \t  \nexit 0\n");
    emit("script_blank_name", &im, NOEXEC, "bad #! line: no interpreter name");
    /* A name longer than the kernel's 256-byte buffer: it would be truncated. */
    memset(body, 'a', 400);
    memcpy(body, "#!/", 3);
    body[400] = '\0';
    im = img_text(body);
    emit("script_name_truncated", &im, NOEXEC, "bad #! line: no interpreter name");
    /* "#!" and nothing else: like Linux, the name is "" and is not found. */
    im = img_text("#!");
    emit("script_bare_hashbang", &im, NOENT, "interpreter : No such file or directory");

    /* Missing interpreter. */
    im = img_text("#!/nonexistent/interpreter -x\necho hi\n");
    emit("script_missing_interp", &im, NOENT,
         "interpreter /nonexistent/interpreter: No such file or directory");
    /* The interpreter is a directory, a text file, a malformed ELF file. */
    snprintf(body, sizeof(body), "#!%s\n", outdir);
    im = img_text(body);
    emit("script_interp_directory", &im, NOEXEC, "interpreter %s: Is a directory", outdir);
    snprintf(body, sizeof(body), "#!%s/text_file arg\n", outdir);
    im = img_text(body);
    emit("script_interp_text", &im, NOEXEC, "%s/text_file: not an ELF file (bad magic)", outdir);
    snprintf(body, sizeof(body), "#! %s/phnum0_64\n", outdir);
    im = img_text(body);
    emit("script_interp_bad_elf", &im, NOEXEC, "%s/phnum0_64: e_phnum 0 out of range", outdir);

    /* Six scripts each pointing at the next, the last at a valid program:
     * one level more than the kernel's limit of five. */
    for (int k = 1; k <= 6; k++) {
        char nm[32];
        snprintf(nm, sizeof(nm), "script_chain%d", k);
        if (k < 6)
            snprintf(body, sizeof(body), "#!%s/script_chain%d\n", outdir, k + 1);
        else
            snprintf(body, sizeof(body), "#!%s\n", abs64);
        write_file(nm, body, strlen(body));
    }
    expect("script_chain1", NOEXEC,
           "%s/script_chain6: too many levels of #! interpreters (more than 5)", outdir);
    /* A script that names itself. */
    snprintf(body, sizeof(body), "#!%s/script_self\n", outdir);
    im = img_text(body);
    emit("script_self", &im, NOEXEC, "too many levels of #! interpreters");

    /* Paths that do not lead to a regular file. */
    expect("does_not_exist", NOENT, "does_not_exist: No such file or directory");
    expect("text_file/below_a_file", NOENT, "text_file/below_a_file: Not a directory");
    path_of(p, sizeof(p), "a_directory");
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        die("%s: %s", p, strerror(errno));
    expect("a_directory", NOEXEC, "a_directory: Is a directory");
    path_of(p, sizeof(p), "symlink_loop");
    unlink(p);
    if (symlink("symlink_loop", p) != 0)
        die("%s: %s", p, strerror(errno));
    expect("symlink_loop", NOEXEC, "symlink_loop: Too many levels of symbolic links");

    /* Weakness: a script with DOS line endings names "/bin/sh\r", and the
     * carriage return goes into the message as it is. */
    im = img_text("#!/bin/sh\r\necho hi\r\n");
    emit("script_crlf", &im, NOENT, "No such file or directory");

    /* Weakness: a FIFO as program or #! interpreter blocks in open(). */
    path_of(p, sizeof(p), "fifo");
    unlink(p);
    if (mkfifo(p, 0644) != 0)
        die("%s: %s", p, strerror(errno));
    expect("fifo", NOEXEC, "fifo: Permission denied");
    snprintf(body, sizeof(body), "#!%s/fifo\n", outdir);
    im = img_text(body);
    emit("script_interp_fifo", &im, NOEXEC, "interpreter %s/fifo: Permission denied",
                 outdir);
}

static void absolute(char *out, const char *path)
{
    if (!realpath(path, out))
        die("%s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: gen_corpus OUTDIR VALID64_STATIC VALID32_STATIC VALID64_DYN\n");
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST)
        die("%s: %s", argv[1], strerror(errno));
    absolute(outdir, argv[1]);
    char abs64[PATH_MAX], abs32[PATH_MAX], absdyn[PATH_MAX];
    absolute(abs64, argv[2]);
    absolute(abs32, argv[3]);
    absolute(absdyn, argv[4]);
    struct img v64 = img_read(abs64), v32 = img_read(abs32), dyn = img_read(absdyn);
    if (!is64(&v64) || is64(&v32) || !is64(&dyn))
        die("expected an ELF64, an ELF32 and an ELF64 program");
    if (nloads(&v64) < 3 || nloads(&v32) < 3 || nloads(&dyn) < 3)
        die("the valid programs need at least three PT_LOAD segments each");
    if (ph_find(&v64, PT_INTERP) >= 0 || ph_find(&v32, PT_INTERP) >= 0)
        die("the static programs must not have a PT_INTERP");
    if (ph_find(&dyn, PT_INTERP) < 0)
        die("the dynamic program must have a PT_INTERP");

    char path[PATH_MAX];
    path_of(path, sizeof(path), "expected.tsv");
    if (!(tsv = fopen(path, "w")))
        die("%s: %s", path, strerror(errno));
    path_of(path, sizeof(path), "pending.tsv");
    if (!(pending_tsv = fopen(path, "w")))
        die("%s: %s", path, strerror(errno));

    header_cases(&v64, "_64");
    header_cases(&v32, "_32");
    load_cases(&v64, "_64");
    load_cases(&v32, "_32");
    interp_cases(&v64, &v32, &dyn, abs64, abs32, absdyn);
    dyn_cases(&dyn);
    other_cases(abs64);

    if (fclose(tsv) != 0 || fclose(pending_tsv) != 0)
        die("cannot write the case lists");
    img_free(&v64);
    img_free(&v32);
    img_free(&dyn);
    printf("gen_corpus: %u cases in %s/expected.tsv, %u pending in %s/pending.tsv\n", ncases,
           outdir, npending, outdir);
    return 0;
}
