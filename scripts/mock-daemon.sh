# Sourced by scripts/run-mock.sh and scripts/flood-soak.sh: starts `blectld --mock` and waits
# until it serves its socket.
#
#   start_mock_daemon BIN DIR [BLECTLD-OPTION...]
#
# Runs BIN/blectld --mock --socket DIR/blectld.sock --config DIR/blectld.conf with the options
# given, its log in DIR/blectld.log; sets $daemon to its pid; on exit stops it and removes DIR.
# Exits 1 with the daemon's log when it is not ready within 15 s.
#
#   in_foreground COMMAND [ARG...]
#
# Runs a command the way a foreground command runs, but so that a SIGTERM or SIGINT sent to
# this script (by `timeout`, by systemd, by a CI job ending) stops it at once: the shell defers
# a trap until its foreground child ends, and never runs it when the child outlives a later
# SIGKILL, leaving blectld behind. Waiting on a background child lets the trap run.
start_mock_daemon() {
    _bin=$1 _dir=$2
    shift 2
    "$_bin/blectld" --mock --socket "$_dir/blectld.sock" --config "$_dir/blectld.conf" "$@" \
        2>"$_dir/blectld.log" &
    daemon=$!
    foreground=""
    trap 'stop_children; rm -rf "$_dir"' EXIT
    trap 'exit 130' INT TERM
    # The daemon logs "ready" once its socket is listening.
    timeout 15 sh -c "tail -n +1 -f '$_dir/blectld.log' | grep -q -m 1 'ready: socket'" || {
        echo "blectld did not start; its log:" >&2
        cat "$_dir/blectld.log" >&2
        exit 1
    }
}

stop_children() {
    [ -n "$foreground" ] && kill "$foreground" 2>/dev/null
    kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
    return 0
}

in_foreground() {
    "$@" &
    foreground=$!
    _status=0
    wait "$foreground" || _status=$?
    foreground=""
    return "$_status"
}
