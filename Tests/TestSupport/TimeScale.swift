import Foundation

/// How many times longer tests wait than they would on a quiet machine: the value of
/// `BLECTL_TEST_TIME_SCALE` (1 when unset).
///
/// One factor for every deadline a test waits against (``eventually(within:_:)``,
/// ``withTimeout(_:_:)``, the fixtures' waits, bounds on how long something took).
/// `make test-tsan` and `make test-asan` set it to 4: the sanitizers slow code down 2-15
/// times, and a deadline tuned for a normal run turns a slow test into a failure. Set it for a
/// loaded machine too. It never shortens a wait, and normal runs do not wait longer.
public let testTimeScale: Double = {
    guard let text = ProcessInfo.processInfo.environment["BLECTL_TEST_TIME_SCALE"], let scale = Double(text),
        scale.isFinite, scale >= 1
    else { return 1 }
    return scale
}()

extension Duration {
    /// This duration times ``testTimeScale``: a deadline for a test to wait against.
    public var scaled: Duration { testTimeScale == 1 ? self : self * testTimeScale }
}
