"""The simulated automatic mahjong table (see docs/SIMULATOR.md)."""
from sim.faults import FaultPlan, LidOpening, load_fault_plan
from sim.profile import DEFAULT_PROFILE, Profile, load_profile
from sim.table import SimulatedTable

__all__ = ["DEFAULT_PROFILE", "FaultPlan", "LidOpening", "Profile", "SimulatedTable", "load_fault_plan",
           "load_profile"]
