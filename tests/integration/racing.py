"""Start functions together on threads, for races against a database."""

import threading


def race(*functions):
    """Run each function in its own thread, released together; return
    each one's result or exception."""
    barrier = threading.Barrier(len(functions))
    results = [None] * len(functions)

    def run(index, function):
        barrier.wait()
        try:
            results[index] = function()
        except Exception as exc:  # reported to the test
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i, f))
               for i, f in enumerate(functions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
