"""The C frame decoder against vectors.json: each stream fed byte by byte to a fresh
decoder gives the file's frames, counters and pending bytes."""
import json
import subprocess

from firmware_protocol import vectors

VECTORS = json.loads(vectors.PATH.read_text())["vectors"]
COUNTERS = ("frames_received", "bytes_skipped", "crc_errors", "oversize", "resyncs", "truncated")


def decoded(build) -> list[dict]:
    out = subprocess.run([str(build / "mjt-vectors")], input="".join(v["hex"] + "\n" for v in VECTORS),
                         capture_output=True, text=True, timeout=30, check=True).stdout
    results, frames = [], []
    for line in out.splitlines():
        kind, *fields = line.split(" ")
        if kind == "frame":
            frames.append({"seq": int(fields[0]), "msg_id": int(fields[1]), "payload": fields[2]})
        else:
            numbers = list(map(int, fields))
            results.append({"frames": frames, "counters": dict(zip(COUNTERS, numbers)), "pending_bytes": numbers[-1]})
            frames = []
    return results


def test_the_c_decoder_reproduces_every_vector(host_build):
    results = decoded(host_build)
    assert len(results) == len(VECTORS)
    for vector, got in zip(VECTORS, results):
        expected = [{k: f[k] for k in ("seq", "msg_id", "payload")} for f in vector["frames"]]
        assert (got["frames"], got["counters"], got["pending_bytes"]) == (
            expected, vector["counters"], vector["pending_bytes"]), vector["name"]
