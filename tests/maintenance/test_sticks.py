"""The stick check's verdict and what the centre display shows of it."""
from controller.maintenance.sticks import CENTRE_TEXT_BYTES, compare

LEDGER = [25000, 33000, 18800, 23200]


def test_trays_as_the_ledger_agree_on_the_seats_in_play():
    assert compare(3, LEDGER, 0, LEDGER, range(4)).agrees
    sanma = compare(3, [25000, 33000, 18800, 0], 0, [25000, 33000, 18800, None], range(3))
    assert sanma.agrees and sanma.trays == {0: 25000, 1: 33000, 2: 18800}


def test_a_misread_tray_and_a_stick_in_a_wrong_slot_are_named_with_the_difference():
    report = compare(5, [25000, 32000, 18800, 23200], 0b1000, LEDGER, range(4))
    assert (report.agrees, report.mismatched, report.wrong_slot) == (False, [1], (3,))
    assert report.centre_text() == "sticks? S1 -1000 S3 slot"
    assert report.describe() == ("E306 after hand 5: seat 1 tray 32000 ledger 33000 (-1000); seat 3 has a stick "
                                 "in a wrong slot; the ledger counts, recount the sticks")


def test_a_centre_text_too_long_for_the_display_names_the_seats_only():
    report = compare(1, [t + 10000 for t in LEDGER], 0, LEDGER, range(4))
    assert len("sticks? S0 +10000 S1 +10000 S2 +10000 S3 +10000".encode()) > CENTRE_TEXT_BYTES
    assert report.centre_text() == "sticks? seats 0 1 2 3"
