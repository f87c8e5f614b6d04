from .harness import COUNTS


def pytest_terminal_summary(terminalreporter) -> None:
    if COUNTS:
        terminalreporter.write_sep("-", "chaos suite")
        for name, value in sorted(COUNTS.items()):
            terminalreporter.write_line(f"{name:>20}: {value}")
