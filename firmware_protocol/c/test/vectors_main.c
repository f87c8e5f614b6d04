/* Feeds vectors.json's streams to the C decoder, byte by byte: one hex stream per input
 * line; for each, one "frame SEQ ID PAYLOAD" line per good frame, then
 * "counters RECEIVED SKIPPED CRC OVERSIZE RESYNCS TRUNCATED PENDING". tests/firmware
 * compares them with the file. */
#include <stdio.h>
#include <string.h>

#include "mjt_frame.h"

static void print_frame(void *ctx, uint8_t seq, uint8_t id, const uint8_t *payload, uint8_t n)
{
    (void)ctx;
    printf("frame %u %u ", seq, id);
    for (uint8_t i = 0; i < n; i++)
        printf("%02x", payload[i]);
    printf("\n");
}

int main(void)
{
    static char line[8192];
    while (fgets(line, sizeof line, stdin)) {
        mjt_decoder d;
        mjt_decoder_init(&d, MJT_MAX_FRAME, print_frame, NULL);
        for (size_t i = 0; line[i] && line[i + 1] && line[i] != '\n'; i += 2) {
            unsigned byte;
            sscanf(line + i, "%2x", &byte);
            mjt_decoder_feed(&d, (uint8_t)byte);
        }
        const mjt_decoder_stats *s = &d.stats;
        printf("counters %lu %lu %lu %lu %lu %lu %u\n", (unsigned long)s->frames_received,
               (unsigned long)s->bytes_skipped, (unsigned long)s->crc_errors, (unsigned long)s->oversize,
               (unsigned long)s->resyncs, (unsigned long)s->truncated, d.held);
    }
    return 0;
}
