"""The data model: events, results, effects, specs, matching. Imports nothing else of hookwright."""
