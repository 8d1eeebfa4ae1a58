"""The service root (``GET /``): what APIs this service offers."""

import pecan


class RootController:

    @pecan.expose(generic=True, template='json')
    def index(self):
        base = pecan.request.host_url + pecan.request.script_name
        return {
            'name': 'allocsvc',
            'description': 'Resource allocation service: a Placement '
                           'compatible API under /placement.',
            'apis': [{
                'id': 'placement',
                'links': [{'rel': 'self', 'href': base + '/placement/'}],
            }],
        }
