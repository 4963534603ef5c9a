"""The last 5000 records in a collections.deque(maxlen=5000): it fills in the
first eighth of the loop, then every new record pushes out the oldest. The
records' line is a plateau."""
import collections

recent = collections.deque(maxlen=5000)


def record(i):
    return {"id": i, "payload": "r" * 400, "tags": [i, i + 1]}  # DEQUE_RECORD


for i in range(40000):
    recent.append(record(i))
print(len(recent))
