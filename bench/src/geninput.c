/* bench helper: the deterministic inputs of the real-program workloads, the
 * same bytes on every machine (an xorshift generator with a fixed seed, no
 * libc rand() and no floating point).
 *
 *   geninput text BYTES   words and numbers in lines, about as compressible
 *                         as prose (gzip -9 input)
 *   geninput sql ROWS     one CREATE TABLE, ROWS single-row INSERTs in one
 *                         transaction, then a LIKE scan and an aggregate
 *                         (sqlite3 input)
 *   geninput c BYTES      a self-contained C translation unit of about BYTES
 *                         bytes (cc1 input; geninput_c.c) */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geninput.h"

static uint64_t state = 0x9e3779b97f4a7c15u;

uint64_t gen_next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static const char *const words[] = {
    "the",    "of",      "and",    "guest",  "host",     "page",   "mapping", "signal",
    "thread", "syscall", "loader", "stack",  "register", "flags",  "decode",  "block",
    "memory", "file",    "return", "value",  "native",   "emulator", "time",  "a",
    "to",     "in",      "is",     "that",   "for",      "with",   "on",      "by",
};

static void gen_text(long bytes)
{
    long n = 0, col = 0;
    while (n < bytes) {
        uint64_t r = gen_next();
        char word[32];
        int len;
        if (r % 11 == 0)
            len = snprintf(word, sizeof word, "%" PRIu64, (r >> 8) % 100000);
        else
            len = snprintf(word, sizeof word, "%s", words[(r >> 8) % (sizeof words / sizeof words[0])]);
        if (n + len + 1 > bytes)
            len = (int)(bytes - n - 1);
        if (len < 0)
            len = 0;
        fwrite(word, 1, (size_t)len, stdout);
        col += len + 1;
        int newline = col > 72 || n + len + 1 >= bytes;
        putchar(newline ? '\n' : ' ');
        if (newline)
            col = 0;
        n += len + 1;
    }
}

static void gen_sql(long rows)
{
    printf("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, s TEXT);\nBEGIN;\n");
    for (long i = 1; i <= rows; i++) {
        uint64_t r = gen_next();
        printf("INSERT INTO t(k, s) VALUES(%" PRIu64 ", '%s-%" PRIx64 "-%ld');\n", r % 100000,
               words[(r >> 20) % (sizeof words / sizeof words[0])], (r >> 24) & 0xffffff, i);
    }
    printf("COMMIT;\n"
           "SELECT count(*), sum(k), max(s) FROM t WHERE s LIKE '%%ab%%';\n"
           "SELECT k %% 7, count(*), sum(length(s)) FROM t GROUP BY k %% 7 ORDER BY 1;\n");
}

int main(int argc, char **argv)
{
    long n = argc == 3 ? atol(argv[2]) : -1;
    if (n < 0 || (strcmp(argv[1], "text") != 0 && strcmp(argv[1], "sql") != 0 &&
                  strcmp(argv[1], "c") != 0)) {
        fprintf(stderr, "usage: geninput text BYTES | geninput sql ROWS | geninput c BYTES\n");
        return 2;
    }
    if (strcmp(argv[1], "text") == 0)
        gen_text(n);
    else if (strcmp(argv[1], "sql") == 0)
        gen_sql(n);
    else
        gen_c(n);
    return fflush(stdout) == 0 ? 0 : 1;
}
