import BlectlProtocol
import Daemon
import HTTPOutput
import Glibc
import TestSupport
import SensorModel
import Testing
import UnixSupport

@Suite("Daemon configuration")
struct ConfigurationTests {
    static let sample = """
        # blectld configuration
        socket = /run/test/blectld.sock
        socket-group = blectl        # trailing comment
        adapter = hci1
        log_level = debug
        names = Thermometer, "Pi #2"
        service_uuids = 1809, 0x181A, 00000001-710E-4A5B-8D75-3E5B444BC3CF
        reconnect_min = 500ms
        reconnect_max = 2m
        reconnect_jitter = 0.5
        history_retention = 7d
        history = no
        state_dir = /srv/blectl
        max_clients = 8
        max_line_length = 4096
        client_queue_bytes = 131072
        scan_timeout = 7.5s
        power_on_adapter = yes
        max_connecting = 2
        max_connections = 8
        max_devices = 4096
        """

    private func load(
        _ arguments: [String] = [], file: String? = nil, environment: [String: String] = [:]
    ) throws(ConfigurationError) -> DaemonInvocation {
        try DaemonConfiguration.load(
            arguments: arguments, environment: environment, readFile: { _ in file }, permissions: { _ in 0o640 })
    }

    private func configuration(
        _ arguments: [String] = [], file: String? = nil, environment: [String: String] = [:]
    ) throws -> DaemonConfiguration {
        guard case .run(let configuration) = try load(arguments, file: file, environment: environment) else {
            throw TestSupportError("not a run")
        }
        return configuration
    }

    @Test("Without a file or options, the defaults apply")
    func defaults() throws {
        let defaults = try configuration()
        #expect(defaults == DaemonConfiguration())
        #expect(defaults.socket.path == "/run/blectl/blectld.sock")
        #expect(defaults.thermometers.names == ["Thermometer"])
        #expect(defaults.socket.maxClients == 64 && defaults.socket.maxLineLength == 65536)
    }

    @Test("Every key of the file is applied")
    func everyKey() throws {
        let config = try configuration(file: Self.sample)
        #expect(config.socket.path == "/run/test/blectld.sock")
        #expect(config.socket.group == "blectl")
        #expect(config.adapter == "hci1")
        #expect(config.logLevel == .debug)
        #expect(config.thermometers.names == ["Thermometer", "Pi #2"])
        #expect(
            config.serviceUUIDs == [
                "00001809-0000-1000-8000-00805f9b34fb", "0000181a-0000-1000-8000-00805f9b34fb",
                "00000001-710e-4a5b-8d75-3e5b444bc3cf",
            ])
        #expect(config.thermometers.reconnect.initialDelay == .milliseconds(500))
        #expect(config.thermometers.reconnect.maximumDelay == .seconds(120))
        #expect(config.thermometers.reconnect.jitter == 0.5)
        #expect(config.historyStore.retention == .seconds(7 * 86400) && config.stateDirectory == "/srv/blectl")
        #expect(!config.history && DaemonConfiguration().history)
        #expect(config.socket.maxClients == 8)
        #expect(config.socket.maxLineLength == 4096 && config.socket.maxQueuedBytes == 131072)
        #expect(config.hub.defaultScan == .milliseconds(7500))
        #expect(config.powerOnAdapter)
        #expect(
            config.thermometers.maxConnecting == 2 && config.thermometers.maxConnections == 8
                && config.hub.peripherals == 4096)
    }

    @Test("The limits on connections and devices refuse values out of range")
    func connectionLimits() throws {
        let defaults = try configuration()
        #expect(
            defaults.thermometers.maxConnecting == 1 && defaults.thermometers.maxConnections == 5
                && defaults.hub.peripherals == 1024)
        for line in ["max_connecting = 0", "max_connections = 1001", "max_devices = 8", "max_devices = many"] {
            #expect(throws: ConfigurationError.self) { _ = try load(file: line) }
        }
    }

    @Test("scan_mode: auto by default; active and passive are taken; anything else is refused")
    func scanMode() throws {
        #expect(try configuration().advertisements.scanMode == .auto)
        #expect(try configuration(file: "scan_mode = passive").advertisements.scanMode == .passive)
        #expect(try configuration(["--scan-mode", "active"]).advertisements.scanMode == .active)
        do {
            _ = try load(file: "scan_mode = quiet")
            Issue.record("accepted scan_mode = quiet")
        } catch {
            #expect("\(error)".contains("expected auto, active or passive, got 'quiet'"))
        }
    }

    @Test("HTTP is off by default; --http and http_listen turn it on")
    func http() throws {
        #expect(try configuration().http.listen == nil)
        let fromFile = try configuration(file: "http_listen = [::]:9266\nhttp_max_connections = 200")
        #expect(fromFile.http.listen?.description == "[::]:9266")
        #expect(fromFile.http.maxConnections == 200)
        let fromFlag = try configuration(["--http", "127.0.0.1:8080"], file: "http_listen = [::]:9266")
        #expect(fromFlag.http.listen == ListenAddress("127.0.0.1:8080"))
    }

    @Test("The scan watchdog: 90 s by default, a duration, or 0/off for none; adapter_reset off by default")
    func scanWatchdog() throws {
        let defaults = try configuration()
        #expect(defaults.thermometers.scanWatchdog == .seconds(90) && !defaults.thermometers.adapterReset)
        #expect(
            try configuration(file: "scan_watchdog = 2m\nadapter_reset = yes").thermometers.scanWatchdog
                == .seconds(120))
        #expect(try configuration(file: "adapter_reset = yes").thermometers.adapterReset)
        for off in ["0", "off", "OFF", "no"] {
            #expect(try configuration(file: "scan_watchdog = \(off)").thermometers.scanWatchdog == nil)
        }
        for line in ["scan_watchdog = 500ms", "scan_watchdog = 2d", "scan_watchdog = soon", "adapter_reset = maybe"] {
            #expect(throws: ConfigurationError.self) { _ = try load(file: line) }
        }
    }

    @Test("Command line beats environment beats file")
    func precedence() throws {
        let file = "socket = /from/file.sock\nadapter = hci1\nnames = A, B"
        let fromEnvironment = try configuration(file: file, environment: ["BLECTL_SOCKET": "/from/env.sock"])
        #expect(fromEnvironment.socket.path == "/from/env.sock")
        #expect(fromEnvironment.adapter == "hci1")
        let fromFlags = try configuration(
            [
                "--socket", "/from/flag.sock", "--adapter=hci2", "--name", "C", "--name", "D", "--mock", "--log-level",
                "err",
            ],
            file: file, environment: ["BLECTL_SOCKET": "/from/env.sock"])
        #expect(fromFlags.socket.path == "/from/flag.sock")
        #expect(fromFlags.adapter == "hci2")
        #expect(fromFlags.thermometers.names == ["C", "D"])
        #expect(fromFlags.mock)
        #expect(fromFlags.logLevel == .error)
    }

    @Test(
        "File mistakes name the file and line",
        arguments: [
            ("adapter = hci0\nbogus = 1", 2, "unknown key 'bogus'"),
            ("\n\nmax_clients = lots", 3, "max_clients: expected a whole number"),
            ("adapter = hci0\nadapter = hci1", 2, "'adapter' is already set on line 1"),
            ("just words", 1, "expected 'key = value'"),
            ("log_level = loud", 1, "unknown log level"),
            ("service_uuids = 1809, banana", 1, "not a UUID"),
            ("socket = relative.sock", 1, "must be absolute"),
            ("names = A,,B", 1, "empty item"),
            ("reconnect_min = 10\nreconnect_max = 5", 2, "smaller than reconnect_min"),
            ("scan_timeout = 0.1", 1, "out of range"),
            // Found by the `config` fuzz target: too large for Int64 milliseconds, it trapped.
            ("reconnect_max = 444444444444444444444444444444444444444430", 1, "out of range"),
            ("history_retention = 1e300d", 1, "out of range"),
            ("http_listen = localhost:9266", 1, "expected a numeric address and a port such as 127.0.0.1:9266"),
            ("http_max_connections = 0", 1, "http_max_connections: expected a whole number from 1 to 4096"),
        ])
    func fileErrors(text: String, line: Int, message: String) {
        do {
            _ = try load(["--config", "/etc/test.conf"], file: text)
            Issue.record("accepted: \(text)")
        } catch {
            guard case .file(let path, let reportedLine, let reported) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(path == "/etc/test.conf")
            #expect(reportedLine == line)
            #expect(reported.contains(message), "\(reported)")
            #expect(error.exitCode == 78)
            #expect(error.description.hasPrefix("/etc/test.conf:\(line): "))
        }
    }

    @Test("adapters takes auto, all or a list; hciN stays a name to resolve at start")
    func adapterLists() throws {
        #expect(try configuration(file: "adapters = all\n").adapters == .all)
        #expect(try configuration(file: "").adapterSelection.set == .automatic)
        #expect(try configuration(file: "adapter = auto\n").adapterSelection.set == nil)
        let listed = try configuration(file: "adapters = 00:1a:7d:da:71:10, hci1\n")
        let first = try #require(BluetoothAddress("00:1A:7D:DA:71:10"))
        #expect(listed.adapters == .listed([.address(first), .unresolved(name: "hci1")]))
        #expect(
            try configuration(file: "adapter = hci2\n").adapterSelection.set == .listed([.unresolved(name: "hci2")]))
    }

    @Test("adapter and adapters together are refused (exit 78), from any two sources")
    func adapterAndAdapters() throws {
        for (file, arguments) in [
            ("adapter = hci0\nadapters = all\n", [String]()), ("adapters = all\n", ["--adapter", "hci1"]),
        ] {
            do {
                _ = try configuration(arguments, file: file)
                Issue.record("accepted \(file) \(arguments)")
            } catch let error as ConfigurationError {
                #expect(error.exitCode == 78)
                #expect(error.description.contains("adapters alone"), "\(error)")
            }
        }
        #expect(throws: ConfigurationError.self) { try configuration(file: "adapters = hci0,,hci1\n") }
    }

    @Test(
        "Command-line mistakes are usage errors (exit 64)",
        arguments: [
            ["--frob"], ["--max-clients", "0"], ["--log-level"], ["extra"], ["--service-uuid", "zz"],
            ["--http", "9266"], ["--http", "::1:9266"],
        ])
    func usageErrors(arguments: [String]) {
        do {
            _ = try load(arguments)
            Issue.record("accepted \(arguments)")
        } catch {
            guard case .usage = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(error.exitCode == ExitCode.usage)
        }
    }

    @Test("A missing default file is fine; a missing --config file is not")
    func missingFile() throws {
        #expect(try configuration(file: nil) == DaemonConfiguration())
        #expect(throws: ConfigurationError.unreadable(SystemError("open(/nope.conf)", code: ENOENT))) {
            try load(["--config", "/nope.conf"], file: nil)
        }
    }

    @Test("--help and --version short-circuit")
    func helpAndVersion() throws {
        guard case .help(let text) = try load(["--help"]) else {
            Issue.record("no help")
            return
        }
        #expect(text.contains("--socket PATH") && text.contains("--service-uuid UUID") && text.contains("--mock"))
        #expect(try load(["--version"]) == .version("blectld 0.1.0"))
    }

    @Test("A file with CRLF line ends (edited on Windows) reads as with LF")
    func crlfLineEnds() throws {
        let lines = ["log_level = debug", "# a comment", "names = A, \"B C\"", "", "max_clients = 8", ""]
        let unix = try configuration(file: lines.joined(separator: "\n"))
        #expect(try configuration(file: lines.joined(separator: "\r\n")) == unix)
        #expect(unix.logLevel == .debug && unix.thermometers.names == ["A", "B C"] && unix.socket.maxClients == 8)
        do {
            _ = try load(file: "adapter = hci0\r\nbogus = 1\r\n")
            Issue.record("accepted an unknown key")
        } catch {
            #expect(error.description.contains(":2: unknown key 'bogus'"), "\(error)")
        }
    }

    @Test("File keys may be written with '-' for '_'")
    func dashedKeys() throws {
        let config = try configuration(file: "history-commit-interval = 50s\nMax-Clients = 8\n")
        #expect(config.historyStore.commitInterval == .seconds(50) && config.socket.maxClients == 8)
    }

    @Test("Per-device keys: an alias and one BTHome or MiBeacon key per address, each once, with clear errors")
    func deviceKeys() throws {
        let config = try configuration(
            file: """
                alias dc:a6:32:00:00:01 = Kitchen
                alias DC:A6:32:00:00:02 = "Living room"
                bthome_key A4:C1:38:00:00:01 = 231d39c1d7cc1ab1aee224cd096db932
                mibeacon_key A4:C1:38:00:00:02 = 814aac74c4f17b6c1581e1ab87816b99
                mibeacon_key A4:C1:38:00:00:03 = b853075158487ca39a5b5ea9
                """)
        #expect(config.hub.aliases[BluetoothAddress("DC:A6:32:00:00:01")] == "Kitchen")
        #expect(config.hub.aliases[BluetoothAddress("DC:A6:32:00:00:02")] == "Living room")
        #expect(
            config.advertisementKeys.keys.map(\.description).sorted() == [
                "A4:C1:38:00:00:01", "A4:C1:38:00:00:02", "A4:C1:38:00:00:03",
            ])
        for (text, message) in [
            ("alias nonsense = Kitchen", "not a Bluetooth address"),
            ("alias DC:A6:32:00:00:01 = A\nalias DC:A6:32:00:00:01 = B", "already set on line 1"),
            ("bthome_key A4:C1:38:00:00:01 = 1234", "32 hex digits"),
            ("mibeacon_key A4:C1:38:00:00:01 = 1234", "32 hex digits (16 bytes) or 24 hex digits (12 bytes)"),
            (
                "bthome_key A4:C1:38:00:00:01 = 231d39c1d7cc1ab1aee224cd096db932\n"
                    + "mibeacon_key A4:C1:38:00:00:01 = 814aac74c4f17b6c1581e1ab87816b99", "one key per device"
            ),
            ("nickname DC:A6:32:00:00:01 = A", "unknown key 'nickname'"),
        ] {
            #expect {
                try configuration(file: text)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
    }

    @Test("Calibration: an offset per device and quantity, bounded, each once, with clear errors")
    func calibration() throws {
        let config = try configuration(
            file: """
                calibrate A4:C1:38:00:00:01 temperature = +0.3
                calibrate a4:c1:38:00:00:01 Humidity = -2.5
                calibrate DC:A6:32:00:00:01 temperature = -20
                """)
        let sensor = try #require(config.hub.calibrations[BluetoothAddress("A4:C1:38:00:00:01")])
        #expect(sensor.offsets[.temperature] == 0.3 && sensor.offsets[.humidity] == -2.5)
        let pi = try #require(config.hub.calibrations[BluetoothAddress("DC:A6:32:00:00:01")])
        #expect(pi.offsets[.temperature] == -20 && pi.offsets[.humidity] == nil)
        for (text, message) in [
            ("calibrate A4:C1:38:00:00:01 pressure = 1", ":1: calibrate A4:C1:38:00:00:01: unknown 'pressure'"),
            ("calibrate A4:C1:38:00:00:01 = 1", "expected temperature or humidity before '='"),
            ("alias A4:C1:38:00:00:01 temperature = Shed", "unexpected 'temperature'"),
            ("calibrate A4:C1:38:00:00:01 temperature = 20.5", "out of range (-20…+20)"),
            ("calibrate A4:C1:38:00:00:01 humidity = -50.1", "out of range (-50…+50)"),
            ("calibrate A4:C1:38:00:00:01 temperature = warm", "not a number: 'warm'"),
            ("calibrate A4:C1:38:00:00:01 temperature = inf", "not a number"),
            (
                "calibrate A4:C1:38:00:00:01 temperature = 1\ncalibrate A4:C1:38:00:00:01 temperature = 2",
                ":2: 'calibrate A4:C1:38:00:00:01 temperature' is already set on line 1"
            ),
        ] {
            #expect {
                try configuration(file: text)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
    }

    @Test("gatt_live per device: yes adds the device to the GATT thermometers followed by address")
    func gattLive() throws {
        let config = try configuration(
            file: "gatt_live A4:C1:38:EF:00:01 = yes\ngatt_live A4:C1:38:EF:00:02 = no\n")
        #expect(config.thermometers.addresses == [BluetoothAddress("A4:C1:38:EF:00:01")])
        #expect(throws: (any Error).self) { try configuration(file: "gatt_live A4:C1:38:EF:00:01 = maybe") }
    }

    @Test("sensor_clock_sync per device: daily or off over the global setting")
    func clockSyncPerDevice() throws {
        let config = try configuration(
            file: """
                sensor_clock_sync = off
                sensor_clock_sync A4:C1:38:00:00:01 = daily
                sensor_clock_sync a4:c1:38:00:00:02 = OFF
                """)
        let memory = config.sensorMemory
        #expect(memory.setsClock(of: BluetoothAddress("A4:C1:38:00:00:01")))
        #expect(!memory.setsClock(of: BluetoothAddress("A4:C1:38:00:00:02")))
        #expect(!memory.setsClock(of: BluetoothAddress("A4:C1:38:00:00:03")))
        let offOne = try configuration(file: "sensor_clock_sync A4:C1:38:00:00:02 = off").sensorMemory
        #expect(!offOne.setsClock(of: BluetoothAddress("A4:C1:38:00:00:02")))
        #expect(offOne.setsClock(of: BluetoothAddress("A4:C1:38:00:00:01")))
        #expect {
            try configuration(file: "sensor_clock_sync A4:C1:38:00:00:01 = weekly")
        } throws: { error in
            "\(error)".contains(":1: sensor_clock_sync A4:C1:38:00:00:01: expected daily or off")
        }
    }

    @Test("sensor_memory per device: auto or off over the global setting, each device once")
    func sensorMemoryPerDevice() throws {
        let config = try configuration(
            file: """
                sensor_memory = off
                sensor_memory A4:C1:38:00:00:01 = auto
                sensor-memory a4:c1:38:00:00:02 = OFF
                """)
        let memory = config.sensorMemory
        #expect(!memory.enabled && memory.isEnabledForAny)
        #expect(memory.isEnabled(for: BluetoothAddress("A4:C1:38:00:00:01")))
        #expect(!memory.isEnabled(for: BluetoothAddress("A4:C1:38:00:00:02")))
        #expect(!memory.isEnabled(for: BluetoothAddress("A4:C1:38:00:00:03")))
        let offOne = try configuration(file: "sensor_memory A4:C1:38:00:00:02 = off")
        #expect(offOne.sensorMemory.enabled && offOne.sensorMemory.isEnabledForAny)
        #expect(!offOne.sensorMemory.isEnabled(for: BluetoothAddress("A4:C1:38:00:00:02")))
        #expect(offOne.sensorMemory.isEnabled(for: BluetoothAddress("A4:C1:38:00:00:01")))
        #expect(!(try configuration(file: "sensor_memory = off")).sensorMemory.isEnabledForAny)
        for (text, message) in [
            (
                "sensor_memory A4:C1:38:00:00:01 = sometimes",
                ":1: sensor_memory A4:C1:38:00:00:01: expected auto or off"
            ),
            ("sensor_memory A4:C1:38:00:00:01 temperature = off", "unexpected 'temperature'"),
            (
                "sensor_memory A4:C1:38:00:00:01 = off\nsensor_memory A4:C1:38:00:00:01 = auto",
                ":2: 'sensor_memory A4:C1:38:00:00:01' is already set on line 1"
            ),
        ] {
            #expect {
                try configuration(file: text)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
    }
}
