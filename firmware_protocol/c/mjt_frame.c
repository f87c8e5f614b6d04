/* mjt_frame.c: CRC-16/CCITT-FALSE, frame encoding, the streaming decoder. */
#include "mjt_frame.h"

#include <string.h>

uint16_t mjt_crc16(uint16_t crc, const uint8_t *p, size_t n)
{
    while (n--) {
        crc ^= (uint16_t)((uint16_t)*p++ << 8);
        for (int i = 0; i < 8; i++)
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    }
    return crc;
}

size_t mjt_frame_encode(uint8_t *out, uint8_t seq, uint8_t msg_id, const uint8_t *payload, uint8_t n)
{
    out[0] = MJT_SYNC;
    out[1] = n;
    out[2] = seq;
    out[3] = msg_id;
    if (n)
        memcpy(out + MJT_HEADER_SIZE, payload, n);
    uint16_t crc = mjt_crc16(MJT_CRC_INIT, out + 1, (size_t)n + 3u);
    out[MJT_HEADER_SIZE + n] = (uint8_t)(crc >> 8);
    out[MJT_HEADER_SIZE + n + 1] = (uint8_t)crc;
    return (size_t)n + MJT_OVERHEAD;
}

void mjt_decoder_init(mjt_decoder *d, uint8_t frame_size, mjt_frame_handler on_frame, void *ctx)
{
    memset(d, 0, sizeof *d);
    if (frame_size > MJT_FRAME_BUFFER)
        frame_size = MJT_FRAME_BUFFER;
    d->max_payload = (uint8_t)(frame_size - MJT_OVERHEAD);
    d->on_frame = on_frame;
    d->ctx = ctx;
}

void mjt_decoder_clear(mjt_decoder *d)
{
    d->held = 0;
}

static void skip(mjt_decoder *d, uint8_t count)
{
    d->stats.bytes_skipped += count;
    if (count && !d->hunting) {
        d->stats.resyncs++;
        d->hunting = 1;
    }
}

static void drop_first(mjt_decoder *d)
{
    skip(d, 1);
    d->held--;
    memmove(d->buf, d->buf + 1, d->held);
}

/* Work through the bytes held until they are one incomplete frame (or none). */
static void scan(mjt_decoder *d)
{
    while (d->held) {
        if (d->buf[0] != MJT_SYNC) {
            uint8_t start = 1;
            while (start < d->held && d->buf[start] != MJT_SYNC)
                start++;
            skip(d, start);
            d->held = (uint8_t)(d->held - start);
            memmove(d->buf, d->buf + start, d->held);
            continue;
        }
        if (d->held < 2)
            return; /* the length byte has not arrived */
        uint8_t length = d->buf[1];
        if (length > d->max_payload) {
            d->stats.oversize++;
            drop_first(d);
            continue;
        }
        uint8_t size = (uint8_t)(length + MJT_OVERHEAD);
        if (d->held < size)
            return; /* wait for the rest */
        if (mjt_crc16(MJT_CRC_INIT, d->buf + 1, (size_t)size - 1u)) {
            d->stats.crc_errors++;
            drop_first(d);
            continue;
        }
        d->stats.frames_received++;
        d->hunting = 0;
        d->on_frame(d->ctx, d->buf[2], d->buf[3], d->buf + MJT_HEADER_SIZE, length);
        d->held = (uint8_t)(d->held - size);
        memmove(d->buf, d->buf + size, d->held);
    }
}

void mjt_decoder_feed(mjt_decoder *d, uint8_t byte)
{
    if (d->held == 0 && byte != MJT_SYNC) {
        skip(d, 1); /* the common idle case, without touching the buffer */
        return;
    }
    d->buf[d->held++] = byte; /* held < size <= the buffer: scan leaves at most one partial frame */
    scan(d);
}

void mjt_decoder_abandon(mjt_decoder *d)
{
    if (!d->held)
        return;
    d->stats.truncated++;
    drop_first(d);
    scan(d);
}
