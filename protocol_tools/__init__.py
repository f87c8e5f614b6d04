"""Tools that write PROTOCOL.md from the code: they drive the host (`controller`) and the
simulated table (`sim`), so they sit above both and outside `firmware_protocol`, which
imports neither."""
