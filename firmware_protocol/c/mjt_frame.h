/* mjt_frame.h: the frame codec (PROTOCOL.md "Frames", "Receiving frames").
 *
 * The decoder takes one byte at a time, keeps one frame's bytes (a 64-byte buffer at
 * most) and, after any bad frame, drops only its sync byte and rescans what followed,
 * so that a real frame starting inside the rubble is never lost. No dynamic memory, no
 * recursion: the rescan is a loop over the bytes held. */
#ifndef MJT_FRAME_H
#define MJT_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "mjt_protocol.h"

/* The receive buffer: the largest frame this table takes (identity.frame_size, 32 to 64).
 * A table with little RAM builds with -DMJT_FRAME_BUFFER=32 and announces 32. */
#ifndef MJT_FRAME_BUFFER
#define MJT_FRAME_BUFFER MJT_MAX_FRAME
#endif

uint16_t mjt_crc16(uint16_t crc, const uint8_t *p, size_t n);

/* Write one frame into out (at least MJT_OVERHEAD + n bytes); returns its length. */
size_t mjt_frame_encode(uint8_t *out, uint8_t seq, uint8_t msg_id, const uint8_t *payload, uint8_t n);

typedef struct {
    uint32_t frames_received, bytes_skipped, crc_errors, oversize, resyncs, truncated;
} mjt_decoder_stats;

/* Called for each good frame; payload points into the decoder's buffer, valid only
 * during the call. */
typedef void (*mjt_frame_handler)(void *ctx, uint8_t seq, uint8_t msg_id, const uint8_t *payload, uint8_t n);

typedef struct {
    uint8_t buf[MJT_FRAME_BUFFER];
    uint8_t held;          /* bytes of an incomplete frame */
    uint8_t max_payload;   /* the receive buffer: longer frames are oversize */
    uint8_t hunting;       /* skipping bytes since the last good frame */
    mjt_decoder_stats stats;
    mjt_frame_handler on_frame;
    void *ctx;
} mjt_decoder;

void mjt_decoder_init(mjt_decoder *d, uint8_t frame_size, mjt_frame_handler on_frame, void *ctx);
void mjt_decoder_feed(mjt_decoder *d, uint8_t byte);
/* The sender went quiet (MJT_FRAME_GAP_MS) inside a frame: give it up, decode what followed. */
void mjt_decoder_abandon(mjt_decoder *d);
void mjt_decoder_clear(mjt_decoder *d);

#endif
