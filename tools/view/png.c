/* elfemu-view: a PNG writer on zlib.  PNG (RFC 2083 / ISO 15948): the
 * signature, an IHDR chunk, one IDAT chunk holding the zlib stream of the
 * scanlines (each led by filter byte 0: none), an IEND chunk; every chunk
 * is length, type, data, CRC-32 of type and data. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "tools/view/png.h"

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static int write_chunk(FILE *f, const char type[4], const uint8_t *data, uint32_t len)
{
    uint8_t head[8], tail[4];
    put_be32(head, len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0, (const Bytef *)type, 4);
    if (len)
        crc = crc32(crc, data, len);
    put_be32(tail, (uint32_t)crc);
    if (fwrite(head, 1, 8, f) != 8 || (len && fwrite(data, 1, len, f) != len) ||
        fwrite(tail, 1, 4, f) != 4)
        return -1;
    return 0;
}

int png_write_rgb(const char *path, const uint32_t *pixels, int w, int h, size_t pitch)
{
    if (w <= 0 || h <= 0) {
        errno = EINVAL;
        return -1;
    }
    size_t row = 1 + 3 * (size_t)w, raw_len = row * (size_t)h;
    uint8_t *raw = malloc(raw_len);
    uLongf z_len = compressBound((uLong)raw_len);
    uint8_t *z = malloc(z_len);
    int r = -1;
    FILE *f = NULL;
    if (!raw || !z)
        goto out;
    for (int y = 0; y < h; y++) {
        const uint32_t *src = (const uint32_t *)((const uint8_t *)pixels + (size_t)y * pitch);
        uint8_t *dst = raw + (size_t)y * row;
        *dst++ = 0; /* filter: none */
        for (int x = 0; x < w; x++) {
            *dst++ = (uint8_t)(src[x] >> 16);
            *dst++ = (uint8_t)(src[x] >> 8);
            *dst++ = (uint8_t)src[x];
        }
    }
    if (compress2(z, &z_len, raw, (uLong)raw_len, 6) != Z_OK) {
        errno = EIO;
        goto out;
    }
    f = fopen(path, "wb");
    if (!f)
        goto out;
    static const uint8_t signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    uint8_t ihdr[13];
    put_be32(ihdr, (uint32_t)w);
    put_be32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;   /* bits per sample */
    ihdr[9] = 2;   /* colour type: RGB */
    ihdr[10] = 0;  /* compression: deflate */
    ihdr[11] = 0;  /* filter method 0 */
    ihdr[12] = 0;  /* no interlace */
    if (fwrite(signature, 1, 8, f) != 8 || write_chunk(f, "IHDR", ihdr, 13) ||
        write_chunk(f, "IDAT", z, (uint32_t)z_len) || write_chunk(f, "IEND", NULL, 0)) {
        errno = EIO;
        goto out;
    }
    r = 0;
out:
    if (f && fclose(f) != 0)
        r = -1;
    if (r != 0 && f)
        remove(path);
    free(raw);
    free(z);
    return r;
}
