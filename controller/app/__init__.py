"""The application's wiring: the table config, start-up, the notifier, the in-process simulation."""
