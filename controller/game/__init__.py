"""The game: the machine, the hand cycle and its steps, faults and pauses, displays, results, the record."""
