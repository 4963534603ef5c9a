"""The last 2000 records in a collections.deque(maxlen=2000): it fills in the
first tenth of the run, then every new record pushes out the oldest. The
records' line is a plateau."""
import collections

recent = collections.deque(maxlen=2000)


def record(i):
    return {"id": i, "payload": "r" * 100, "tags": [i, i + 1]}  # DEQUE_RECORD


for i in range(20000):
    recent.append(record(i))
print(len(recent))
