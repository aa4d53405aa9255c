/* bench: process startup (dynamic and static glibc hello). */
#include <stdio.h>

int main(void)
{
    printf("hello, world\n");
    return 0;
}
