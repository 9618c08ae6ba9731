"""The shared table of `rulebook serve`: roles and rights, events and seats, doors, addresses."""
