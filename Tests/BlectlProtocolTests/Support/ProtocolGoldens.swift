/// Golden output: the protocol's bytes, as clients see them. A change here is a change of
/// the protocol: say it in docs/protocol.md.
enum ProtocolGoldens {
    static let compact: KeyValuePairs<String, String> = [
        "unit": "\"C\"",
        "adapterStates": "[\"unknown\",\"resetting\",\"unsupported\",\"unauthorized\",\"poweredOff\",\"poweredOn\"]",
        "eventTypes":
            "[\"reading\",\"reading_error\",\"peripheral_seen\",\"peripheral_lost\",\"connected\",\"disconnected\",\"adapter_state\"]",
        "errorCode": "\"line_too_long\"",
        "errorInfo":
            "{\"code\":\"bad_request\",\"message\":\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\/ ~\u{7F}\u{E9}\u{20AC}\u{1F600}\u{2028}\u{FEFF}\"}",
        "timestamp": "\"2026-11-30T01:02:03.456Z\"",
        "hello": "{\"daemon\":\"blectld\",\"type\":\"hello\",\"v\":1,\"version\":\"0.1.0\"}",
        "empty": "{}",
        "reading":
            "{\"address\":\"DC:A6:32:01:02:03\",\"celsius\":44.7,\"name\":\"Thermometer\",\"profile\":\"pi-cputemp\",\"raw\":\"112.5 F\",\"seq\":12,\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"reading\",\"unit\":\"F\"}",
        "readingNoName":
            "{\"address\":\"00:00:00:00:00:0A\",\"celsius\":-0,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":18446744073709551615,\"time\":\"1970-01-01T00:00:00.000Z\",\"type\":\"reading\",\"unit\":\"C\"}",
        "readingAwkward":
            "{\"address\":\"00:00:00:00:00:00\",\"celsius\":1e+21,\"name\":\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\/ ~\u{7F}\u{E9}\u{20AC}\u{1F600}\u{2028}\u{FEFF}\",\"profile\":\"pi-cputemp\",\"raw\":\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\/ ~\u{7F}\u{E9}\u{20AC}\u{1F600}\u{2028}\u{FEFF}\",\"seq\":0,\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"reading\",\"unit\":\"C\"}",
        "readingError":
            "{\"address\":\"DC:A6:32:01:02:03\",\"error\":\"not a number\",\"name\":null,\"raw_hex\":\"ff00\",\"seq\":13,\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"reading_error\"}",
        "peripheralSeen":
            "{\"address\":\"AA:BB:CC:DD:EE:FF\",\"name\":\"a/b\",\"rssi\":-60,\"thermometer\":true,\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"peripheral_seen\"}",
        "peripheralSeenNulls":
            "{\"address\":\"00:00:00:00:00:0A\",\"name\":null,\"rssi\":null,\"thermometer\":false,\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"peripheral_seen\"}",
        "peripheralLost":
            "{\"address\":\"00:00:00:00:00:0A\",\"name\":\"T\",\"reason\":null,\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"peripheral_lost\"}",
        "connected":
            "{\"address\":\"00:00:00:00:00:0A\",\"name\":null,\"reason\":null,\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"connected\"}",
        "disconnected":
            "{\"address\":\"AA:BB:CC:DD:EE:FF\",\"name\":null,\"reason\":\"timeout\",\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"disconnected\"}",
        "adapterState":
            "{\"adapter\":\"hci0\",\"reason\":null,\"state\":\"poweredOff\",\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"adapter_state\"}",
        "status":
            "{\"adapter\":\"hci0\",\"adapters\":null,\"advertisements\":null,\"calibration\":null,\"connected\":[{\"address\":\"DC:A6:32:01:02:03\",\"last_reading\":{\"address\":\"DC:A6:32:01:02:03\",\"celsius\":44.7,\"name\":\"Thermometer\",\"profile\":\"pi-cputemp\",\"raw\":\"112.5 F\",\"seq\":12,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"F\"},\"name\":\"Pi\",\"since\":\"1970-01-01T00:00:00.000Z\"},{\"address\":\"AA:BB:CC:DD:EE:FF\",\"last_reading\":null,\"name\":null,\"since\":\"2026-11-30T01:02:03.456Z\"}],\"daemon\":\"blectld\",\"history\":null,\"last_seq\":13,\"missing_adapters\":null,\"mqtt\":null,\"reason\":null,\"scan_watchdog\":null,\"sensor_memory\":null,\"socket\":null,\"started\":\"1970-01-01T00:00:00.000Z\",\"state\":\"poweredOn\",\"version\":\"0.1.0\"}",
        "statusEmpty":
            "{\"adapter\":null,\"adapters\":null,\"advertisements\":null,\"calibration\":null,\"connected\":[],\"daemon\":\"blectld\",\"history\":null,\"last_seq\":0,\"missing_adapters\":null,\"mqtt\":null,\"reason\":null,\"scan_watchdog\":null,\"sensor_memory\":null,\"socket\":null,\"started\":\"2026-11-30T01:02:03.456Z\",\"state\":\"unknown\",\"version\":\"0.1.0\"}",
        // Every section blectld sets, as the typed fields of StatusResult wrote them (before sections, 1a2e8e3).
        "statusSections":
            "{\"adapter\":\"hci0\",\"adapters\":[{\"adapter_address\":\"00:1A:7D:DA:71:10\",\"alias\":\"BlueZ 5.66\",\"connected\":2,\"devices_heard\":12,\"devices_owned\":7,\"discovering\":true,\"interface\":\"hci0\",\"link_limit\":5,\"links\":2,\"powered\":true,\"primary\":true,\"recovery_steps\":0},{\"adapter_address\":null,\"alias\":null,\"connected\":0,\"devices_heard\":0,\"devices_owned\":0,\"discovering\":false,\"interface\":\"hci1\",\"link_limit\":null,\"links\":null,\"powered\":false,\"primary\":false,\"recovery_steps\":null}],\"advertisements\":{\"advertisements\":5120,\"duplicates\":2559,\"errors\":0,\"forgotten\":0,\"lost_packets\":3,\"readings\":2561,\"scan_mode\":\"active\",\"sensors\":[{\"adapters\":[{\"adapter\":\"hci0\",\"last_heard\":\"2026-11-30T01:02:03.456Z\",\"rssi\":-61}],\"address\":\"A4:C1:38:AD:00:01\",\"counted_by\":\"counter\",\"interval\":0.5,\"last_heard\":\"2026-11-30T01:02:03.456Z\",\"lost\":false,\"lost_packets\":3,\"missed\":3,\"missed_last_hour\":3,\"profile\":\"bthome\",\"ratio_last_hour\":0.993,\"readings\":427,\"received\":427,\"received_last_hour\":427,\"stale_after\":60},{\"adapters\":null,\"address\":\"A4:C1:38:AD:00:02\",\"counted_by\":null,\"interval\":null,\"last_heard\":null,\"lost\":true,\"lost_packets\":0,\"missed\":null,\"missed_last_hour\":null,\"profile\":null,\"ratio_last_hour\":null,\"readings\":0,\"received\":null,\"received_last_hour\":null,\"stale_after\":60}]},\"calibration\":[{\"address\":\"A4:C1:38:00:00:01\",\"offset\":0.3,\"quantity\":\"temperature\"}],\"connected\":[],\"daemon\":\"blectld\",\"history\":{\"bytes\":475136,\"committed_seq\":11,\"dropped\":0,\"oldest\":\"2026-11-30T01:02:03.456Z\",\"path\":\"/var/lib/blectl/history.sqlite3\",\"pending\":1,\"reason\":\"disk full\",\"rows\":11,\"state\":\"degraded\"},\"last_seq\":13,\"missing_adapters\":[\"00:1A:7D:DA:71:99\"],\"mqtt\":{\"acked_seq\":1840,\"backlog\":2,\"broker\":\"mqtt://broker.lan:1883\",\"client_id\":\"blectl-kitchen\",\"connect_attempts\":1,\"dropped\":0,\"gateway\":\"kitchen\",\"last_error\":null,\"last_error_time\":null,\"published\":1840,\"reason\":null,\"since\":\"2026-11-30T01:02:03.456Z\",\"state\":\"connected\"},\"reason\":null,\"scan_watchdog\":{\"adapter_reset\":false,\"controller_reset_failures\":0,\"controller_resets\":0,\"discovery_restarts\":2,\"last_recovered_by\":\"power_cycle\",\"last_step\":\"power_cycle\",\"period_seconds\":90,\"power_cycles\":1,\"recoveries\":2,\"silent\":false},\"sensor_memory\":[{\"address\":\"A4:C1:38:00:00:05\",\"clock_drift_seconds\":-3,\"clock_result\":null,\"clock_set\":null,\"connected_seconds\":4.5,\"downloads\":2,\"duplicates\":0,\"last_download\":\"2026-11-30T01:02:03.456Z\",\"last_result\":\"finished\",\"rejected\":0,\"stored\":40}],\"socket\":{\"clients\":2},\"started\":\"2026-11-30T01:02:03.456Z\",\"state\":\"poweredOn\",\"version\":\"0.1.0\"}",
        "connectedPeripheral":
            "{\"address\":\"DC:A6:32:01:02:03\",\"last_reading\":{\"address\":\"DC:A6:32:01:02:03\",\"celsius\":44.7,\"name\":\"Thermometer\",\"profile\":\"pi-cputemp\",\"raw\":\"112.5 F\",\"seq\":12,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"F\"},\"name\":\"Pi\",\"since\":\"1970-01-01T00:00:00.000Z\"}",
        "peripheralInfo":
            "{\"address\":\"DC:A6:32:01:02:03\",\"connected\":false,\"family\":null,\"last_seen\":\"2026-11-30T01:02:03.456Z\",\"manufacturer\":null,\"model\":null,\"name\":\"Pi\",\"profile\":null,\"rssi\":-72,\"thermometer\":true}",
        "peripheralInfoNulls":
            "{\"address\":\"00:00:00:00:00:0A\",\"connected\":true,\"family\":null,\"last_seen\":\"1970-01-01T00:00:00.000Z\",\"manufacturer\":null,\"model\":null,\"name\":null,\"profile\":null,\"rssi\":null,\"thermometer\":false}",
        "readingReport":
            "{\"address\":\"DC:A6:32:01:02:03\",\"age_seconds\":0.125,\"celsius\":44.7,\"fresh\":true,\"name\":\"Thermometer\",\"profile\":\"pi-cputemp\",\"raw\":\"112.5 F\",\"seq\":12,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"F\"}",
        "history":
            "{\"complete\":false,\"events\":[{\"address\":\"DC:A6:32:01:02:03\",\"celsius\":44.7,\"name\":\"Thermometer\",\"profile\":\"pi-cputemp\",\"raw\":\"112.5 F\",\"seq\":12,\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"reading\",\"unit\":\"F\"},{\"address\":\"DC:A6:32:01:02:03\",\"error\":\"not a number\",\"name\":null,\"raw_hex\":\"ff00\",\"seq\":13,\"time\":\"2026-11-30T01:02:03.456Z\",\"type\":\"reading_error\"}],\"last_seq\":13,\"more\":true}",
        "historyEmpty": "{\"complete\":true,\"events\":[],\"last_seq\":0,\"more\":false}",
        "subscribe": "{\"events\":[\"reading\",\"connected\"],\"last_seq\":7}",
        "replyStatus":
            "{\"id\":1,\"ok\":true,\"result\":{\"adapter\":\"hci0\",\"adapters\":null,\"advertisements\":null,\"calibration\":null,\"connected\":[{\"address\":\"DC:A6:32:01:02:03\",\"last_reading\":{\"address\":\"DC:A6:32:01:02:03\",\"celsius\":44.7,\"name\":\"Thermometer\",\"profile\":\"pi-cputemp\",\"raw\":\"112.5 F\",\"seq\":12,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"F\"},\"name\":\"Pi\",\"since\":\"1970-01-01T00:00:00.000Z\"},{\"address\":\"AA:BB:CC:DD:EE:FF\",\"last_reading\":null,\"name\":null,\"since\":\"2026-11-30T01:02:03.456Z\"}],\"daemon\":\"blectld\",\"history\":null,\"last_seq\":13,\"missing_adapters\":null,\"mqtt\":null,\"reason\":null,\"scan_watchdog\":null,\"sensor_memory\":null,\"socket\":null,\"started\":\"1970-01-01T00:00:00.000Z\",\"state\":\"poweredOn\",\"version\":\"0.1.0\"},\"v\":1}",
        "replyPeripherals":
            "{\"id\":9223372036854775807,\"ok\":true,\"result\":[{\"address\":\"DC:A6:32:01:02:03\",\"connected\":false,\"family\":null,\"last_seen\":\"2026-11-30T01:02:03.456Z\",\"manufacturer\":null,\"model\":null,\"name\":\"Pi\",\"profile\":null,\"rssi\":-72,\"thermometer\":true}],\"v\":1}",
        "replyRead":
            "{\"id\":-9223372036854775808,\"ok\":true,\"result\":[{\"address\":\"DC:A6:32:01:02:03\",\"age_seconds\":0.125,\"celsius\":44.7,\"fresh\":true,\"name\":\"Thermometer\",\"profile\":\"pi-cputemp\",\"raw\":\"112.5 F\",\"seq\":12,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"F\"}],\"v\":1}",
        "replyEmpty": "{\"id\":null,\"ok\":true,\"result\":{},\"v\":1}",
        "replyStrings": "{\"id\":7,\"ok\":true,\"result\":[],\"v\":1}",
        "replyFailure":
            "{\"error\":{\"code\":\"not_found\",\"message\":\"no thermometer matches \\\"x\\\"\"},\"id\":3,\"ok\":false,\"v\":1}",
        "request0": "{\"cmd\":\"status\",\"id\":0,\"v\":1}",
        "request1": "{\"cmd\":\"peripherals\",\"id\":null,\"v\":1}",
        "request2": "{\"address\":\"DC:A6:32:01:02:03\",\"cmd\":\"read\",\"id\":2,\"timeout\":2.5,\"v\":1}",
        "request3": "{\"cmd\":\"read\",\"id\":3,\"v\":1}",
        "request4": "{\"cmd\":\"history\",\"id\":4,\"limit\":50,\"since\":12,\"v\":1}",
        "request5": "{\"address\":\"Pi\",\"cmd\":\"history\",\"id\":5,\"since\":18446744073709551615,\"v\":1}",
        "request6": "{\"cmd\":\"subscribe\",\"events\":[\"connected\",\"reading\"],\"id\":6,\"v\":1}",
        "request7": "{\"cmd\":\"subscribe\",\"id\":7,\"v\":1}",
        "request8": "{\"cmd\":\"subscribe\",\"events\":[],\"id\":8,\"v\":1}",
        "request9": "{\"cmd\":\"scan\",\"id\":9,\"timeout\":4,\"v\":1}",
        "request10": "{\"cmd\":\"scan\",\"id\":10,\"timeout\":0.001,\"v\":1}",
        "number0":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-0,\"celsius\":0,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number1":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":0,\"celsius\":-0,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number2":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-40,\"celsius\":40,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number3":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-40.1,\"celsius\":40.1,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number4":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":273.15,\"celsius\":-273.15,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number5":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-0.30000000000000004,\"celsius\":0.30000000000000004,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number6":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-1000000000000000,\"celsius\":1000000000000000,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number7":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-1e+16,\"celsius\":1e+16,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number8":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-1e+21,\"celsius\":1e+21,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number9":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-1e-07,\"celsius\":1e-07,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number10":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-12345678.9,\"celsius\":12345678.9,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number11":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-5e-324,\"celsius\":5e-324,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number12":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-1.7976931348623157e+308,\"celsius\":1.7976931348623157e+308,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number13":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-2.5e-05,\"celsius\":2.5e-05,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
        "number14":
            "{\"address\":\"00:00:00:00:00:0A\",\"age_seconds\":-1.2345678901234568e+17,\"celsius\":1.2345678901234568e+17,\"fresh\":false,\"name\":null,\"profile\":\"pi-cputemp\",\"raw\":\"\",\"seq\":1,\"time\":\"2026-11-30T01:02:03.456Z\",\"unit\":\"C\"}",
    ]

    static let pretty: KeyValuePairs<String, String> = [
        "adapterStates":
            "[\u{A}  \"unknown\",\u{A}  \"resetting\",\u{A}  \"unsupported\",\u{A}  \"unauthorized\",\u{A}  \"poweredOff\",\u{A}  \"poweredOn\"\u{A}]",
        "errorInfo":
            "{\u{A}  \"code\" : \"bad_request\",\u{A}  \"message\" : \"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\/ ~\u{7F}\u{E9}\u{20AC}\u{1F600}\u{2028}\u{FEFF}\"\u{A}}",
        "hello":
            "{\u{A}  \"daemon\" : \"blectld\",\u{A}  \"type\" : \"hello\",\u{A}  \"v\" : 1,\u{A}  \"version\" : \"0.1.0\"\u{A}}",
        "empty": "{\u{A}\u{A}}",
        "status":
            "{\u{A}  \"adapter\" : \"hci0\",\u{A}  \"adapters\" : null,\u{A}  \"advertisements\" : null,\u{A}  \"calibration\" : null,\u{A}  \"connected\" : [\u{A}    {\u{A}      \"address\" : \"DC:A6:32:01:02:03\",\u{A}      \"last_reading\" : {\u{A}        \"address\" : \"DC:A6:32:01:02:03\",\u{A}        \"celsius\" : 44.7,\u{A}        \"name\" : \"Thermometer\",\u{A}        \"profile\" : \"pi-cputemp\",\u{A}        \"raw\" : \"112.5 F\",\u{A}        \"seq\" : 12,\u{A}        \"time\" : \"2026-11-30T01:02:03.456Z\",\u{A}        \"unit\" : \"F\"\u{A}      },\u{A}      \"name\" : \"Pi\",\u{A}      \"since\" : \"1970-01-01T00:00:00.000Z\"\u{A}    },\u{A}    {\u{A}      \"address\" : \"AA:BB:CC:DD:EE:FF\",\u{A}      \"last_reading\" : null,\u{A}      \"name\" : null,\u{A}      \"since\" : \"2026-11-30T01:02:03.456Z\"\u{A}    }\u{A}  ],\u{A}  \"daemon\" : \"blectld\",\u{A}  \"history\" : null,\u{A}  \"last_seq\" : 13,\u{A}  \"missing_adapters\" : null,\u{A}  \"mqtt\" : null,\u{A}  \"reason\" : null,\u{A}  \"scan_watchdog\" : null,\u{A}  \"sensor_memory\" : null,\u{A}  \"socket\" : null,\u{A}  \"started\" : \"1970-01-01T00:00:00.000Z\",\u{A}  \"state\" : \"poweredOn\",\u{A}  \"version\" : \"0.1.0\"\u{A}}",
        "statusEmpty":
            "{\u{A}  \"adapter\" : null,\u{A}  \"adapters\" : null,\u{A}  \"advertisements\" : null,\u{A}  \"calibration\" : null,\u{A}  \"connected\" : [\u{A}\u{A}  ],\u{A}  \"daemon\" : \"blectld\",\u{A}  \"history\" : null,\u{A}  \"last_seq\" : 0,\u{A}  \"missing_adapters\" : null,\u{A}  \"mqtt\" : null,\u{A}  \"reason\" : null,\u{A}  \"scan_watchdog\" : null,\u{A}  \"sensor_memory\" : null,\u{A}  \"socket\" : null,\u{A}  \"started\" : \"2026-11-30T01:02:03.456Z\",\u{A}  \"state\" : \"unknown\",\u{A}  \"version\" : \"0.1.0\"\u{A}}",
        "history":
            "{\u{A}  \"complete\" : false,\u{A}  \"events\" : [\u{A}    {\u{A}      \"address\" : \"DC:A6:32:01:02:03\",\u{A}      \"celsius\" : 44.7,\u{A}      \"name\" : \"Thermometer\",\u{A}      \"profile\" : \"pi-cputemp\",\u{A}      \"raw\" : \"112.5 F\",\u{A}      \"seq\" : 12,\u{A}      \"time\" : \"2026-11-30T01:02:03.456Z\",\u{A}      \"type\" : \"reading\",\u{A}      \"unit\" : \"F\"\u{A}    },\u{A}    {\u{A}      \"address\" : \"DC:A6:32:01:02:03\",\u{A}      \"error\" : \"not a number\",\u{A}      \"name\" : null,\u{A}      \"raw_hex\" : \"ff00\",\u{A}      \"seq\" : 13,\u{A}      \"time\" : \"2026-11-30T01:02:03.456Z\",\u{A}      \"type\" : \"reading_error\"\u{A}    }\u{A}  ],\u{A}  \"last_seq\" : 13,\u{A}  \"more\" : true\u{A}}",
        "historyEmpty":
            "{\u{A}  \"complete\" : true,\u{A}  \"events\" : [\u{A}\u{A}  ],\u{A}  \"last_seq\" : 0,\u{A}  \"more\" : false\u{A}}",
        "subscribe":
            "{\u{A}  \"events\" : [\u{A}    \"reading\",\u{A}    \"connected\"\u{A}  ],\u{A}  \"last_seq\" : 7\u{A}}",
        "replyStatus":
            "{\u{A}  \"id\" : 1,\u{A}  \"ok\" : true,\u{A}  \"result\" : {\u{A}    \"adapter\" : \"hci0\",\u{A}    \"adapters\" : null,\u{A}    \"advertisements\" : null,\u{A}    \"calibration\" : null,\u{A}    \"connected\" : [\u{A}      {\u{A}        \"address\" : \"DC:A6:32:01:02:03\",\u{A}        \"last_reading\" : {\u{A}          \"address\" : \"DC:A6:32:01:02:03\",\u{A}          \"celsius\" : 44.7,\u{A}          \"name\" : \"Thermometer\",\u{A}          \"profile\" : \"pi-cputemp\",\u{A}          \"raw\" : \"112.5 F\",\u{A}          \"seq\" : 12,\u{A}          \"time\" : \"2026-11-30T01:02:03.456Z\",\u{A}          \"unit\" : \"F\"\u{A}        },\u{A}        \"name\" : \"Pi\",\u{A}        \"since\" : \"1970-01-01T00:00:00.000Z\"\u{A}      },\u{A}      {\u{A}        \"address\" : \"AA:BB:CC:DD:EE:FF\",\u{A}        \"last_reading\" : null,\u{A}        \"name\" : null,\u{A}        \"since\" : \"2026-11-30T01:02:03.456Z\"\u{A}      }\u{A}    ],\u{A}    \"daemon\" : \"blectld\",\u{A}    \"history\" : null,\u{A}    \"last_seq\" : 13,\u{A}    \"missing_adapters\" : null,\u{A}    \"mqtt\" : null,\u{A}    \"reason\" : null,\u{A}    \"scan_watchdog\" : null,\u{A}    \"sensor_memory\" : null,\u{A}    \"socket\" : null,\u{A}    \"started\" : \"1970-01-01T00:00:00.000Z\",\u{A}    \"state\" : \"poweredOn\",\u{A}    \"version\" : \"0.1.0\"\u{A}  },\u{A}  \"v\" : 1\u{A}}",
        "replyStrings":
            "{\u{A}  \"id\" : 7,\u{A}  \"ok\" : true,\u{A}  \"result\" : [\u{A}\u{A}  ],\u{A}  \"v\" : 1\u{A}}",
        "request8":
            "{\u{A}  \"cmd\" : \"subscribe\",\u{A}  \"events\" : [\u{A}\u{A}  ],\u{A}  \"id\" : 8,\u{A}  \"v\" : 1\u{A}}",
    ]
}
