#!/bin/bash
# devstack plugin for allocsvc: the Placement API and the bare-metal
# allocation API (allocsvc-api under uwsgi) with its conductors
# (allocsvc-conductor), on devstack's database and RabbitMQ. settings
# says what can be set in local.conf.

source "$ALLOCSVC_DIR/devstack/lib/allocsvc"

if is_service_enabled allocsvc-api allocsvc-conductor; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing allocsvc"
        install_allocsvc
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring allocsvc"
        configure_allocsvc
        if is_service_enabled key; then
            create_allocsvc_accounts
        fi
        # As devstack's Placement, allocsvc must answer before stack.sh
        # launches nova, which it does right after this phase.
        if [[ "$ALLOCSVC_REPLACE_PLACEMENT" == "True" ]]; then
            echo_summary "Initializing and starting allocsvc"
            init_allocsvc
            start_allocsvc
        fi
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        if [[ "$ALLOCSVC_REPLACE_PLACEMENT" != "True" ]]; then
            echo_summary "Initializing and starting allocsvc"
            init_allocsvc
            start_allocsvc
        fi
    fi
    if [[ "$1" == "unstack" ]]; then
        stop_allocsvc
    fi
    if [[ "$1" == "clean" ]]; then
        stop_allocsvc
        cleanup_allocsvc
    fi
fi
