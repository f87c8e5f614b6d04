"""`make bench`: runs every benchmark module and prints its figures."""
import importlib
import pkgutil

import benchmarks


def main() -> None:
    for info in sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda m: m.name):
        if info.name.startswith("bench_"):
            importlib.import_module(f"benchmarks.{info.name}").main()


if __name__ == "__main__":
    main()
