/// The one configuration of a private `dbus-daemon`: the bus `blectld --mock` runs its
/// mock adapter on, and the one tests and the benchmark start (the benchmark gets the
/// text from `blectl-mock --print-bus-config SOCKET`).
public enum PrivateBusConfiguration {
    /// The configuration file for a bus listening on the Unix socket `socket`.
    ///
    /// A bus only its owner's processes use: anyone may own any name on it and talk to
    /// anyone. Its own file rather than `--session`, which watches configuration
    /// directories with inotify.
    public static func text(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>

        """
    }

    /// `dbus-daemon`'s arguments for the file at `path`: in the foreground, no pid file,
    /// printing the bus's address as its first line on stdout.
    public static func daemonArguments(configFile path: String) -> [String] {
        ["--config-file=\(path)", "--nofork", "--nopidfile", "--print-address"]
    }
}
