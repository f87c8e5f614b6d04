/* mjt_link.h: the table side of the reliable link (PROTOCOL.md "Link layer").
 *
 * Go-back-N with a window, cumulative ACK, one NAK per gap, retransmission on an RFC 6298
 * RTO (integer milliseconds, Karn's rule, doubled per timeout up to 1 s), duplicate
 * suppression, sessions with epochs (resumed or new), a lost link that stops sending
 * and is revived by anything the host says. Time is a millisecond tick passed in;
 * every comparison is wrap-around safe (the tick may wrap at 2^32 ms, 49.7 days).
 *
 * The outgoing queue holds MJT_QUEUE_LEN messages (in flight and waiting), each kept
 * whole so that a retransmission is byte for byte the first transmission. A command is
 * accepted only while `reserve` slots are free (the application sets it: room for the
 * reply and every event that may follow); otherwise its frame is left unacknowledged,
 * as if lost, and the host sends it again. So the queue never overflows with replies. */
#ifndef MJT_LINK_H
#define MJT_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "mjt_frame.h"

#ifndef MJT_QUEUE_LEN
#define MJT_QUEUE_LEN 10
#endif
#ifndef MJT_WINDOW
#define MJT_WINDOW 4
#endif

typedef struct {
    uint32_t sent_at;
    uint8_t seq, id, len, retransmitted;
    uint8_t payload[MJT_MAX_PAYLOAD];
} mjt_outgoing;

typedef struct {
    uint32_t frames_sent, retransmits, duplicates, naks_sent, naks_received;
    uint32_t protocol_errors, sessions, dropped, refused_full, messages_lost;
} mjt_link_stats;

/* The application: one data frame delivered in sequence, once. */
typedef void (*mjt_deliver)(void *app, uint8_t msg_id, const uint8_t *payload, uint8_t n);
typedef void (*mjt_write)(void *io, const uint8_t *bytes, size_t n);

typedef struct {
    mjt_decoder decoder;
    mjt_outgoing queue[MJT_QUEUE_LEN];
    uint8_t head, count, in_flight;   /* queue[head .. head+in_flight) are in flight */
    uint8_t base, next_seq, rx_next;  /* oldest in flight, next to send, next expected */
    uint8_t reserve;                  /* free slots a command needs to be accepted */
    uint8_t open, lost, has_peer, armed, timeouts;
    uint8_t nak_sent, nak_answered, nak_answered_valid;
    uint32_t nak_answered_at; /* when the round of the NAK answered began */
    uint8_t ack_due, request_due, nak_due, nak_at, heard, has_last_reset;
    uint16_t rto, last_reset_number;
    uint32_t srtt8, rttvar8;          /* milliseconds x 8; srtt8 == 0: no sample yet */
    uint32_t epoch, peer_epoch, last_reset_epoch;
    uint32_t now, last_rx, rtx_at, armed_at;
    mjt_link_stats stats;
    mjt_deliver deliver;
    void *app;
    mjt_write write;
    void *io;
} mjt_link;

void mjt_link_init(mjt_link *l, uint32_t epoch, uint8_t frame_size, mjt_write write, void *io,
                   mjt_deliver deliver, void *app);
/* Bytes that arrived together (one interrupt's or one main-loop pass's worth). */
void mjt_link_receive(mjt_link *l, const uint8_t *bytes, size_t n, uint32_t now);
/* Timers and the window; call every main-loop pass. */
void mjt_link_poll(mjt_link *l, uint32_t now);
/* Queue a message; 0 when the queue is full (the message is lost and counted). */
int mjt_link_send(mjt_link *l, uint8_t msg_id, const uint8_t *payload, uint8_t n);
uint8_t mjt_link_free(const mjt_link *l);

#endif
