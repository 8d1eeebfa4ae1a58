#!/bin/bash
# devstack plugin for allocsvc.

source $ALLOCSVC_DIR/devstack/lib/allocsvc
ALLOCSVC_BIN_DIR=$(get_python_exec_prefix)

if is_service_enabled allocsvc-api; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing allocsvc"
        install_allocsvc
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring allocsvc"
        configure_allocsvc
        if is_service_enabled key; then
            create_allocsvc_accounts
        fi
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        echo_summary "Initializing and starting allocsvc"
        init_allocsvc
        start_allocsvc
    fi
    if [[ "$1" == "unstack" ]]; then
        stop_allocsvc
    fi
fi
