/* printf of doubles and long doubles: glibc's formatting exercises SSE2,
 * x87 (long double) and the integer core.  Compared with the native run. */
#include <float.h>
#include <math.h>
#include <stdio.h>

int main(void)
{
    static const double d[] = { 0.0, -0.0, 1.0, -1.5, 0.1, 1.0 / 3.0, 2.0 / 3.0, 1e-300, 1e300,
                                DBL_MIN, DBL_MAX, DBL_EPSILON, 5e-324, 123456789.125, M_PI, M_E };
    for (unsigned i = 0; i < sizeof(d) / sizeof(d[0]); i++)
        printf("%g %.17g %a %e %.3f\n", d[i], d[i], d[i], d[i], d[i]);
    printf("%f %f %f\n", INFINITY, -INFINITY, NAN);
    static const long double ld[] = { 0.0L, 1.0L / 3.0L, 2.0L / 3.0L, 1e-4000L, 1e4000L, LDBL_MIN,
                                      LDBL_MAX, LDBL_EPSILON, 3.14159265358979323846264338327950288L };
    for (unsigned i = 0; i < sizeof(ld) / sizeof(ld[0]); i++)
        printf("%Lg %.21Lg %La %Le\n", ld[i], ld[i], ld[i], ld[i]);
    double acc = 0;
    for (int i = 1; i <= 1000; i++)
        acc += sqrt((double)i) / i;
    long double lacc = 0;
    for (int i = 1; i <= 1000; i++)
        lacc += sqrtl((long double)i) / i;
    printf("%.17g %.21Lg\n", acc, lacc);
    printf("%.17g %.17g %.17g %.17g\n", sin(1.0), cos(2.0), exp(3.5), log(10.0));
    printf("%.21Lg %.21Lg %.21Lg\n", sinl(1.0L), expl(2.5L), logl(7.0L));
    return 0;
}
