"""The committed sample policy file matches the rules in the code."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
SAMPLE = os.path.join(ROOT, 'etc', 'allocsvc', 'policy.yaml.sample')

# oslopolicy-sample-generator, run by the interpreter of the tests (the
# console script may belong to another installation).
_GENERATOR = ('import sys; from oslo_policy import generator; '
              'sys.exit(generator.generate_sample())')


def test_sample_policy_is_current(tmp_path):
    out = tmp_path / 'policy.yaml.sample'
    subprocess.run(
        [sys.executable, '-c', _GENERATOR, '--config-file',
         os.path.join(ROOT, 'etc', 'allocsvc',
                      'allocsvc-policy-generator.conf'),
         '--output-file', str(out)],
        check=True, cwd=ROOT)
    with open(SAMPLE) as committed:
        assert committed.read() == out.read_text(), (
            'etc/allocsvc/policy.yaml.sample is out of date: run '
            '"tox -e genpolicy" and commit the result.')
