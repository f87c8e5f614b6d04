"""The simulated automatic mahjong table (see docs/SIMULATOR.md)."""
from sim.faults import FaultPlan, LidOpening, load_fault_plan
from firmware_protocol.profile import DEFAULT_PROFILE, Profile, load_profile
from sim.serve import connect_in_process, serve_pty, serve_tcp
from sim.table import SimulatedTable

__all__ = ["DEFAULT_PROFILE", "FaultPlan", "LidOpening", "Profile", "SimulatedTable", "connect_in_process",
           "load_fault_plan", "load_profile", "serve_pty", "serve_tcp"]
