/* Cortex-M3 start-up for the LM3S6965: the vector table and the reset handler. */
#include <stdint.h>
#include <string.h>

extern uint32_t _stack_top, _data_load, _data_start, _data_end, _bss_start, _bss_end;
int main(void);
void uart0_isr(void);
void systick_isr(void);

static void reset_handler(void)
{
    memcpy(&_data_start, &_data_load, (size_t)((char *)&_data_end - (char *)&_data_start));
    memset(&_bss_start, 0, (size_t)((char *)&_bss_end - (char *)&_bss_start));
    main();
    for (;;) {
    }
}

static void fault_handler(void)
{
    for (;;) { /* the hardware watchdog resets the chip */
    }
}

typedef void (*vector)(void);

__attribute__((section(".vectors"), used)) static const vector vectors[16 + 6] = {
    (vector)(uintptr_t)&_stack_top,
    reset_handler,
    fault_handler, /* NMI */
    fault_handler, /* HardFault */
    fault_handler, /* MemManage */
    fault_handler, /* BusFault */
    fault_handler, /* UsageFault */
    0, 0, 0, 0,
    fault_handler, /* SVCall */
    0, 0,
    fault_handler, /* PendSV */
    systick_isr,
    0, 0, 0, 0, 0, /* IRQ 0-4: GPIO ports A-E */
    uart0_isr,     /* IRQ 5: UART0 */
};
