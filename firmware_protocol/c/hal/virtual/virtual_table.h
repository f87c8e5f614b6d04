/* A virtual table behind the HAL: motors that take their profile's time (divided by a
 * speed), dice from a seeded generator, sensors and stick trays that read what the core
 * moved. The host build and the QEMU build share it; each board supplies the UART, the
 * tick, the boot id and where its "non-volatile" memory lives. */
#ifndef MJT_VIRTUAL_TABLE_H
#define MJT_VIRTUAL_TABLE_H

#include "mjt_table.h"
#include "profiles.h"

/* What outlives an MCU reset: the tiles, the marker, the odometer. */
typedef struct {
    uint32_t magic;
    uint32_t boot_count;
    mjt_physical where;
    mjt_odometer odometer;
    uint8_t odometer_valid;
    uint8_t stalled; /* the board's watchdog test (STALL_AFTER_MS) has run */
} virtual_memory;

void virtual_table_power_on(mjt_table *table, const virtual_profile *profile, uint32_t speed, uint64_t seed,
                            virtual_memory *memory);
void virtual_table_reset(void);       /* an MCU reset: the motors stop */
void virtual_table_run(uint32_t now); /* call every main-loop pass: ends what is due */

#endif
