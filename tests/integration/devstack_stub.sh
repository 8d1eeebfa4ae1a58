#!/bin/bash
# A stand-in for the devstack functions and variables the allocsvc
# devstack plugin uses, for tests/integration/test_devstack_plugin.py.
#
# Source it, then the plugin's settings, then plugin.sh with a phase, as
# stack.sh, unstack.sh and clean.sh do. Every call of a devstack
# function is appended to $STUB_LOG, one line each: the function's name
# and its arguments, separated by tabs. The functions act as devstack's
# do where the test needs the effect and it is harmless: iniset edits
# the ini file, write_uwsgi_config writes uwsgi's configuration,
# recreate_database (re)creates the database; run_process only records
# the command it would start (the test starts it), stop_process only
# records, and nothing reaches keystone.
#
# From the environment: STUB_LOG, STUB_PYTHON (a python with allocsvc
# and its requirements), STUB_SQL_CONN (a database server's URL without
# a database, e.g. mysql+pymysql://root@127.0.0.1:3306), STUB_DB_PREFIX
# (put before every database name, to keep test runs apart),
# ENABLED_SERVICES, and any ALLOCSVC_* setting.

# The variables of devstack's stackrc the plugin reads.
DEST=${DEST:-/opt/stack}
SERVICE_HOST=${SERVICE_HOST:-127.0.0.1}
SERVICE_PROTOCOL=${SERVICE_PROTOCOL:-http}
STACK_USER=${STACK_USER:-$(whoami)}
API_WORKERS=${API_WORKERS:-1}
REGION_NAME=${REGION_NAME:-RegionOne}
SERVICE_TIMEOUT=${SERVICE_TIMEOUT:-60}
SERVICE_PASSWORD=${SERVICE_PASSWORD:-secretservice}
KEYSTONE_SERVICE_URI=${KEYSTONE_SERVICE_URI:-http://$SERVICE_HOST/identity}
ENABLE_DEBUG_LOG_LEVEL=${ENABLE_DEBUG_LOG_LEVEL:-True}
RABBIT_USERID=${RABBIT_USERID:-guest}
RABBIT_PASSWORD=${RABBIT_PASSWORD:-guest}
RABBIT_HOST=${RABBIT_HOST:-127.0.0.1}
ETCD_PORT=${ETCD_PORT:-2379}
PYTHON=${PYTHON:-$STUB_PYTHON}
ENABLED_SERVICES=${ENABLED_SERVICES:-}
DISABLED_SERVICES=${DISABLED_SERVICES:-}

function _stub_record {
    local line=$1
    shift
    local arg
    for arg in "$@"; do
        line+=$'\t'$arg
    done
    echo "$line" >>"$STUB_LOG"
}

function echo_summary {
    echo "$@"
}

function die {
    local line=$1
    shift
    echo "die at line $line: $*" >&2
    exit 1
}

function define_plugin {
    _stub_record define_plugin "$@"
}

function trueorfalse {
    local default=$1
    local value=${!2:-$default}
    case "$value" in
        1|yes|Yes|YES|true|True|TRUE|on|On|ON) echo True ;;
        0|no|No|NO|false|False|FALSE|off|Off|OFF|"") echo False ;;
        *) echo "$default" ;;
    esac
}

# As devstack's: true if any of the services is enabled; "placement"
# stands for any placement-* service.
function is_service_enabled {
    local service
    for service in "$@"; do
        if [[ ,$ENABLED_SERVICES, == *,$service,* ]]; then
            return 0
        fi
        local others=,$ENABLED_SERVICES
        if [[ $service == placement && $others == *,placement-* ]]; then
            return 0
        fi
    done
    return 1
}

function enable_service {
    _stub_record enable_service "$@"
    local service
    for service in "$@"; do
        if [[ ,$DISABLED_SERVICES, == *,$service,* ]]; then
            continue
        fi
        if ! is_service_enabled "$service"; then
            ENABLED_SERVICES+=,$service
        fi
    done
    ENABLED_SERVICES=${ENABLED_SERVICES#,}
}

function disable_service {
    _stub_record disable_service "$@"
    local service
    for service in "$@"; do
        ENABLED_SERVICES=$(echo ",$ENABLED_SERVICES," |
            sed -e "s/,$service,/,/g" -e 's/^,//' -e 's/,$//')
        DISABLED_SERVICES+=,$service
    done
}

function get_python_exec_prefix {
    dirname "$STUB_PYTHON"
}

function setup_develop {
    _stub_record setup_develop "$@"
}

function pip_install {
    _stub_record pip_install "$@"
}

function sudo {
    "$@"
}

# Edits an ini file as devstack's iniset does (made if missing).
function _stub_ini {
    "$STUB_PYTHON" - "$@" <<'END'
import configparser
import os
import sys

action, path, section, option = sys.argv[1:5]
parser = configparser.RawConfigParser(strict=False)
parser.optionxform = str
if os.path.exists(path):
    parser.read(path)
if action == 'set':
    if section != 'DEFAULT' and not parser.has_section(section):
        parser.add_section(section)
    parser.set(section, option, sys.argv[5])
elif parser.has_section(section) or section == 'DEFAULT':
    parser.remove_option(section, option)
with open(path, 'w') as f:
    parser.write(f)
END
}

function iniset {
    if [[ "$1" == "-sudo" ]]; then
        shift
    fi
    _stub_record iniset "$@"
    _stub_ini set "$@"
}

function inidelete {
    if [[ "$1" == "-sudo" ]]; then
        shift
    fi
    _stub_record inidelete "$@"
    _stub_ini delete "$@"
}

function database_connection_url {
    _stub_record database_connection_url "$@"
    echo "$STUB_SQL_CONN/$STUB_DB_PREFIX$1?charset=utf8"
}

function recreate_database {
    _stub_record recreate_database "$@"
    "$STUB_PYTHON" - "$STUB_SQL_CONN" "$STUB_DB_PREFIX$1" <<'END'
import sys

import sqlalchemy as sa

engine = sa.create_engine(sys.argv[1] + '/', isolation_level='AUTOCOMMIT')
with engine.connect() as conn:
    conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % sys.argv[2]))
    conn.execute(sa.text('CREATE DATABASE %s CHARACTER SET utf8'
                         % sys.argv[2]))
engine.dispose()
END
}

function get_transport_url {
    _stub_record get_transport_url "$@"
    echo "rabbit://$RABBIT_USERID:$RABBIT_PASSWORD@$RABBIT_HOST:5672/$1"
}

function iniset_rpc_backend {
    _stub_record iniset_rpc_backend "$@"
    iniset "$2" "${3:-DEFAULT}" transport_url "$(get_transport_url "$4")"
}

function configure_keystone_authtoken_middleware {
    _stub_record configure_keystone_authtoken_middleware "$@"
    local conf=$1 user=$2 section=${3:-keystone_authtoken}
    iniset "$conf" "$section" auth_type password
    iniset "$conf" "$section" interface public
    iniset "$conf" "$section" auth_url "$KEYSTONE_SERVICE_URI"
    iniset "$conf" "$section" username "$user"
    iniset "$conf" "$section" password "$SERVICE_PASSWORD"
    iniset "$conf" "$section" user_domain_name Default
    iniset "$conf" "$section" project_name service
    iniset "$conf" "$section" project_domain_name Default
    iniset "$conf" "$section" www_authenticate_uri "$KEYSTONE_SERVICE_URI"
}

function create_service_user {
    _stub_record create_service_user "$@"
}

function get_or_create_service {
    _stub_record get_or_create_service "$@"
    echo "service-id-$1"
}

function get_or_create_endpoint {
    _stub_record get_or_create_endpoint "$@"
    echo "endpoint-id-$1"
}

function setup_logging {
    _stub_record setup_logging "$@"
}

# As devstack's, for a uwsgi that listens on http itself (no Apache).
function write_uwsgi_config {
    _stub_record write_uwsgi_config "$@"
    local file=$1 wsgi=$2 http=$4
    rm -f "$file"
    iniset "$file" uwsgi wsgi-file "$wsgi"
    iniset "$file" uwsgi processes "$API_WORKERS"
    iniset "$file" uwsgi master true
    iniset "$file" uwsgi die-on-term true
    iniset "$file" uwsgi exit-on-reload true
    iniset "$file" uwsgi enable-threads true
    iniset "$file" uwsgi plugins python
    iniset "$file" uwsgi thunder-lock true
    iniset "$file" uwsgi buffer-size 65535
    iniset "$file" uwsgi add-header "Connection: close"
    iniset "$file" uwsgi lazy-apps true
    if [[ -n "$http" ]]; then
        iniset "$file" uwsgi http "$http"
    fi
}

function remove_uwsgi_config {
    _stub_record remove_uwsgi_config "$@"
    rm -f "$1"
}

function run_process {
    if is_service_enabled "$1"; then
        _stub_record run_process "$@"
    fi
}

function stop_process {
    _stub_record stop_process "$@"
}

function wait_for_service {
    _stub_record wait_for_service "$@"
}
