"""Club nights and tournaments: players, sessions and their totals, the schedule, the journal and the exports, the time limit."""
