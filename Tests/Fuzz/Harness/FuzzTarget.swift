/// One fuzz target: a name (its seeds are in `Tests/Fuzz/corpus/<name>/`) and the code one
/// input goes through.
///
/// A target traps (``require(_:_:)``) when the code breaks a promise it makes, such as
/// "an accepted request encodes back to itself"; libFuzzer records a trap as a crash, as it
/// does AddressSanitizer's reports, leaks and timeouts.
struct FuzzTarget: Sendable {
    /// The name `make fuzz` and `blectl-fuzz` know it by.
    let name: String
    /// What it feeds, for `blectl-fuzz --list`.
    let summary: String
    /// Runs one input; true when the input was taken as what it should be (a request, a
    /// reading, a message…) rather than refused at once, for telling seeds that reach the
    /// code from seeds that do not.
    let run: @Sendable ([UInt8]) -> Bool

    /// Every target, in the order `make fuzz` runs them.
    static let all: [FuzzTarget] = [
        .protocolLines, .gattValues, .advertisements, .configurationFile, .dbusMessages, .bluezObjects,
    ]

    /// The targets' names, for messages.
    static var names: String { all.map(\.name).joined(separator: ", ") }

    /// The target called `name`.
    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Traps with `message` unless `condition` holds: a broken promise, which the fuzzer keeps
/// as a crash input.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz check failed: \(message())") }
}
