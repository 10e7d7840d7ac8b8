@testable import ThermometerProfiles
import SensorModel
import Testing

/// The byte-level decoder of the common text values against the general one it stands in for.
@Suite struct TemperatureTextFastPathTests {
    private static let profile: ProfileID = "pi-cputemp"

    @Test("Where the byte-level path decodes a value, the general path decodes it the same")
    func agreesWithGeneralPath() {
        let pieces = [
            "0", "1", "2", "5", "9", "44", "112", ".", "+", "-", " ", "  ", "\t", "\r", "\n", "\0", "C", "c", "F",
            "f", "K", "x", "e", "°", "é", "\u{7F}", "\u{1}", "0000000000", "99999999",
        ]
        // Half built like a value (each part sometimes odd), half thrown together from pieces.
        let shaped: [[String]] = [
            ["", " ", "\t", "\r\n", "\0"], ["", "", "+", "-", "--"], ["0", "7", "44", "112", "", "0000000000000000"],
            ["", ".", ".5", ".25", ".0000000001"], ["", " ", "  ", "\t", "x"], ["C", "c", "F", "f", "°C", "K", ""],
            ["", "\0\0", " \r\n", "\u{1}", " F"],
        ]
        var decoded = 0
        for round in 0..<6_000 {
            let text =
                round % 2 == 0
                ? shaped.map { $0.randomElement()! }.joined()
                : (0..<Int.random(in: 1...8)).map { _ in pieces.randomElement()! }.joined()
            let raw = Array(text.utf8)
            guard let fast = TemperatureText.decodeASCII(raw, profile: Self.profile) else { continue }
            decoded += 1
            let general = TemperatureText.decodeScalars(raw, profile: Self.profile)
            #expect(fast == general, "\(round): \(text.debugDescription)")
        }
        #expect(decoded > 200, "too few generated values were well-formed: \(decoded)")
    }

    @Test(
        "The byte-level path takes the peripheral's values and leaves the rest to the general path",
        arguments: [
            ("21.4 C", true), ("44.7C", true), (" -3.0 f\0\0", true), ("+112.50 F\r\n", true), ("0 c", true),
            ("123456789012345 C", true), ("1234567890123456 C", false), ("44.7 °C", false), ("44.7", false),
            (".5 C", false), ("5. C", false), ("44.7 C F", false), ("4\t4 C", false), ("nan C", false),
            ("", false), ("44.7 K", false),
        ])
    func takes(text: String, taken: Bool) {
        #expect((TemperatureText.decodeASCII(Array(text.utf8), profile: Self.profile) != nil) == taken)
    }
}
