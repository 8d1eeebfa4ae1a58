"""How a manual clean's steps are checked against fake-hardware's
interfaces (pure, no database).

Scenarios: the steps the fake interfaces offer pass; an unknown step, a
step of a ``no-*`` interface, unexpected and missing arguments and a
disabled ramdisk are Ironic's messages, joined by ``; `` in the order of
the steps; the steps Ironic checked once already show the ``abortable``
and ``priority`` its first pass added (not with the ramdisk disabled);
flow steps and child-node steps are not checked.
"""

import types

from allocsvc.common import fake_steps


def node(**interfaces):
    fields = dict(vendor_interface='fake', bios_interface='fake',
                  firmware_interface='fake')
    fields.update(interfaces)
    return types.SimpleNamespace(**fields)


def test_offered_steps_pass():
    steps = [{'interface': 'vendor', 'step': 'log_passthrough'},
             {'interface': 'bios', 'step': 'factory_reset'},
             {'interface': 'bios', 'step': 'cache_bios_settings',
              'args': {}},
             {'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': []}},
             {'interface': 'firmware', 'step': 'update',
              'args': {'settings': [{'component': 'bios'}]}}]
    assert fake_steps.clean_errors(node(), steps) is None


def test_unknown_steps_and_arguments():
    steps = [{'interface': 'bios', 'step': 'factory_reset',
              'args': {'b': 1, 'a': None}},
             {'interface': 'deploy', 'step': 'erase_devices'},
             {'interface': 'bios', 'step': 'apply_configuration'}]
    assert fake_steps.clean_errors(node(), steps) == (
        "clean step {'interface': 'bios', 'step': 'factory_reset', "
        "'args': {'b': 1, 'a': None}, 'abortable': False, 'priority': 0} "
        "has these unexpected arguments: a, b; node does not support this "
        "clean step: {'interface': 'deploy', 'step': 'erase_devices'}; "
        "clean step {'interface': 'bios', 'step': 'apply_configuration', "
        "'abortable': False, 'priority': 0} is missing these required "
        "arguments: settings (List of BIOS settings, each item needs to "
        "contain a dictionary with name/value pairs)")
    # The caller's steps are left as they were.
    assert steps[2] == {'interface': 'bios', 'step': 'apply_configuration'}


def test_no_interface_offers_nothing():
    step = {'interface': 'bios', 'step': 'factory_reset'}
    assert fake_steps.clean_errors(node(bios_interface='no-bios'),
                                   [step]) == (
        "node does not support this clean step: {'interface': 'bios', "
        "'step': 'factory_reset'}")


def test_disabled_ramdisk():
    steps = [{'interface': 'vendor', 'step': 'log_passthrough'}]
    assert fake_steps.clean_errors(node(), steps, disable_ramdisk=True) == (
        "clean step {'interface': 'vendor', 'step': 'log_passthrough'} "
        "requires booting a ramdisk")


def test_flow_and_child_steps_are_not_checked():
    steps = [{'interface': 'power', 'step': 'power_on'},
             {'interface': 'deploy', 'step': 'hold'},
             {'interface': 'raid', 'step': 'x',
              'execute_on_child_nodes': True}]
    assert fake_steps.clean_errors(node(), steps) is None


# -- servicing ---------------------------------------------------------------

def plan(steps, disable_ramdisk=False, **interfaces):
    return fake_steps.service_plan(node(driver='fake-hardware', **interfaces),
                                   steps, disable_ramdisk)


def test_service_steps_that_check_out_run_without_flow_steps():
    result = plan([{'interface': 'vendor', 'step': 'log_passthrough'},
                   {'interface': 'power', 'step': 'power_off'}])
    assert (result.power, result.failure, result.parks) == (None, None,
                                                            None)


def test_service_steps_run_as_given_until_one_fails():
    steps = [{'interface': 'power', 'step': 'reboot'},
             {'interface': 'bios', 'step': 'apply_configuration',
              'args': {'settings': [], 'x': 1}},
             {'interface': 'deploy', 'step': 'hold'}]
    result = plan(steps)
    assert result.power == 'power on'
    assert result.failed_step is steps[1]
    assert result.failure == ("FakeBIOS.apply_configuration() got an "
                              "unexpected keyword argument 'x'")
    assert result.parks is None


def test_service_steps_that_park():
    hold = {'interface': 'deploy', 'step': 'hold'}
    assert plan([hold, {'interface': 'x', 'step': 'y'}]).parks is hold
    wait = {'interface': 'vendor', 'step': 'trigger_servicewait'}
    assert plan([wait]).parks is wait


def test_service_without_ramdisk():
    step = {'interface': 'vendor', 'step': 'trigger_servicewait'}
    result = plan([step], disable_ramdisk=True)
    assert result.failure == (
        "Async execution of do_node_service failed with error: service "
        "step %r requires booting a ramdisk" % step)
    assert result.failed_step is None


def test_service_step_methods_other_than_steps_are_missing():
    # Ironic would call FakeDeploy.tear_down (doc/source/deviations.rst).
    step = {'interface': 'deploy', 'step': 'tear_down'}
    result = plan([step])
    assert result.failure == "'FakeDeploy' object has no attribute " \
        "'tear_down'"
    assert plan([{'interface': 'deploy', 'step': 'validate'}]).failure \
        is None
