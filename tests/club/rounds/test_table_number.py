"""The table's number in the table config (`table.number`), as `mjtable check-config`
reads it: shown when valid, named by section and option when not."""
import pytest

from ...e2e.e2e_harness import mjtable, write_table_config


@pytest.mark.parametrize("table, expected", [
    ("table: {number: 7}\n", "starting dealer 0, table number 7"),
    ("table: {number: 0}\n", "table.number: 0 is out of range; allowed: an integer from 1 to 999999"),
    ("table: {number: seven}\n", "table.number: got 'seven'; allowed: an integer from 1 to 999999"),
    ("table: {nmber: 7}\n", "table.nmber: unknown key 'nmber' (did you mean 'number'?); allowed keys: number"),
])
def test_check_config_reads_the_table_number(tmp_path, table, expected):
    config = write_table_config(tmp_path, "/dev/null", "four-port", "ema-2016")
    config.write_text(config.read_text() + table)
    done = mjtable("check-config", str(config))
    assert expected in done.stdout + done.stderr, done.stdout + done.stderr
    assert done.returncode == (0 if "number: 7" in table else 2)
