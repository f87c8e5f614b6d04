import asyncio

import pytest

from firmware_protocol.catalog import EncodeError, Message, ProtocolError, encode_message
from firmware_protocol.endpoint import LinkEndpoint
from firmware_protocol.frame import encode_frame
from firmware_protocol.link import ACK, NAK, RESET, RESET_ACK, RESET_PAYLOAD, RESET_REQUEST, Link, SessionStart
from firmware_protocol.messages import MessageLink
from firmware_protocol.transport import Impairment, memory_pair
from firmware_protocol.virtual_time import VirtualTimeLoop


def text(i: int) -> Message:
    return Message("show_text", {"seats": 0, "text": str(i)})


def count(i: int) -> Message:
    return Message("tiles_collected", {"count": i})


def link(role: str, **options) -> MessageLink:
    return MessageLink(Link(role, **options))


class Wire:
    """Host and table links back to back, moved by hand: every byte is under test control."""

    def __init__(self, host: MessageLink | None = None, table: MessageLink | None = None, step: float = 0.001) -> None:
        self.host = host or link("host", epoch=1)
        self.table = table or link("table", epoch=2)
        self.now = 0.0
        self.step = step  # one-way delay
        self.to_table: list = []
        self.to_host: list = []

    def run(self, steps: int = 20, lose_to_table=lambda data: data, lose_to_host=lambda data: data) -> None:
        """Exchange output until quiet (or `steps`)."""
        for _ in range(steps):
            self.host.poll(self.now)
            self.table.poll(self.now)
            down, up = self.host.take_output(), self.table.take_output()
            if not down and not up:
                return
            self.now += self.step
            self.to_table += self.table.receive(lose_to_table(down), self.now)
            self.to_host += self.host.receive(lose_to_host(up), self.now)

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def starve(self, link: MessageLink) -> None:
        """Run `link`'s timers with nobody listening until it gives up."""
        while not link.lost:
            self.now = link.next_deadline()
            link.poll(self.now)
            link.take_output()


def opened() -> Wire:
    wire = Wire()
    wire.run()
    assert wire.host.is_open and wire.table.is_open
    return wire


def test_host_opens_the_session_and_messages_flow_both_ways():
    wire = opened()
    wire.host.send(text(1))
    wire.table.send(count(136))
    wire.run()
    assert wire.to_table == [text(1)]
    assert wire.to_host == [count(136)]
    assert wire.host.next_deadline() is None  # everything acknowledged: no timer


def test_table_sends_nothing_before_the_host_resets():
    table = link("table")
    table.send(Message("booted", {"boot_id": 7}))
    table.poll(0.0)
    assert table.take_output() == b"" and table.next_deadline() is None


def test_wrong_direction_and_oversize_are_refused_at_send():
    host = link("host")
    with pytest.raises(EncodeError, match="cannot send"):
        host.send(count(1))
    with pytest.raises(EncodeError, match="frame size of 64"):
        host.send(Message("show_scores", {"scores": list(range(15)), "mode": 0, "dealer": 0}))


def test_frames_to_a_table_with_a_small_frame_size_fit_it_and_text_is_shortened():
    wire = Wire(table=link("table", epoch=2, frame_size=32))
    wire.run()
    wire.host.link.peer_frame_size = 32
    wire.host.send(Message("show_text", {"seats": 0, "text": "東南西北" * 5}))  # 60 bytes of UTF-8
    wire.host.send(text(1))
    with pytest.raises(EncodeError, match="frame size of 32"):
        wire.host.send(Message("show_scores", {"scores": list(range(6)), "mode": 0, "dealer": 0}))
    wire.run()
    shortened = Message("show_text", {"seats": 0, "text": "東南西北東南西北"})  # 24 bytes of text fit
    assert wire.to_table == [shortened, text(1)]
    assert wire.table.stats.oversize == 0


def test_a_frame_longer_than_the_receiver_s_frame_size_is_skipped():
    wire = Wire(table=link("table", epoch=2, frame_size=32))
    wire.run()
    wire.host.send(Message("show_text", {"seats": 0, "text": "x" * 40}))  # the host was not told
    wire.run(steps=2)
    assert wire.to_table == [] and wire.table.stats.oversize > 0


def test_no_table_may_announce_a_frame_too_small_for_the_commands():
    with pytest.raises(ValueError):
        Link("host").peer_frame_size = 31


def test_sequence_numbers_wrap_past_255():
    wire = opened()
    for i in range(600):
        wire.host.send(text(i))
        wire.table.send(count(i))
    wire.run(steps=1000)
    assert wire.to_table == [text(i) for i in range(600)]
    assert wire.to_host == [count(i) for i in range(600)]


def test_window_limits_frames_in_flight():
    wire = opened()
    wire.host.link.window = 2
    for i in range(5):
        wire.host.send(text(i))
    wire.host.poll(wire.now)
    assert wire.host.take_output().count(bytes([0xA5])) == 2


def test_retransmitted_command_is_delivered_once():
    wire = opened()
    wire.host.send(Message("shuffle"))
    wire.run(steps=1, lose_to_host=lambda data: b"")  # the table's ack is lost
    wire.advance(1.0)
    wire.run()
    assert wire.to_table == [Message("shuffle")]
    assert wire.host.stats.retransmits == 1
    assert wire.table.stats.duplicates == 1


def test_a_gap_is_naked_once_and_filled_by_go_back_n():
    wire = opened()
    for i in range(3):
        wire.host.send(text(i))
    lost = [len(encode_frame(0, *encode_message(text(0))))]

    def lose_first_frame(data: bytes) -> bytes:
        return data[lost.pop():] if lost and data else data

    wire.run(lose_to_table=lose_first_frame)
    assert wire.to_table == [text(0), text(1), text(2)]
    assert wire.table.stats.naks_sent == 1
    assert wire.host.stats.naks_received == 1


def test_rto_follows_rtt_and_stays_clamped():
    wire = opened()
    for i in range(20):
        wire.host.send(text(i))
        wire.run()
    assert wire.host.stats.srtt == pytest.approx(0.002, rel=0.01)
    assert wire.host.stats.rto == wire.host.rto_min  # 2 ms + 4 rttvar is below the floor
    wire.host.send(text(99))
    wire.starve(wire.host)  # unanswered: the RTO doubles up to rto_max, no further
    assert wire.host.stats.rto == wire.host.rto_max


def test_rto_adapts_to_a_slow_line():
    wire = Wire(step=0.1)
    wire.run()
    for i in range(20):
        wire.host.send(text(i))
        wire.run()
    s = wire.host.stats
    assert s.srtt == pytest.approx(0.2, rel=0.01)
    assert s.rto == pytest.approx(s.srtt + 4 * s.rttvar) and wire.host.rto_min < s.rto < wire.host.rto_max
    assert wire.host.stats.retransmits == 0


def test_karn_no_rtt_sample_from_a_retransmitted_frame():
    wire = opened()
    wire.host.send(text(1))
    wire.host.poll(wire.now)
    wire.host.take_output()
    wire.advance(0.5)
    wire.host.poll(wire.now)  # retransmits
    wire.run()
    assert wire.host.stats.srtt is None


def test_silent_peer_makes_the_link_lost_after_give_up():
    wire = opened()
    start = wire.now
    wire.host.send(Message("heartbeat"))
    wire.starve(wire.host)
    assert wire.now - start == pytest.approx(wire.host.give_up, abs=0.002)
    assert wire.host.next_deadline() is None


def _patient_host() -> MessageLink:
    return link("host", epoch=1, give_up_heard=20.0, max_retransmits=None, backoff=False)


def _frames_damaged_on_the_way(data: bytes) -> bytes:
    return bytes(b ^ 0xFF for b in data)  # every byte arrives, none of it readable


def test_a_patient_link_keeps_resending_while_the_peer_is_heard_and_gives_up_later():
    # A table that keeps resending its own frame; neither side can read the other.
    wire = Wire(host=_patient_host(), table=link("table", epoch=2, give_up=100.0, max_retransmits=None))
    wire.run()
    start = wire.now
    wire.host.send(Message("heartbeat"))
    wire.table.send(count(1))
    while not wire.host.lost:
        wire.now = min(wire.host.next_deadline(), wire.table.next_deadline())
        wire.run(steps=1, lose_to_table=_frames_damaged_on_the_way, lose_to_host=_frames_damaged_on_the_way)
    assert wire.now - start == pytest.approx(20.0, abs=0.01)


def test_a_patient_link_is_lost_after_give_up_of_silence():
    wire = Wire(host=_patient_host())
    wire.run()
    start = wire.now
    wire.host.send(Message("heartbeat"))
    wire.starve(wire.host)
    assert wire.now - start == pytest.approx(wire.host.give_up, abs=0.002)


def test_without_backoff_the_rto_stays_at_its_computed_value():
    wire = Wire(host=_patient_host())
    wire.run()
    wire.host.send(text(1))
    wire.run()
    rto = wire.host.stats.rto
    wire.host.send(text(2))
    wire.starve(wire.host)
    assert wire.host.stats.rto == rto == wire.host.rto_min
    assert wire.host.stats.retransmits >= wire.host.give_up / rto - 2  # resent every RTO until lost


def test_solicit_makes_the_peer_resend_at_once_and_wakes_a_peer_that_gave_up():
    wire = opened()
    wire.table.send(count(1))
    wire.table.poll(wire.now)
    wire.table.take_output()  # lost on the way
    wire.host.solicit()
    wire.run()
    assert wire.to_host == [count(1)]
    wire.table.send(count(2))
    wire.starve(wire.table)
    wire.host.solicit()
    wire.run()
    assert wire.to_host == [count(1), count(2)] and not wire.table.lost


def test_each_solicitation_is_a_try_but_a_duplicated_nak_is_not():
    """A frame the line keeps damaging gets a try per solicitation, not one per
    retransmission timer period (at 10 % corrupted bytes the identity needs ~450 tries)."""
    wire = opened()
    wire.table.send(count(1))
    wire.table.poll(wire.now)
    sent = wire.table.take_output()  # lost on the way
    tries = []
    for _ in range(3):  # well within the table's backed-off RTO
        wire.advance(0.1)
        wire.host.solicit()
        nak = wire.host.take_output()
        wire.table.receive(nak + nak, wire.now)  # the line duplicated it
        tries.append(wire.table.take_output())
    assert tries == [sent] * 3  # one round each, byte for byte


def test_lost_link_resumes_when_the_peer_talks_again():
    wire = opened()
    wire.table.send(count(1))
    wire.starve(wire.table)  # the host was paused for a while
    wire.host.send(Message("heartbeat"))
    wire.run()
    assert wire.to_host == [count(1)]
    assert not wire.table.lost


def test_undecodable_payload_is_delivered_in_place_as_a_protocol_error():
    wire = opened()
    table = wire.table
    frames = encode_frame(0, 0x21, b"\x00\x01a") + encode_frame(1, 0x17, b"") + encode_frame(2, 0x7E, b"")
    out = table.receive(frames, wire.now)
    assert out[0] == Message("show_text", {"seats": 0, "text": "a"})
    assert [type(item) for item in out[1:]] == [ProtocolError, ProtocolError]
    assert table.stats.protocol_errors == 2
    assert table.take_output() == encode_frame(3, ACK)  # consumed: the host must not resend them


def test_reconnect_to_the_same_table_loses_and_repeats_nothing():
    sessions = []
    wire = Wire(host=link("host", epoch=1, on_session=sessions.append))
    wire.run()
    wire.host.send(text(1))
    wire.table.send(count(1))
    wire.run(steps=1, lose_to_table=lambda d: d, lose_to_host=lambda d: b"")  # the host hears nothing back
    wire.host.reset()  # reconnect
    wire.run()
    assert wire.to_table == [text(1)]
    assert wire.to_host == [count(1)]
    assert sessions[-1] == SessionStart(2, resumed=True, dropped=[])


def test_rebooted_table_gets_a_fresh_session_and_the_host_learns_what_was_dropped():
    sessions = []
    wire = Wire(host=link("host", epoch=1, on_session=sessions.append))
    wire.run()
    wire.host.send(Message("shuffle"))
    wire.table = link("table", epoch=3)  # the MCU reset before it received the shuffle
    wire.table.send(Message("booted", {"boot_id": 3}))
    wire.run()
    assert wire.host.stats.sessions == 2
    assert sessions[-1] == SessionStart(3, resumed=False, dropped=[encode_message(Message("shuffle"))])
    assert wire.to_table == []
    assert wire.to_host == [Message("booted", {"boot_id": 3})]
    wire.host.send(Message("identify", {"protocol_version": 1}))
    wire.run()
    assert wire.to_table == [Message("identify", {"protocol_version": 1})]


def test_table_without_session_asks_the_host_to_reset():
    wire = opened()
    wire.table = link("table", epoch=4)
    wire.host.send(Message("heartbeat"))
    wire.host.poll(wire.now)
    wire.table.receive(wire.host.take_output(), wire.now)
    assert wire.table.take_output() == encode_frame(0, RESET_REQUEST)


def test_new_host_process_does_not_receive_the_old_session_s_events():
    wire = opened()
    wire.table.send(count(5))
    wire.run(steps=1, lose_to_host=lambda d: b"")
    wire.host = link("host", epoch=9)
    wire.to_host.clear()
    wire.run()
    assert wire.to_host == []
    assert wire.table.stats.dropped == 1


def test_nak_carries_the_expected_seq():
    table = opened().table
    table.receive(encode_frame(5, 0x11), 0.0)
    assert table.take_output() == encode_frame(0, NAK)


# ---- over the impaired in-memory line, on virtual time ----

def exchange(impairment: Impairment, n: int, seed: int, settle: float = 0.0
             ) -> tuple[list, list, LinkEndpoint, LinkEndpoint]:
    loop = VirtualTimeLoop()
    a, b = memory_pair(loop, impairment=impairment, seed=seed)
    at_table, at_host = [], []

    async def main():
        host = LinkEndpoint(Link("host", epoch=1), a, at_host.append, loop=loop)
        table = LinkEndpoint(Link("table", epoch=2), b, at_table.append, loop=loop)
        for i in range(n):
            host.send(text(i))
            table.send(count(i))
        while (len(at_table) < n or len(at_host) < n) and loop.time() < 600:
            await asyncio.sleep(0.1)
        await asyncio.sleep(settle)
        return host, table

    try:
        host, table = loop.run_until_complete(main())
    finally:
        loop.close()
    return at_table, at_host, host, table


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exactly_once_in_order_over_a_bad_line(seed):
    line = Impairment(corrupt=0.01, drop=0.03, duplicate=0.03, jitter=0.002, reorder=0.03, burst=0.01)
    at_table, at_host, host, table = exchange(line, 800, seed)
    assert at_table == [text(i) for i in range(800)]
    assert at_host == [count(i) for i in range(800)]
    for side in (host.stats, table.stats):
        assert side.retransmits > 0 and side.crc_errors > 0 and side.duplicates > 0
        assert not side.protocol_errors


def test_idle_endpoints_keep_no_timer():
    # Once the last acks are in (well within rto_min) no timer is left to fire for nothing.
    at_table, at_host, host, table = exchange(Impairment(), 3, 0, settle=0.01)
    assert host._timer is None and table._timer is None


class LossyLine:
    """The host's end of a memory line that loses the next `lose` data frames it is asked
    to write and remembers when each data frame went out."""

    def __init__(self, line) -> None:
        self.line, self.lose, self.data_writes = line, 0, []

    @property
    def on_close(self):
        return self.line.on_close

    @on_close.setter
    def on_close(self, callback) -> None:
        self.line.on_close = callback

    def set_receiver(self, callback) -> None:
        self.line.set_receiver(callback)

    def write(self, data: bytes) -> None:
        if data[3] >= 0x10:  # a data frame (the catalog's ids), not an ack or a reset
            self.data_writes.append(asyncio.get_running_loop().time())
            if self.lose:
                self.lose -= 1
                return
        self.line.write(data)

    def close(self) -> None:
        self.line.close()


def test_an_endpoint_resends_a_lost_frame_at_its_rto_and_finds_a_silent_peer_lost_at_give_up():
    loop = VirtualTimeLoop()
    a, b = memory_pair(loop)
    host_line = LossyLine(a)
    at_table, lost_at = [], []

    async def main():
        host = LinkEndpoint(Link("host", epoch=1), host_line, [].append, on_lost=lambda: lost_at.append(loop.time()),
                            loop=loop)
        LinkEndpoint(Link("table", epoch=2), b, at_table.append, loop=loop)
        await asyncio.sleep(1.0)  # the session is open and the line idle: no timer runs
        rto, host_line.lose = host.stats.rto, 1
        sent = loop.time()
        host.send(text(1))
        await asyncio.sleep(1.0)
        assert at_table == [text(1)] and host_line.data_writes == [sent, sent + rto]
        b.set_receiver(lambda data: None)  # the table goes deaf and mute
        sent = loop.time()
        host.send(text(2))
        await asyncio.sleep(5.0)
        assert lost_at == [sent + host.link.give_up]

    loop.run_until_complete(main())
    loop.close()


def test_endpoints_reconnect_over_a_new_line_without_loss_or_repeat():
    loop = VirtualTimeLoop()
    at_table, at_host, lost = [], [], []

    async def main():
        a, b = memory_pair(loop)
        host = LinkEndpoint(Link("host", epoch=1), a, at_host.append, on_lost=lambda: lost.append("host"), loop=loop)
        table = LinkEndpoint(Link("table", epoch=2), b, at_table.append, on_lost=lambda: lost.append("table"),
                             loop=loop)
        await asyncio.sleep(0.1)
        a.close()  # the cable is pulled with work queued on both sides
        for i in range(10):
            host.send(text(i))
            table.send(count(i))
        await asyncio.sleep(5)
        assert sorted(lost) == ["host", "table"] and at_table == at_host == []
        a, b = memory_pair(loop)
        table.reconnect(b)
        host.reconnect(a)
        await asyncio.sleep(1)

    loop.run_until_complete(main())
    loop.close()
    assert at_table == [text(i) for i in range(10)]
    assert at_host == [count(i) for i in range(10)]


def test_a_reconnect_that_abandons_the_queue_sends_nothing_old_and_keeps_the_session():
    sessions = []
    wire = Wire(host=link("host", epoch=1, on_session=sessions.append))
    wire.run()
    wire.host.send(text(1))
    wire.run(steps=1, lose_to_host=lambda d: b"")  # the table has text 1; its ack is lost
    wire.host.send(text(2))
    wire.host.poll(wire.now)
    wire.host.take_output()  # text 2 is lost on the line
    wire.table.send(count(7))  # queued at the table meanwhile
    wire.host.reset(abandon=True)  # the host's callers were told both failed
    wire.run()
    wire.host.send(text(3))
    wire.run()
    assert wire.to_table == [text(1), text(3)]  # text 1 once, text 2 never
    assert wire.to_host == [count(7)]
    assert sessions[-1] == SessionStart(2, resumed=True, dropped=[])


def test_a_control_frame_of_the_other_role_is_ignored_and_counted():
    wire = opened()
    reset = encode_frame(0, RESET, RESET_PAYLOAD.pack(0xBAD, 1))
    assert [type(item) for item in wire.host.receive(reset, wire.now)] == [ProtocolError]
    assert wire.host.take_output() == b""  # no RESET_ACK: a host answers no RESET
    assert wire.host.is_open and wire.host.stats.protocol_errors == 1
    for kind, payload in ((RESET_ACK, RESET_PAYLOAD.pack(0xBAD, 1)), (RESET_REQUEST, b"")):
        assert [type(item) for item in wire.table.receive(encode_frame(0, kind, payload), wire.now)] == [ProtocolError]
    assert wire.table.is_open and wire.table.stats.protocol_errors == 2
