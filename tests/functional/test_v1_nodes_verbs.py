"""The provisioning verbs beyond the deploy cycle, over
``PUT /v1/nodes/{n}/states/provision``, as Ironic 39 answers them for a
``fake-hardware`` node (texts and codes compared with a running Ironic).

Scenarios:
* clean (1.15): the steps the fake interfaces offer run and the node is
  back in manageable; a step no interface offers, missing or unexpected
  arguments and a disabled ramdisk fail it into ``clean failed`` (target
  manageable) with Ironic's ``last_error``, which ``manage`` keeps; the
  API's own refusals (steps required, their type and shape, steps only
  with clean, a step no one may run, disable_ramdisk's verb and version,
  maintenance).
* adopt (1.17): manageable -> active, the instance kept; ``adopt
  failed`` goes back to manageable or adopts again, and may be deleted.
* rescue and unrescue (1.38): the password (required, non-empty, a
  string, only with rescue) is kept masked; rescue again, unrescue, tear
  down from rescue; maintenance; a ``no-rescue`` node; a node in rescue
  may be updated but not deleted.
* abort (1.13) and unhold (1.85): refused in every state a fake-hardware
  node rests in (no step ever waits or holds), as Ironic words it.
* service (1.87): steps that check out against the fake vendor
  interface's service steps run; others run as given, as Ironic runs
  them (flow steps act, a step calls its interface's method), and a
  failure leaves the node in ``service failed`` (target active) in
  maintenance with Ironic's words; abort from there (not in
  maintenance) is back to active; disable_ramdisk (1.108); steps that
  would wait or hold are refused; the API's refusals.
* Every state Ironic reports is a valid provision_state filter.
"""

import uuid

import pytest

from allocsvc.common import states
from allocsvc.conductor import mirror
from allocsvc.db.baremetal import nodes as db_nodes
from tests.helpers import v1 as api
from tests.helpers.v1 import provision
from tests.helpers.v1 import show

pytestmark = pytest.mark.usefixtures('api_conductor')

call = api.call
message = api.message

BIOS_SETTINGS = ('settings (List of BIOS settings, each item needs to '
                 'contain a dictionary with name/value pairs)')


def state(ident):
    doc = show(ident)
    return (doc['provision_state'], doc['target_provision_state'],
            doc['last_error'])


def manageable(name, **body):
    node = api.create(name=name, **body)
    assert provision(name, 'manage').status_int == 202
    return node


def active(name, **body):
    """A node adopted into active (the quickest way there)."""
    node = manageable(name, **body)
    assert provision(name, 'adopt').status_int == 202
    return node


def refused(ident, target, node, in_state, **body):
    resp = provision(ident, target, **body)
    assert resp.status_int == 400, (target, resp.text)
    assert message(resp) == (
        'The requested action "%s" can not be performed on node "%s" '
        'while it is in state "%s".' % (target, node['uuid'], in_state))


# -- clean -------------------------------------------------------------------

def test_clean_runs_the_offered_steps(database):
    node = manageable('c')
    steps = [{'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': [{'name': 'a', 'value': 'b'}]}},
             {'interface': 'bios', 'step': 'factory_reset'},
             {'interface': 'firmware', 'step': 'update',
              'args': {'settings': []}, 'order': 2},
             {'interface': 'vendor', 'step': 'log_passthrough'},
             # Flow steps: resolved by the conductor, nothing to do.
             {'interface': 'power', 'step': 'power_on'},
             {'interface': 'deploy', 'step': 'hold'}]
    resp = provision('c', 'clean', clean_steps=steps)
    assert resp.status_int == 202, resp.text
    assert resp.headers['Location'] == 'http://localhost/v1/nodes/c/states'
    doc = show('c')
    assert (doc['provision_state'], doc['target_provision_state'],
            doc['last_error'], doc['clean_step'], doc['reservation']) == (
        'manageable', None, None, {}, None)
    assert doc['power_state'] is None
    # No BIOS settings are kept (doc/source/deviations.rst).
    assert call('GET', '/v1/nodes/c/bios').json == {'bios': []}
    assert provision('c', 'clean', clean_steps=steps[1:2],
                     version='1.15').status_int == 202
    assert node['uuid'] == doc['uuid']


def test_clean_with_steps_no_interface_offers_fails_the_node(database):
    node = manageable('f')
    resp = provision('f', 'clean', clean_steps=[
        {'interface': 'deploy', 'step': 'erase_devices'}])
    assert resp.status_int == 202
    error = ("Cannot clean node %s: node does not support this clean "
             "step: {'interface': 'deploy', 'step': 'erase_devices'}"
             % node['uuid'])
    assert state('f') == ('clean failed', 'manageable', error)
    # Ironic's refusal of a verb in a failure state.
    refused('f', 'clean', node, 'clean failed',
            clean_steps=[{'interface': 'bios', 'step': 'factory_reset'}])
    # manage moves the node without work: the error stays.
    assert provision('f', 'manage').status_int == 202
    assert state('f') == ('manageable', None, error)
    # A clean that runs clears it.
    assert provision('f', 'clean', clean_steps=[
        {'interface': 'bios', 'step': 'factory_reset'}]).status_int == 202
    assert state('f') == ('manageable', None, None)


def test_clean_step_arguments_are_checked_by_the_conductor(database):
    node = manageable('a')
    resp = provision('a', 'clean', clean_steps=[
        {'interface': 'bios', 'step': 'factory_reset', 'args': {'a': 1}},
        {'interface': 'bios', 'step': 'nope'},
        {'interface': 'bios', 'step': 'apply_configuration'}])
    assert resp.status_int == 202
    assert state('a') == ('clean failed', 'manageable', (
        "Cannot clean node %s: clean step {'interface': 'bios', 'step': "
        "'factory_reset', 'args': {'a': 1}, 'abortable': False, "
        "'priority': 0} has these unexpected arguments: a; node does not "
        "support this clean step: {'interface': 'bios', 'step': 'nope'}; "
        "clean step {'interface': 'bios', 'step': 'apply_configuration', "
        "'abortable': False, 'priority': 0} is missing these required "
        "arguments: %s" % (node['uuid'], BIOS_SETTINGS)))
    provision('a', 'manage')
    # Without the ramdisk no fake step can run (and Ironic checks the
    # steps once only: they show as given).
    resp = provision('a', 'clean', disable_ramdisk=True, clean_steps=[
        {'interface': 'vendor', 'step': 'log_passthrough'}])
    assert resp.status_int == 202
    assert state('a') == ('clean failed', 'manageable', (
        "Cannot clean node %s: clean step {'interface': 'vendor', 'step': "
        "'log_passthrough'} requires booting a ramdisk" % node['uuid']))


def test_clean_of_a_no_interface_fails(database):
    node = manageable('nb', bios_interface='no-bios')
    assert provision('nb', 'clean', clean_steps=[
        {'interface': 'bios', 'step': 'factory_reset'}]).status_int == 202
    assert state('nb')[:2] == ('clean failed', 'manageable')
    assert show('nb')['last_error'] == (
        "Cannot clean node %s: node does not support this clean step: "
        "{'interface': 'bios', 'step': 'factory_reset'}" % node['uuid'])


def test_clean_refusals_of_the_api(database):
    node = manageable('r')
    step = {'interface': 'bios', 'step': 'factory_reset'}
    for body in ({}, {'clean_steps': []}, {'clean_steps': None}):
        resp = provision('r', 'clean', **body)
        assert resp.status_int == 400, body
        assert message(resp) == ('"clean_steps" is required when setting '
                                 'target provision state to clean')
    for value, shown in (('abc', 'abc'), ({}, '{}'), (5, '5')):
        resp = provision('r', 'clean', clean_steps=value)
        assert resp.status_int == 400
        assert message(resp) == ("Expected types <class 'NoneType'>, "
                                 "<class 'list'> for clean_steps: %s"
                                 % shown)
    resp = provision('r', 'provide', clean_steps=[step])
    assert message(resp) == ('"clean_steps" is only valid when setting '
                             'target provision state to clean')
    assert provision('r', 'clean', clean_steps=[step],
                     version='1.14').status_int == 406
    resp = provision('r', 'clean', clean_steps=[
        {'interface': 'vendor', 'step': 'send_raw'}])
    assert resp.status_int == 400
    assert message(resp) == (
        "clean step 'vendor.send_raw' is not allowed. Disallowed by "
        "operator configuration [api]disallow_clean_steps.")
    assert state('r') == ('manageable', None, None)
    assert node['uuid'] == show('r')['uuid']


def test_clean_steps_shape(database):
    manageable('s')
    resp = provision('s', 'clean', clean_steps=[
        {'interface': 'foo', 'step': 'x'}])
    assert resp.status_int == 400
    text = message(resp)
    assert text.startswith(
        "Invalid clean_steps: 'foo' is not one of ['vendor', 'power', "
        "'management', 'firmware', 'deploy', 'bios', 'raid']\n\nFailed "
        "validating 'enum' in schema['items']['properties']['interface']:")
    assert text.endswith("On instance[0]['interface']:\n    'foo'")
    resp = provision('s', 'clean', clean_steps=[
        {'interface': 'bios', 'step': ''}])
    assert message(resp) == (
        "Invalid clean_steps: '' should be non-empty\n\nFailed validating "
        "'minLength' in schema['items']['properties']['step']:\n    "
        "{'description': 'name of clean step', 'type': 'string', "
        "'minLength': 1}\n\nOn instance[0]['step']:\n    ''")
    resp = provision('s', 'clean', clean_steps=[
        {'interface': 'bios', 'step': 'factory_reset', 'args': []}])
    assert message(resp).startswith(
        "Invalid clean_steps: [] is not of type 'object'")
    resp = provision('s', 'clean', clean_steps=[
        {'interface': 'bios', 'step': 'factory_reset', 'priority': 3}])
    assert message(resp).startswith(
        "Invalid clean_steps: Additional properties are not allowed "
        "('priority' was unexpected)")
    # Where Ironic fails with a 500 (a step that is no object, or lacks
    # its step), a 400 (doc/source/deviations.rst).
    for steps in (['x'], [{'interface': 'bios'}]):
        resp = provision('s', 'clean', clean_steps=steps)
        assert resp.status_int == 400, steps
        assert message(resp).startswith('Invalid clean_steps: ')
    assert state('s') == ('manageable', None, None)


def test_disable_ramdisk_rules(database):
    manageable('d')
    step = {'interface': 'bios', 'step': 'factory_reset'}
    resp = provision('d', 'clean', clean_steps=[step], disable_ramdisk=True,
                     version='1.69')
    assert resp.status_int == 406
    assert message(resp) == ('disable_ramdisk is not acceptable in this '
                             'API version')
    for value in (True, False, 'yes'):
        resp = provision('d', 'inspect', disable_ramdisk=value)
        assert resp.status_int == 400
        assert message(resp) == ('disable_ramdisk is supported only with '
                                 'manual cleaning or servicing')
    resp = provision('d', 'clean', clean_steps=[step],
                     disable_ramdisk='maybe')
    assert resp.status_int == 400
    assert message(resp) == (
        "Invalid disable_ramdisk: Unrecognized value 'maybe', acceptable "
        "values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', "
        "'true', 'y', 'yes'")
    # disable_ramdisk false: the steps are checked as without it.
    assert provision('d', 'clean', clean_steps=[step],
                     disable_ramdisk='false').status_int == 202
    assert state('d') == ('manageable', None, None)


def test_clean_in_maintenance_or_in_another_state(database):
    node = manageable('m')
    step = {'interface': 'bios', 'step': 'factory_reset'}
    call('PUT', '/v1/nodes/m/maintenance', {})
    resp = provision('m', 'clean', clean_steps=[step])
    assert resp.status_int == 400
    assert message(resp) == ("The cleaning operation can't be performed on "
                             "node %s because it's in maintenance mode."
                             % node['uuid'])
    call('DELETE', '/v1/nodes/m/maintenance')
    provision('m', 'provide')
    refused('m', 'clean', node, 'available', clean_steps=[step])


def test_a_node_in_clean_failed_may_be_updated(database):
    manageable('u')
    provision('u', 'clean', clean_steps=[{'interface': 'raid',
                                          'step': 'x'}])
    assert state('u')[:2] == ('clean failed', 'manageable')
    resp = api.patch('u', [{'op': 'add', 'path': '/extra/a', 'value': 1}])
    assert resp.status_int == 200, resp.text


def test_what_no_column_can_keep(database):
    # Failure messages quote the caller's steps: a NUL character shows as
    # \x00 and they stop at 64 KiB (doc/source/deviations.rst).
    node = manageable('nul')
    provision('nul', 'clean', clean_steps=[{'interface': 'bios',
                                            'step': 'a\x00'}])
    assert show('nul')['last_error'] == (
        "Cannot clean node %s: node does not support this clean step: "
        "{'interface': 'bios', 'step': 'a\\x00'}" % node['uuid'])
    provision('nul', 'manage')
    provision('nul', 'clean', clean_steps=[
        {'interface': 'bios', 'step': 'factory_reset',
         'args': {'x': 'y' * 70000}}])
    doc = show('nul')
    assert doc['provision_state'] == 'clean failed'
    assert len(doc['last_error']) == 65535
    provision('nul', 'manage')
    provision('nul', 'adopt')
    service('nul', [{'interface': 'vendor', 'step': 'b\x00'}])
    doc = show('nul')
    assert doc['last_error'].endswith(
        "'FakeVendorB' object has no attribute 'b\\x00'")
    assert doc['maintenance_reason'] == doc['last_error']
    call('DELETE', '/v1/nodes/nul/maintenance')
    provision('nul', 'abort')
    resp = provision('nul', 'rescue', rescue_password='p' * 70000)
    assert resp.status_int == 400
    assert message(resp) == ('Invalid input for field/attribute '
                             'rescue_password: the value is larger than '
                             '65535 bytes once encoded.')
    resp = provision('nul', 'rescue', rescue_password='p\x00')
    assert resp.status_int == 400


# -- adopt -------------------------------------------------------------------

def test_adopt(database):
    instance = str(uuid.uuid4())
    node = manageable('ad', instance_uuid=instance,
                      instance_info={'image_source': 'img'})
    assert provision('ad', 'adopt', version='1.16').status_int == 406
    resp = provision('ad', 'adopt', version='1.17')
    assert resp.status_int == 202, resp.text
    doc = show('ad')
    assert (doc['provision_state'], doc['target_provision_state'],
            doc['instance_uuid'], doc['instance_info']) == (
        'active', None, instance, {'image_source': 'img'})
    refused('ad', 'adopt', node, 'active')
    # Active: no deletion (the instance is named first).
    resp = call('DELETE', '/v1/nodes/ad')
    assert resp.status_int == 409
    assert message(resp) == ('Node %s is associated with instance %s.'
                             % (node['uuid'], instance))


def test_adopt_only_from_manageable(database):
    node = api.create(name='ae')
    refused('ae', 'adopt', node, 'enroll')
    provision('ae', 'manage')
    provision('ae', 'provide')
    refused('ae', 'adopt', node, 'available')


def test_adopt_failed(database):
    # fake-hardware never fails an adoption; a node left in adopt failed
    # (by another driver) goes back to manageable or adopts again.
    for name, verb, result in (('af1', 'manage', 'manageable'),
                               ('af2', 'adopt', 'active')):
        node = manageable(name)
        node_id = db_nodes.get(api.ctx(), name).id
        mirror.update_node(api.ctx(), node_id, {
            'provision_state': states.ADOPTFAIL,
            'target_provision_state': states.ACTIVE, 'last_error': 'e'})
        assert provision(name, verb).status_int == 202
        assert state(name)[:2] == (result, None)
        assert node['uuid'] == show(name)['uuid']
    manageable('af3')
    node_id = db_nodes.get(api.ctx(), 'af3').id
    mirror.update_node(api.ctx(), node_id, {
        'provision_state': states.ADOPTFAIL,
        'target_provision_state': states.ACTIVE})
    assert api.patch('af3', [{'op': 'add', 'path': '/extra/a',
                              'value': 1}]).status_int == 200
    assert call('DELETE', '/v1/nodes/af3').status_int == 204


# -- rescue ------------------------------------------------------------------

def test_rescue_and_unrescue(database):
    node = active('rs', instance_info={'image_source': 'img'})
    refused('rs', 'unrescue', node, 'active')
    assert provision('rs', 'rescue', rescue_password='pw',
                     version='1.37').status_int == 406
    resp = provision('rs', 'rescue', rescue_password='pw')
    assert resp.status_int == 202, resp.text
    doc = show('rs')
    assert (doc['provision_state'], doc['target_provision_state']) == (
        'rescue', None)
    assert doc['instance_info'] == {'image_source': 'img',
                                    'rescue_password': '******',
                                    'hashed_rescue_password': '******'}
    stored = db_nodes.get(api.ctx(), 'rs').instance_info
    assert stored['rescue_password'] == 'pw'
    assert stored['hashed_rescue_password'] not in ('', 'pw')
    # Rescue again, with another password.
    assert provision('rs', 'rescue', rescue_password='pw2').status_int == 202
    assert db_nodes.get(api.ctx(), 'rs').instance_info[
        'rescue_password'] == 'pw2'
    assert provision('rs', 'unrescue', version='1.37').status_int == 406
    assert provision('rs', 'unrescue').status_int == 202
    doc = show('rs')
    assert (doc['provision_state'], doc['target_provision_state']) == (
        'active', None)
    # Ironic's fake rescue interface leaves the password behind.
    assert set(doc['instance_info']) == {
        'image_source', 'rescue_password', 'hashed_rescue_password'}


def test_rescue_password_rules(database):
    node = active('pw')
    for body in ({}, {'rescue_password': ''},
                 {'rescue_password': '  '}, {'rescue_password': None}):
        resp = provision('pw', 'rescue', **body)
        assert resp.status_int == 400, body
        assert message(resp) == ('A non-empty "rescue_password" is required '
                                 'when setting target provision state to '
                                 'rescue')
    resp = provision('pw', 'rescue', rescue_password=5)
    assert message(resp) == 'Expected string for rescue_password: 5'
    resp = provision('pw', 'rebuild', rescue_password='x')
    assert message(resp) == ('"rescue_password" is only valid when setting '
                             'target provision state to rescue')
    assert state('pw') == ('active', None, None)
    # Only an active (or rescued) node is rescued.
    provision('pw', 'deleted')
    refused('pw', 'rescue', node, 'available', rescue_password='x')


def test_a_rescued_node(database):
    instance = str(uuid.uuid4())
    node = active('rn', instance_uuid=instance)
    provision('rn', 'rescue', rescue_password='pw')
    # Updates are allowed (no step is in flight), deletion is not.
    assert api.patch('rn', [{'op': 'add', 'path': '/extra/a',
                             'value': 1}]).status_int == 200
    resp = call('DELETE', '/v1/nodes/rn')
    assert resp.status_int == 409
    assert message(resp) == ('Node %s is associated with instance %s.'
                             % (node['uuid'], instance))
    for target in ('abort', 'unhold', 'manage', 'provide', 'active'):
        refused('rn', target, node, 'rescue')
    # Tear down from rescue: available, instance forgotten.
    assert provision('rn', 'deleted').status_int == 202
    doc = show('rn')
    assert (doc['provision_state'], doc['instance_uuid'],
            doc['instance_info']) == ('available', None, {})


def test_a_rescued_node_may_be_protected(database):
    node = active('rp')
    provision('rp', 'rescue', rescue_password='pw')
    resp = api.patch('rp', [{'op': 'add', 'path': '/protected',
                             'value': True}])
    assert resp.status_int == 200, resp.text
    resp = provision('rp', 'deleted')
    assert resp.status_int == 403
    assert message(resp) == ('Node %s is protected and cannot be '
                             'undeployed, rebuilt or deleted' % node['uuid'])
    # Unrescue keeps the protection (a protected active node).
    assert provision('rp', 'unrescue').status_int == 202
    assert show('rp')['protected'] is True


def test_rescue_in_maintenance(database):
    node = active('rm')
    call('PUT', '/v1/nodes/rm/maintenance', {})
    resp = provision('rm', 'rescue', rescue_password='pw')
    assert resp.status_int == 400
    assert message(resp) == ("The rescuing operation can't be performed on "
                             "node %s because it's in maintenance mode."
                             % node['uuid'])
    call('DELETE', '/v1/nodes/rm/maintenance')
    provision('rm', 'rescue', rescue_password='pw')
    call('PUT', '/v1/nodes/rm/maintenance', {})
    resp = provision('rm', 'unrescue')
    assert resp.status_int == 400
    assert message(resp) == ("The unrescuing operation can't be performed "
                             "on node %s because it's in maintenance mode."
                             % node['uuid'])
    # Tear down is allowed in maintenance.
    assert provision('rm', 'deleted').status_int == 202
    assert state('rm')[0] == 'available'


def test_rescue_needs_a_rescue_interface(database):
    node = active('nr', rescue_interface='no-rescue')
    resp = provision('nr', 'rescue', rescue_password='pw')
    # Ironic answers 500 (doc/source/deviations.rst).
    assert resp.status_int == 400
    assert message(resp) == (
        'Failed to rescue instance None for node %s: Validation failed: '
        'Driver fake-hardware does not support rescue (disabled or not '
        'implemented).' % node['uuid'])
    doc = show('nr')
    assert (doc['provision_state'], doc['instance_info']) == ('active', {})


# -- abort, unhold, service --------------------------------------------------

def test_abort_and_unhold_are_refused_where_nothing_waits(database):
    node = api.create(name='ab')
    for in_state, verb in (('enroll', 'manage'), ('manageable', 'adopt'),
                           ('active', None)):
        for target in ('abort', 'unhold'):
            refused('ab', target, node, in_state)
        # The state is checked before unhold's version.
        refused('ab', 'unhold', node, in_state, version='1.84')
        if verb:
            provision('ab', verb)
    assert provision('ab', 'abort', version='1.12').status_int == 406
    manageable('cf')
    provision('cf', 'clean', clean_steps=[{'interface': 'raid',
                                           'step': 'x'}])
    cf = show('cf')
    refused('cf', 'abort', cf, 'clean failed')


def service(ident, steps, **body):
    return provision(ident, 'service', service_steps=steps, **body)


def test_service_runs_the_steps(database):
    node = active('sv', instance_info={'image_source': 'img'})
    steps = [{'interface': 'vendor', 'step': 'log_passthrough'},
             # Flow steps of steps that all check out are dropped.
             {'interface': 'power', 'step': 'power_off'},
             {'interface': 'deploy', 'step': 'hold'}]
    assert service('sv', steps, version='1.86').status_int == 406
    resp = service('sv', steps, version='1.87')
    assert resp.status_int == 202, resp.text
    doc = show('sv')
    assert (doc['provision_state'], doc['target_provision_state'],
            doc['last_error'], doc['service_step'], doc['power_state'],
            doc['maintenance'], doc['instance_info']) == (
        'active', None, None, {}, None, False, {'image_source': 'img'})
    # Steps that do not check out run as given: flow steps act, a step
    # names a method of its interface.
    steps = [{'interface': 'power', 'step': 'power_off'},
             {'interface': 'bios', 'step': 'factory_reset'},
             {'interface': 'vendor', 'step': 'log_passthrough',
              'args': {'a': 1}},
             {'interface': 'raid', 'step': 'validate'},
             {'interface': 'firmware', 'step': 'update',
              'args': {'settings': []}},
             {'interface': 'power', 'step': 'reboot'},
             {'interface': 'vendor', 'step': 'log_passthrough',
              'execute_on_child_nodes': True}]
    assert service('sv', steps).status_int == 202
    doc = show('sv')
    assert (doc['provision_state'], doc['last_error'], doc['power_state'],
            doc['maintenance']) == ('active', None, 'power on', False)
    assert node['uuid'] == doc['uuid']


@pytest.mark.parametrize('step,error', [
    ({'interface': 'vendor', 'step': 'nope'},
     "'FakeVendorB' object has no attribute 'nope'"),
    ({'interface': 'management', 'step': 'nope'},
     "'FakeManagement' object has no attribute 'nope'"),
    ({'interface': 'bios', 'step': 'factory_reset',
      'args': {'x': 1, 'y': 2}},
     "FakeBIOS.factory_reset() got an unexpected keyword argument 'x'"),
    ({'interface': 'firmware', 'step': 'update'},
     "FakeFirmware.update() missing 1 required positional argument: "
     "'settings'"),
    ({'interface': 'vendor', 'step': 'get_properties'},
     'FakeVendorB.get_properties() takes 1 positional argument but 2 were '
     'given'),
])
def test_a_failed_service_step(database, step, error):
    node = active('sf')
    resp = service('sf', [{'interface': 'power', 'step': 'power_on'}, step])
    assert resp.status_int == 202
    failure = 'Node %s failed step %r: %s' % (node['uuid'], step, error)
    doc = show('sf')
    assert (doc['provision_state'], doc['target_provision_state'],
            doc['last_error'], doc['maintenance'],
            doc['maintenance_reason'], doc['fault'], doc['service_step'],
            doc['power_state']) == (
        'service failed', 'active', failure, True, failure,
        'service failure', {}, 'power on')


def test_after_a_failed_service(database):
    node = active('af')
    service('af', [{'interface': 'vendor', 'step': 'nope'}])
    for target, operation in (('service', 'service'),
                              ('rescue', 'rescuing')):
        body = {'rescue_password': 'pw'} if target == 'rescue' else {
            'service_steps': [{'interface': 'vendor',
                               'step': 'log_passthrough'}]}
        resp = provision('af', target, **body)
        assert resp.status_int == 400
        assert message(resp) == (
            "The %s operation can't be performed on node %s because it's "
            "in maintenance mode." % (operation, node['uuid']))
    resp = provision('af', 'abort')
    assert resp.status_int == 409
    assert message(resp) == (
        'Can not abort service on node "%s" while it is in maintenance '
        'mode. Please remove the node from maintenance prior to issuing '
        'the request to abort the service operation.' % node['uuid'])
    # The node may be updated meanwhile.
    assert api.patch('af', [{'op': 'add', 'path': '/extra/a',
                             'value': 1}]).status_int == 200
    call('DELETE', '/v1/nodes/af/maintenance')
    assert state('af')[:2] == ('service failed', 'active')
    assert provision('af', 'abort').status_int == 202
    assert state('af') == ('active', None, 'By request, the service '
                           'operation was aborted')
    refused('af', 'abort', node, 'active')
    # Servicing again from service failed, and tearing down.
    service('af', [{'interface': 'vendor', 'step': 'nope'}])
    call('DELETE', '/v1/nodes/af/maintenance')
    assert service('af', [{'interface': 'vendor',
                           'step': 'log_passthrough'}]).status_int == 202
    assert state('af') == ('active', None, None)
    service('af', [{'interface': 'vendor', 'step': 'nope'}])
    assert provision('af', 'deleted').status_int == 202
    assert state('af')[:2] == ('available', None)


def test_service_with_no_interfaces(database):
    node = active('nv', vendor_interface='no-vendor',
                  bios_interface='no-bios')
    cache = {'interface': 'bios', 'step': 'cache_bios_settings'}
    assert service('nv', [cache]).status_int == 202
    assert state('nv') == ('active', None, None)
    for step, error in (
            ({'interface': 'vendor', 'step': 'log_passthrough'},
             "'NoVendor' object has no attribute 'log_passthrough'"),
            ({'interface': 'bios', 'step': 'factory_reset'},
             'Driver fake-hardware does not support bios (disabled or not '
             'implemented).')):
        service('nv', [step])
        assert show('nv')['last_error'] == (
            'Node %s failed step %r: %s' % (node['uuid'], step, error))
        call('DELETE', '/v1/nodes/nv/maintenance')
        provision('nv', 'abort')


def test_service_without_a_ramdisk(database):
    node = active('sr')
    step = {'interface': 'vendor', 'step': 'log_passthrough'}
    resp = service('sr', [step], disable_ramdisk=True, version='1.107')
    assert resp.status_int == 406
    assert message(resp) == ('disable_ramdisk is not acceptable in this '
                             'API version')
    assert service('sr', [step], disable_ramdisk=True).status_int == 202
    assert state('sr') == ('active', None, None)
    # A step that does not check out: Ironic leaves the node in
    # servicing for ever, allocsvc fails it (doc/source/deviations.rst).
    bad = {'interface': 'bios', 'step': 'factory_reset'}
    assert service('sr', [bad], disable_ramdisk=True).status_int == 202
    doc = show('sr')
    assert (doc['provision_state'], doc['target_provision_state'],
            doc['last_error'], doc['maintenance']) == (
        'service failed', 'active',
        "Async execution of do_node_service failed with error: node does "
        "not support this service step: %r" % bad, False)
    assert node['uuid'] == doc['uuid']


def test_service_steps_that_would_wait_are_refused(database):
    # fake-hardware boots no ramdisk that could end the wait (Ironic
    # leaves the node waiting; doc/source/deviations.rst).
    active('sw')
    for steps, name in (
            ([{'interface': 'vendor', 'step': 'trigger_servicewait'}],
             'vendor.trigger_servicewait'),
            ([{'interface': 'deploy', 'step': 'hold'},
              {'interface': 'vendor', 'step': 'nope'}], 'deploy.hold'),
            ([{'interface': 'vendor', 'step': 'log_passthrough',
               'args': {'a': 1}},
              {'interface': 'deploy', 'step': 'wait'}], 'deploy.wait')):
        resp = service('sw', steps)
        assert resp.status_int == 400, steps
        assert message(resp) == ('Service step %s would hold or wait, '
                                 'which the fake-hardware driver does not '
                                 'support.' % name)
    assert state('sw') == ('active', None, None)
    assert show('sw')['maintenance'] is False


def test_service_refusals_of_the_api(database):
    node = manageable('sa')
    step = {'interface': 'vendor', 'step': 'log_passthrough'}
    # The node's state first, then the version.
    refused('sa', 'service', node, 'manageable', service_steps=[step],
            version='1.86')
    provision('sa', 'adopt')
    for body in ({}, {'service_steps': []}):
        resp = provision('sa', 'service', **body)
        assert resp.status_int == 400
        assert message(resp) == ('"service_steps" is required when '
                                 'setting target provision state to '
                                 'service')
    resp = service('sa', 'x')
    assert message(resp) == ("Expected types <class 'NoneType'>, "
                             "<class 'list'> for service_steps: x")
    resp = provision('sa', 'rebuild', service_steps=[step])
    assert message(resp) == ('"service_steps" is only valid when setting '
                             'target provision state to service')
    resp = service('sa', [{'interface': 'vendor', 'step': 'send_raw'}])
    assert message(resp) == (
        "service step 'vendor.send_raw' is not allowed. Disallowed by "
        "operator configuration [api]disallow_service_steps.")
    resp = service('sa', [{'interface': 'network', 'step': 'x'}])
    assert message(resp).startswith(
        "Invalid service_steps: 'network' is not one of ['vendor', "
        "'power', 'management', 'firmware', 'deploy', 'bios', 'raid']")
    call('PUT', '/v1/nodes/sa/maintenance', {})
    resp = service('sa', [step])
    assert message(resp) == ("The service operation can't be performed on "
                             "node %s because it's in maintenance mode."
                             % node['uuid'])
    assert state('sa') == ('active', None, None)


# -- filters -----------------------------------------------------------------

IRONIC_STATES = [
    'active', 'adopt failed', 'adopting', 'available', 'clean failed',
    'clean hold', 'clean wait', 'cleaning', 'deleting', 'deploy failed',
    'deploy hold', 'deploying', 'enroll', 'error', 'inspect failed',
    'inspect wait', 'inspecting', 'manageable', 'rescue', 'rescue failed',
    'rescue wait', 'rescuing', 'service failed', 'service hold',
    'service wait', 'servicing', 'unrescue failed', 'unrescuing',
    'verifying', 'wait call-back']


def test_every_ironic_state_is_a_filter(database):
    active('fl')
    provision('fl', 'rescue', rescue_password='pw')
    for name in IRONIC_STATES:
        resp = call('GET', '/v1/nodes?provision_state=' + name)
        assert resp.status_int == 200, name
        expected = ['fl'] if name == 'rescue' else []
        assert [n['name'] for n in resp.json['nodes']] == expected, name
    # Verbs and Ironic's other constants are no states.
    for name in ('deleted', 'deploy', 'service', 'deploy complete'):
        resp = call('GET', '/v1/nodes?provision_state=' + name)
        assert resp.status_int == 400
        assert message(resp) == 'Provision state "%s" is not valid' % name
