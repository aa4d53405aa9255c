/* bench: a double-precision SSE loop (numerical integration and a small
 * n-body style update), printed with full precision. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    double sum = 0, x = 0, h = 1.0 / (double)n;
    for (long i = 0; i < n; i++) {
        x = (i + 0.5) * h;
        sum += 4.0 / (1.0 + x * x);
    }
    double px[64], vx[64];
    for (int i = 0; i < 64; i++) {
        px[i] = i * 0.5;
        vx[i] = 0;
    }
    for (int step = 0; step < 200; step++)
        for (int i = 0; i < 64; i++) {
            double f = 0;
            for (int j = 0; j < 64; j++) {
                double d = px[j] - px[i];
                f += d / (d * d + 0.01);
            }
            vx[i] += f * 1e-4;
            px[i] += vx[i] * 1e-2;
        }
    printf("%.17g %.17g\n", sum * h, px[7] + px[42]);
    return 0;
}
