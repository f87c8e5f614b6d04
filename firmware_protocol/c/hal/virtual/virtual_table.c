/* virtual_table.c: the HAL's motors, sensors and trays, simulated. */
#include "virtual_table.h"

#include <string.h>

#define MAGIC 0x6D6A7431u

static struct {
    mjt_table *table;
    const virtual_profile *profile;
    virtual_memory *memory;
    uint32_t speed, now;
    uint32_t ends_at[MJT_OPERATION_COUNT];
    uint8_t running; /* bit op */
    uint8_t dice, testing;
    uint32_t test_ends_at;
    int32_t scores[4];
    uint64_t rng;
} v;

static uint32_t random32(void)
{
    v.rng ^= v.rng << 13; /* xorshift64 */
    v.rng ^= v.rng >> 7;
    v.rng ^= v.rng << 17;
    return (uint32_t)(v.rng >> 32);
}

static uint32_t after(uint32_t ms) { return v.now + ms / v.speed; }

static int due(uint32_t at) { return (int32_t)(v.now - at) >= 0; }

void virtual_table_power_on(mjt_table *table, const virtual_profile *profile, uint32_t speed, uint64_t seed,
                            virtual_memory *memory)
{
    v.table = table;
    v.profile = profile;
    v.speed = speed ? speed : 1;
    v.rng = seed * 0x9E3779B97F4A7C15ull + 1u;
    v.memory = memory;
    if (memory->magic != MAGIC) { /* first power-on: one set stacked, the other in the hopper */
        memset(memory, 0, sizeof *memory);
        memory->magic = MAGIC;
        memory->where.sets[0] = MJT_SET_LOCATION_STACKED;
        memory->where.sets[1] = MJT_SET_LOCATION_COLLECTED;
        memcpy(memory->where.stacks[0], profile->config.stacks, 4);
        memcpy(memory->where.stacks[1], profile->config.stacks, 4);
    }
}

void virtual_table_reset(void)
{
    v.running = v.testing = 0;
}

void virtual_table_run(uint32_t now)
{
    v.now = now;
    for (uint8_t op = 1; op < MJT_OPERATION_COUNT; op++) {
        if (!(v.running >> op & 1u) || !due(v.ends_at[op]))
            continue;
        v.running &= (uint8_t)~(1u << op);
        uint8_t dice[4] = {0};
        for (uint8_t i = 0; i < v.dice && i < 4; i++)
            dice[i] = (uint8_t)(1u + random32() % 6u);
        mjt_table_op_done(v.table, op, v.profile->config.tiles, dice, now);
    }
    if (v.testing && due(v.test_ends_at)) {
        v.testing = 0;
        mjt_table_test_done(v.table, 0, 0, now);
    }
}

/* ---- the HAL, but for the UART, the non-volatile memory and the boot id ---- */
void mjt_hal_op_start(uint8_t op, const mjt_op_args *args)
{
    v.ends_at[op] = after(v.profile->ms[op]);
    v.running |= (uint8_t)(1u << op);
    if (op == MJT_OPERATION_ROLL_DICE)
        v.dice = args->count;
}

void mjt_hal_op_abort(uint8_t op) { v.running &= (uint8_t)~(1u << op); }

int mjt_hal_lid_open(void) { return 0; }

void mjt_hal_sense(mjt_physical *where) { *where = v.memory->where; }

void mjt_hal_moved(const mjt_physical *where) { v.memory->where = *where; }

void mjt_hal_show_scores(const int32_t scores[4], uint8_t mode, uint8_t dealer)
{
    (void)mode;
    (void)dealer;
    memcpy(v.scores, scores, sizeof v.scores);
}

void mjt_hal_show_round(uint8_t wind, uint8_t hand, uint8_t honba, uint8_t riichi_sticks)
{
    (void)wind, (void)hand, (void)honba, (void)riichi_sticks;
}

void mjt_hal_show_text(uint8_t seats, const uint8_t *utf8, uint8_t n) { (void)seats, (void)utf8, (void)n; }

void mjt_hal_show_error(uint16_t code, uint8_t seats) { (void)code, (void)seats; }

void mjt_hal_dealer_lamp(uint8_t seat) { (void)seat; }

void mjt_hal_test_start(uint8_t subsystem, uint8_t seat)
{
    /* each test takes as long as the operation that moves the same mechanism */
    static const uint8_t like[MJT_TEST_SUBSYSTEM_COUNT] = {
        MJT_OPERATION_COLLECT_TILES, MJT_OPERATION_RAISE_WALLS, MJT_OPERATION_ROLL_DICE,
        MJT_OPERATION_SEPARATE_DEAD_WALL, MJT_OPERATION_FLIP_DORA, MJT_OPERATION_SET_WIND_MARKER, 0, 0};
    (void)seat;
    v.testing = 1;
    v.test_ends_at = after(v.profile->ms[like[subsystem]]);
}

void mjt_hal_test_abort(void) { v.testing = 0; }

static uint8_t somewhere(const mjt_physical *w, uint8_t location)
{
    return w->sets[0] == location || w->sets[1] == location;
}

void mjt_hal_read_sensors(uint8_t values[MJT_SENSOR_COUNT])
{
    const mjt_physical *w = &v.table->where;
    memset(values, 0, MJT_SENSOR_COUNT);
    values[MJT_SENSOR_HOPPER] = somewhere(w, MJT_SET_LOCATION_COLLECTED);
    values[MJT_SENSOR_STACKER] = somewhere(w, MJT_SET_LOCATION_STACKED);
    for (int s = 0; s < 4; s++)
        values[MJT_SENSOR_LIFT_0 + s] = somewhere(w, MJT_SET_LOCATION_ON_TABLE);
    values[MJT_SENSOR_SEPARATOR] = w->separated;
    values[MJT_SENSOR_CENTRE_PLATE] = (v.running >> MJT_OPERATION_COLLECT_TILES) & 1u;
}

void mjt_hal_read_sticks(int32_t totals[4], uint8_t *wrong_slot)
{
    memcpy(totals, v.scores, sizeof v.scores); /* the players settle as the displays show */
    *wrong_slot = 0;
}

int mjt_hal_nv_load(mjt_odometer *odometer)
{
    if (v.memory->odometer_valid)
        *odometer = v.memory->odometer;
    return v.memory->odometer_valid;
}

void mjt_hal_nv_save(const mjt_odometer *odometer)
{
    v.memory->odometer = *odometer;
    v.memory->odometer_valid = 1;
}

uint32_t mjt_hal_boot_id(void)
{
    return random32() ^ ++v.memory->boot_count; /* differs from the previous boot's */
}
