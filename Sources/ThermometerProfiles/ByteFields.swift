/// Integer fields read out of an advertisement payload.
///
/// Callers check the payload's length first; these only assemble bytes.
extension [UInt8] {
    /// The unsigned integer in `count` bytes at `offset`, least significant byte first.
    func unsignedLittleEndian(at offset: Int, count: Int) -> Int {
        self[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// The unsigned integer in `count` bytes at `offset`, most significant byte first.
    func unsignedBigEndian(at offset: Int, count: Int) -> Int {
        self[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The two's-complement integer in `count` bytes at `offset`, least significant byte first.
    func signedLittleEndian(at offset: Int, count: Int) -> Int {
        signExtended(unsignedLittleEndian(at: offset, count: count), bits: 8 * count)
    }

    /// The two's-complement integer in `count` bytes at `offset`, most significant byte first.
    func signedBigEndian(at offset: Int, count: Int) -> Int {
        signExtended(unsignedBigEndian(at: offset, count: count), bits: 8 * count)
    }
}

/// Reads the low `bits` bits of `value` as a two's-complement number.
func signExtended(_ value: Int, bits: Int) -> Int {
    let shift = Int.bitWidth - bits
    return (value << shift) >> shift
}

/// `value` in lower-case hex, zero-padded to at least `digits` digits (`0x` not included).
func paddedHex(_ value: some BinaryInteger, digits: Int) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}
