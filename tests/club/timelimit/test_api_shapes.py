"""The control API's shapes of the time limit's requests (docs/API.md "Time limit"):
anything else is refused before it reaches the controller."""
import pytest

from controller.api.server import check_request
from controller.errors import Refusal


@pytest.mark.parametrize("request_", [{"op": "signal", "signal": "start"}, {"op": "signal", "signal": "warning"},
                                      {"op": "start", "time_limit": True}, {"op": "start", "time_limit": False}])
def test_the_signals_and_the_start_argument_are_taken(request_):
    op, args = check_request(dict(request_))
    assert op == request_["op"] and args == {k: v for k, v in request_.items() if k != "op"}


@pytest.mark.parametrize("request_, says", [
    ({"op": "signal"}, "missing argument 'signal'"),
    ({"op": "signal", "signal": "end"}, "'signal' must be \"start\" or \"warning\""),
    ({"op": "signal", "signal": "start", "at": 5}, "unknown argument 'at'"),
    ({"op": "start", "time_limit": "yes"}, "'time_limit' must be true"),
    ({"op": "start", "time_limit": 1}, "'time_limit' must be true"),
])
def test_malformed_requests_are_refused_naming_the_argument(request_, says):
    with pytest.raises(Refusal) as refused:
        check_request(dict(request_))
    assert refused.value.code == "bad_request" and says in refused.value.message
