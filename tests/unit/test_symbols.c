/* The tools' symbolizer (tools/symbols.c, tools/symbols_plt.c) against
 * objdump -d of the same programs: every PLT entry objdump labels
 * `name@plt` (and every call objdump shows going to one) has that name
 * here too, at the address the loader put it, for each PLT layout: x86_64
 * lazy (PIE and not), -z now, IBT's .plt.sec, i386 PIC (jmp *n(%ebx)),
 * non-PIC (jmp *abs) and IBT; .plt.got entries (__cxa_finalize) among
 * them.  A static program has no dynamic relocations: no name@plt, as in
 * objdump.  argv[1] is the folder holding the guest programs. */
#include <check.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfemu.h"
#include "tools/symbols.h"

static const char *guest_dir;

struct fixture {
    elfemu *vm;
    struct syms *syms;
    uint64_t bias;
    char path[PATH_MAX];
};

static void open_guest(struct fixture *f, const char *name)
{
    snprintf(f->path, sizeof(f->path), "%s/%s", guest_dir, name);
    elfemu_config cfg;
    elfemu_config_init(&cfg);
    f->vm = elfemu_create(&cfg);
    ck_assert_ptr_nonnull(f->vm);
    char *const argv[] = { f->path, NULL }, *const envp[] = { NULL };
    elfemu_error err;
    ck_assert_msg(elfemu_load(f->vm, f->path, argv, envp, &err) == 0, "%s", err.message);
    f->bias = elfemu_get_load_info(f->vm)->program.load_bias;
    f->syms = syms_new(f->vm);
    ck_assert_ptr_nonnull(f->syms);
}

static void close_guest(struct fixture *f)
{
    syms_free(f->syms);
    elfemu_destroy(f->vm);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

/* What objdump named: "ADDR <NAME>:" labels and "call ADDR <NAME>" lines
 * whose NAME ends with @plt; each checked against syms_format().  Returns
 * how many labels there were. */
static int check_against_objdump(struct fixture *f, int *calls)
{
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn '%s'", f->path);
    FILE *p = popen(cmd, "r");
    ck_assert_msg(p != NULL, "cannot run objdump");
    char line[1024], name[512], got[512];
    int labels = 0;
    *calls = 0;
    while (fgets(line, sizeof(line), p)) {
        uint64_t addr, target;
        if (sscanf(line, "%" SCNx64 " <%511[^>]>:", &addr, name) == 2 && ends_with(name, "@plt")) {
            labels++;
            syms_format(f->syms, f->bias + addr, got, sizeof(got));
            ck_assert_msg(!strcmp(got, name), "%s: %#" PRIx64 ": objdump %s, we %s", f->path,
                          addr, name, got);
            /* Inside the entry: the same name with the offset. */
            char want[600];
            snprintf(want, sizeof(want), "%s+0x4", name);
            syms_format(f->syms, f->bias + addr + 4, got, sizeof(got));
            ck_assert_str_eq(got, want);
            /* And back: a breakpoint on the name finds the entry. */
            uint64_t found[4];
            size_t n = syms_addresses(f->syms, name, found, 4);
            ck_assert_msg(n == 1 && found[0] == f->bias + addr, "%s: syms_addresses(%s)",
                          f->path, name);
        } else if (sscanf(line, " %*x: call %" SCNx64 " <%511[^>]>", &target, name) == 2 &&
                   ends_with(name, "@plt")) {
            ++*calls;
            syms_format(f->syms, f->bias + target, got, sizeof(got));
            ck_assert_msg(!strcmp(got, name), "%s: call %#" PRIx64 ": objdump %s, we %s",
                          f->path, target, name, got);
        }
    }
    ck_assert_int_eq(pclose(p), 0);
    return labels;
}

/* A dynamic showargs: printf, getenv and getauxval through the PLT, and
 * (PIE only) __cxa_finalize in .plt.got. */
static void check_dynamic(const char *name, bool pie)
{
    struct fixture f;
    open_guest(&f, name);
    int calls, labels = check_against_objdump(&f, &calls);
    ck_assert_msg(labels >= (pie ? 4 : 3), "%s: objdump labels %d PLT entries", name, labels);
    ck_assert_msg(calls >= 3, "%s: objdump shows %d calls to them", name, calls);
    uint64_t a;
    ck_assert_msg(syms_addresses(f.syms, "printf@plt", &a, 1) == 1, "%s: no printf@plt", name);
    ck_assert_msg(syms_addresses(f.syms, "__cxa_finalize@plt", &a, 1) == (pie ? 1 : 0),
                  "%s: __cxa_finalize@plt", name);
    close_guest(&f);
}

START_TEST(x86_64_lazy_pie) { check_dynamic("showargs_64_dyn", true); }
END_TEST
START_TEST(x86_64_lazy_nopie) { check_dynamic("showargs_64_nopie", false); }
END_TEST
START_TEST(x86_64_now) { check_dynamic("showargs_64_now", true); }
END_TEST
START_TEST(x86_64_ibt) { check_dynamic("showargs_64_ibt", true); }
END_TEST
START_TEST(i386_pic) { check_dynamic("showargs_32_dyn", true); }
END_TEST
START_TEST(i386_nopic) { check_dynamic("showargs_32_nopie", false); }
END_TEST
START_TEST(i386_ibt) { check_dynamic("showargs_32_ibt", true); }
END_TEST

START_TEST(static_has_none)
{
    struct fixture f;
    open_guest(&f, "showargs_64_static");
    int calls;
    ck_assert_int_eq(check_against_objdump(&f, &calls), 0);
    uint64_t a;
    ck_assert_uint_eq(syms_addresses(f.syms, "printf@plt", &a, 1), 0);
    ck_assert_uint_eq(syms_addresses(f.syms, "printf", &a, 1), 1);
    close_guest(&f);
}
END_TEST

int main(int argc, char **argv)
{
    guest_dir = argc > 1 ? argv[1] : ".";
    Suite *s = suite_create("symbols");
    TCase *t = tcase_create("plt");
    tcase_add_test(t, x86_64_lazy_pie);
    tcase_add_test(t, x86_64_lazy_nopie);
    tcase_add_test(t, x86_64_now);
    tcase_add_test(t, x86_64_ibt);
    tcase_add_test(t, i386_pic);
    tcase_add_test(t, i386_nopic);
    tcase_add_test(t, i386_ibt);
    tcase_add_test(t, static_has_none);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
