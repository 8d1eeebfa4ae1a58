"""Service processes a test starts, watches and stops: each one logs to
a file of its own in the test's work directory, and their logs are what
a failing assertion shows."""

import os
import signal
import subprocess


class ProcessGroup:

    def __init__(self, workdir):
        self.workdir = workdir
        self.procs = {}
        self.logs = {}

    def spawn(self, name, cmd, env=None):
        log = open(self.workdir / ('%s.log' % name), 'w+b')
        self.logs[name] = log
        self.procs[name] = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir,
            env=dict(os.environ, **(env or {})))

    def check_running(self):
        """AssertionError, with the logs, if a process has exited."""
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise AssertionError('%s exited\n%s' % (name, self.output()))

    def output(self):
        """The end of every process's log."""
        out = []
        for name, log in self.logs.items():
            log.flush()
            log.seek(0)
            out.append('--- %s\n%s' % (
                name, log.read().decode(errors='replace')[-3000:]))
        return '\n'.join(out)

    def kill(self, name):
        """SIGKILL: the process gets no chance to clean up."""
        self.procs[name].send_signal(signal.SIGKILL)
        self.procs[name].wait()

    def stop(self, timeout=30):
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in self.logs.values():
            log.close()
