"""Placement microversions: one ordered list, one line per version."""

import microversion_parse

SERVICE_TYPE = 'placement'
MICROVERSION_ENVIRON = '%s.microversion' % SERVICE_TYPE

VERSIONS = [
    '1.0',
    '1.1',   # resource provider aggregates
    '1.2',   # custom resource classes
    '1.3',   # member_of on GET /resource_providers
    '1.4',   # resources filter on GET /resource_providers
    '1.5',   # DELETE all inventory of a provider
    '1.6',   # traits
    '1.7',   # PUT /resource_classes/{name} creates, without a body
    '1.8',   # project_id and user_id required when writing allocations
    '1.9',   # GET /usages
    '1.10',  # GET /allocation_candidates
    '1.11',  # allocations link on resource providers
    '1.12',  # dict format for PUT /allocations/{consumer_uuid}
    '1.13',  # POST /allocations for several consumers
    '1.14',  # nested providers: parent/root uuid, in_tree
    '1.15',  # last-modified and cache-control headers
    '1.16',  # limit on allocation candidates
    '1.17',  # required traits on allocation candidates
    '1.18',  # required traits on GET /resource_providers
    '1.19',  # generation in provider aggregates GET/PUT
    '1.20',  # POST /resource_providers returns the provider, 200
    '1.21',  # member_of on allocation candidates
    '1.22',  # forbidden traits (!TRAIT)
    '1.23',  # error code in JSON error bodies
    '1.24',  # repeated member_of
    '1.25',  # granular resource request groups
    '1.26',  # reserved may equal total
    '1.27',  # all inventory classes in provider summaries
    '1.28',  # consumer generations
    '1.29',  # nested providers in allocation candidates
    '1.30',  # POST /reshaper
    '1.31',  # in_tree on allocation candidates
    '1.32',  # forbidden aggregates (!member_of)
    '1.33',  # string request group suffixes
    '1.34',  # mappings in allocation requests
    '1.35',  # root_required on allocation candidates
    '1.36',  # same_subtree on allocation candidates
    '1.37',  # re-parenting and un-parenting providers
    '1.38',  # consumer_type on allocations, usages and reshaper
    '1.39',  # any-trait (in:) and repeated required
]

MIN_VERSION = VERSIONS[0]
MAX_VERSION = VERSIONS[-1]


def version(req):
    """The microversion the request asked for, a comparable Version."""
    return req.environ[MICROVERSION_ENVIRON]


def parse(version_string):
    return microversion_parse.parse_version_string(version_string)
