/* mjt_msg.h: message payloads (PROTOCOL.md "Messages"): a bounded writer, little-endian
 * reads, and the layout check that tells a well-formed payload from a malformed one. */
#ifndef MJT_MSG_H
#define MJT_MSG_H

#include <stdint.h>

#include "mjt_protocol.h"

typedef struct {
    uint8_t buf[MJT_MAX_PAYLOAD];
    uint8_t len;
} mjt_writer;

void mjt_put_u8(mjt_writer *w, uint8_t v);
void mjt_put_u16(mjt_writer *w, uint16_t v);
void mjt_put_u32(mjt_writer *w, uint32_t v);
void mjt_put_bytes(mjt_writer *w, const uint8_t *p, uint8_t n); /* u8[] or str: count, then bytes */
void mjt_put_str(mjt_writer *w, const char *s);                 /* cut to fit what is left */

uint16_t mjt_get_u16(const uint8_t *p);
uint32_t mjt_get_u32(const uint8_t *p);

/* 1 if the payload matches the layout (MJT_LAYOUT_* letters): every field present, no
 * byte left over, bools 0 or 1, strings valid UTF-8. */
int mjt_payload_valid(const char *layout, const uint8_t *p, uint8_t n);

#endif
