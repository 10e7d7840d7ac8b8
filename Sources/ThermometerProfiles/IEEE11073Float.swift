/// The IEEE-11073 32-bit FLOAT: a 24-bit signed mantissa and an 8-bit signed base-10 exponent.
enum IEEE11073Float {
    /// The mantissas reserved for "no number": NaN, NRes (not at this resolution), +INF,
    /// −INF, and the reserved 0x800001.
    ///
    /// They are recognised by mantissa alone, whatever the exponent: a device that sends NaN
    /// with a stray exponent must not turn into 8388607 × 10⁻⁵ = 83.9 °C.
    static let specialMantissas: [Int32: String] = [
        0x7F_FFFF: "NaN",
        -0x80_0000: "NRes",
        0x7F_FFFE: "+INF",
        -0x7F_FFFE: "-INF",
        -0x7F_FFFF: "reserved",
    ]

    /// Decodes a FLOAT (already assembled from its little-endian bytes) to a finite value,
    /// or names the special value it holds.
    static func decode(_ word: UInt32) -> Result<Double, SpecialValue> {
        // Shift the 24-bit field to the top and back down to sign-extend it.
        let mantissa = Int32(bitPattern: word << 8) >> 8
        let exponent = Int(Int8(truncatingIfNeeded: word >> 24))
        if let name = specialMantissas[mantissa] {
            return .failure(SpecialValue(name: name, word: word))
        }
        // Divide by an exact power of ten rather than multiply by an inexact 10⁻ⁿ, so that
        // 367 × 10⁻¹ is the Double nearest to 36.7.
        let scale = powerOfTen(abs(exponent))
        return .success(exponent < 0 ? Double(mantissa) / scale : Double(mantissa) * scale)
    }

    /// A special value found instead of a number.
    struct SpecialValue: Error {
        /// `NaN`, `NRes`, `+INF`, `-INF` or `reserved`.
        var name: String
        /// The whole 32-bit FLOAT.
        var word: UInt32
    }

    /// 10ⁿ for 0 ≤ n ≤ 128; exact up to 10²², and far outside any plausible reading beyond.
    private static func powerOfTen(_ exponent: Int) -> Double {
        (0..<exponent).reduce(1.0) { product, _ in product * 10 }
    }
}
