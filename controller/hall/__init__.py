"""The tournament hall (`mjtable hall`): one director runs every table of a tournament
from one machine on the parlour's broker (docs/HALL.md).

``entry`` reads the tournament as the director enters it once (players, header, tables,
seating; pure); ``store`` keeps it, with every result and correction (SQLite, one
transaction per change); ``standings`` ranks the field and makes the exports (pure);
``service`` takes the tables' results from the broker, each exactly once.
"""
