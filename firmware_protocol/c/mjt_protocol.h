/* mjt_protocol.h: GENERATED from firmware_protocol/catalog.py by
 * `python -m firmware_protocol.c.gen_header`; do not edit (a test fails when it is stale). */
#ifndef MJT_PROTOCOL_H
#define MJT_PROTOCOL_H

/* ---- frames and link (PROTOCOL.md "Frames", "Link layer") ---- */
#define MJT_PROTOCOL_MAJOR                           1
#define MJT_PROTOCOL_MINOR                           1
#define MJT_VERSION_1_0                              0x01u  /* identify byte of protocol 1.0 */
#define MJT_VERSION_1_1                              0x11u  /* major in the low nibble, minor in the high one */
#define MJT_SYNC                                     0xA5u
#define MJT_HEADER_SIZE                              4  /* sync, length, seq, msg id */
#define MJT_OVERHEAD                                 6  /* header and CRC */
#define MJT_MAX_FRAME                                64
#define MJT_MAX_PAYLOAD                              58
#define MJT_MIN_FRAME                                32  /* smallest identity.frame_size */
#define MJT_CRC_INIT                                 0xFFFFu  /* CRC-16/CCITT-FALSE, poly 0x1021 */
#define MJT_FIRST_MESSAGE_ID                         0x10u  /* ids below are control frames */
#define MJT_CTL_ACK                                  0x01u
#define MJT_CTL_NAK                                  0x02u
#define MJT_CTL_RESET                                0x03u
#define MJT_CTL_RESET_ACK                            0x04u
#define MJT_CTL_RESET_REQUEST                        0x05u
#define MJT_RESET_PAYLOAD                            6  /* epoch u32, reset number u16 */
#define MJT_MAX_WINDOW                               127
#define MJT_RTO_INITIAL_MS                           200  /* before any RTT sample */
#define MJT_RTO_MIN_MS                               50
#define MJT_RTO_MAX_MS                               1000
#define MJT_GIVE_UP_MS                               3000  /* nothing acknowledged this long: lost */
#define MJT_MAX_RETRANSMITS                          10  /* unanswered rounds: lost */
#define MJT_FRAME_GAP_MS                             50  /* silence that abandons a partial frame */
#define MJT_ACK_DEADLINE_MS                          10  /* acknowledge a data frame within this */
#define MJT_NO_SEAT                                  0xFFu  /* set_dealer_lamp(255): off */
#define MJT_SEATS                                    4

/* ---- message ids ---- */
#define MJT_MSG_IDENTIFY                             0x10u  /* command */
#define MJT_MSG_HEARTBEAT                            0x11u  /* command */
#define MJT_MSG_GET_STATUS                           0x12u  /* command */
#define MJT_MSG_CONFIGURE                            0x13u  /* command */
#define MJT_MSG_COLLECT_TILES                        0x14u  /* command */
#define MJT_MSG_SHUFFLE                              0x15u  /* command */
#define MJT_MSG_RAISE_WALLS                          0x16u  /* command */
#define MJT_MSG_ROLL_DICE                            0x17u  /* command */
#define MJT_MSG_SEPARATE_DEAD_WALL                   0x18u  /* command */
#define MJT_MSG_FLIP_DORA                            0x19u  /* command */
#define MJT_MSG_SHOW_SCORES                          0x1Au  /* command */
#define MJT_MSG_SHOW_ROUND                           0x1Bu  /* command */
#define MJT_MSG_SET_WIND_MARKER                      0x1Cu  /* command */
#define MJT_MSG_SET_DEALER_LAMP                      0x1Du  /* command */
#define MJT_MSG_SHOW_ERROR                           0x1Eu  /* command */
#define MJT_MSG_STOP                                 0x1Fu  /* command */
#define MJT_MSG_RESUME                               0x20u  /* command */
#define MJT_MSG_SHOW_TEXT                            0x21u  /* command */
#define MJT_MSG_OK                                   0x40u  /* reply */
#define MJT_MSG_REJECTED                             0x41u  /* reply */
#define MJT_MSG_IDENTITY                             0x42u  /* reply */
#define MJT_MSG_STATUS                               0x43u  /* reply */
#define MJT_MSG_TILES_COLLECTED                      0x50u  /* event */
#define MJT_MSG_SHUFFLE_DONE                         0x51u  /* event */
#define MJT_MSG_WALLS_RAISED                         0x52u  /* event */
#define MJT_MSG_DICE_ROLLED                          0x53u  /* event */
#define MJT_MSG_DEAD_WALL_SEPARATED                  0x54u  /* event */
#define MJT_MSG_DORA_FLIPPED                         0x55u  /* event */
#define MJT_MSG_WIND_MARKER_SET                      0x56u  /* event */
#define MJT_MSG_BUTTON                               0x57u  /* event */
#define MJT_MSG_FAULT                                0x58u  /* event */
#define MJT_MSG_BOOTED                               0x59u  /* event */
#define MJT_MSG_GET_COUNTERS                         0x22u  /* command */
#define MJT_MSG_RESET_SERVICE_COUNTER                0x23u  /* command */
#define MJT_MSG_ENTER_MAINTENANCE                    0x24u  /* command */
#define MJT_MSG_LEAVE_MAINTENANCE                    0x25u  /* command */
#define MJT_MSG_TEST_SUBSYSTEM                       0x26u  /* command */
#define MJT_MSG_READ_SENSORS                         0x27u  /* command */
#define MJT_MSG_READ_STICKS                          0x28u  /* command */
#define MJT_MSG_IDENTITY_1_1                         0x44u  /* reply */
#define MJT_MSG_COUNTERS                             0x45u  /* reply */
#define MJT_MSG_SENSORS                              0x46u  /* reply */
#define MJT_MSG_STICKS                               0x47u  /* reply */
#define MJT_MSG_SUBSYSTEM_TESTED                     0x5Au  /* event */

/* ---- field layouts: byte offsets up to the first variable-length field, and the
   payload size of every message made of fixed-size fields only ---- */
#define MJT_OFF_IDENTIFY_PROTOCOL_VERSION            0  /* u8 */
#define MJT_SIZE_IDENTIFY                            1  /* fixed payload size */
#define MJT_LAYOUT_IDENTIFY                          "B"  /* field types, B H I i ? b l s */
#define MJT_SIZE_HEARTBEAT                           0  /* fixed payload size */
#define MJT_LAYOUT_HEARTBEAT                         ""  /* field types, B H I i ? b l s */
#define MJT_SIZE_GET_STATUS                          0  /* fixed payload size */
#define MJT_LAYOUT_GET_STATUS                        ""  /* field types, B H I i ? b l s */
#define MJT_OFF_CONFIGURE_PLAYERS                    0  /* u8 */
#define MJT_OFF_CONFIGURE_TILES                      1  /* u16 */
#define MJT_OFF_CONFIGURE_STACKS                     3  /* u8[] */
#define MJT_LAYOUT_CONFIGURE                         "BHb"  /* field types, B H I i ? b l s */
#define MJT_SIZE_COLLECT_TILES                       0  /* fixed payload size */
#define MJT_LAYOUT_COLLECT_TILES                     ""  /* field types, B H I i ? b l s */
#define MJT_SIZE_SHUFFLE                             0  /* fixed payload size */
#define MJT_LAYOUT_SHUFFLE                           ""  /* field types, B H I i ? b l s */
#define MJT_SIZE_RAISE_WALLS                         0  /* fixed payload size */
#define MJT_LAYOUT_RAISE_WALLS                       ""  /* field types, B H I i ? b l s */
#define MJT_OFF_ROLL_DICE_COUNT                      0  /* u8 */
#define MJT_SIZE_ROLL_DICE                           1  /* fixed payload size */
#define MJT_LAYOUT_ROLL_DICE                         "B"  /* field types, B H I i ? b l s */
#define MJT_OFF_SEPARATE_DEAD_WALL_BREAKER           0  /* u8 */
#define MJT_OFF_SEPARATE_DEAD_WALL_POSITION          1  /* u8 */
#define MJT_OFF_SEPARATE_DEAD_WALL_LENGTH            2  /* u8 */
#define MJT_SIZE_SEPARATE_DEAD_WALL                  3  /* fixed payload size */
#define MJT_LAYOUT_SEPARATE_DEAD_WALL                "BBB"  /* field types, B H I i ? b l s */
#define MJT_OFF_FLIP_DORA_SEAT                       0  /* u8 */
#define MJT_OFF_FLIP_DORA_STACK                      1  /* u8 */
#define MJT_SIZE_FLIP_DORA                           2  /* fixed payload size */
#define MJT_LAYOUT_FLIP_DORA                         "BB"  /* field types, B H I i ? b l s */
#define MJT_OFF_SHOW_SCORES_SCORES                   0  /* i32[] */
#define MJT_LAYOUT_SHOW_SCORES                       "lBB"  /* field types, B H I i ? b l s */
#define MJT_OFF_SHOW_ROUND_WIND                      0  /* u8 */
#define MJT_OFF_SHOW_ROUND_HAND                      1  /* u8 */
#define MJT_OFF_SHOW_ROUND_HONBA                     2  /* u8 */
#define MJT_OFF_SHOW_ROUND_RIICHI_STICKS             3  /* u8 */
#define MJT_SIZE_SHOW_ROUND                          4  /* fixed payload size */
#define MJT_LAYOUT_SHOW_ROUND                        "BBBB"  /* field types, B H I i ? b l s */
#define MJT_OFF_SET_WIND_MARKER_WIND                 0  /* u8 */
#define MJT_OFF_SET_WIND_MARKER_SEAT                 1  /* u8 */
#define MJT_SIZE_SET_WIND_MARKER                     2  /* fixed payload size */
#define MJT_LAYOUT_SET_WIND_MARKER                   "BB"  /* field types, B H I i ? b l s */
#define MJT_OFF_SET_DEALER_LAMP_SEAT                 0  /* u8 */
#define MJT_SIZE_SET_DEALER_LAMP                     1  /* fixed payload size */
#define MJT_LAYOUT_SET_DEALER_LAMP                   "B"  /* field types, B H I i ? b l s */
#define MJT_OFF_SHOW_ERROR_CODE                      0  /* u16 */
#define MJT_OFF_SHOW_ERROR_SEATS                     2  /* u8 */
#define MJT_SIZE_SHOW_ERROR                          3  /* fixed payload size */
#define MJT_LAYOUT_SHOW_ERROR                        "HB"  /* field types, B H I i ? b l s */
#define MJT_SIZE_STOP                                0  /* fixed payload size */
#define MJT_LAYOUT_STOP                              ""  /* field types, B H I i ? b l s */
#define MJT_SIZE_RESUME                              0  /* fixed payload size */
#define MJT_LAYOUT_RESUME                            ""  /* field types, B H I i ? b l s */
#define MJT_OFF_SHOW_TEXT_SEATS                      0  /* u8 */
#define MJT_OFF_SHOW_TEXT_TEXT                       1  /* str */
#define MJT_LAYOUT_SHOW_TEXT                         "Bs"  /* field types, B H I i ? b l s */
#define MJT_SIZE_OK                                  0  /* fixed payload size */
#define MJT_LAYOUT_OK                                ""  /* field types, B H I i ? b l s */
#define MJT_OFF_REJECTED_CODE                        0  /* u16 */
#define MJT_OFF_REJECTED_DETAIL                      2  /* str */
#define MJT_LAYOUT_REJECTED                          "Hs"  /* field types, B H I i ? b l s */
#define MJT_OFF_IDENTITY_PROTOCOL_VERSION            0  /* u8 */
#define MJT_OFF_IDENTITY_FIRMWARE                    1  /* str */
#define MJT_LAYOUT_IDENTITY                          "BssIHbBB????B?HBB"  /* field types, B H I i ? b l s */
#define MJT_OFF_STATUS_BOOT_ID                       0  /* u32 */
#define MJT_OFF_STATUS_OPERATION                     4  /* u8 */
#define MJT_OFF_STATUS_FAULT                         5  /* u16 */
#define MJT_OFF_STATUS_STOPPED                       7  /* bool */
#define MJT_OFF_STATUS_CENTRE_OPEN                   8  /* bool */
#define MJT_OFF_STATUS_SETS                          9  /* u8[] */
#define MJT_LAYOUT_STATUS                            "IBH??b??BBBB?"  /* field types, B H I i ? b l s */
#define MJT_OFF_TILES_COLLECTED_COUNT                0  /* u16 */
#define MJT_SIZE_TILES_COLLECTED                     2  /* fixed payload size */
#define MJT_LAYOUT_TILES_COLLECTED                   "H"  /* field types, B H I i ? b l s */
#define MJT_OFF_SHUFFLE_DONE_COUNT                   0  /* u16 */
#define MJT_SIZE_SHUFFLE_DONE                        2  /* fixed payload size */
#define MJT_LAYOUT_SHUFFLE_DONE                      "H"  /* field types, B H I i ? b l s */
#define MJT_SIZE_WALLS_RAISED                        0  /* fixed payload size */
#define MJT_LAYOUT_WALLS_RAISED                      ""  /* field types, B H I i ? b l s */
#define MJT_OFF_DICE_ROLLED_VALUES                   0  /* u8[] */
#define MJT_LAYOUT_DICE_ROLLED                       "b"  /* field types, B H I i ? b l s */
#define MJT_SIZE_DEAD_WALL_SEPARATED                 0  /* fixed payload size */
#define MJT_LAYOUT_DEAD_WALL_SEPARATED               ""  /* field types, B H I i ? b l s */
#define MJT_OFF_DORA_FLIPPED_SEAT                    0  /* u8 */
#define MJT_OFF_DORA_FLIPPED_STACK                   1  /* u8 */
#define MJT_SIZE_DORA_FLIPPED                        2  /* fixed payload size */
#define MJT_LAYOUT_DORA_FLIPPED                      "BB"  /* field types, B H I i ? b l s */
#define MJT_OFF_WIND_MARKER_SET_WIND                 0  /* u8 */
#define MJT_OFF_WIND_MARKER_SET_SEAT                 1  /* u8 */
#define MJT_SIZE_WIND_MARKER_SET                     2  /* fixed payload size */
#define MJT_LAYOUT_WIND_MARKER_SET                   "BB"  /* field types, B H I i ? b l s */
#define MJT_OFF_BUTTON_SEAT                          0  /* u8 */
#define MJT_OFF_BUTTON_NAME                          1  /* u8 */
#define MJT_SIZE_BUTTON                              2  /* fixed payload size */
#define MJT_LAYOUT_BUTTON                            "BB"  /* field types, B H I i ? b l s */
#define MJT_OFF_FAULT_CODE                           0  /* u16 */
#define MJT_OFF_FAULT_SUBSYSTEM                      2  /* u8 */
#define MJT_OFF_FAULT_SENSOR                         3  /* u8 */
#define MJT_OFF_FAULT_EXPECTED                       4  /* u16 */
#define MJT_OFF_FAULT_COUNTED                        6  /* u16 */
#define MJT_SIZE_FAULT                               8  /* fixed payload size */
#define MJT_LAYOUT_FAULT                             "HBBHH"  /* field types, B H I i ? b l s */
#define MJT_OFF_BOOTED_BOOT_ID                       0  /* u32 */
#define MJT_SIZE_BOOTED                              4  /* fixed payload size */
#define MJT_LAYOUT_BOOTED                            "I"  /* field types, B H I i ? b l s */
#define MJT_SIZE_GET_COUNTERS                        0  /* fixed payload size */
#define MJT_LAYOUT_GET_COUNTERS                      ""  /* field types, B H I i ? b l s */
#define MJT_SIZE_RESET_SERVICE_COUNTER               0  /* fixed payload size */
#define MJT_LAYOUT_RESET_SERVICE_COUNTER             ""  /* field types, B H I i ? b l s */
#define MJT_SIZE_ENTER_MAINTENANCE                   0  /* fixed payload size */
#define MJT_LAYOUT_ENTER_MAINTENANCE                 ""  /* field types, B H I i ? b l s */
#define MJT_SIZE_LEAVE_MAINTENANCE                   0  /* fixed payload size */
#define MJT_LAYOUT_LEAVE_MAINTENANCE                 ""  /* field types, B H I i ? b l s */
#define MJT_OFF_TEST_SUBSYSTEM_SUBSYSTEM             0  /* u8 */
#define MJT_OFF_TEST_SUBSYSTEM_SEAT                  1  /* u8 */
#define MJT_SIZE_TEST_SUBSYSTEM                      2  /* fixed payload size */
#define MJT_LAYOUT_TEST_SUBSYSTEM                    "BB"  /* field types, B H I i ? b l s */
#define MJT_SIZE_READ_SENSORS                        0  /* fixed payload size */
#define MJT_LAYOUT_READ_SENSORS                      ""  /* field types, B H I i ? b l s */
#define MJT_SIZE_READ_STICKS                         0  /* fixed payload size */
#define MJT_LAYOUT_READ_STICKS                       ""  /* field types, B H I i ? b l s */
#define MJT_OFF_IDENTITY_1_1_PROTOCOL_VERSION        0  /* u8 */
#define MJT_OFF_IDENTITY_1_1_FIRMWARE                1  /* str */
#define MJT_LAYOUT_IDENTITY_1_1                      "BssIHbBB????B?HBBB"  /* field types, B H I i ? b l s */
#define MJT_OFF_COUNTERS_SHUFFLE_CYCLES              0  /* u32 */
#define MJT_OFF_COUNTERS_LIFT_CYCLES                 4  /* u32 */
#define MJT_OFF_COUNTERS_MOTOR_SECONDS               8  /* u32 */
#define MJT_OFF_COUNTERS_CYCLES_SINCE_SERVICE        12  /* u32 */
#define MJT_OFF_COUNTERS_FAULTS                      16  /* u8[] */
#define MJT_LAYOUT_COUNTERS                          "IIIIbb"  /* field types, B H I i ? b l s */
#define MJT_OFF_SENSORS_VALUES                       0  /* u8[] */
#define MJT_LAYOUT_SENSORS                           "b"  /* field types, B H I i ? b l s */
#define MJT_OFF_STICKS_TOTALS                        0  /* i32[] */
#define MJT_LAYOUT_STICKS                            "lB"  /* field types, B H I i ? b l s */
#define MJT_OFF_SUBSYSTEM_TESTED_SUBSYSTEM           0  /* u8 */
#define MJT_OFF_SUBSYSTEM_TESTED_SEAT                1  /* u8 */
#define MJT_OFF_SUBSYSTEM_TESTED_RESULT              2  /* u16 */
#define MJT_OFF_SUBSYSTEM_TESTED_SENSOR              4  /* u8 */
#define MJT_SIZE_SUBSYSTEM_TESTED                    5  /* fixed payload size */
#define MJT_LAYOUT_SUBSYSTEM_TESTED                  "BBHB"  /* field types, B H I i ? b l s */

/* ---- codes (PROTOCOL.md "Codes") ---- */
#define MJT_CODE_BAD_STATE                           100u
#define MJT_CODE_BUSY                                101u
#define MJT_CODE_CENTRE_OPEN                         102u
#define MJT_CODE_WALLS_RISING                        103u
#define MJT_CODE_NO_STACKED_SET                      104u
#define MJT_CODE_NOTHING_TO_SHUFFLE                  105u
#define MJT_CODE_BAD_ARGUMENT                        106u
#define MJT_CODE_UNSUPPORTED                         107u
#define MJT_CODE_STOPPED                             108u
#define MJT_CODE_LID_OPEN                            109u
#define MJT_CODE_VERSION_MISMATCH                    110u
#define MJT_CODE_NOT_IDENTIFIED                      111u
#define MJT_CODE_MAINTENANCE                         112u
#define MJT_CODE_NOT_IN_MAINTENANCE                  113u
#define MJT_CODE_JAM                                 200u
#define MJT_CODE_TILE_COUNT                          201u
#define MJT_CODE_OPERATION_TIMEOUT                   202u
#define MJT_CODE_LIFT_STUCK                          203u
#define MJT_CODE_LID_OPENED                          204u
#define MJT_CODE_WATCHDOG                            205u
#define MJT_CODE_BUILD_TIMEOUT                       206u
#define MJT_CODE_LINK_LOST                           300u
#define MJT_CODE_MCU_RESET                           301u
#define MJT_CODE_PROTOCOL                            302u
#define MJT_CODE_BAD_REPORT                          303u
#define MJT_CODE_GAME_STOPPED                        304u
#define MJT_CODE_STORE_FAILED                        305u
#define MJT_CODE_STICK_MISMATCH                      306u

/* ---- enumerations: a field's wire number is the index of its name ---- */
#define MJT_SUBSYSTEM_NONE                           0u
#define MJT_SUBSYSTEM_CENTRE                         1u
#define MJT_SUBSYSTEM_SHUFFLER                       2u
#define MJT_SUBSYSTEM_LIFTS                          3u
#define MJT_SUBSYSTEM_DICE                           4u
#define MJT_SUBSYSTEM_SEPARATOR                      5u
#define MJT_SUBSYSTEM_DORA                           6u
#define MJT_SUBSYSTEM_MARKER                         7u
#define MJT_SUBSYSTEM_LID                            8u
#define MJT_SUBSYSTEM_HOST_LINK                      9u
#define MJT_SUBSYSTEM_COUNT                          10
#define MJT_SENSOR_NONE                              0u
#define MJT_SENSOR_HOPPER                            1u
#define MJT_SENSOR_SHUFFLER_EXIT                     2u
#define MJT_SENSOR_STACKER                           3u
#define MJT_SENSOR_LIFT_0                            4u
#define MJT_SENSOR_LIFT_1                            5u
#define MJT_SENSOR_LIFT_2                            6u
#define MJT_SENSOR_LIFT_3                            7u
#define MJT_SENSOR_SEPARATOR                         8u
#define MJT_SENSOR_DORA_ARM                          9u
#define MJT_SENSOR_CENTRE_PLATE                      10u
#define MJT_SENSOR_COUNT                             11
#define MJT_SET_LOCATION_UNKNOWN                     0u
#define MJT_SET_LOCATION_ON_TABLE                    1u
#define MJT_SET_LOCATION_COLLECTED                   2u
#define MJT_SET_LOCATION_SHUFFLING                   3u
#define MJT_SET_LOCATION_STACKED                     4u
#define MJT_SET_LOCATION_RAISING                     5u
#define MJT_SET_LOCATION_COUNT                       6
#define MJT_OPERATION_IDLE                           0u
#define MJT_OPERATION_COLLECT_TILES                  1u
#define MJT_OPERATION_SHUFFLE                        2u
#define MJT_OPERATION_RAISE_WALLS                    3u
#define MJT_OPERATION_ROLL_DICE                      4u
#define MJT_OPERATION_SEPARATE_DEAD_WALL             5u
#define MJT_OPERATION_FLIP_DORA                      6u
#define MJT_OPERATION_SET_WIND_MARKER                7u
#define MJT_OPERATION_COUNT                          8
#define MJT_BUTTON_START                             0u
#define MJT_BUTTON_DICE                              1u
#define MJT_BUTTON_HAND_END                          2u
#define MJT_BUTTON_RIICHI                            3u
#define MJT_BUTTON_OK                                4u
#define MJT_BUTTON_PAUSE                             5u
#define MJT_BUTTON_COUNT                             6
#define MJT_DISPLAY_MODE_SCORE                       0u
#define MJT_DISPLAY_MODE_DIFFERENCE                  1u
#define MJT_DISPLAY_MODE_RANK                        2u
#define MJT_DISPLAY_MODE_COUNT                       3
#define MJT_WIND_MARKER_NONE                         0u
#define MJT_WIND_MARKER_LAMP                         1u
#define MJT_WIND_MARKER_MOTORISED                    2u
#define MJT_WIND_MARKER_COUNT                        3
#define MJT_FEATURE_BIT_COUNTERS                     0u
#define MJT_FEATURE_BIT_SENSOR_TEST                  1u
#define MJT_FEATURE_BIT_STICK_READER                 2u
#define MJT_FEATURE_BIT_COUNT                        3
#define MJT_TEST_SUBSYSTEM_CENTRE                    0u
#define MJT_TEST_SUBSYSTEM_LIFTS                     1u
#define MJT_TEST_SUBSYSTEM_DICE                      2u
#define MJT_TEST_SUBSYSTEM_SEPARATOR                 3u
#define MJT_TEST_SUBSYSTEM_DORA                      4u
#define MJT_TEST_SUBSYSTEM_MARKER                    5u
#define MJT_TEST_SUBSYSTEM_DISPLAY                   6u
#define MJT_TEST_SUBSYSTEM_BUTTONS                   7u
#define MJT_TEST_SUBSYSTEM_COUNT                     8
#define MJT_FEATURE_MASK_COUNTERS                    (1u << 0)
#define MJT_FEATURE_MASK_SENSOR_TEST                 (1u << 1)
#define MJT_FEATURE_MASK_STICK_READER                (1u << 2)
#define MJT_SEAT_TESTS_MASK                          0xC0u  /* bit i: test subsystem i is tested seat by seat */

#endif
