"""The tournament hall (`mjtable hall`): one director runs every table of a tournament
from one machine on the parlour's broker (docs/HALL.md).

``entry`` reads the tournament as the director enters it once (players, header, tables,
seating; pure); ``seating`` generates seatings and the repeat-meetings report (pure);
``store`` keeps the tournament, every result and every correction (SQLite, one
transaction per change); ``standings`` ranks the field and makes the exports (pure);
``service`` takes the tables' results from the broker, each exactly once; ``orders``
sends the director's orders to every table; ``page`` serves the hall's page.
"""
