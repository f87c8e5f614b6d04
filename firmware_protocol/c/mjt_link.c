/* mjt_link.c: the table's link; the same rules as firmware_protocol/link.py, table role. */
#include "mjt_link.h"

#include <string.h>

#define SEQ_HALF 128u

static int due(uint32_t now, uint32_t at) { return (int32_t)(now - at) >= 0; }

static mjt_outgoing *item(mjt_link *l, uint8_t i) { return &l->queue[(l->head + i) % MJT_QUEUE_LEN]; }

static void write_frame(mjt_link *l, uint8_t seq, uint8_t id, const uint8_t *payload, uint8_t n)
{
    uint8_t frame[MJT_MAX_FRAME];
    size_t size = mjt_frame_encode(frame, seq, id, payload, n);
    l->write(l->io, frame, size);
    l->stats.frames_sent++;
}

static void control(mjt_link *l, uint8_t kind, uint8_t seq) { write_frame(l, seq, kind, NULL, 0); }

static void arm(mjt_link *l, uint32_t now)
{
    l->armed = 1;
    l->rtx_at = now + l->rto;
    l->armed_at = now;
}

static void disarm(mjt_link *l)
{
    l->armed = 0;
    l->timeouts = 0;
}

static void retransmit(mjt_link *l)
{
    for (uint8_t i = 0; i < l->in_flight; i++) {
        mjt_outgoing *o = item(l, i);
        o->retransmitted = 1;
        write_frame(l, o->seq, o->id, o->payload, o->len);
    }
    l->stats.retransmits += l->in_flight;
}

/* RFC 6298 in integer milliseconds, x8 fixed point. */
static void rtt_sample(mjt_link *l, uint32_t rtt)
{
    uint32_t r8 = rtt * 8u + 1u; /* +1: a 0 ms sample still counts as a sample */
    if (!l->srtt8) {
        l->srtt8 = r8;
        l->rttvar8 = r8 / 2u;
    } else {
        uint32_t diff = l->srtt8 > r8 ? l->srtt8 - r8 : r8 - l->srtt8;
        l->rttvar8 = (3u * l->rttvar8 + diff) / 4u;
        l->srtt8 = (7u * l->srtt8 + r8) / 8u;
    }
    uint32_t rto = (l->srtt8 + 4u * l->rttvar8) / 8u;
    l->rto = (uint16_t)(rto < MJT_RTO_MIN_MS ? MJT_RTO_MIN_MS : rto > MJT_RTO_MAX_MS ? MJT_RTO_MAX_MS : rto);
}

/* Release the frames before `ack`; 0 if it acknowledges something never sent. */
static int on_ack(mjt_link *l, uint8_t ack, uint32_t now)
{
    uint8_t count = (uint8_t)(ack - l->base);
    if (count > l->in_flight)
        return 0;
    if (!count)
        return 1;
    mjt_outgoing *newest = item(l, (uint8_t)(count - 1));
    if (!newest->retransmitted) /* Karn: a retransmitted frame's ack is ambiguous */
        rtt_sample(l, now - newest->sent_at);
    l->head = (uint8_t)((l->head + count) % MJT_QUEUE_LEN);
    l->count = (uint8_t)(l->count - count);
    l->in_flight = (uint8_t)(l->in_flight - count);
    l->base = ack;
    l->nak_answered_valid = 0;
    l->timeouts = 0;
    if (l->in_flight)
        arm(l, now);
    else
        l->armed = 0;
    return 1;
}

/* PROTOCOL.md "Once per NAK": a repeat within 50 ms of the round it started is the line's
   duplicate; a later one (the host asking again) starts the next round at once. */
#define MJT_NAK_REPEAT_MS 50u

static void on_nak(mjt_link *l, uint8_t ack, uint32_t now)
{
    l->stats.naks_received++;
    if (on_ack(l, ack, now) && l->in_flight &&
        !(l->nak_answered_valid && l->nak_answered == ack && !due(now, l->nak_answered_at + MJT_NAK_REPEAT_MS))) {
        l->nak_answered = ack;
        l->nak_answered_valid = 1;
        l->nak_answered_at = now;
        retransmit(l);
        l->rtx_at = now + l->rto;
    }
}

static void start_session(mjt_link *l, uint32_t peer_epoch, uint8_t peer_rx_next, uint32_t now)
{
    int resumed = l->has_peer && peer_epoch == l->peer_epoch && (uint8_t)(peer_rx_next - l->base) <= l->in_flight;
    disarm(l);
    if (resumed) {
        for (uint8_t i = 0; i < l->in_flight; i++)
            item(l, i)->retransmitted = 1; /* their acks may come from either session */
        on_ack(l, peer_rx_next, now);
        retransmit(l);
    } else {
        if (l->open) { /* what the previous session queued: the new peer never knew it */
            l->stats.dropped += l->count;
            l->count = 0;
        }
        l->in_flight = 0;
        l->base = l->next_seq = peer_rx_next;
    }
    if (l->in_flight)
        arm(l, now);
    l->peer_epoch = peer_epoch;
    l->has_peer = l->open = 1;
    l->lost = l->nak_sent = l->nak_answered_valid = 0;
    l->stats.sessions++;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void on_reset(mjt_link *l, uint8_t peer_rx_next, const uint8_t *payload, uint32_t now)
{
    uint32_t epoch = get_u32(payload);
    uint16_t number = (uint16_t)(payload[4] | payload[5] << 8);
    uint8_t answer[MJT_RESET_PAYLOAD];
    for (int i = 0; i < 4; i++)
        answer[i] = (uint8_t)(l->epoch >> (8 * i));
    answer[4] = payload[4];
    answer[5] = payload[5];
    /* Answer first, so that the host is open when our retransmissions reach it. */
    write_frame(l, l->rx_next, MJT_CTL_RESET_ACK, answer, MJT_RESET_PAYLOAD);
    if (l->has_last_reset && epoch == l->last_reset_epoch && number == l->last_reset_number)
        return; /* a repeated RESET only gets its answer again */
    l->has_last_reset = 1;
    l->last_reset_epoch = epoch;
    l->last_reset_number = number;
    start_session(l, epoch, peer_rx_next, now);
}

static void on_data(mjt_link *l, uint8_t seq, uint8_t id, const uint8_t *payload, uint8_t n)
{
    if (!l->open) {
        l->request_due = 1; /* the host may not know that we rebooted */
        return;
    }
    l->heard = 1;
    uint8_t ahead = (uint8_t)(seq - l->rx_next);
    if (ahead == 0) {
        if (mjt_link_free(l) < l->reserve) {
            l->stats.refused_full++; /* left unacknowledged: the host sends it again */
            return;
        }
        l->rx_next++;
        l->nak_sent = 0;
        l->ack_due = 1;
        l->deliver(l->app, id, payload, n);
    } else if (ahead >= SEQ_HALF) {
        l->stats.duplicates++;
        l->ack_due = 1; /* our ack was lost: the host still waits for it */
    } else if (!l->nak_sent && !l->nak_due) {
        l->nak_due = 1;
        l->nak_at = l->rx_next;
    }
}

static void on_frame(void *ctx, uint8_t seq, uint8_t id, const uint8_t *payload, uint8_t n)
{
    mjt_link *l = ctx;
    if (id >= MJT_FIRST_MESSAGE_ID) {
        on_data(l, seq, id, payload, n);
    } else if (id == MJT_CTL_RESET && n == MJT_RESET_PAYLOAD) {
        on_reset(l, seq, payload, l->now);
    } else if ((id == MJT_CTL_ACK || id == MJT_CTL_NAK) && n == 0) {
        if (l->open) {
            l->heard = 1;
            if (id == MJT_CTL_ACK)
                on_ack(l, seq, l->now);
            else
                on_nak(l, seq, l->now);
        }
    } else {
        l->stats.protocol_errors++; /* reserved, wrong size, or a host-only control frame */
    }
}

void mjt_link_init(mjt_link *l, uint32_t epoch, uint8_t frame_size, mjt_write write, void *io,
                   mjt_deliver deliver, void *app)
{
    memset(l, 0, sizeof *l);
    mjt_decoder_init(&l->decoder, frame_size, on_frame, l);
    l->epoch = epoch;
    l->rto = MJT_RTO_INITIAL_MS;
    l->reserve = 1;
    l->write = write;
    l->io = io;
    l->deliver = deliver;
    l->app = app;
}

uint8_t mjt_link_free(const mjt_link *l) { return (uint8_t)(MJT_QUEUE_LEN - l->count); }

int mjt_link_send(mjt_link *l, uint8_t msg_id, const uint8_t *payload, uint8_t n)
{
    if (l->count == MJT_QUEUE_LEN || n > MJT_MAX_PAYLOAD) {
        l->stats.messages_lost++;
        return 0;
    }
    mjt_outgoing *o = item(l, l->count++);
    o->id = msg_id;
    o->len = n;
    if (n)
        memcpy(o->payload, payload, n);
    return 1;
}

static void answer(mjt_link *l)
{
    if (l->nak_due && l->nak_at == l->rx_next) {
        l->nak_sent = 1;
        l->stats.naks_sent++;
        control(l, MJT_CTL_NAK, l->rx_next);
    } else if (l->ack_due) {
        control(l, MJT_CTL_ACK, l->rx_next);
    }
    if (l->request_due)
        control(l, MJT_CTL_RESET_REQUEST, 0); /* one per batch of bytes, however many frames */
    l->ack_due = l->request_due = l->nak_due = 0;
}

void mjt_link_receive(mjt_link *l, const uint8_t *bytes, size_t n, uint32_t now)
{
    l->now = now;
    if (n && l->decoder.held && (uint32_t)(now - l->last_rx) >= MJT_FRAME_GAP_MS)
        mjt_decoder_abandon(&l->decoder);
    for (size_t i = 0; i < n; i++)
        mjt_decoder_feed(&l->decoder, bytes[i]);
    if (n)
        l->last_rx = now;
    answer(l);
    if (l->heard) {
        l->heard = 0;
        if (l->lost) { /* the host talks again: resend what it has not acknowledged */
            l->lost = 0;
            disarm(l);
            if (l->in_flight) {
                retransmit(l);
                arm(l, now);
            }
        }
    }
    mjt_link_poll(l, now);
}

void mjt_link_poll(mjt_link *l, uint32_t now)
{
    l->now = now;
    if (l->decoder.held && (uint32_t)(now - l->last_rx) >= MJT_FRAME_GAP_MS) {
        mjt_decoder_abandon(&l->decoder); /* 50 ms of silence inside a frame */
        answer(l);
    }
    if (l->lost)
        return;
    if (l->armed && due(now, l->armed_at + MJT_GIVE_UP_MS)) {
        l->lost = 1;
        return;
    }
    if (l->armed && due(now, l->rtx_at)) {
        if (++l->timeouts > MJT_MAX_RETRANSMITS) {
            l->lost = 1;
            return;
        }
        l->rto = (uint16_t)(l->rto * 2u > MJT_RTO_MAX_MS ? MJT_RTO_MAX_MS : l->rto * 2u);
        l->nak_answered_valid = 0;
        retransmit(l);
        l->rtx_at = now + l->rto;
    }
    if (!l->open)
        return;
    uint8_t limit = l->count < MJT_WINDOW ? l->count : MJT_WINDOW;
    while (l->in_flight < limit) {
        mjt_outgoing *o = item(l, l->in_flight);
        o->seq = l->next_seq++;
        o->sent_at = now;
        o->retransmitted = 0;
        if (l->in_flight == 0)
            arm(l, now);
        l->in_flight++;
        write_frame(l, o->seq, o->id, o->payload, o->len);
    }
}
