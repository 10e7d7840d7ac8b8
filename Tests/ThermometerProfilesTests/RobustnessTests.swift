import Testing
import SensorModel
import ThermometerProfiles

/// SplitMix64: a fixed-seed generator, so a failure is reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Robustness")
struct RobustnessTests {
    static let profiles: [any ThermometerProfile] = ProfileRegistry.standard.profiles

    @Test("random values never trap, and every accepted reading is plausible and rounded")
    func randomValues() throws {
        var generator = SplitMix64(state: 0x5EED)
        // Bias towards the alphabet of the text format so the text parser is exercised deeply.
        let alphabet = Array("0123456789.-+ CFcf°\0\t\nnaie".utf8)
        var accepted = 0
        var rejected = 0
        for round in 0..<20_000 {
            let length = Int.random(in: 0...70, using: &generator)
            let raw: [UInt8] = (0..<length).map { _ in
                round.isMultiple(of: 2)
                    ? UInt8.random(in: 0...255, using: &generator)
                    : alphabet.randomElement(using: &generator)!
            }
            for profile in Self.profiles {
                switch profile.decode(raw) {
                case .success(let reading):
                    accepted += 1
                    let celsius = try #require(reading.celsius)
                    #expect(ReadingLimits.plausibleCelsius.contains(celsius))
                    #expect(celsius == (celsius * 100).rounded() / 100)
                    #expect(reading.profile == profile.id)
                case .failure(let error):
                    rejected += 1
                    #expect(error.raw == raw)
                    #expect(!error.description.isEmpty)
                }
            }
        }
        // Both outcomes must occur, or this test checks nothing.
        #expect(accepted > 1_000)
        #expect(rejected > 1_000)
    }

    @Test("every profile refuses a 600-byte value as oversized")
    func oversizedEverywhere() {
        let raw = [UInt8](repeating: 0x37, count: 600)
        for profile in Self.profiles {
            #expect(profile.decode(raw).failure?.kind == .oversized)
        }
    }

    @Test("the documented limits")
    func limits() {
        #expect(ReadingLimits.plausibleCelsius == -60...200)
        #expect(ReadingLimits.maximumValueLength == 64)
        #expect(ReadingLimits.celsiusResolution == 0.01)
    }

    @Test(
        "unit conversion",
        arguments: [(212, 100), (32, 0), (-40, -40), (392, 200), (-76, -60)] as [(Double, Double)])
    func conversion(_ fahrenheit: Double, _ celsius: Double) {
        #expect(TemperatureUnit.fahrenheit.celsius(from: fahrenheit) == celsius)
        #expect(TemperatureUnit.celsius.celsius(from: celsius) == celsius)
        #expect(TemperatureUnit(rawValue: "F") == .fahrenheit)
        #expect(TemperatureUnit(rawValue: "C") == .celsius)
    }
}
