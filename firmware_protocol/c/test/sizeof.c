/* What the core's state takes in RAM on the target: one array per struct, read back with
 * arm-none-eabi-nm -S (benchmarks/bench_firmware.py). Not linked into any build. */
#include "mjt_table.h"

unsigned char sizeof_mjt_decoder[sizeof(mjt_decoder)];
unsigned char sizeof_mjt_link[sizeof(mjt_link)];
unsigned char sizeof_mjt_table[sizeof(mjt_table)];
unsigned char sizeof_mjt_rx_ring[sizeof(mjt_rx_ring)];
