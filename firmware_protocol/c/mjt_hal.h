/* mjt_hal.h: what the table maker implements for their board. The core calls these
 * functions and never touches hardware itself; each HAL (hal/host, hal/lm3s6965) is one
 * implementation. Every function is called from the main loop, never from an interrupt.
 *
 * Motion: mjt_hal_op_start starts the motors of one long operation (MJT_OPERATION_*) and
 * returns at once; the HAL reports its end later, from the main loop, with
 * mjt_table_op_done (or a fault with mjt_table_fault). The core has queued the `ok`
 * reply before it calls mjt_hal_op_start, so the HAL may also report at once. */
#ifndef MJT_HAL_H
#define MJT_HAL_H

#include <stddef.h>
#include <stdint.h>

#include "mjt_protocol.h"

typedef struct {            /* a long operation's arguments, as commanded */
    uint8_t count;          /* roll_dice */
    uint8_t breaker, position, length; /* separate_dead_wall */
    uint8_t seat, stack;    /* flip_dora */
    uint8_t wind, wind_seat; /* set_wind_marker */
} mjt_op_args;

/* Where the tiles physically are: the core owns it, the HAL senses it at boot. */
typedef struct {
    uint8_t sets[2];        /* MJT_SET_LOCATION_ON_TABLE, _COLLECTED, _STACKED or _UNKNOWN */
    uint8_t stacks[2][4];   /* each set's walls, as stacked */
    uint8_t separated, breaker, position, length; /* the dead wall of the walls standing */
    uint32_t dora[4];       /* bit k-1: stack k of seat s turned face up */
    uint8_t wind, wind_seat;
} mjt_physical;

typedef struct {            /* the 1.1 odometer, kept in non-volatile memory */
    uint32_t shuffle_cycles, lift_cycles, motor_seconds, cycles_since_service;
    uint16_t motor_ms;      /* under a second, carried */
    uint8_t faults[MJT_SENSOR_COUNT], jams[MJT_SENSOR_COUNT];
} mjt_odometer;

/* the line */
void mjt_hal_uart_write(const uint8_t *bytes, size_t n);
/* motion and sensors */
void mjt_hal_op_start(uint8_t operation, const mjt_op_args *args);
void mjt_hal_op_abort(uint8_t operation);      /* stop its motors now; report nothing */
int mjt_hal_lid_open(void);
void mjt_hal_sense(mjt_physical *where);       /* at boot: where the tile sets are */
void mjt_hal_moved(const mjt_physical *where); /* after every completed operation */
/* displays, lamps */
void mjt_hal_show_scores(const int32_t scores[4], uint8_t mode, uint8_t dealer);
void mjt_hal_show_round(uint8_t wind, uint8_t hand, uint8_t honba, uint8_t riichi_sticks);
void mjt_hal_show_text(uint8_t seats, const uint8_t *utf8, uint8_t n);
void mjt_hal_show_error(uint16_t code, uint8_t seats);
void mjt_hal_dealer_lamp(uint8_t seat);        /* MJT_NO_SEAT: off */
/* protocol 1.1 */
void mjt_hal_test_start(uint8_t test_subsystem, uint8_t seat); /* reports with mjt_table_test_done */
void mjt_hal_test_abort(void);
void mjt_hal_read_sensors(uint8_t values[MJT_SENSOR_COUNT]);
void mjt_hal_read_sticks(int32_t totals[4], uint8_t *wrong_slot);
/* non-volatile memory: load returns 0 when nothing valid is stored */
int mjt_hal_nv_load(mjt_odometer *odometer);
void mjt_hal_nv_save(const mjt_odometer *odometer);
/* a boot id that differs from the previous boot's */
uint32_t mjt_hal_boot_id(void);

#endif
