"""accel-tune: tasks, tuning spaces, measurement, executors, search, logs (README: Tuning)."""
