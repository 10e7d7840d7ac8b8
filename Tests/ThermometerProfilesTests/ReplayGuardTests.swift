import Testing
import ThermometerProfiles

@Suite("ReplayGuard")
struct ReplayGuardTests {
    /// Admits `counters` in order into a fresh guard and returns the verdicts.
    func verdicts(_ counters: [UInt32]) -> [ReplayGuard.Verdict] {
        var replayGuard = ReplayGuard()
        return counters.map { replayGuard.admit($0) }
    }

    @Test("the first counter is accepted, whatever it is", arguments: [0, 1, 99, 100, 1000, UInt32.max])
    func first(_ counter: UInt32) {
        #expect(verdicts([counter]) == [.accepted])
    }

    @Test("rising counters are accepted, gaps included")
    func rising() {
        #expect(verdicts([1000, 1001, 1005, 70_000]) == [.accepted, .accepted, .accepted, .accepted])
    }

    @Test("the last counter again is a repeat and changes nothing")
    func repeated() {
        var replayGuard = ReplayGuard()
        _ = replayGuard.admit(1000)
        #expect(replayGuard.admit(1000) == .repeated)
        #expect(replayGuard.admit(999) == .replayed(last: 1000))
        #expect(replayGuard.lastAccepted == 1000)
    }

    @Test("a counter below the last is a replay and is not remembered")
    func backwards() {
        #expect(
            verdicts([1000, 1001, 999, 1000]) == [.accepted, .accepted, .replayed(last: 1001), .replayed(last: 1001)])
        #expect(verdicts([1000, 100]) == [.accepted, .replayed(last: 1000)])
    }

    @Test("below 100 after 100 or more is a restart (battery change); below 100 after below 100 is not")
    func restart() {
        #expect(verdicts([1000, 0, 1, 2]) == [.accepted, .reset(previous: 1000), .accepted, .accepted])
        #expect(verdicts([100, 99]) == [.accepted, .reset(previous: 100)])
        #expect(verdicts([UInt32.max, 0]) == [.accepted, .reset(previous: UInt32.max)])
        #expect(verdicts([50, 3]) == [.accepted, .replayed(last: 50)])
        #expect(verdicts([1000, 5, 3]) == [.accepted, .reset(previous: 1000), .replayed(last: 5)])
    }

    @Test("the documented limit")
    func limit() {
        #expect(ReplayGuard.resetLimit == 100)
        #expect(ReplayGuard().lastAccepted == nil)
    }
}

@Suite("AdvertisementKey")
struct AdvertisementKeyTests {
    @Test(
        "32 hex digits in either case parse",
        arguments: [
            "231d39c1d7cc1ab1aee224cd096db932", "231D39C1D7CC1AB1AEE224CD096DB932", "231d39C1d7cc1aB1aee224cd096db932",
        ])
    func parses(_ text: String) throws {
        #expect(
            try AdvertisementKey.bthome(hex: text) == AdvertisementKey.bthome(hex: "231d39c1d7cc1ab1aee224cd096db932"))
    }

    @Test("different keys differ")
    func distinct() throws {
        #expect(
            try AdvertisementKey.bthome(hex: String(repeating: "0", count: 32))
                != AdvertisementKey.bthome(hex: String(repeating: "1", count: 32)))
    }

    @Test(
        "bad text is refused with a clear reason that does not repeat the key",
        arguments: [
            ("", "a BTHome key is 32 hex digits (16 bytes), got 0 characters"),
            ("231d39c1d7cc1ab1aee224cd096db93", "a BTHome key is 32 hex digits (16 bytes), got 31 characters"),
            ("231d39c1d7cc1ab1aee224cd096db9321", "a BTHome key is 32 hex digits (16 bytes), got 33 characters"),
            ("0x231d39c1d7cc1ab1aee224cd096db932", "a BTHome key is 32 hex digits (16 bytes), got 34 characters"),
            ("231d39g1d7cc1ab1aee224cd096db932", #"character 7 of the BTHome key is not a hex digit: "g""#),
            ("231d39c1d7cc1ab1aee224cd096db93 ", #"character 32 of the BTHome key is not a hex digit: " ""#),
            ("231d39c1d7cc1ab1aee224cd096db9\u{1B}2", "character 31 of the BTHome key is not a hex digit: <1b>"),
            ("231d39c1d7cc1ab1aee224cd096db9é2", #"character 31 of the BTHome key is not a hex digit: "é""#),
        ] as [(String, String)])
    func rejects(_ text: String, _ reason: String) {
        let error = #expect(throws: AdvertisementKey.ParseError.self) { try AdvertisementKey.bthome(hex: text) }
        #expect(error?.description == reason)
    }

    @Test("the description never shows the key")
    func redacted() throws {
        let key = try AdvertisementKey.bthome(hex: "231d39c1d7cc1ab1aee224cd096db932")
        #expect(key.description == "AdvertisementKey(<redacted>)")
        #expect(!"\(key)".contains("231d"))
        #expect(String(reflecting: key) == "AdvertisementKey(<redacted>)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("35"), "the first key byte, 0x23, in decimal: \(dumped)")
    }
}
