import subprocess
import sys

from controller.cli import main


def test_help_lists_commands(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert "check-config" in out and "sim" in out


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert "mjtable" in proc.stdout
