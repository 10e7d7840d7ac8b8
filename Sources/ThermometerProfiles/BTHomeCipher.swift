import CNettle

/// AES-128 in CCM mode with a 4-byte tag, the cipher of encrypted BTHome advertisements,
/// from Nettle (never a hand-written AES).
enum BTHomeCipher {
    /// The length of the authentication tag (BTHome's "MIC").
    static let tagLength = 4

    /// Decrypts and authenticates `ciphertext` followed by `tag`; `nil` when the tag does not
    /// match (a wrong key, or a corrupted or forged packet).
    ///
    /// - Parameters:
    ///   - ciphertext: At least one byte.
    ///   - nonce: The 13-byte nonce (address, UUID, device information, counter).
    static func open(
        _ ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>, nonce: [UInt8], key: BTHomeKey
    ) -> [UInt8]? {
        precondition(!ciphertext.isEmpty && tag.count == tagLength && nonce.count == 13)
        let sealed = Array(ciphertext) + tag
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        var context = ccm_aes128_ctx()
        // The expanded key stays on the stack only while it is needed.
        defer {
            withUnsafeMutableBytes(of: &context) { bytes in _ = bytes.initializeMemory(as: UInt8.self, repeating: 0) }
        }
        key.bytes.withUnsafeBufferPointer { nettle_ccm_aes128_set_key(&context, $0.baseAddress) }
        let valid = nonce.withUnsafeBufferPointer { nonce in
            sealed.withUnsafeBufferPointer { sealed in
                plaintext.withUnsafeMutableBufferPointer { plaintext in
                    nettle_ccm_aes128_decrypt_message(
                        &context, nonce.count, nonce.baseAddress, 0, nil, tagLength, plaintext.count,
                        plaintext.baseAddress, sealed.baseAddress)
                }
            }
        }
        return valid == 1 ? plaintext : nil
    }
}
