/* bench helper: `geninput c BYTES`, the cc1 workload's input: a
 * self-contained C translation unit (no #include, nothing from the host's
 * headers) of about BYTES bytes, the same on every machine, so that cc1 does
 * the same work whatever our own sources look like.
 *
 * The unit is a run of modules, each the kind of code a C program is made of:
 * what the headers of the libraries it uses declare (structures, callback
 * types, enums, extern prototypes, inline functions), its own declarations
 * (a record type, an enum, prototypes, constant tables of numbers and
 * strings), then functions that mix integers through random
 * expression trees, run a byte-code interpreter (a switch), parse and copy
 * strings, sort and search records, keep a linked list, compute in floating
 * point, recurse, and call the functions of earlier modules.  Arithmetic is
 * unsigned (no undefined overflow) and divisors are odd, so -O2 has real
 * work and nothing to exploit; the unit compiles without warnings under
 * -Wall -Wextra -pedantic. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "geninput.h"

static long written;

/* Library headers per module: the share of declarations, which cost cc1
 * little, against that of the functions, which cost it most: with 10, 300 KB
 * (10 modules) take cc1 -O2 about 1.0 s of CPU (AMD EPYC). */
enum { LIBRARY_HEADERS = 10 };

static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vprintf(fmt, ap);
    va_end(ap);
    if (n > 0)
        written += n;
}

static unsigned pick(unsigned n) { return (unsigned)(gen_next() >> 11) % n; }

/* The module being written: its number and the shapes chosen for it. */
static struct module {
    unsigned m;          /* number: every name starts with m<m>_ */
    unsigned nfields;    /* extra unsigned fields x0.. of the record */
    unsigned namesz;     /* size of the record's name */
    unsigned tabmask;    /* the table has tabmask + 1 entries */
    unsigned nwords;     /* entries of the string table */
} M;

/* An unsigned expression over the names in vars (each already unsigned),
 * depth levels deep at most. */
static void expr(unsigned depth, const char *const *vars, unsigned nv)
{
    if (depth == 0 || pick(5) == 0) {
        if (pick(4) == 0)
            out("%uu", pick(4) == 0 ? (unsigned)(gen_next() >> 40) : pick(97) + 1);
        else
            out("%s", vars[pick(nv)]);
        return;
    }
    static const char *const binops[] = { "+", "-", "*", "^", "&", "|", "+", "^" };
    switch (pick(9)) {
    case 0:
        out("(");
        expr(depth - 1, vars, nv);
        out(" << %u)", pick(13) + 1);
        break;
    case 1:
        out("(");
        expr(depth - 1, vars, nv);
        out(" >> %u)", pick(13) + 1);
        break;
    case 2:
        out("m%u_table[(", M.m);
        expr(depth - 1, vars, nv);
        out(") & %uu]", M.tabmask);
        break;
    case 3: /* a variable against a constant: nothing for -Wextra to call always true */
        out("(%s %s %uu ? ", vars[pick(nv)], pick(2) ? "<" : "!=", pick(1000) + 1);
        expr(depth - 1, vars, nv);
        out(" : ");
        expr(depth - 1, vars, nv);
        out(")");
        break;
    case 4:
        out("m%u_rot(", M.m);
        expr(depth - 1, vars, nv);
        out(", %uu)", pick(31) + 1);
        break;
    case 5:
        out("(");
        expr(depth - 1, vars, nv);
        out(" %s (", pick(2) ? "/" : "%");
        expr(depth - 1, vars, nv);
        out(" | 1u))");
        break;
    default:
        out("(");
        expr(depth - 1, vars, nv);
        out(" %s ", binops[pick(8)]);
        expr(depth - 1, vars, nv);
        out(")");
        break;
    }
}

/* A name made of 2 to 5 syllables. */
static void name(void)
{
    static const char *const syll[] = { "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "bo" };
    for (unsigned k = pick(4) + 2; k > 0; k--)
        out("%s", syll[pick(10)]);
}

/* What a library's header brings along (parsed, never used): an options
 * structure, a callback type, a status enum, prototypes and small inline
 * functions. */
static void library_header(unsigned part)
{
    /* Parameter and return types; the last one is a format (m, part). */
    static const char *const types[] = {
        "int", "unsigned", "long", "unsigned long", "const char *", "char *", "void *",
        "const void *", "double", "unsigned char", "short", "long long", "struct m%u_opts%u *",
    };
    unsigned m = M.m;
    out("\nstruct m%u_opts%u {\n    int verbose;\n    unsigned flags;\n    const char *path;\n"
        "    long long limit;\n    double scale;\n    unsigned char mode[%u];\n    void *user;\n};\n",
        m, part, 4 + pick(12));
    out("typedef int (*m%u_callback%u)(void *ctx, const char *name, unsigned len);\n", m, part);
    out("enum m%u_status%u {", m, part);
    for (unsigned i = 0, n = 6 + pick(20); i < n; i++) {
        out("%sM%u_S%u_%u_", i % 4 == 0 ? "\n    " : " ", m, part, i);
        name();
        out(" = %u,", i == 0 ? 0 : i + pick(3) * 16);
    }
    out("\n};\n");
    for (unsigned i = 0, n = 12 + pick(24); i < n; i++) {
        out("extern %s m%u_", types[pick(12)], m);
        name();
        out("%u_%u(", part, i);
        unsigned np = pick(6);
        for (unsigned p = 0; p < np; p++) {
            out(p ? ", " : "");
            out(types[pick(13)], m, part);
        }
        out(np ? "%s);\n" : "void);\n", pick(8) == 0 && np ? ", ..." : "");
    }
    out("static inline int m%u_opts%u_ok(const struct m%u_opts%u *o)\n{\n"
        "    return o && o->path && o->limit >= 0 && (o->flags & %uu) == 0;\n}\n",
        m, part, m, part, 1u << pick(16));
    out("static inline unsigned m%u_opts%u_hash(const struct m%u_opts%u *o)\n{\n"
        "    unsigned h = o->flags * %uu;\n    for (const char *p = o->path; p && *p; p++)\n"
        "        h = (h ^ (unsigned char)*p) * 16777619u;\n    return h;\n}\n",
        m, part, m, part, 2u * pick(1u << 20) + 1u);
}

/* The header-like part: the record, an enum, prototypes, the tables. */
static void declarations(void)
{
    unsigned m = M.m;
    for (unsigned part = 0; part < LIBRARY_HEADERS; part++)
        library_header(part);
    out("\ntypedef struct m%u_rec {\n    unsigned id;\n    int key;\n    long long total;\n"
        "    double weight;\n    char name[%u];\n",
        m, M.namesz);
    for (unsigned i = 0; i < M.nfields; i++)
        out("    unsigned x%u;\n", i);
    out("    struct m%u_rec *next;\n} m%u_rec;\n", m, m);
    out("enum m%u_op {", m);
    for (unsigned i = 0; i < 12; i++)
        out(" M%u_OP%u = %u,", m, i, i);
    out(" M%u_NOPS };\n", m);
    out("unsigned m%u_mix(const unsigned *v, int n, unsigned seed);\n"
        "int m%u_run(m%u_rec *r, const unsigned char *code, int len);\n"
        "int m%u_parse(const char *s, m%u_rec *out, int max);\n"
        "void m%u_sort(m%u_rec *a, int n);\n"
        "double m%u_stats(const m%u_rec *a, int n);\n"
        "m%u_rec *m%u_find(m%u_rec *head, int key);\n"
        "unsigned m%u_walk(unsigned n, unsigned d);\n"
        "int m%u_main(int argc, const char *arg);\n",
        m, m, m, m, m, m, m, m, m, m, m, m, m, m);
    out("static const unsigned m%u_table[%u] = {", m, M.tabmask + 1);
    for (unsigned i = 0; i <= M.tabmask; i++)
        out("%s%uu,", i % 8 == 0 ? "\n    " : " ", (unsigned)(gen_next() >> 33));
    out("\n};\n");
    out("static const char *const m%u_words[%u] = {", m, M.nwords);
    for (unsigned i = 0; i < M.nwords; i++) {
        out("%s\"", i % 6 == 0 ? "\n    " : " ");
        name();
        out("\",");
    }
    out("\n};\n");
    out("static inline unsigned m%u_rot(unsigned x, unsigned k)\n"
        "{\n    return (x << (k & 31u)) | (x >> ((32u - k) & 31u));\n}\n",
        m);
}

static void fn_mix(void)
{
    static const char *const vars[] = { "h", "x", "seed", "(unsigned)i" };
    out("\nunsigned m%u_mix(const unsigned *v, int n, unsigned seed)\n{\n"
        "    unsigned h = seed ^ %uu;\n    for (int i = 0; i < n; i++) {\n"
        "        unsigned x = v[i];\n        h = x ^ ",
        M.m, (unsigned)(gen_next() >> 32));
    expr(3, vars, 4);
    out(";\n        if ((h & %uu) == 0)\n            h ^= ", pick(255) + 1);
    expr(2, vars, 4);
    out(";\n    }\n    return h;\n}\n");
}

/* One case of the byte-code interpreter. */
static void run_case(unsigned op, const char *const *vars, unsigned nv)
{
    out("        case M%u_OP%u:\n", M.m, op);
    switch (pick(8)) {
    case 0:
        out("            acc += ");
        expr(2, vars, nv);
        out(";\n            break;\n");
        break;
    case 1:
        out("            r->key = (int)((");
        expr(2, vars, nv);
        out(") & 0xffffu);\n            break;\n");
        break;
    case 2:
        out("            if (");
        expr(2, vars, nv);
        out(" > %uu)\n                acc ^= ", pick(1000));
        expr(2, vars, nv);
        out(";\n            else\n                acc -= %uu;\n            break;\n", pick(50) + 1);
        break;
    case 3:
        out("            r->total += (long long)(");
        expr(2, vars, nv);
        out(");\n            break;\n");
        break;
    case 4:
        out("            r->weight = r->weight * 0.%u + (double)((", pick(9) + 1);
        expr(2, vars, nv);
        out(") & 255u);\n            break;\n");
        break;
    case 5:
        out("            r->name[(");
        expr(2, vars, nv);
        out(") %% %uu] = (char)('a' + (", M.namesz - 1);
        expr(2, vars, nv);
        out(") %% 26u);\n            break;\n");
        break;
    case 6:
        if (M.nfields > 0) {
            out("            r->x%u = ", pick(M.nfields));
            expr(2, vars, nv);
            out(";\n            break;\n");
            break;
        }
        /* fall through */
    default:
        out("            if (acc > %uu)\n                return (int)(acc & 0x7fffu);\n"
            "            pc += (int)(acc & 3u);\n            break;\n",
            (unsigned)(gen_next() >> 34));
        break;
    }
}

static void fn_run(void)
{
    static const char *const base[] = { "acc", "(unsigned)pc", "(unsigned)r->key", "r->id", "op" };
    const char *vars[5 + 4];
    char xs[4][16];
    unsigned nv = 5;
    for (unsigned i = 0; i < 5; i++)
        vars[i] = base[i];
    for (unsigned i = 0; i < M.nfields && i < 4; i++) {
        snprintf(xs[i], sizeof xs[i], "r->x%u", i);
        vars[nv++] = xs[i];
    }
    out("\nint m%u_run(m%u_rec *r, const unsigned char *code, int len)\n{\n"
        "    unsigned acc = %uu;\n    for (int pc = 0; pc < len; pc++) {\n"
        "        unsigned op = code[pc];\n        switch (op %% %uu) {\n",
        M.m, M.m, pick(1000), 12u);
    for (unsigned op = 0; op < 12; op++)
        if (op == 0 || pick(6) != 0)
            run_case(op, vars, nv);
    out("        default:\n            acc = m%u_rot(acc, op);\n            break;\n"
        "        }\n    }\n    return (int)(acc & 0x7fffffffu);\n}\n",
        M.m);
}

static void fn_parse(void)
{
    unsigned m = M.m;
    out("\nstatic int m%u_streq(const char *a, const char *b)\n{\n"
        "    while (*a && *a == *b)\n        a++, b++;\n    return *a == *b;\n}\n",
        m);
    out("\nint m%u_parse(const char *s, m%u_rec *out, int max)\n{\n    int n = 0;\n"
        "    while (*s && n < max) {\n        while (*s == ' ' || *s == ',' || *s == '\\t')\n            s++;\n"
        "        unsigned v = 0;\n        int neg = *s == '-';\n        if (neg)\n            s++;\n"
        "        while (*s >= '0' && *s <= '9')\n            v = v * 10u + (unsigned)(*s++ - '0');\n"
        "        m%u_rec *r = &out[n];\n        r->key = neg ? -(int)(v & 0xffffu) : (int)(v & 0xffffu);\n"
        "        unsigned k = 0;\n        while (*s && *s != ' ' && *s != ',' && k + 1 < sizeof r->name)\n"
        "            r->name[k++] = *s++;\n        r->name[k] = 0;\n        r->id = %uu;\n"
        "        for (unsigned w = 0; w < %uu; w++)\n            if (m%u_streq(r->name, m%u_words[w])) {\n"
        "                r->id = w;\n                break;\n            }\n"
        "        if (k == 0 && v == 0 && !neg)\n            s++;\n        n++;\n    }\n    return n;\n}\n",
        m, m, m, M.nwords, M.nwords, m, m);
}

static void fn_sort_find(void)
{
    unsigned m = M.m;
    static const char *const keys[] = { "key", "id", "total" };
    const char *k = keys[pick(3)];
    out("\nvoid m%u_sort(m%u_rec *a, int n)\n{\n    for (int i = 1; i < n; i++) {\n"
        "        m%u_rec t = a[i];\n        int j = i - 1;\n"
        "        while (j >= 0 && (a[j].%s > t.%s || (a[j].%s == t.%s && a[j].weight < t.weight))) {\n"
        "            a[j + 1] = a[j];\n            j--;\n        }\n        a[j + 1] = t;\n    }\n"
        "    for (int i = 0; i + 1 < n; i++)\n        a[i].next = &a[i + 1];\n"
        "    if (n > 0)\n        a[n - 1].next = 0;\n}\n",
        m, m, m, k, k, k, k);
    out("\nm%u_rec *m%u_find(m%u_rec *head, int key)\n{\n    m%u_rec *best = 0;\n"
        "    for (m%u_rec *r = head; r; r = r->next) {\n        if (r->key == key)\n            return r;\n"
        "        if (r->key < key && (!best || r->key > best->key))\n            best = r;\n    }\n"
        "    return best;\n}\n",
        m, m, m, m, m);
}

static void fn_stats_walk(void)
{
    unsigned m = M.m;
    out("\ndouble m%u_stats(const m%u_rec *a, int n)\n{\n    double sum = 0, sq = 0, poly = 0;\n"
        "    for (int i = 0; i < n; i++) {\n        double w = a[i].weight + (double)a[i].key * 0.%u;\n"
        "        sum += w;\n        sq += w * w;\n        poly = ((poly * %u.%u + w) * 0.%u - %u.0) / %u.0;\n    }\n"
        "    if (n == 0)\n        return 0;\n    double mean = sum / n;\n"
        "    return sq / n - mean * mean + poly * 0.%u;\n}\n",
        m, m, pick(90) + 10, pick(3), pick(10), pick(90) + 10, pick(9), pick(7) + 2, pick(99) + 1);
    static const char *const vars[] = { "n", "d", "a", "b" };
    out("\nunsigned m%u_walk(unsigned n, unsigned d)\n{\n    if (d == 0 || n < %uu)\n        return n * %uu + d;\n"
        "    unsigned a = m%u_walk(n / 2u, d - 1u);\n    unsigned b = m%u_walk(n / 3u + (n & 1u), d - 1u);\n"
        "    return a - b + ",
        m, pick(8) + 2, pick(20) + 1, m, m);
    expr(3, vars, 4);
    out(";\n}\n");
}

/* The module's entry: builds records, runs the others, and calls functions
 * of up to three earlier modules. */
static void fn_main(void)
{
    unsigned m = M.m;
    out("\nint m%u_main(int argc, const char *arg)\n{\n    m%u_rec recs[%u];\n"
        "    unsigned v[%u];\n    unsigned char code[%u];\n",
        m, m, 8 + pick(24), 16 + pick(48), 32 + pick(64));
    out("    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++)\n"
        "        v[i] = m%u_table[(i * %uu + (unsigned)argc) & %uu];\n"
        "    for (unsigned i = 0; i < sizeof code; i++)\n        code[i] = (unsigned char)(v[i %% (sizeof v / sizeof v[0])] >> (i & 7u));\n"
        "    int n = m%u_parse(arg, recs, (int)(sizeof recs / sizeof recs[0]));\n"
        "    for (int i = 0; i < n; i++) {\n        recs[i].total = 0;\n        recs[i].weight = 1.0 / (i + 1);\n",
        m, pick(13) * 2 + 1, M.tabmask, m);
    for (unsigned i = 0; i < M.nfields; i++)
        out("        recs[i].x%u = %uu;\n", i, pick(1000));
    out("        m%u_run(&recs[i], code, (int)sizeof code);\n    }\n"
        "    m%u_sort(recs, n);\n    unsigned h = m%u_mix(v, (int)(sizeof v / sizeof v[0]), (unsigned)n);\n"
        "    m%u_rec *r = n > 0 ? m%u_find(recs, (int)(h & 0xffu)) : 0;\n"
        "    h += r ? (unsigned)r->key : m%u_walk(h & 1023u, %uu);\n"
        "    h ^= (unsigned)(m%u_stats(recs, n) * 1000.0);\n",
        m, m, m, m, m, m, pick(5) + 3, m);
    for (unsigned i = 0; i < 3 && m > 0; i++) {
        unsigned o = pick(m);
        switch (pick(3)) {
        case 0: out("    h += (unsigned)m%u_main(argc + %u, arg);\n", o, i); break;
        case 1: out("    h ^= m%u_mix(v, %u, h);\n", o, 1 + pick(16)); break;
        default: out("    h -= m%u_walk(h & 255u, %uu);\n", o, pick(4) + 2); break;
        }
    }
    out("    return (int)(h & 0x7fffffffu);\n}\n");
}

void gen_c(long bytes)
{
    out("/* Generated by bench/src/geninput.c (geninput c %ld): cc1's input. */\n", bytes);
    /* Whole modules, as many as come nearest to bytes. */
    for (M.m = 0; M.m == 0 || written + written / M.m / 2 < bytes; M.m++) {
        M.nfields = pick(5);
        M.namesz = 8u << pick(3);
        M.tabmask = (16u << pick(3)) - 1;
        M.nwords = 4 + pick(12);
        declarations();
        fn_mix();
        fn_run();
        fn_parse();
        fn_sort_find();
        fn_stats_walk();
        fn_main();
    }
}
