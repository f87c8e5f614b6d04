"""The op qr: the page's own address as a QR code (SVG), for the operator only; refused in
words where no page is served."""
import pytest
import segno

from controller.api.client import RequestError


def test_the_operator_gets_the_pages_address_as_a_qr_code(web):
    status, reply = web.operator().op("qr")
    assert status == 200 and reply["url"] == web.web.url
    svg = reply["svg"]
    assert svg.startswith('<svg viewBox="0 0 ') and 'class="qr"' in svg
    assert f"<title>{web.web.url}</title>" in svg
    size = len(segno.make(web.web.url, error="m", boost_error=False).matrix) + 8  # a quiet zone of 4
    assert f'viewBox="0 0 {size} {size}"' in svg


def test_a_player_or_a_spectator_gets_no_qr_code(in_play):
    assert in_play.http().op("qr")[0] == 401
    assert in_play.player().op("qr")[0] == 403


def test_without_a_page_there_is_no_address_to_draw(service):
    with pytest.raises(RequestError) as refused:
        service.request("qr")
    assert (refused.value.code, refused.value.message) == (
        "not_allowed", "the table's page is not served, so it has no address to show")
