import Central
import SensorModel
import Testing

/// The `adapters` setting's value (issue 36): `auto`, `all`, or adapters by address.
@Suite struct AdapterSetTests {
    static let first = BluetoothAddress("00:1A:7D:DA:71:10")
    static let second = BluetoothAddress("00:1A:7D:DA:71:11")

    @Test(
        "auto, all and an empty text",
        arguments: [
            ("auto", AdapterSet.automatic), ("", .automatic), ("  AUTO ", .automatic), ("all", .all), ("All", .all),
        ])
    func keywords(text: String, expected: AdapterSet) throws {
        #expect(try AdapterSet(parsing: text) == expected)
    }

    @Test("addresses in either case, in their order; hciN marked to be resolved at start")
    func list() throws {
        #expect(
            try AdapterSet(parsing: "00:1a:7d:da:71:11, 00:1A:7D:DA:71:10")
                == .listed([
                    .address(Self.second), .address(Self.first),
                ]))
        #expect(
            try AdapterSet(parsing: "hci1,00:1A:7D:DA:71:10, HCI0")
                == .listed([
                    .unresolved(name: "hci1"), .address(Self.first), .unresolved(name: "hci0"),
                ]))
        #expect(try AdapterSet(parsing: "00:1A:7D:DA:71:10") == .listed([.address(Self.first)]))
    }

    @Test(
        "malformed, empty, repeated and mixed entries are refused with a clear message",
        arguments: [
            ("00:1A:7D:DA:71", AdapterSetError.malformed("00:1A:7D:DA:71")),
            ("hci", .malformed("hci")), ("hci-1", .malformed("hci-1")), ("hci+1", .malformed("hci+1")),
            ("wlan0", .malformed("wlan0")), ("00-1A-7D-DA-71-10", .malformed("00-1A-7D-DA-71-10")),
            ("hci0,,hci1", .emptyEntry), ("hci0,", .emptyEntry), (",", .emptyEntry),
            ("hci0, hci0", .repeated("hci0")), ("00:1a:7d:da:71:10, 00:1A:7D:DA:71:10", .repeated("00:1A:7D:DA:71:10")),
            ("hci1, hci01", .repeated("hci01")), ("hci0, auto", .keywordInList("auto")),
            ("all,hci0", .keywordInList("all")),
        ])
    func refused(text: String, expected: AdapterSetError) {
        #expect(throws: expected) { try AdapterSet(parsing: text) }
    }

    @Test("messages name the entry and what would be right")
    func messages() {
        #expect(
            AdapterSetError.malformed("wlan0").description
                == "'wlan0' is not an adapter: give its address (00:1A:7D:DA:71:10) or its name (hci0)")
        #expect(AdapterSetError.repeated("hci0").description == "'hci0' is listed twice")
        #expect(AdapterSetError.emptyEntry.description.contains("empty entry"))
        #expect(AdapterSet.Member.unresolved(name: "hci1").description == "hci1")
        #expect(AdapterSet.Member.address(Self.first).description == "00:1A:7D:DA:71:10")
    }
}
