"""Balance studies: questions asked of many runs at once (whole encounters, sweeps)."""
