import CNettle

/// AES-128 in CCM mode with a 4-byte tag, the cipher of encrypted advertisements (BTHome,
/// Xiaomi MiBeacon), from Nettle (never a hand-written AES), loaded the first time a payload
/// is opened (CNettle's `cnettle_load`).
public enum AESCCM {
    /// Why Nettle cannot be loaded (the dynamic loader's words), or nil when it can: with it
    /// missing every sealed payload is refused, so a daemon given keys says so at start.
    public static var unavailable: String? {
        cnettle_load().map { "encrypted advertisements need libnettle (Debian's libnettle8): \(String(cString: $0))" }
    }

    /// The length of the authentication tag (the formats' "MIC").
    static let tagLength = 4
    /// The nonce lengths CCM allows: BTHome's and MiBeacon v2/v3's are 13 bytes, MiBeacon
    /// v4/v5's 12.
    static let nonceLengths = 7...13

    /// Decrypts and authenticates `ciphertext` followed by `tag`; `nil` when the tag does not
    /// match (a wrong key, or a corrupted or forged packet) or the key is not 16 bytes.
    ///
    /// - Parameters:
    ///   - ciphertext: At least one byte.
    ///   - nonce: The nonce, 7 to 13 bytes.
    ///   - associatedData: Authenticated, not encrypted (MiBeacon's `0x11`; none for BTHome).
    static func open(
        _ ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>, nonce: [UInt8], associatedData: [UInt8] = [],
        key: AdvertisementKey
    ) -> [UInt8]? {
        precondition(!ciphertext.isEmpty && tag.count == tagLength && nonceLengths.contains(nonce.count))
        guard key.bytes.count == 16, cnettle_load() == nil else { return nil }
        let nettle = cnettle_table().pointee
        let sealed = Array(ciphertext) + tag
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let valid = withContext(key: key.bytes) { context in
            nonce.withUnsafeBufferPointer { nonce in
                associatedData.withUnsafeBufferPointer { data in
                    sealed.withUnsafeBufferPointer { sealed in
                        plaintext.withUnsafeMutableBufferPointer { plaintext in
                            nettle.decrypt_message(
                                context, nonce.count, nonce.baseAddress, data.count, data.baseAddress, tagLength,
                                plaintext.count, plaintext.baseAddress, sealed.baseAddress)
                        }
                    }
                }
            }
        }
        return valid == 1 ? plaintext : nil
    }

    /// Decrypts `ciphertext` without authenticating it: for MiBeacon v2/v3, whose packets
    /// carry no tag a receiver can check (a wrong key yields bytes that do not parse).
    /// Empty when Nettle cannot be loaded.
    static func decryptUnauthenticated(_ ciphertext: ArraySlice<UInt8>, nonce: [UInt8], key16: [UInt8]) -> [UInt8] {
        precondition(!ciphertext.isEmpty && nonceLengths.contains(nonce.count) && key16.count == 16)
        guard cnettle_load() == nil else { return [] }
        let nettle = cnettle_table().pointee
        let input = Array(ciphertext)
        var plaintext = [UInt8](repeating: 0, count: input.count)
        withContext(key: key16) { context in
            nonce.withUnsafeBufferPointer { nonce in
                nettle.set_nonce(context, nonce.count, nonce.baseAddress, 0, input.count, tagLength)
            }
            input.withUnsafeBufferPointer { input in
                plaintext.withUnsafeMutableBufferPointer { plaintext in
                    nettle.decrypt(context, input.count, plaintext.baseAddress, input.baseAddress)
                }
            }
        }
        return plaintext
    }

    /// Runs `body` with a context keyed with `key` (16 bytes), wiped afterwards: the expanded
    /// key stays on the stack only while it is needed.
    private static func withContext<T>(key: [UInt8], _ body: (UnsafeMutablePointer<ccm_aes128_ctx>) -> T) -> T {
        var context = ccm_aes128_ctx()
        defer {
            withUnsafeMutableBytes(of: &context) { bytes in _ = bytes.initializeMemory(as: UInt8.self, repeating: 0) }
        }
        key.withUnsafeBufferPointer { cnettle_table().pointee.set_key(&context, $0.baseAddress) }
        return withUnsafeMutablePointer(to: &context, body)
    }
}
