/* mjt_table.c: the table's application over the link. */
#include "mjt_table.h"

#include <string.h>

#include "mjt_msg.h"

#define NO_SET 0xFFu
#define NV_EVERY_MS 30000u /* at most one odometer write per 30 s (flash wear) */
#define OP_BIT(op) ((uint8_t)(1u << (op)))

/* ---- replies and events ---- */
static void send(mjt_table *t, uint8_t id, const mjt_writer *w) { mjt_link_send(&t->link, id, w->buf, w->len); }

static void send_empty(mjt_table *t, uint8_t id) { mjt_link_send(&t->link, id, NULL, 0); }

static void reject(mjt_table *t, uint16_t code, const char *detail)
{
    mjt_writer w = {{0}, 0};
    mjt_put_u16(&w, code);
    mjt_put_str(&w, detail);
    send(t, MJT_MSG_REJECTED, &w);
}

/* ---- the tile sets ---- */
static uint8_t set_at(const mjt_table *t, uint8_t location)
{
    for (uint8_t s = 0; s < 2; s++)
        if (t->where.sets[s] == location)
            return s;
    return NO_SET;
}

static int walls_up(const mjt_table *t) { return set_at(t, MJT_SET_LOCATION_ON_TABLE) != NO_SET; }

static int is_running(const mjt_table *t, uint8_t op) { return (t->running & OP_BIT(op)) != 0; }

/* Stacks per side of the walls standing, else of the next stacking. */
static const uint8_t *wall_stacks(const mjt_table *t)
{
    uint8_t s = set_at(t, MJT_SET_LOCATION_ON_TABLE);
    return s != NO_SET ? t->where.stacks[s] : t->stacks;
}

static uint8_t longest(const uint8_t *stacks)
{
    uint8_t most = 0;
    for (int i = 0; i < 4; i++)
        most = stacks[i] > most ? stacks[i] : most;
    return most;
}

/* ---- odometer ---- */
static void saturating_inc(uint8_t *counter) { if (*counter < 0xFFu) (*counter)++; }

static void ran(mjt_table *t, uint32_t ms)
{
    uint32_t total = t->odometer.motor_ms + ms;
    t->odometer.motor_seconds += total / 1000u;
    t->odometer.motor_ms = (uint16_t)(total % 1000u);
    t->odometer_dirty = 1;
}

/* ---- stopping ---- */
static void abort_all(mjt_table *t)
{
    for (uint8_t op = 1; op < MJT_OPERATION_COUNT; op++)
        if (is_running(t, op))
            mjt_hal_op_abort(op);
    t->running = 0;
    if (t->testing)
        mjt_hal_test_abort(); /* a stopped test reports nothing */
    t->testing = 0;
}

static void refresh_reserve(mjt_table *t)
{
    uint8_t events = t->testing;
    for (uint8_t op = 1; op < MJT_OPERATION_COUNT; op++)
        events = (uint8_t)(events + is_running(t, op));
    t->link.reserve = (uint8_t)(2u + events); /* a reply, a fault, one completion per operation */
}

void mjt_table_fault(mjt_table *t, uint16_t code, uint8_t subsystem, uint8_t sensor, uint16_t expected,
                     uint16_t counted)
{
    abort_all(t);
    refresh_reserve(t);
    if (t->fault)
        return; /* a table stopped by a fault sends no second one until resume */
    saturating_inc(&t->odometer.faults[sensor < MJT_SENSOR_COUNT ? sensor : 0]);
    if (code == MJT_CODE_JAM)
        saturating_inc(&t->odometer.jams[sensor < MJT_SENSOR_COUNT ? sensor : 0]);
    t->odometer_dirty = 1;
    t->stopped = 1;
    t->fault = code;
    mjt_writer w = {{0}, 0};
    mjt_put_u16(&w, code);
    mjt_put_u8(&w, subsystem);
    mjt_put_u8(&w, sensor);
    mjt_put_u16(&w, expected);
    mjt_put_u16(&w, counted);
    send(t, MJT_MSG_FAULT, &w);
}

/* ---- completions ---- */
void mjt_table_op_done(mjt_table *t, uint8_t op, uint16_t count, const uint8_t *values, uint32_t now)
{
    if (op == 0 || op >= MJT_OPERATION_COUNT || !is_running(t, op))
        return; /* aborted meanwhile: it reports nothing */
    mjt_running *r = &t->ops[op];
    mjt_physical *p = &t->where;
    mjt_writer w = {{0}, 0};
    uint8_t id;
    t->running = (uint8_t)(t->running & ~OP_BIT(op));
    refresh_reserve(t);
    switch (op) {
    case MJT_OPERATION_COLLECT_TILES: {
        uint8_t s = set_at(t, MJT_SET_LOCATION_ON_TABLE);
        if (s != NO_SET)
            p->sets[s] = MJT_SET_LOCATION_COLLECTED;
        p->separated = 0;
        memset(p->dora, 0, sizeof p->dora);
        mjt_put_u16(&w, count);
        id = MJT_MSG_TILES_COLLECTED;
        break;
    }
    case MJT_OPERATION_SHUFFLE: {
        if (count != t->config->tiles) {
            mjt_table_fault(t, MJT_CODE_TILE_COUNT, MJT_SUBSYSTEM_SHUFFLER, MJT_SENSOR_SHUFFLER_EXIT,
                            t->config->tiles, count);
            return;
        }
        uint8_t s = set_at(t, MJT_SET_LOCATION_COLLECTED);
        if (s != NO_SET) {
            p->sets[s] = MJT_SET_LOCATION_STACKED;
            memcpy(p->stacks[s], t->stacks, 4); /* the geometry in force when it finishes */
        }
        t->odometer.shuffle_cycles++;
        t->odometer.cycles_since_service++;
        mjt_put_u16(&w, count);
        id = MJT_MSG_SHUFFLE_DONE;
        break;
    }
    case MJT_OPERATION_RAISE_WALLS: {
        uint8_t s = set_at(t, MJT_SET_LOCATION_STACKED);
        if (s != NO_SET)
            p->sets[s] = MJT_SET_LOCATION_ON_TABLE;
        t->odometer.lift_cycles++;
        id = MJT_MSG_WALLS_RAISED;
        break;
    }
    case MJT_OPERATION_ROLL_DICE:
        mjt_put_bytes(&w, values, r->args.count);
        id = MJT_MSG_DICE_ROLLED;
        break;
    case MJT_OPERATION_SEPARATE_DEAD_WALL:
        p->separated = 1;
        p->breaker = r->args.breaker;
        p->position = r->args.position;
        p->length = r->args.length;
        id = MJT_MSG_DEAD_WALL_SEPARATED;
        break;
    case MJT_OPERATION_FLIP_DORA:
        p->dora[r->args.seat] |= 1ul << (r->args.stack - 1u);
        mjt_put_u8(&w, r->args.seat);
        mjt_put_u8(&w, r->args.stack);
        id = MJT_MSG_DORA_FLIPPED;
        break;
    default: /* MJT_OPERATION_SET_WIND_MARKER */
        p->wind = r->args.wind;
        p->wind_seat = r->args.wind_seat;
        mjt_put_u8(&w, p->wind);
        mjt_put_u8(&w, p->wind_seat);
        id = MJT_MSG_WIND_MARKER_SET;
    }
    ran(t, now - r->started_at);
    mjt_hal_moved(p);
    send(t, id, &w);
}

void mjt_table_test_done(mjt_table *t, uint16_t result, uint8_t sensor, uint32_t now)
{
    if (!t->testing)
        return;
    t->testing = 0;
    refresh_reserve(t);
    ran(t, now - t->test_started_at);
    mjt_writer w = {{0}, 0};
    mjt_put_u8(&w, t->test_subsystem);
    mjt_put_u8(&w, t->test_seat);
    mjt_put_u16(&w, result);
    mjt_put_u8(&w, result ? sensor : 0);
    send(t, MJT_MSG_SUBSYSTEM_TESTED, &w);
}

void mjt_table_button(mjt_table *t, uint8_t seat, uint8_t name)
{
    if (!t->config->seat_buttons || mjt_link_free(&t->link) <= t->link.reserve)
        return; /* the room left is for replies and completions */
    mjt_writer w = {{0}, 0};
    mjt_put_u8(&w, seat);
    mjt_put_u8(&w, name);
    send(t, MJT_MSG_BUTTON, &w);
}

/* ---- identify ---- */
static void identity(mjt_table *t, uint8_t version, int with_features)
{
    const mjt_config *c = t->config;
    mjt_writer w = {{0}, 0};
    mjt_put_u8(&w, version);
    mjt_put_str(&w, c->firmware);
    mjt_put_str(&w, c->model);
    mjt_put_u32(&w, t->boot_id);
    mjt_put_u16(&w, c->tiles);
    mjt_put_bytes(&w, c->stacks, 4);
    mjt_put_u8(&w, 2); /* tile sets */
    mjt_put_u8(&w, c->dice);
    mjt_put_u8(&w, c->dead_wall_separator);
    mjt_put_u8(&w, c->dora_flipper);
    mjt_put_u8(&w, c->seat_displays);
    mjt_put_u8(&w, c->centre_display);
    mjt_put_u8(&w, c->wind_marker);
    mjt_put_u8(&w, c->seat_buttons);
    mjt_put_u16(&w, c->heartbeat_timeout_ms);
    mjt_put_u8(&w, c->frame_size);
    mjt_put_u8(&w, c->receive_window);
    if (with_features)
        mjt_put_u8(&w, c->features);
    send(t, with_features ? MJT_MSG_IDENTITY_1_1 : MJT_MSG_IDENTITY, &w);
}

static void identify(mjt_table *t, uint8_t version)
{
    uint8_t major = version & 0x0Fu, minor = version >> 4;
    if (major != MJT_PROTOCOL_MAJOR || (minor && !t->config->protocol_minor)) {
        reject(t, MJT_CODE_VERSION_MISMATCH, t->config->protocol_minor ? "this table speaks 1.1" : "this table speaks 1");
        return;
    }
    t->identified = t->watchdog_armed = 1;
    t->maintenance = 0;
    if (t->testing) {
        mjt_hal_test_abort();
        t->testing = 0;
    }
    t->minor = minor < t->config->protocol_minor ? minor : t->config->protocol_minor;
    if (t->minor)
        identity(t, (uint8_t)(MJT_PROTOCOL_MAJOR | t->minor << 4), 1);
    else
        identity(t, MJT_PROTOCOL_MAJOR, 0);
}

/* ---- status ---- */
static uint8_t location(const mjt_table *t, uint8_t s)
{
    uint8_t at = t->where.sets[s];
    if (at == MJT_SET_LOCATION_COLLECTED && is_running(t, MJT_OPERATION_SHUFFLE))
        return MJT_SET_LOCATION_SHUFFLING;
    if (at == MJT_SET_LOCATION_STACKED && is_running(t, MJT_OPERATION_RAISE_WALLS))
        return MJT_SET_LOCATION_RAISING;
    return at;
}

static uint8_t dora_count(const mjt_table *t)
{
    uint8_t n = 0;
    for (int s = 0; s < 4; s++)
        for (uint32_t bits = t->where.dora[s]; bits; bits &= bits - 1u)
            n++;
    return n;
}

static void status(mjt_table *t)
{
    uint8_t newest = 0, op = MJT_OPERATION_IDLE;
    for (uint8_t o = 1; o < MJT_OPERATION_COUNT; o++)
        if (is_running(t, o) && (op == MJT_OPERATION_IDLE || (uint8_t)(t->ops[o].order - newest) < 128u)) {
            op = o;
            newest = t->ops[o].order;
        }
    mjt_writer w = {{0}, 0};
    uint8_t sets[2] = {location(t, 0), location(t, 1)};
    mjt_put_u32(&w, t->boot_id);
    mjt_put_u8(&w, op);
    mjt_put_u16(&w, t->fault);
    mjt_put_u8(&w, t->stopped);
    mjt_put_u8(&w, is_running(t, MJT_OPERATION_COLLECT_TILES));
    mjt_put_bytes(&w, sets, 2);
    mjt_put_u8(&w, (uint8_t)walls_up(t));
    mjt_put_u8(&w, t->where.separated);
    mjt_put_u8(&w, dora_count(t));
    mjt_put_u8(&w, t->where.wind);
    mjt_put_u8(&w, t->where.wind_seat);
    mjt_put_u8(&w, t->dealer_lamp);
    mjt_put_u8(&w, (uint8_t)mjt_hal_lid_open());
    send(t, MJT_MSG_STATUS, &w);
}

/* ---- the state rules (PROTOCOL.md "Refusal order") ---- */
typedef struct {
    uint16_t code;
    const char *detail;
} refusal;

static const refusal ALLOWED = {0, 0};

static refusal refuse(uint16_t code, const char *detail)
{
    refusal r = {code, detail};
    return r;
}

static int out_of(uint8_t value, uint8_t low, uint8_t high) { return value < low || value > high; }

/* The device a command needs, present or not (UNSUPPORTED). */
static int device_absent(const mjt_table *t, uint8_t id, const uint8_t *p)
{
    const mjt_config *c = t->config;
    switch (id) {
    case MJT_MSG_SEPARATE_DEAD_WALL: return !c->dead_wall_separator;
    case MJT_MSG_FLIP_DORA: return !c->dora_flipper;
    case MJT_MSG_SET_WIND_MARKER: return c->wind_marker == MJT_WIND_MARKER_NONE;
    case MJT_MSG_SHOW_SCORES: return !c->seat_displays;
    case MJT_MSG_SHOW_ROUND: return !c->centre_display;
    case MJT_MSG_SHOW_TEXT: return p[MJT_OFF_SHOW_TEXT_SEATS] ? !c->seat_displays : !c->centre_display;
    case MJT_MSG_SHOW_ERROR:
        return p[MJT_OFF_SHOW_ERROR_SEATS] ? !c->seat_displays : !(c->seat_displays || c->centre_display);
    default: return 0;
    }
}

static int bad_configure(const mjt_table *t, const uint8_t *p)
{
    const mjt_config *c = t->config;
    const uint8_t *stacks = p + MJT_OFF_CONFIGURE_STACKS + 1;
    unsigned sum = 0;
    if (out_of(p[MJT_OFF_CONFIGURE_PLAYERS], 3, 4) || mjt_get_u16(p + MJT_OFF_CONFIGURE_TILES) != c->tiles
        || p[MJT_OFF_CONFIGURE_STACKS] != 4)
        return 1;
    for (int i = 0; i < 4; i++) {
        if (out_of(stacks[i], 1, c->stacks[i]))
            return 1;
        sum += stacks[i];
    }
    return 2u * sum != c->tiles;
}

static int bad_argument(const mjt_table *t, uint8_t id, const uint8_t *p)
{
    const uint8_t *walls = wall_stacks(t);
    switch (id) {
    case MJT_MSG_CONFIGURE: return bad_configure(t, p);
    case MJT_MSG_ROLL_DICE: return out_of(p[0], 1, t->config->dice);
    case MJT_MSG_SEPARATE_DEAD_WALL:
        return out_of(p[0], 0, 3) || out_of(p[1], 1, walls[p[0]]) || out_of(p[2], 1, longest(walls));
    case MJT_MSG_FLIP_DORA: return out_of(p[0], 0, 3) || out_of(p[1], 1, walls[p[0]]);
    case MJT_MSG_SET_WIND_MARKER: return out_of(p[0], 0, 3) || out_of(p[1], 0, 3);
    case MJT_MSG_SHOW_SCORES: {
        const uint8_t *tail = p + 1 + 4u * p[0]; /* mode, dealer: after the scores */
        return p[0] != 4 || out_of(tail[0], 0, MJT_DISPLAY_MODE_COUNT - 1) || out_of(tail[1], 0, 3);
    }
    case MJT_MSG_SHOW_ROUND: return out_of(p[0], 0, 3) || out_of(p[1], 1, 4);
    case MJT_MSG_SET_DEALER_LAMP: return p[0] != MJT_NO_SEAT && out_of(p[0], 0, 3);
    case MJT_MSG_SHOW_ERROR: return p[MJT_OFF_SHOW_ERROR_SEATS] > 15;
    case MJT_MSG_SHOW_TEXT: return p[MJT_OFF_SHOW_TEXT_SEATS] > 15;
    default: return 0;
    }
}

/* Each motion command's own interlocks, after STOPPED, LID_OPEN and BUSY. */
static refusal interlock(const mjt_table *t, uint8_t op)
{
    switch (op) {
    case MJT_OPERATION_COLLECT_TILES:
        if (is_running(t, MJT_OPERATION_RAISE_WALLS)) return refuse(MJT_CODE_WALLS_RISING, "walls are rising");
        if (is_running(t, MJT_OPERATION_SHUFFLE) || set_at(t, MJT_SET_LOCATION_COLLECTED) != NO_SET)
            return refuse(MJT_CODE_BUSY, "the hopper holds a set");
        if (!walls_up(t)) return refuse(MJT_CODE_BAD_STATE, "no tiles on the table");
        break;
    case MJT_OPERATION_SHUFFLE:
        if (set_at(t, MJT_SET_LOCATION_COLLECTED) == NO_SET) return refuse(MJT_CODE_NOTHING_TO_SHUFFLE, "no set collected");
        if (set_at(t, MJT_SET_LOCATION_STACKED) != NO_SET) return refuse(MJT_CODE_BUSY, "the lifts hold a set");
        break;
    case MJT_OPERATION_RAISE_WALLS:
        if (set_at(t, MJT_SET_LOCATION_STACKED) == NO_SET) return refuse(MJT_CODE_NO_STACKED_SET, "no stacked set");
        if (is_running(t, MJT_OPERATION_COLLECT_TILES)) return refuse(MJT_CODE_CENTRE_OPEN, "the centre is open");
        if (walls_up(t)) return refuse(MJT_CODE_BAD_STATE, "a set is on the table");
        break;
    case MJT_OPERATION_SEPARATE_DEAD_WALL:
        if (t->where.separated) return refuse(MJT_CODE_BAD_STATE, "already separated");
        if (!walls_up(t)) return refuse(MJT_CODE_BAD_STATE, "the walls are not up");
        break;
    case MJT_OPERATION_FLIP_DORA:
        if (!walls_up(t)) return refuse(MJT_CODE_BAD_STATE, "the walls are not up");
        break;
    default:
        break;
    }
    return ALLOWED;
}

static uint8_t operation_of(uint8_t id)
{
    switch (id) {
    case MJT_MSG_COLLECT_TILES: return MJT_OPERATION_COLLECT_TILES;
    case MJT_MSG_SHUFFLE: return MJT_OPERATION_SHUFFLE;
    case MJT_MSG_RAISE_WALLS: return MJT_OPERATION_RAISE_WALLS;
    case MJT_MSG_ROLL_DICE: return MJT_OPERATION_ROLL_DICE;
    case MJT_MSG_SEPARATE_DEAD_WALL: return MJT_OPERATION_SEPARATE_DEAD_WALL;
    case MJT_MSG_FLIP_DORA: return MJT_OPERATION_FLIP_DORA;
    case MJT_MSG_SET_WIND_MARKER: return MJT_OPERATION_SET_WIND_MARKER;
    default: return MJT_OPERATION_IDLE;
    }
}

static refusal game_refusal(const mjt_table *t, uint8_t id, const uint8_t *p)
{
    uint8_t op = operation_of(id);
    if (op && t->maintenance) return refuse(MJT_CODE_MAINTENANCE, "in maintenance mode");
    if (device_absent(t, id, p)) return refuse(MJT_CODE_UNSUPPORTED, "no such device");
    if (bad_argument(t, id, p)) return refuse(MJT_CODE_BAD_ARGUMENT, "argument out of range");
    if (id == MJT_MSG_RESUME && mjt_hal_lid_open()) return refuse(MJT_CODE_LID_OPEN, "close the lid first");
    if (!op) return ALLOWED;
    if (t->stopped) return refuse(MJT_CODE_STOPPED, "stopped: resume first");
    if (mjt_hal_lid_open()) return refuse(MJT_CODE_LID_OPEN, "the lid is open");
    if (is_running(t, op)) return refuse(MJT_CODE_BUSY, "the subsystem is busy");
    return interlock(t, op);
}

/* ---- long operations ---- */
static void start(mjt_table *t, uint8_t op, const uint8_t *p, uint32_t now)
{
    mjt_running *r = &t->ops[op];
    memset(&r->args, 0, sizeof r->args);
    switch (op) {
    case MJT_OPERATION_ROLL_DICE: r->args.count = p[0]; break;
    case MJT_OPERATION_SEPARATE_DEAD_WALL:
        r->args.breaker = p[0]; r->args.position = p[1]; r->args.length = p[2]; break;
    case MJT_OPERATION_FLIP_DORA: r->args.seat = p[0]; r->args.stack = p[1]; break;
    case MJT_OPERATION_SET_WIND_MARKER: r->args.wind = p[0]; r->args.wind_seat = p[1]; break;
    default: break;
    }
    r->started_at = now;
    r->order = ++t->order;
    t->running |= OP_BIT(op);
    refresh_reserve(t);
    send_empty(t, MJT_MSG_OK); /* the reply goes before any event of the operation */
    if (op == MJT_OPERATION_SET_WIND_MARKER && t->config->wind_marker == MJT_WIND_MARKER_LAMP)
        mjt_table_op_done(t, op, 0, NULL, now); /* a lamp has nothing to move */
    else
        mjt_hal_op_start(op, &r->args);
}

/* ---- the displays and other commands that never move ---- */
static void display(mjt_table *t, uint8_t id, const uint8_t *p)
{
    switch (id) {
    case MJT_MSG_CONFIGURE:
        t->players = p[MJT_OFF_CONFIGURE_PLAYERS];
        memcpy(t->stacks, p + MJT_OFF_CONFIGURE_STACKS + 1, 4);
        break;
    case MJT_MSG_SHOW_SCORES: {
        int32_t scores[4];
        for (int i = 0; i < 4; i++)
            scores[i] = (int32_t)mjt_get_u32(p + 1 + 4 * i);
        mjt_hal_show_scores(scores, p[1 + 16], p[1 + 16 + 1]); /* four scores, then mode and dealer */
        break;
    }
    case MJT_MSG_SHOW_ROUND: mjt_hal_show_round(p[0], p[1], p[2], p[3]); break;
    case MJT_MSG_SET_DEALER_LAMP:
        t->dealer_lamp = p[0];
        mjt_hal_dealer_lamp(p[0]);
        break;
    case MJT_MSG_SHOW_ERROR: mjt_hal_show_error(mjt_get_u16(p), p[MJT_OFF_SHOW_ERROR_SEATS]); break;
    case MJT_MSG_SHOW_TEXT: mjt_hal_show_text(p[0], p + 2, p[1]); break;
    case MJT_MSG_STOP:
        abort_all(t);
        refresh_reserve(t);
        t->stopped = 1;
        break;
    case MJT_MSG_RESUME:
        t->stopped = 0;
        t->fault = 0;
        break;
    default: /* heartbeat */
        break;
    }
    send_empty(t, MJT_MSG_OK);
}

/* ---- protocol 1.1 ---- */
static uint8_t feature_of(uint8_t id)
{
    switch (id) {
    case MJT_MSG_GET_COUNTERS: case MJT_MSG_RESET_SERVICE_COUNTER: return MJT_FEATURE_MASK_COUNTERS;
    case MJT_MSG_READ_STICKS: return MJT_FEATURE_MASK_STICK_READER;
    default: return MJT_FEATURE_MASK_SENSOR_TEST;
    }
}

static int has_test_device(const mjt_config *c, uint8_t subsystem)
{
    switch (subsystem) {
    case MJT_TEST_SUBSYSTEM_SEPARATOR: return c->dead_wall_separator;
    case MJT_TEST_SUBSYSTEM_DORA: return c->dora_flipper;
    case MJT_TEST_SUBSYSTEM_MARKER: return c->wind_marker != MJT_WIND_MARKER_NONE;
    case MJT_TEST_SUBSYSTEM_DISPLAY: return c->seat_displays;
    case MJT_TEST_SUBSYSTEM_BUTTONS: return c->seat_buttons;
    default: return 1;
    }
}

static refusal test_refusal(const mjt_table *t, const uint8_t *p)
{
    uint8_t subsystem = p[0], seats = (MJT_SEAT_TESTS_MASK >> subsystem & 1u) ? 4 : 1;
    if (subsystem >= MJT_TEST_SUBSYSTEM_COUNT || p[1] >= seats)
        return refuse(MJT_CODE_BAD_ARGUMENT, "no such subsystem or seat");
    if (!has_test_device(t->config, subsystem)) return refuse(MJT_CODE_UNSUPPORTED, "no such device");
    if (t->stopped) return refuse(MJT_CODE_STOPPED, "stopped: resume first");
    if (mjt_hal_lid_open()) return refuse(MJT_CODE_LID_OPEN, "the lid is open");
    if (t->testing) return refuse(MJT_CODE_BUSY, "one subsystem at a time");
    return ALLOWED;
}

static refusal refusal_1_1(const mjt_table *t, uint8_t id, const uint8_t *p)
{
    if (!(t->config->features & feature_of(id))) return refuse(MJT_CODE_UNSUPPORTED, "feature not present");
    switch (id) {
    case MJT_MSG_ENTER_MAINTENANCE:
        return t->running ? refuse(MJT_CODE_BUSY, "an operation runs") : ALLOWED;
    case MJT_MSG_LEAVE_MAINTENANCE:
        return t->testing ? refuse(MJT_CODE_BUSY, "a test runs") : ALLOWED;
    case MJT_MSG_TEST_SUBSYSTEM:
    case MJT_MSG_READ_SENSORS:
        if (!t->maintenance) return refuse(MJT_CODE_NOT_IN_MAINTENANCE, "enter_maintenance first");
        return id == MJT_MSG_TEST_SUBSYSTEM ? test_refusal(t, p) : ALLOWED;
    default:
        return ALLOWED;
    }
}

static void counters(mjt_table *t)
{
    const mjt_odometer *o = &t->odometer;
    mjt_writer w = {{0}, 0};
    mjt_put_u32(&w, o->shuffle_cycles);
    mjt_put_u32(&w, o->lift_cycles);
    mjt_put_u32(&w, o->motor_seconds);
    mjt_put_u32(&w, o->cycles_since_service);
    mjt_put_bytes(&w, o->faults, MJT_SENSOR_COUNT);
    mjt_put_bytes(&w, o->jams, MJT_SENSOR_COUNT);
    send(t, MJT_MSG_COUNTERS, &w);
}

static void execute_1_1(mjt_table *t, uint8_t id, const uint8_t *p, uint32_t now)
{
    mjt_writer w = {{0}, 0};
    switch (id) {
    case MJT_MSG_GET_COUNTERS: counters(t); return;
    case MJT_MSG_RESET_SERVICE_COUNTER:
        t->odometer.cycles_since_service = 0;
        t->odometer_dirty = 1;
        t->saved_at = now - NV_EVERY_MS; /* written at the next idle moment */
        break;
    case MJT_MSG_ENTER_MAINTENANCE: t->maintenance = 1; break;
    case MJT_MSG_LEAVE_MAINTENANCE: t->maintenance = 0; break;
    case MJT_MSG_TEST_SUBSYSTEM:
        t->testing = 1;
        t->test_subsystem = p[0];
        t->test_seat = p[1];
        t->test_started_at = now;
        refresh_reserve(t);
        send_empty(t, MJT_MSG_OK);
        mjt_hal_test_start(p[0], p[1]);
        return;
    case MJT_MSG_READ_SENSORS: {
        uint8_t values[MJT_SENSOR_COUNT];
        mjt_hal_read_sensors(values);
        mjt_put_bytes(&w, values, MJT_SENSOR_COUNT);
        send(t, MJT_MSG_SENSORS, &w);
        return;
    }
    default: { /* read_sticks */
        int32_t totals[4];
        uint8_t wrong = 0;
        mjt_hal_read_sticks(totals, &wrong);
        mjt_put_u8(&w, 4);
        for (int i = 0; i < 4; i++)
            mjt_put_u32(&w, (uint32_t)totals[i]);
        mjt_put_u8(&w, wrong);
        send(t, MJT_MSG_STICKS, &w);
        return;
    }
    }
    send_empty(t, MJT_MSG_OK);
}

/* ---- dispatch ---- */
typedef struct {
    uint8_t id;
    const char *layout;
} command;

static const command COMMANDS[] = {
    {MJT_MSG_IDENTIFY, MJT_LAYOUT_IDENTIFY}, {MJT_MSG_HEARTBEAT, MJT_LAYOUT_HEARTBEAT},
    {MJT_MSG_GET_STATUS, MJT_LAYOUT_GET_STATUS}, {MJT_MSG_CONFIGURE, MJT_LAYOUT_CONFIGURE},
    {MJT_MSG_COLLECT_TILES, MJT_LAYOUT_COLLECT_TILES}, {MJT_MSG_SHUFFLE, MJT_LAYOUT_SHUFFLE},
    {MJT_MSG_RAISE_WALLS, MJT_LAYOUT_RAISE_WALLS}, {MJT_MSG_ROLL_DICE, MJT_LAYOUT_ROLL_DICE},
    {MJT_MSG_SEPARATE_DEAD_WALL, MJT_LAYOUT_SEPARATE_DEAD_WALL}, {MJT_MSG_FLIP_DORA, MJT_LAYOUT_FLIP_DORA},
    {MJT_MSG_SHOW_SCORES, MJT_LAYOUT_SHOW_SCORES}, {MJT_MSG_SHOW_ROUND, MJT_LAYOUT_SHOW_ROUND},
    {MJT_MSG_SET_WIND_MARKER, MJT_LAYOUT_SET_WIND_MARKER}, {MJT_MSG_SET_DEALER_LAMP, MJT_LAYOUT_SET_DEALER_LAMP},
    {MJT_MSG_SHOW_ERROR, MJT_LAYOUT_SHOW_ERROR}, {MJT_MSG_STOP, MJT_LAYOUT_STOP},
    {MJT_MSG_RESUME, MJT_LAYOUT_RESUME}, {MJT_MSG_SHOW_TEXT, MJT_LAYOUT_SHOW_TEXT},
    {MJT_MSG_GET_COUNTERS, MJT_LAYOUT_GET_COUNTERS}, {MJT_MSG_RESET_SERVICE_COUNTER, MJT_LAYOUT_RESET_SERVICE_COUNTER},
    {MJT_MSG_ENTER_MAINTENANCE, MJT_LAYOUT_ENTER_MAINTENANCE},
    {MJT_MSG_LEAVE_MAINTENANCE, MJT_LAYOUT_LEAVE_MAINTENANCE},
    {MJT_MSG_TEST_SUBSYSTEM, MJT_LAYOUT_TEST_SUBSYSTEM}, {MJT_MSG_READ_SENSORS, MJT_LAYOUT_READ_SENSORS},
    {MJT_MSG_READ_STICKS, MJT_LAYOUT_READ_STICKS},
};
#define FIRST_1_1_COMMAND MJT_MSG_GET_COUNTERS

static int decodable(const mjt_table *t, uint8_t id, const uint8_t *p, uint8_t n)
{
    if (id >= FIRST_1_1_COMMAND && !t->config->protocol_minor)
        return 0; /* a 1.0 table's decoder knows no such id */
    for (unsigned i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (COMMANDS[i].id == id)
            return mjt_payload_valid(COMMANDS[i].layout, p, n);
    return 0; /* unknown, or a reply or event sent the wrong way */
}

static void execute(mjt_table *t, uint8_t id, const uint8_t *p, uint32_t now)
{
    if (id == MJT_MSG_IDENTIFY) {
        identify(t, p[0]);
        return;
    }
    if (!t->identified) {
        reject(t, MJT_CODE_NOT_IDENTIFIED, "identify first");
        return;
    }
    refusal r = id >= FIRST_1_1_COMMAND ? refusal_1_1(t, id, p) : game_refusal(t, id, p);
    if (r.code)
        reject(t, r.code, r.detail);
    else if (id >= FIRST_1_1_COMMAND)
        execute_1_1(t, id, p, now);
    else if (id == MJT_MSG_GET_STATUS)
        status(t);
    else if (operation_of(id))
        start(t, operation_of(id), p, now);
    else
        display(t, id, p);
}

static void on_command(void *app, uint8_t id, const uint8_t *p, uint8_t n)
{
    mjt_table *t = app;
    uint32_t now = t->link.now;
    if (!decodable(t, id, p, n)) { /* consumed and answered, so that the reply order holds */
        reject(t, MJT_CODE_PROTOCOL, "undecodable frame");
        return;
    }
    execute(t, id, p, now);
    t->heard_at = now; /* every decoded command feeds the watchdog */
    t->watchdog_fired = 0;
}

static void uart_write(void *io, const uint8_t *bytes, size_t n)
{
    (void)io;
    mjt_hal_uart_write(bytes, n);
}

/* ---- life ---- */
void mjt_table_init(mjt_table *t, const mjt_config *config, uint32_t now)
{
    memset(t, 0, sizeof *t);
    t->config = config;
    t->boot_id = mjt_hal_boot_id();
    mjt_link_init(&t->link, t->boot_id, config->frame_size, uart_write, 0, on_command, t);
    refresh_reserve(t);
    if (!mjt_hal_nv_load(&t->odometer))
        memset(&t->odometer, 0, sizeof t->odometer);
    mjt_hal_sense(&t->where);
    t->players = config->players;
    memcpy(t->stacks, config->stacks, 4);
    t->dealer_lamp = MJT_NO_SEAT;
    t->saved_at = now;
    mjt_writer w = {{0}, 0};
    mjt_put_u32(&w, t->boot_id);
    send(t, MJT_MSG_BOOTED, &w); /* the first message of the first session */
}

void mjt_table_receive(mjt_table *t, const uint8_t *bytes, uint8_t n, uint32_t now)
{
    mjt_link_receive(&t->link, bytes, n, now);
}

static void check_limits(mjt_table *t, uint32_t now)
{
    for (uint8_t op = 1; op < MJT_OPERATION_COUNT; op++) {
        if (!is_running(t, op))
            continue;
        int shuffle = op == MJT_OPERATION_SHUFFLE;
        uint32_t limit = shuffle ? t->config->build_limit_ms : t->config->operation_limit_ms;
        if ((uint32_t)(now - t->ops[op].started_at) > limit) {
            mjt_table_fault(t, shuffle ? MJT_CODE_BUILD_TIMEOUT : MJT_CODE_OPERATION_TIMEOUT, op, 0, 0, 0);
            return;
        }
    }
}

void mjt_table_poll(mjt_table *t, uint32_t now)
{
    int lid = mjt_hal_lid_open();
    if (lid && !t->lid_was_open && (t->running || t->testing))
        mjt_table_fault(t, MJT_CODE_LID_OPENED, MJT_SUBSYSTEM_LID, 0, 0, 0);
    t->lid_was_open = (uint8_t)lid;
    check_limits(t, now);
    if (t->watchdog_armed && !t->watchdog_fired
        && (uint32_t)(now - t->heard_at) >= t->config->heartbeat_timeout_ms) {
        t->watchdog_fired = 1; /* once per silence */
        if (!t->fault)         /* a pending fault stays: the operator must see it */
            mjt_table_fault(t, MJT_CODE_WATCHDOG, MJT_SUBSYSTEM_HOST_LINK, 0, 0, 0);
    }
    if (t->odometer_dirty && !t->running && !t->testing && (uint32_t)(now - t->saved_at) >= NV_EVERY_MS) {
        mjt_hal_nv_save(&t->odometer); /* only while nothing moves: a flash write may stall */
        t->odometer_dirty = 0;
        t->saved_at = now;
    }
    mjt_link_poll(&t->link, now);
}

/* ---- the receive interrupt's queue ---- */
void mjt_rx_put(mjt_rx_ring *r, uint8_t byte)
{
    uint16_t in = r->in;
    if ((uint16_t)(in - r->out) >= MJT_RX_RING) {
        r->overruns++; /* the main loop fell behind by a whole ring */
        return;
    }
    r->bytes[in % MJT_RX_RING] = byte;
    r->in = (uint16_t)(in + 1u);
}

uint8_t mjt_rx_take(mjt_rx_ring *r, uint8_t *out, uint8_t max)
{
    uint8_t n = 0;
    uint16_t out_at = r->out;
    while (n < max && out_at != r->in)
        out[n++] = r->bytes[out_at++ % MJT_RX_RING];
    r->out = out_at;
    return n;
}
