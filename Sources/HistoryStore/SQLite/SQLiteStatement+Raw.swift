import CSQLite

/// A value as sent (`Measurement.raw`, `ReadingFailure.rawHex`), stored in a `BLOB` column:
/// lower-case hex as the bytes it spells (half the room), any other text as TEXT. Reading
/// the column back spells a BLOB in lower-case hex again, so every value round-trips
/// exactly, whatever made it.
extension SQLiteStatement {
    /// Binds `raw` at `index`: its bytes when it is lower-case hex, else the text.
    func bindRaw(_ index: Int32, _ raw: String) {
        var raw = raw
        let bound = raw.withUTF8 { utf8 -> Bool in
            let count = utf8.count / 2
            guard count > 0, utf8.count % 2 == 0 else { return false }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { bytes in
                for index in 0..<count {
                    guard let high = Self.hexValue(utf8[2 * index]), let low = Self.hexValue(utf8[2 * index + 1])
                    else { return false }
                    bytes[index] = high << 4 | low
                }
                bindBlob(index, UnsafeRawBufferPointer(bytes))
                return true
            }
        }
        if !bound { bind(index, raw) }
    }

    /// Column `index` as a value as sent: a BLOB in lower-case hex, TEXT as it is.
    func rawText(_ index: Int32) -> String {
        guard columnType(index) == SQLITE_BLOB else { return text(index) ?? "" }
        let bytes = blob(index)
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (offset, byte) in bytes.enumerated() {
                buffer[2 * offset] = digits[Int(byte >> 4)]
                buffer[2 * offset + 1] = digits[Int(byte & 0xF)]
            }
            return bytes.count * 2
        }
    }

    /// The value of a lower-case hex digit; nil for anything else (upper case included, so
    /// `"AB"` stays the text it was).
    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
