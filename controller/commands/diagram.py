"""`mjtable diagram`: print the controller's state machine as mermaid."""
from controller.game.machine import mermaid

HELP = "print the controller state machine as a mermaid diagram"


def add_arguments(parser) -> None:
    parser.add_argument("--output", "-o", help="write to this file instead of stdout")


def run(args) -> int:
    text = mermaid()
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text, end="")
    return 0
