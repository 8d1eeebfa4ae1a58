"""Property test: the explanation agrees with GET /allocation_candidates.

Over the random worlds and requests of ``test_candidates_property``
(trees, sharing providers, traits, aggregates, usage; every kind of
group parameter, group_policy, same_subtree, root_required, several
microversions), on SQLite, MariaDB and PostgreSQL:

- the explanation's count is the number of candidates the real query
  returns, without a limit and with one;
- the explanation blocks exactly when there are none, at one step, and
  every step before it left something;
- each group's steps only ever narrow: no step leaves more providers
  than the one before it, nor more trees (the unsuffixed group's
  classes each start from every provider; its resource steps count the
  providers of their class, the steps after them those of every
  class).

That the step named is the one to blame is shown filter by filter in
``test_candidates_explanation``.
"""

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import jsonschema
import pytest

from allocsvc.api.controllers.placement.schemas import \
    allocation_candidate_explanation as explanation_schema
from tests import backends
from tests import client
from tests import conftest
from tests.functional import candidates_worlds as worlds
from tests.helpers import apps

pytestmark = pytest.mark.slow

_VALIDATOR = jsonschema.Draft4Validator(
    explanation_schema.RESPONSE, format_checker=jsonschema.FormatChecker())


def _explain(app, query, version):
    resp = client.placement_request(
        app, 'GET', '/allocation_candidates/explanation?' + query, version)
    assert resp.status_int == 200, resp.text
    _VALIDATOR.validate(resp.json)
    return resp.json


def _steps_narrow(group, repro):
    steps = group['steps']
    for before, after in zip(steps, steps[1:]):
        if after['filter'] == 'resources' and after['description'].startswith(
                'has an inventory'):
            # The unsuffixed group's next class starts from every
            # provider.
            continue
        assert after['trees'] <= before['trees'], (repro, group)
        # The unsuffixed group's resource steps count the providers of
        # one class, the steps after them those of every class.
        one_class = before['filter'] == 'resources'
        if one_class and not group['suffix'] and \
                after['filter'] != 'resources':
            continue
        if 'providers' in after and 'providers' in before:
            assert after['providers'] <= before['providers'], (repro, group)


def _check(app, world, req, limit, repro):
    version = '%d.%d' % req.version
    query = worlds.query(req, limit)
    real = worlds.candidates(app, req, limit)['allocation_requests']
    found = _explain(app, query, version)
    assert found['allocation_candidates'] == len(real), (repro, found)
    blocks = [g['blocked_by'] for g in found['request_groups']
              if g['blocked_by']]
    if found['combination']['blocked_by']:
        blocks.append(found['combination']['blocked_by'])
    if real:
        assert not blocks and found['reason'] is None, (repro, found)
    else:
        assert found['reason'], (repro, found)
        assert blocks, (repro, found)
    for group in found['request_groups']:
        _steps_narrow(group, repro)
        blocked = group['blocked_by']
        if blocked:
            steps = group['steps']
            assert steps[blocked['step']]['trees'] == 0, (repro, group)
            assert all(s['trees'] for s in steps[:blocked['step']]), (
                repro, group)
    return found


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_explanation_agrees_with_the_query(backend):
    db = conftest.get_database(backend)

    @settings(max_examples=25 if backend == 'sqlite' else 8,
              **worlds.SETTINGS)
    @given(spec=worlds.worlds(), req=worlds.requests(),
           limit=st.integers(1, 3))
    def run(spec, req, limit):
        db.clean()
        app = apps.placement()
        world = worlds.build(app, spec)
        repro = worlds.describe(world, req)
        _check(app, world, req, None, repro)
        _check(app, world, req, limit, worlds.describe(world, req, limit))

    run()
