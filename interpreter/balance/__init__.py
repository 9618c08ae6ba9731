"""Balance studies: many cases of the engine's work, run in parallel and merged exactly.

Sweeps of exact odds, and whole encounters (interpreter.balance.encounters.answering).
"""

from interpreter.balance.parallel import map_tasks, task_seed

__all__ = ["map_tasks", "task_seed"]
