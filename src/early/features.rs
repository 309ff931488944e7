//! Features of a trajectory prefix (SPEC §11), built from steps 1 … k only.
