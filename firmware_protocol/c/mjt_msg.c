/* mjt_msg.c: payload writing and checking. */
#include "mjt_msg.h"

#include <string.h>

void mjt_put_u8(mjt_writer *w, uint8_t v)
{
    if (w->len < MJT_MAX_PAYLOAD)
        w->buf[w->len++] = v;
}

void mjt_put_u16(mjt_writer *w, uint16_t v)
{
    mjt_put_u8(w, (uint8_t)v);
    mjt_put_u8(w, (uint8_t)(v >> 8));
}

void mjt_put_u32(mjt_writer *w, uint32_t v)
{
    mjt_put_u16(w, (uint16_t)v);
    mjt_put_u16(w, (uint16_t)(v >> 16));
}

void mjt_put_bytes(mjt_writer *w, const uint8_t *p, uint8_t n)
{
    mjt_put_u8(w, n);
    for (uint8_t i = 0; i < n; i++)
        mjt_put_u8(w, p[i]);
}

void mjt_put_str(mjt_writer *w, const char *s)
{
    size_t n = strlen(s);
    size_t room = w->len < MJT_MAX_PAYLOAD ? (size_t)(MJT_MAX_PAYLOAD - w->len - 1) : 0;
    if (n > room) { /* cut at a character boundary */
        n = room;
        while (n && ((uint8_t)s[n] & 0xC0u) == 0x80u)
            n--;
    }
    mjt_put_bytes(w, (const uint8_t *)s, (uint8_t)n);
}

uint16_t mjt_get_u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

uint32_t mjt_get_u32(const uint8_t *p) { return (uint32_t)mjt_get_u16(p) | (uint32_t)mjt_get_u16(p + 2) << 16; }

/* Strict UTF-8 (as Python decodes it): no overlong forms, no surrogates, at most U+10FFFF. */
static int utf8_valid(const uint8_t *p, uint8_t n)
{
    uint8_t i = 0;
    while (i < n) {
        uint8_t c = p[i++];
        if (c < 0x80u)
            continue;
        uint8_t more = c >= 0xF0u ? 3 : c >= 0xE0u ? 2 : c >= 0xC2u ? 1 : 0;
        if (!more || c > 0xF4u || (uint8_t)(n - i) < more)
            return 0;
        uint8_t lo = 0x80u, hi = 0xBFu; /* the second byte's range rules out the bad forms */
        if (c == 0xE0u) lo = 0xA0u;
        if (c == 0xEDu) hi = 0x9Fu;
        if (c == 0xF0u) lo = 0x90u;
        if (c == 0xF4u) hi = 0x8Fu;
        if (p[i] < lo || p[i] > hi)
            return 0;
        for (uint8_t k = 0; k < more; k++, i++)
            if ((p[i] & 0xC0u) != 0x80u)
                return 0;
    }
    return 1;
}

int mjt_payload_valid(const char *layout, const uint8_t *p, uint8_t n)
{
    uint8_t at = 0;
    for (; *layout; layout++) {
        uint8_t left = (uint8_t)(n - at), size;
        switch (*layout) {
        case 'B': size = 1; break;
        case '?': size = 1; if (left && p[at] > 1) return 0; break;
        case 'H': size = 2; break;
        case 'I': case 'i': size = 4; break;
        default: /* b, l, s: a count first */
            if (!left)
                return 0;
            size = (uint8_t)(p[at] * (*layout == 'l' ? 4u : 1u));
            if (p[at] > MJT_MAX_PAYLOAD || size > left - 1u)
                return 0;
            if (*layout == 's' && !utf8_valid(p + at + 1, size))
                return 0;
            size++;
        }
        if (size > left)
            return 0;
        at = (uint8_t)(at + size);
    }
    return at == n;
}
