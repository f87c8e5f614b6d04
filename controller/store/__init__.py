"""The state database: the store, its lock, its writer thread."""
