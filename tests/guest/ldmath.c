/* long double (and double) math through libm, printed exactly (%La and
 * %.21Lg): on i386 glibc computes these with the x87 transcendental
 * instructions themselves (FSIN FCOS FPTAN FPATAN F2XM1 FYL2X FYL2XP1
 * FSCALE FPREM FPREM1 FRNDINT FXTRACT FSQRT), under each rounding mode and
 * precision control, so any difference from the native run shows up as a
 * different last bit.  Also the status word after exceptions (fetestexcept)
 * and conversions between the x87 and integers. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

static const long double args[] = {
    0.0L, -0.0L, 0.5L, 1.0L, -1.0L, 2.0L, 3.14159265358979323846L, 1e-10L, 1e10L,
    -123.456L, 0.7853981633974483096L, 1e300L, 1e-4900L, 65536.25L, -2.5L, 1.5L,
};
#define NARGS (sizeof(args) / sizeof(args[0]))

static void show(const char *name, long double x, long double r)
{
    printf("%-10s %-28La -> %La (%.21Lg)\n", name, x, r, r);
}

static void unary(void)
{
    static const struct {
        const char *name;
        long double (*f)(long double);
    } fns[] = {
        { "sinl", sinl }, { "cosl", cosl }, { "tanl", tanl }, { "atanl", atanl },
        { "asinl", asinl }, { "acosl", acosl }, { "expl", expl }, { "exp2l", exp2l },
        { "expm1l", expm1l }, { "logl", logl }, { "log2l", log2l }, { "log10l", log10l },
        { "log1pl", log1pl }, { "sqrtl", sqrtl }, { "cbrtl", cbrtl }, { "sinhl", sinhl },
        { "coshl", coshl }, { "tanhl", tanhl }, { "rintl", rintl }, { "nearbyintl", nearbyintl },
        { "floorl", floorl }, { "ceill", ceill }, { "truncl", truncl }, { "roundl", roundl },
        { "logbl", logbl }, { "fabsl", fabsl },
    };
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        for (size_t k = 0; k < NARGS; k++)
            show(fns[i].name, args[k], fns[i].f(args[k]));
}

static void binary(void)
{
    static const struct {
        const char *name;
        long double (*f)(long double, long double);
    } fns[] = {
        { "atan2l", atan2l }, { "powl", powl }, { "fmodl", fmodl },
        { "remainderl", remainderl }, { "hypotl", hypotl }, { "fdiml", fdiml },
    };
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        for (size_t k = 0; k < NARGS; k++) {
            long double x = args[k], y = args[(k * 7 + 3) % NARGS];
            printf("%-10s %La, %La -> %La\n", fns[i].name, x, y, fns[i].f(x, y));
        }
    for (size_t k = 0; k < NARGS; k++) {
        int e;
        long double m = frexpl(args[k], &e);
        printf("frexpl %La -> %La %d; ldexpl -> %La; scalbnl(x, -20) -> %La\n", args[k], m, e,
               ldexpl(m, e), scalbnl(args[k], -20));
        long double ip, frac = modfl(args[k], &ip);
        printf("modfl %La -> %La %La\n", args[k], frac, ip);
    }
}

/* The same operations under the four rounding modes, and the conversions
 * to integers that depend on them. */
static void rounding(void)
{
    static const int modes[] = { FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO };
    static const char *const names[] = { "nearest", "down", "up", "zero" };
    for (int m = 0; m < 4; m++) {
        fesetround(modes[m]);
        volatile long double third = 1.0L, seven = 7.0L;
        third /= 3.0L;
        printf("%s: 1/3 %La, 1/7 %La, 2/3*3 %La\n", names[m], third, 1.0L / seven,
               (third + third) * 3.0L);
        for (size_t k = 0; k < NARGS; k++) {
            long double x = args[k] * 1.25L;
            printf("  %La: rintl %La lrintl %ld llrintl %lld sqrtl %La expl %La\n", x, rintl(x),
                   fabsl(x) < 1e9L ? lrintl(x) : 0L, fabsl(x) < 1e18L ? llrintl(x) : 0LL,
                   sqrtl(fabsl(x)), expl(x / 1000.0L));
        }
        volatile double d = 1.0;
        d /= 3.0;
        printf("  double 1/3 %a float %a\n", d, (double)(float)d);
    }
    fesetround(FE_TONEAREST);
}

/* Exception flags the x87 (and SSE) status words collect. */
static void exceptions(void)
{
    static const struct {
        const char *name;
        int bit;
    } ex[] = { { "inexact", FE_INEXACT }, { "divbyzero", FE_DIVBYZERO },
               { "underflow", FE_UNDERFLOW }, { "overflow", FE_OVERFLOW },
               { "invalid", FE_INVALID } };
    volatile long double zero = 0.0L, one = 1.0L, big = 1e4000L, tiny = 1e-4000L;
    const char *what[] = { "1/0", "0/0", "big*big", "tiny*tiny", "1/3", "sqrt(-1)", "log(0)" };
    for (int i = 0; i < 7; i++) {
        feclearexcept(FE_ALL_EXCEPT);
        volatile long double r;
        switch (i) {
        case 0: r = one / zero; break;
        case 1: r = zero / zero; break;
        case 2: r = big * big; break;
        case 3: r = tiny * tiny; break;
        case 4: r = one / 3.0L; break;
        case 5: r = sqrtl(-one); break;
        default: r = logl(zero); break;
        }
        printf("%-10s = %-12Lg:", what[i], r);
        for (int k = 0; k < 5; k++)
            if (fetestexcept(ex[k].bit))
                printf(" %s", ex[k].name);
        printf("\n");
    }
}

int main(void)
{
    unary();
    binary();
    rounding();
    exceptions();
    long double acc = 0;
    for (int i = 1; i <= 2000; i++)
        acc += sinl((long double)i) * expl(-(long double)i / 1000.0L) + atan2l(i, 7.0L);
    printf("sum %La\n", acc);
    return 0;
}
