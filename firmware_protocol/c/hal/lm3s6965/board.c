/* The QEMU lm3s6965evb board: UART0 (PL011) with receive interrupts, SysTick as the
 * millisecond tick, the hardware watchdog that resets the chip if the main loop stalls,
 * and the virtual table behind the HAL (built with VIRTUAL_PROFILE and VIRTUAL_SPEED).
 *
 * QEMU 7.2's traits, designed around: its PL011 raises the receive interrupt only when
 * the FIFO goes from empty to one byte and keeps it until the FIFO is empty again, so the
 * interrupt drains the whole FIFO; its PL011 is not reset by a system reset, so start-up
 * drains and clears it by hand; and it never overruns (a full FIFO makes the sender
 * wait). */
#include <stdint.h>

#include "virtual_table.h"

#ifndef VIRTUAL_PROFILE
#define VIRTUAL_PROFILE 1 /* four-port-sticks: every device and every feature */
#endif
#ifndef VIRTUAL_SPEED
#define VIRTUAL_SPEED 50
#endif
/* STALL_AFTER_MS (tests only): the main loop hangs once, that long after the first power-on,
   for the hardware watchdog to reset the chip. */

#define REG(addr) (*(volatile uint32_t *)(addr))
#define SYSCLK_HZ 12500000u /* the reset value of RCC: 200 MHz / 16 */

/* UART0, a PL011 */
#define UART0 0x4000C000u
#define UART_DR REG(UART0 + 0x000)
#define UART_FR REG(UART0 + 0x018)
#define UART_IBRD REG(UART0 + 0x024)
#define UART_FBRD REG(UART0 + 0x028)
#define UART_LCRH REG(UART0 + 0x02C)
#define UART_CTL REG(UART0 + 0x030)
#define UART_IMSC REG(UART0 + 0x038)
#define UART_ICR REG(UART0 + 0x044)
#define FR_RXFE (1u << 4)
#define FR_TXFF (1u << 5)
#define INT_RX (1u << 4)
#define INT_RT (1u << 6)
/* SysTick and the NVIC */
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define NVIC_ISER0 REG(0xE000E100u)
#define UART0_IRQ 5u
/* the watchdog: a first time-out raises its interrupt, a second one resets the chip */
#define WDT 0x40000000u
#define WDT_LOAD REG(WDT + 0x000)
#define WDT_CTL REG(WDT + 0x008)
#define WDT_ICR REG(WDT + 0x00C)
#define WDT_LOCK REG(WDT + 0xC00)
#define WDT_UNLOCK 0x1ACCE551u
#define WDT_INTEN (1u << 0)
#define WDT_RESEN (1u << 1)

extern virtual_memory _persistent; /* the linker script's last 4 KB of SRAM */

static mjt_table table;
static mjt_rx_ring rx;
static volatile uint32_t ticks;

void systick_isr(void) { ticks++; }

void uart0_isr(void)
{
    while (!(UART_FR & FR_RXFE)) /* drain: QEMU raises no new interrupt for what stays */
        mjt_rx_put(&rx, (uint8_t)UART_DR);
    UART_ICR = INT_RX | INT_RT;
}

void mjt_hal_uart_write(const uint8_t *bytes, size_t n)
{
    while (n--) {
        while (UART_FR & FR_TXFF) {
        }
        UART_DR = *bytes++;
    }
}

static void uart_init(void)
{
    UART_CTL = 0;
    UART_IMSC = 0;
    while (!(UART_FR & FR_RXFE)) /* not reset by a system reset: drop what it held */
        (void)UART_DR;
    UART_ICR = 0x7FFu;
    UART_IBRD = SYSCLK_HZ / (16u * 115200u); /* 115200 8N1; QEMU ignores the rate */
    UART_FBRD = 50;
    UART_LCRH = (3u << 5) | (1u << 4); /* 8 bits, FIFOs on */
    UART_IMSC = INT_RX | INT_RT;
    UART_CTL = (1u << 0) | (1u << 8) | (1u << 9); /* enable, TX, RX */
    NVIC_ISER0 = 1u << UART0_IRQ;
}

static void watchdog_init(void)
{
    WDT_LOCK = WDT_UNLOCK;
    WDT_LOAD = SYSCLK_HZ; /* 1 s to the interrupt, 2 s to the reset */
    WDT_CTL = WDT_INTEN | WDT_RESEN;
    WDT_LOCK = 0;
}

static void watchdog_kick(void)
{
    WDT_LOCK = WDT_UNLOCK;
    WDT_ICR = 1; /* clears the time-out and reloads */
    WDT_LOCK = 0;
}

static uint32_t tick(void) { return ticks; }

int main(void)
{
    const virtual_profile *profile = &VIRTUAL_PROFILES[VIRTUAL_PROFILE];
    SYST_RVR = SYSCLK_HZ / 1000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = 7u; /* the processor clock, interrupt, enabled */
    uart_init();
    watchdog_init();
    virtual_table_power_on(&table, profile, VIRTUAL_SPEED, _persistent.boot_count + 1u, &_persistent);
    mjt_table_init(&table, &profile->config, tick());
    for (;;) {
        uint8_t bytes[64];
        uint8_t n;
        watchdog_kick();
#ifdef STALL_AFTER_MS
        if (tick() >= STALL_AFTER_MS && !_persistent.stalled) {
            _persistent.stalled = 1;
            for (;;) { /* a bug in the main loop: only the watchdog gets out of here */
            }
        }
#endif
        virtual_table_run(tick());
        while ((n = mjt_rx_take(&rx, bytes, sizeof bytes)) > 0)
            mjt_table_receive(&table, bytes, n, tick());
        mjt_table_poll(&table, tick());
        __asm__ volatile("wfi"); /* until the next byte or tick */
    }
}
