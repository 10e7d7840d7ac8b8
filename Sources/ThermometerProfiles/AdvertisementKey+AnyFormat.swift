extension AdvertisementKey {
    /// Parses a key given without its format (a key file's `ADDRESS = HEX` line): 32 hex
    /// digits, which BTHome and MiBeacon v4/v5 take, or 24 for MiBeacon v2/v3. The device's
    /// advertisements decide which format uses it; a length its format does not take shows
    /// as that format's reading error.
    public static func anyFormat(hex text: some StringProtocol) throws(ParseError) -> AdvertisementKey {
        try AdvertisementKey(hex: text, format: "sensor", byteCounts: [16, 12])
    }
}
