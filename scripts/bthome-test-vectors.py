#!/usr/bin/python3
"""Prints the encrypted BTHome v2 test vectors in Tests/ThermometerProfilesTests/BTHomeEncryptionTests.swift.

An independent implementation of the packet layout (bthome.io/encryption), using Debian's
python3-cryptography (OpenSSL's AES-CCM), so the Swift decoder (Nettle's AES-CCM) is checked
against a second library. Run with /usr/bin/python3; the tests use the printed bytes only.
"""
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

KEY = bytes.fromhex("e9ea895fac7cca6d30532432a516f3a8")
ADDRESS = bytes.fromhex("A4C1388D18B2")  # A4:C1:38:8D:18:B2, as written


def packet(plaintext_hex: str, counter: int, device_info: int = 0x41, address: bytes = ADDRESS) -> bytes:
    """Service data for UUID 0xFCD2: device info, [address reversed], ciphertext, counter, tag."""
    counter_bytes = counter.to_bytes(4, "little")
    nonce = address + b"\xd2\xfc" + bytes([device_info]) + counter_bytes
    sealed = AESCCM(KEY, tag_length=4).encrypt(nonce, bytes.fromhex(plaintext_hex), None)
    ciphertext, tag = sealed[:-4], sealed[-4:]
    included = address[::-1] if device_info & 0x02 else b""
    return bytes([device_info]) + included + ciphertext + counter_bytes + tag


VECTORS = [
    # name, plaintext objects, counter, device info
    ("counter1000", "002a015702660803a00f0c860b", 1000, 0x41),  # #42, 87 %, 21.50 °C, 40.00 %, 2.950 V
    ("counter1001", "002b015702700803aa0f", 1001, 0x41),  # #43, 87 %, 21.60 °C, 40.10 %
    ("counter999", "0029025c08", 999, 0x41),  # #41, 21.40 °C: older than 1000
    ("counter5", "00010164020008", 5, 0x41),  # #1, 100 %, 20.48 °C: after a battery change
    ("addressIncluded", "02c409", 77, 0x43),  # 25.00 °C, the address inside the packet
    ("unknownObject", "02c409ee01", 1002, 0x41),  # 25.00 °C, then object 0xEE
]

if __name__ == "__main__":
    for name, plaintext, counter, info in VECTORS:
        print(f"{name}: {packet(plaintext, counter, info).hex()}")
