"""The committed sample configuration matches the options in the code."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
SAMPLE = os.path.join(ROOT, 'etc', 'allocsvc', 'allocsvc.conf.sample')


def test_sample_config_is_current(tmp_path):
    out = tmp_path / 'allocsvc.conf.sample'
    subprocess.run(
        [sys.executable, '-m', 'oslo_config.generator', '--config-file',
         os.path.join(ROOT, 'etc', 'allocsvc',
                      'allocsvc-config-generator.conf'),
         '--output-file', str(out)],
        check=True, cwd=ROOT)
    with open(SAMPLE) as committed:
        assert committed.read() == out.read_text(), (
            'etc/allocsvc/allocsvc.conf.sample is out of date: run '
            '"tox -e genconfig" and commit the result.')
