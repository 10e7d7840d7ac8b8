import DBusCore
import ThermometerProfiles

/// The committed seed corpora (`Tests/Fuzz/corpus/<target>/`), as `blectl-fuzz --write-seeds`
/// writes them: real values from the docs and the decoders' tests, and BlueZ's messages
/// built and marshalled by DBusCore. Seeds named `refused-…` are meant to be refused at once
/// (IntegrationTests checks that they are, and that the others are not).
enum Seeds {
    /// Each target's seeds: file name and bytes.
    static func all() throws -> [String: [(name: String, bytes: [UInt8])]] {
        [
            "protocol": protocolLines.map { ($0.name, Array($0.line.utf8)) },
            "gatt": gattValues,
            "advertisements": advertisements,
            "config": configurationFiles.map { ($0.name, Array($0.text.utf8)) },
            "dbus": try dbusMessages.map { ($0.name, $0.message.marshalled) },
            "bluez": try bluezRuns.map { ($0.name, $0.messages.flatMap(\.marshalled)) },
        ]
    }

    // MARK: Text

    /// Requests as blectl sends them, and lines of every kind blectld sends (docs/protocol.md).
    static let protocolLines: [(name: String, line: String)] = [
        ("request-status", #"{"v":1,"id":1,"cmd":"status"}"#),
        ("request-peripherals", #"{"v":1,"id":2,"cmd":"peripherals"}"#),
        ("request-scan", #"{"v":1,"id":3,"cmd":"scan","timeout":5}"#),
        ("request-read", #"{"v":1,"id":4,"cmd":"read","address":"Thermometer","timeout":30}"#),
        ("request-history-since", #"{"v":1,"id":5,"cmd":"history","since":10}"#),
        (
            "request-history-range",
            #"{"v":1,"id":5,"cmd":"history","address":"DC:A6:32:01:02:03","from":"2026-11-30T01:00:00Z","#
                + #""until":"2026-11-30T02:00:00.5+01:00","limit":100}"#
        ),
        (
            "request-subscribe",
            #"{"v":1,"id":6,"cmd":"subscribe","events":["reading","reading_error","connected","disconnected"]}"#
        ),
        (
            "request-escapes",
            #" {"v":1, "id":-7, "cmd":"read", "address":"Th\u00e9rmo \ud83c\udf21\n", "timeout":1.5e1} "#
        ),
        ("refused-version-2", #"{"v":2,"id":8,"cmd":"status"}"#),
        ("refused-negative-timeout", #"{"v":1,"id":9,"cmd":"read","timeout":-1}"#),
        ("hello", #"{"v":1,"type":"hello","daemon":"blectld","version":"0.1.0"}"#),
        (
            "reply-status",
            #"{"v":1,"id":1,"ok":true,"result":{"daemon":"blectld","version":"0.1.0","adapter":"hci0","#
                + #""state":"poweredOn","started":"2026-11-30T00:00:00.000Z","last_seq":12,"connected":[{"#
                + #""address":"DC:A6:32:01:02:03","name":"Thermometer","since":"2026-11-30T00:00:05.120Z","#
                + #""last_reading":{"seq":12,"time":"2026-11-30T01:02:03.456Z","address":"DC:A6:32:01:02:03","#
                + #""name":"Thermometer","celsius":44.72,"raw":"112.5 F","unit":"F","profile":"pi-cputemp"}}]}}"#
        ),
        (
            "reply-read",
            #"{"v":1,"id":4,"ok":true,"result":[{"address":"DC:A6:32:01:02:03","name":"Thermometer","#
                + #""celsius":44.72,"raw":"112.5 F","unit":"F","profile":"pi-cputemp","time":"2026-11-30T01:02:03.456Z","#
                + #""seq":13,"age_seconds":0,"fresh":true}]}"#
        ),
        (
            "reply-error",
            #"{"v":1,"id":7,"ok":false,"error":{"code":"bad_request","message":"invalid value for \"since\""}}"#
        ),
        (
            "event-reading",
            #"{"type":"reading","seq":12,"time":"2026-11-30T01:02:03.456Z","address":"DC:A6:32:01:02:03","#
                + #""name":"Thermometer","celsius":44.72,"raw":"112.5 F","unit":"F","profile":"pi-cputemp"}"#
        ),
        (
            "event-reading-error",
            #"{"type":"reading_error","seq":13,"time":"2026-11-30T01:02:08.457Z","address":"DC:A6:32:01:02:03","#
                + #""name":"Thermometer","error":"not a temperature: \"??\"","raw_hex":"3f3f"}"#
        ),
        (
            "event-peripheral-seen",
            #"{"type":"peripheral_seen","time":"2026-11-30T01:02:00.000Z","address":"DC:A6:32:01:02:03","#
                + #""name":"Thermometer","rssi":-60,"thermometer":true}"#
        ),
        (
            "event-disconnected",
            #"{"type":"disconnected","time":"2026-11-30T01:05:00.000Z","address":"DC:A6:32:01:02:03","#
                + #""name":"Thermometer","reason":"connection timeout"}"#
        ),
        (
            "event-adapter-state",
            #"{"type":"adapter_state","time":"2026-11-30T01:06:00.000Z","adapter":"hci0","state":"poweredOff"}"#
        ),
    ]

    /// A sample file with every key, one with the syntax's corners, one with CRLF line ends.
    static let configurationFiles = [
        (
            name: "every-key",
            text: """
            socket = /run/blectl/blectld.sock
            socket_group = bluetooth
            adapter = DC:A6:32:00:00:01
            power_on_adapter = yes
            log_level = debug          # emerg … debug
            names = Thermometer, "Pi #2", Kitchen
            service_uuids = 181a, 00000001-710e-4a5b-8d75-3e5b444bc3cf
            reconnect_min = 0.5
            reconnect_max = 30
            reconnect_jitter = 0.1
            state_dir = /var/lib/blectl
            history_commit_interval = 10s
            history_retention = 7d
            history_max_bytes = 1048576
            max_clients = 8
            max_line_length = 4096
            client_queue_bytes = 65536
            max_clients_per_user = 4
            max_pending_requests_per_user = 8
            max_queued_bytes_total = 1048576
            scan_timeout = 5

            """
        ),
        (
            name: "syntax",
            text: "# comment\n\n  Log-Level=\"warning\"\nnames = \" spaced \",x#y\nreconnect_max = 1\n"
        ),
        (name: "crlf", text: "adapter = hci1\r\nscan_timeout = 2500ms\r\nhistory_retention = 12h\r\n"),
    ]

    // MARK: Values

    /// Values of each GATT profile: Pi text, Health Thermometer, Environmental Sensing.
    static let gattValues: [(name: String, bytes: [UInt8])] = [
        ("pi-fahrenheit", Array("112.5 F".utf8)),
        ("pi-celsius", Array("47.3 C".utf8)),
        ("refused-pi-nan", Array("nan F".utf8)),
        ("ht-celsius", [0x00, 0x6F, 0x01, 0x00, 0xFF]),
        ("ht-fahrenheit-time-type", [0x07, 0xDA, 0x03, 0x00, 0xFF, 0xE8, 0x07, 11, 30, 12, 34, 56, 0x02]),
        ("ess-temperature", [0x29, 0x09]),
    ]

    /// One payload of each advertisement format, behind its selector byte.
    static var advertisements: [(name: String, bytes: [UInt8])] {
        let bthome = AdvertisementField.serviceData(BTHomeProfile.serviceUUID)
        let environmental = AdvertisementField.serviceData(PVVXProfile.serviceUUID)
        let ruuvi = AdvertisementField.manufacturerData(RuuviProfile.companyID)
        let miBeacon = AdvertisementField.serviceData(XiaomiMiBeaconProfile.serviceUUID)
        let qingping = AdvertisementField.serviceData(QingpingProfile.serviceUUID)
        let thermoBeacon = AdvertisementField.manufacturerData(ThermoBeaconProfile.companyIDs[0])
        let govee = AdvertisementField.manufacturerData(GoveeH5075Profile.companyID)
        let switchBotService = AdvertisementField.serviceData(SwitchBotProfile.serviceUUID)
        let switchBotMaker = AdvertisementField.manufacturerData(SwitchBotProfile.companyID)
        let bthomeV1 = AdvertisementField.serviceData(BTHomeV1Profile.plainUUID)
        let bthomeV1Encrypted = AdvertisementField.serviceData(BTHomeV1Profile.encryptedUUID)
        let govee0001 = AdvertisementField.manufacturerData(GoveeH5100Profile.companyID)
        let goveeH5179 = AdvertisementField.manufacturerData(GoveeH5179Profile.companyID)
        let blueMaestro = AdvertisementField.manufacturerData(BlueMaestroProfile.companyID)
        let goveeMeat = AdvertisementField.manufacturerData(0x1B36)
        return [
            ("bthome", bthome, false, "40 02 C4 09 03 BF 13"),
            ("bthome-counter", bthome, false, "44 00 02 01 64 05 90 33 00 21 01"),
            ("bthome-encrypted", bthome, true, "41 a4 72 66 c9 5f 73 00 11 22 33 78 23 72 14"),
            ("bthome-v1", bthomeV1, false, "0200b4 02015d 23025d09 0303b718"),
            ("bthome-v1-encrypted", bthomeV1Encrypted, true, "fba435e4d3c312fb0011223357d90a99"),
            ("pvvx", environmental, false, "dc3312342d58 2f09 aa17 3d0b 4b 7c 05"),
            // Encrypted with the keyed sender's key (the mock's): the custom and atc1441 variants.
            ("pvvx-encrypted", environmental, true, "4a 84bf32423520 00cf1cee"),
            ("atc1441", environmental, false, "582d341233dc 00e0 3e 49 0b2c 2e"),
            ("ruuvi", ruuvi, false, "05 12FC 5394 C37C 0004 FFFC 040C AC36 42 00CD CBB8334C884F"),
            ("ruuvi-air-6", ruuvi, false, "06 144E 40F8 C915 0006 0219 32 00 A3 4B BD C0 FF00FF"),
            (
                "ruuvi-air-e1", ruuvi, false,
                "E1 170C 5668 C79E 0065 0070 04BD 11CA 00C9 0A 02 13E0AC 000000 DECDEE 11 0000000000 CBB8334C884F"
            ),
            ("govee-h5075", govee, false, "00 0418ee 64 00"),
            ("govee-h5074", govee, false, "00 c408 231d 64 02"),
            ("govee-h5051", govee, false, "00 ba0a f90f 63 020101"),
            ("govee-h5108", govee0001, false, "0101 03c730 64 0000"),
            ("govee-b5178", govee0001, false, "0101 00 002af7 64 0003"),
            // A B5178's remote sensor: not read (one reading per address).
            ("refused-govee-b5178-remote", govee0001, false, "0101 01 002af7 64 0003"),
            ("govee-h5179", goveeH5179, false, "ec000101 0a0a a406 64"),
            ("mibeacon", miBeacon, false, "40 50 5b05 01 0d10 04 fe00 4802"),
            // Encrypted, from a sender without a key: refused.
            ("refused-mibeacon-no-key", miBeacon, false, "5858480b685f12342d585a0b1841e2aa000e00a4964fb5"),
            ("qingping", qingping, false, "8818072240342d5801041801cd0002016107027327"),
            ("qingping-co2", qingping, false, "0a5d931d86342d5801041701ce010201641302b302"),
            ("thermobeacon", thermoBeacon, false, "00009c0d0000fe44450cc501870217000000"),
            // SwitchBot: the length of the other field's payload, that payload, then this one's.
            ("switchbot-meter", switchBotService, false, "0b d7c17d5deb43de03069835 5400e4069835"),
            ("switchbot-outdoor", switchBotMaker, false, "03 7700e4 aabbccddeeffe00f06983500"),
            ("switchbot-hub2", switchBotMaker, false, "02 7600 aabbccddeeff00ff66541af182079a3200"),
            ("switchbot-meter-pro-co2", switchBotMaker, false, "03 350064 b0e9fe543215b7e4079ba4003702d500"),
            ("bluemaestro-thd", blueMaestro, false, "17640e10000200f201f200830100"),
            ("govee-h5184", goveeMeat, false, "2001000101e401860c1cffff860af0ffff"),
            ("bluemaestro-maxi-thpd", blueMaestro, false, "2b570000000000000000000000000032fb3421cd8b0100"),
        ].map { name, field, keyed, hex in
            let index = UInt8(FuzzTarget.advertisementFields.firstIndex(of: field)!)
            return (name, [index | (keyed ? 0x80 : 0)] + bytes(hex: hex))
        }
            + [
                // Named senders: the company id's two bytes, which are data, then the payload.
                ("inkbird-sps", "sps", "fc07 c71200c83d5606"),
                ("inkbird-tps-no-humidity", "tps", "4808 000000c66e0d06"),
                ("inkbird-ith-13-b", "ITH-13-B", "4924 1223052f0e0110026400000000000000"),
                ("inkbird-ibbq-4", "iBBQ", "0000 000030e2837db5020401fa000401fa00"),
                ("thermopro-tp357s", "TP35", "c2ee 0029220b01"),
                ("thermopro-tp962r", "TP96", "0137 003b0b3700"),
                ("thermopro-tp972s-multi-point", "TP97", "0072 006a0a33d3b8420040ae426606ae426c54737744f8"),
                ("sensorpush-ht1", "s", "3448 6205"),
                ("sensorpush-htw", "SensorPush HT.w", "049a c9a546"),
                ("sensorpush-htpxw", "SensorPush HTP.xw", "00fd 9b1e53d5ba"),
            ].map { name, sender, hex in
                let fields = FuzzTarget.advertisementFields.count
                let index = UInt8(fields + FuzzTarget.advertisementNames.firstIndex(of: sender)!)
                return (name, [index] + bytes(hex: hex))
            }
    }

    private static func bytes(hex text: String) -> [UInt8] {
        let digits = Array(text.filter(\.isHexDigit))
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }
}
