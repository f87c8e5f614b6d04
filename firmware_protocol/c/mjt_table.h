/* mjt_table.h: the table's application — identify and sessions, one handler per command,
 * the state rules in their refusal order (PROTOCOL.md "State rules"), the long operations
 * and their completion events, the watchdog, the 1.1 odometer, sensor test mode and
 * stick reader behind their feature bits.
 *
 * All state is in one caller-provided mjt_table; nothing is allocated. The main loop:
 *
 *     mjt_table_init(&t, &config, now);
 *     for (;;) {
 *         n = take the bytes the UART interrupt queued (mjt_rx_take);
 *         mjt_table_receive(&t, bytes, n, tick());
 *         the HAL's own work (it calls mjt_table_op_done, _fault, _button, _test_done);
 *         mjt_table_poll(&t, tick());
 *     }
 */
#ifndef MJT_TABLE_H
#define MJT_TABLE_H

#include <stdint.h>

#include "mjt_hal.h"
#include "mjt_link.h"

typedef struct {
    const char *model, *firmware;     /* together at most 31 bytes of UTF-8 */
    uint16_t tiles;
    uint8_t stacks[4];                /* the lifts' capacity per side, seat 0 first */
    uint8_t players, dice;
    uint8_t dead_wall_separator, dora_flipper, seat_displays, centre_display, seat_buttons;
    uint8_t wind_marker;              /* MJT_WIND_MARKER_NONE, _LAMP, _MOTORISED */
    uint16_t heartbeat_timeout_ms;
    uint8_t frame_size, receive_window;
    uint8_t protocol_minor;           /* 0: a 1.0 table, 1: a 1.1 table */
    uint8_t features;                 /* MJT_FEATURE_MASK_* (1.1) */
    uint32_t build_limit_ms;          /* shuffle and stack: BUILD_TIMEOUT after this */
    uint32_t operation_limit_ms;      /* any other mechanism: OPERATION_TIMEOUT after this */
} mjt_config;

typedef struct {
    uint32_t started_at;
    uint8_t order;                    /* start order, for status.operation */
    mjt_op_args args;
} mjt_running;

typedef struct {
    mjt_link link;
    const mjt_config *config;
    mjt_physical where;
    mjt_odometer odometer;
    mjt_running ops[MJT_OPERATION_COUNT]; /* by operation; the subsystem has the same number */
    uint8_t running;                  /* bit op: operation op is running */
    uint8_t order;
    uint8_t identified, minor, stopped, maintenance, lid_was_open;
    uint8_t testing, test_subsystem, test_seat;
    uint16_t fault;
    uint8_t players, stacks[4];       /* configure: the next stacking (volatile) */
    uint8_t dealer_lamp;
    uint8_t watchdog_armed, watchdog_fired, odometer_dirty;
    uint32_t boot_id, heard_at, test_started_at, saved_at;
} mjt_table;

void mjt_table_init(mjt_table *t, const mjt_config *config, uint32_t now);
void mjt_table_receive(mjt_table *t, const uint8_t *bytes, uint8_t n, uint32_t now);
void mjt_table_poll(mjt_table *t, uint32_t now);

/* From the HAL. `values`: roll_dice's dice; `count`: tiles counted by collect or shuffle. */
void mjt_table_op_done(mjt_table *t, uint8_t operation, uint16_t count, const uint8_t *values, uint32_t now);
void mjt_table_fault(mjt_table *t, uint16_t code, uint8_t subsystem, uint8_t sensor, uint16_t expected,
                     uint16_t counted);
void mjt_table_test_done(mjt_table *t, uint16_t result, uint8_t sensor, uint32_t now);
void mjt_table_button(mjt_table *t, uint8_t seat, uint8_t name);

/* The single-producer, single-consumer byte queue between the UART receive interrupt
 * (mjt_rx_put) and the main loop (mjt_rx_take). No lock: each index has one writer. */
#define MJT_RX_RING 256u /* a power of two; 22 ms of bytes at 115200 baud */
typedef struct {
    volatile uint8_t bytes[MJT_RX_RING];
    volatile uint16_t in, out;
    volatile uint16_t overruns;
} mjt_rx_ring;

void mjt_rx_put(mjt_rx_ring *r, uint8_t byte);             /* interrupt side */
uint8_t mjt_rx_take(mjt_rx_ring *r, uint8_t *out, uint8_t max); /* main loop side */

#endif
