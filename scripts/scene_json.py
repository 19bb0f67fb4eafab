"""The layout the sample generators write scene files in (shared by make_level_samples.py and
make_character_playground.py)."""

import json


def pretty(value, indent=0):
    """JSON with short arrays and objects on one line, the rest indented by two spaces."""
    flat = json.dumps(value)
    short = len(flat) + indent <= 100
    if not isinstance(value, (list, dict)) or short or (isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value)):
        return flat
    inner = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {pretty(v, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [inner + pretty(v, indent + 2) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
