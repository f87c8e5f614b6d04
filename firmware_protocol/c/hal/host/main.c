/* The host build: the C core on a virtual table, served on a pseudo-terminal.
 *
 *     mjt-host [--profile NAME] [--speed X] [--seed N] [--frame-size N] [--protocol 1.0] [--tick-start MS]
 *
 * prints the pty's path (as `mjtable sim --pty` does) and serves until SIGTERM or SIGINT.
 * SIGUSR1 resets the "MCU": the core starts again from mjt_table_init with a new boot id,
 * while the tiles, the wind marker and the odometer (this HAL's non-volatile memory)
 * stay where they were. --tick-start sets the millisecond tick's first value (e.g.
 * 4294960000 to cross the 2^32 wrap within seconds). */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "mjt_table.h"
#include "profiles.h"

static mjt_table table;
static mjt_rx_ring rx;
static mjt_config config;
static const host_profile *profile;
static double speed = 1.0;
static int master = -1;
static uint32_t tick_offset;
static volatile sig_atomic_t quit, reset_requested;

/* The virtual table: what the motors are doing and what stays through an MCU reset. */
static struct {
    uint32_t ends_at[MJT_OPERATION_COUNT];
    uint8_t running; /* bit op */
    uint8_t dice;
    uint32_t test_ends_at;
    uint8_t testing;
    mjt_physical where;
    mjt_odometer nv;
    int nv_valid;
    int32_t scores[4];
    uint64_t rng;
} virt;

static uint32_t tick(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u) + tick_offset;
}

static uint32_t random32(void)
{
    virt.rng ^= virt.rng << 13; /* xorshift64 */
    virt.rng ^= virt.rng >> 7;
    virt.rng ^= virt.rng << 17;
    return (uint32_t)(virt.rng >> 32);
}

static uint32_t after(double seconds) { return tick() + (uint32_t)(seconds * 1000.0 / speed); }

/* ---- the HAL ---- */
void mjt_hal_uart_write(const uint8_t *bytes, size_t n)
{
    while (n) {
        ssize_t put = write(master, bytes, n);
        if (put < 0 && errno != EINTR && errno != EAGAIN)
            return; /* the host side is gone; the link will retransmit */
        if (put > 0) {
            bytes += put;
            n -= (size_t)put;
        }
    }
}

void mjt_hal_op_start(uint8_t op, const mjt_op_args *args)
{
    virt.ends_at[op] = after(profile->seconds[op]);
    virt.running |= (uint8_t)(1u << op);
    if (op == MJT_OPERATION_ROLL_DICE)
        virt.dice = args->count;
}

void mjt_hal_op_abort(uint8_t op) { virt.running &= (uint8_t)~(1u << op); }

int mjt_hal_lid_open(void) { return 0; }

void mjt_hal_sense(mjt_physical *where) { *where = virt.where; }

void mjt_hal_moved(const mjt_physical *where) { virt.where = *where; }

void mjt_hal_show_scores(const int32_t scores[4], uint8_t mode, uint8_t dealer)
{
    (void)mode;
    (void)dealer;
    memcpy(virt.scores, scores, sizeof virt.scores);
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
    static const uint8_t timing[MJT_TEST_SUBSYSTEM_COUNT] = {
        MJT_OPERATION_COLLECT_TILES, MJT_OPERATION_RAISE_WALLS, MJT_OPERATION_ROLL_DICE,
        MJT_OPERATION_SEPARATE_DEAD_WALL, MJT_OPERATION_FLIP_DORA, MJT_OPERATION_SET_WIND_MARKER, 0, 0};
    (void)seat;
    virt.testing = 1;
    virt.test_ends_at = after(profile->seconds[timing[subsystem]]);
}

void mjt_hal_test_abort(void) { virt.testing = 0; }

void mjt_hal_read_sensors(uint8_t values[MJT_SENSOR_COUNT])
{
    const mjt_physical *w = &table.where;
    int up = w->sets[0] == MJT_SET_LOCATION_ON_TABLE || w->sets[1] == MJT_SET_LOCATION_ON_TABLE;
    memset(values, 0, MJT_SENSOR_COUNT);
    values[MJT_SENSOR_HOPPER] = w->sets[0] == MJT_SET_LOCATION_COLLECTED || w->sets[1] == MJT_SET_LOCATION_COLLECTED;
    values[MJT_SENSOR_STACKER] = w->sets[0] == MJT_SET_LOCATION_STACKED || w->sets[1] == MJT_SET_LOCATION_STACKED;
    for (int s = 0; s < 4; s++)
        values[MJT_SENSOR_LIFT_0 + s] = (uint8_t)up;
    values[MJT_SENSOR_SEPARATOR] = w->separated;
    values[MJT_SENSOR_CENTRE_PLATE] = (virt.running >> MJT_OPERATION_COLLECT_TILES) & 1u;
}

void mjt_hal_read_sticks(int32_t totals[4], uint8_t *wrong_slot)
{
    memcpy(totals, virt.scores, sizeof virt.scores); /* the players settle as the displays show */
    *wrong_slot = 0;
}

int mjt_hal_nv_load(mjt_odometer *odometer)
{
    if (virt.nv_valid)
        *odometer = virt.nv;
    return virt.nv_valid;
}

void mjt_hal_nv_save(const mjt_odometer *odometer)
{
    virt.nv = *odometer;
    virt.nv_valid = 1;
}

uint32_t mjt_hal_boot_id(void) { return random32(); }

/* ---- the virtual motors ---- */
static int due(uint32_t at) { return (int32_t)(tick() - at) >= 0; }

static void run_motors(void)
{
    for (uint8_t op = 1; op < MJT_OPERATION_COUNT; op++) {
        if (!(virt.running >> op & 1u) || !due(virt.ends_at[op]))
            continue;
        virt.running &= (uint8_t)~(1u << op);
        uint8_t dice[4] = {0};
        for (uint8_t i = 0; i < virt.dice && i < 4; i++)
            dice[i] = (uint8_t)(1u + random32() % 6u);
        mjt_table_op_done(&table, op, config.tiles, dice, tick());
    }
    if (virt.testing && due(virt.test_ends_at)) {
        virt.testing = 0;
        mjt_table_test_done(&table, 0, 0, tick());
    }
}

/* ---- the process ---- */
static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        reset_requested = 1;
    else
        quit = 1;
}

static void mcu_reset(void)
{
    memset(virt.ends_at, 0, sizeof virt.ends_at);
    virt.running = virt.testing = 0;
    mjt_table_init(&table, &config, tick());
}

static int usage(const char *why)
{
    fprintf(stderr, "mjt-host: %s\nusage: mjt-host [--profile NAME] [--speed X] [--seed N] [--frame-size N] "
                    "[--protocol 1.0] [--tick-start MS]\n", why);
    return 2;
}

static int parse(int argc, char **argv)
{
    const char *name = "four-port";
    long frame_size = 0;
    int protocol_1_0 = 0;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value)
            return usage("an option needs a value");
        i++;
        if (!strcmp(opt, "--profile")) name = value;
        else if (!strcmp(opt, "--speed")) speed = atof(value);
        else if (!strcmp(opt, "--seed")) seed = strtoull(value, NULL, 10);
        else if (!strcmp(opt, "--frame-size")) frame_size = strtol(value, NULL, 10);
        else if (!strcmp(opt, "--protocol")) protocol_1_0 = !strcmp(value, "1.0");
        else if (!strcmp(opt, "--tick-start")) tick_offset = (uint32_t)strtoul(value, NULL, 10) - tick();
        else return usage("unknown option");
    }
    for (size_t p = 0; p < sizeof PROFILES / sizeof PROFILES[0]; p++)
        if (!strcmp(PROFILES[p].name, name))
            profile = &PROFILES[p];
    if (!profile)
        return usage("no such profile (four-port, four-port-sticks, basic, sanma-108, mcr-144)");
    if (speed <= 0)
        return usage("--speed must be above 0");
    config = profile->config;
    if (frame_size)
        config.frame_size = (uint8_t)frame_size;
    if (protocol_1_0) {
        config.protocol_minor = 0;
        config.features = 0;
    }
    virt.rng = seed * 0x9E3779B97F4A7C15ull + 1u;
    return 0;
}

static void power_on(void)
{
    /* As the simulator: one set stacked in the lifts, the other in the hopper. */
    virt.where.sets[0] = MJT_SET_LOCATION_STACKED;
    virt.where.sets[1] = MJT_SET_LOCATION_COLLECTED;
    memcpy(virt.where.stacks[0], config.stacks, 4);
    memcpy(virt.where.stacks[1], config.stacks, 4);
}

static int open_pty(void)
{
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master))
        return -1;
    const char *path = ptsname(master);
    int slave = open(path, O_RDWR | O_NOCTTY); /* kept open: the host may come and go */
    struct termios raw;
    if (slave < 0 || tcgetattr(slave, &raw))
        return -1;
    cfmakeraw(&raw);
    tcsetattr(slave, TCSANOW, &raw);
    fcntl(master, F_SETFL, O_NONBLOCK);
    printf("%s\n", path);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (parse(argc, argv))
        return 2;
    if (open_pty()) {
        perror("mjt-host: pty");
        return 1;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGUSR1, on_signal);
    power_on();
    mjt_table_init(&table, &config, tick());
    while (!quit) {
        struct pollfd fd = {master, POLLIN, 0};
        poll(&fd, 1, 1);
        uint8_t chunk[256];
        ssize_t got = read(master, chunk, sizeof chunk);
        for (ssize_t i = 0; i < got; i++)
            mjt_rx_put(&rx, chunk[i]); /* what a UART interrupt does */
        if (reset_requested) {
            reset_requested = 0;
            mcu_reset();
        }
        uint8_t bytes[64];
        uint8_t n;
        while ((n = mjt_rx_take(&rx, bytes, sizeof bytes)) > 0)
            mjt_table_receive(&table, bytes, n, tick());
        run_motors();
        mjt_table_poll(&table, tick());
    }
    return 0;
}
